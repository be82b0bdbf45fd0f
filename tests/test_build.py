"""The build: every declaration validated, every problem reported in one run with its code,
the schedule's name, file:line and a mend; on success, what the Worker loads."""

import importlib.util
import shutil
import textwrap
from pathlib import Path

import pytest
from helpers import ROOT
from tickwork_build.__main__ import main as build_main
from tickwork_build.build import build
from tickwork_build.problems import BuildFailed

WRANGLER = """\
name = "app"
main = "build/app/entry.py"
compatibility_date = "2026-04-21"
compatibility_flags = ["python_workers"]
{databases}
[triggers]
crons = ["* * * * *"]
"""

ONE_DATABASE = """
[[d1_databases]]
binding = "DB"
database_name = "main"
database_id = "x"
"""

TWO_DATABASES = ONE_DATABASE + """
[[d1_databases]]
binding = "ARCHIVE"
database_name = "archive"
database_id = "y"
"""

ACTIONS = """\
async def queue_chore_census():
    pass

def not_async():
    pass

async def takes_a_parameter(todo):
    pass
"""


def project(tmp_path: Path, schedules: dict[str, str], *, databases=ONE_DATABASE,
            tool="", actions=ACTIONS, other_domains=None) -> Path:
    """A project with domain `planning` holding `schedules` (file name to .jadpo text)."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "pyproject.toml").write_text(f'[tool.tickwork]\napp = "src/app"\n{tool}')
    (tmp_path / "wrangler.toml").write_text(WRANGLER.format(databases=databases))
    app = tmp_path / "src" / "app"
    domains = {"planning": actions, **(other_domains or {})}
    for domain, source in domains.items():
        (app / "domains" / domain / "schedules").mkdir(parents=True)
        (app / "domains" / domain / "__init__.py").write_text(source)
    (app / "__init__.py").write_text("")
    (app / "domains" / "__init__.py").write_text("")
    (tmp_path / "src" / "entry.py").write_text("")
    for name, text in schedules.items():
        path = app / "domains" / "planning" / "schedules" / name
        path.write_text(textwrap.dedent(text))
    return tmp_path


def problems(root: Path):
    with pytest.raises(BuildFailed) as failed:
        build(root)
    return failed.value.problems


def codes(root: Path):
    return [(p.code, p.name, p.line) for p in problems(root)]


CENSUS = """\
    // domains/planning/schedules/chore_census.jadpo
    /// Queues a reminder for each overdue todo.
    schedule chore_census {
        every: 15m
        run: queue_chore_census()
    }
"""


def test_the_example_app_builds_with_the_documents_own_schedule(tmp_path):
    root = tmp_path / "example"
    shutil.copytree(ROOT / "src", root / "src", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "migrations", root / "migrations")  # the app's tables, for its purge
    for name in ("pyproject.toml", "wrangler.toml"):
        shutil.copy(ROOT / name, root / name)
    built = build(root)
    census = next(spec for spec in built.schedules if spec.name == "chore_census")
    assert (census.domain, census.action, census.every_ms) == ("planning", "queue_chore_census", 900_000)
    assert census.source == "src/app/domains/planning/schedules/chore_census.jadpo:3"
    assert (root / "build" / "app" / "entry.py").exists()
    assert (root / "build" / "app" / "tickwork_manifest.py").exists()


def test_a_valid_schedule_is_written_to_the_manifest_the_worker_loads(tmp_path):
    built = build(project(tmp_path, {"chore_census.jadpo": CENSUS}))
    spec = importlib.util.spec_from_file_location("manifest", built.manifest)
    manifest = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(manifest)
    assert manifest.STORE == "DB"
    assert manifest.STATEMENTS_PER_TICK == 900
    assert manifest.SCHEDULES == (
        {
            "kind": "schedule",
            "name": "chore_census",
            "domain": "planning",
            "module": "app.domains.planning",
            "action": "queue_chore_census",
            "every_ms": 900_000,
            "source": "src/app/domains/planning/schedules/chore_census.jadpo:3",
        },
    )


def test_a_schedule_declared_in_python_compiles_to_the_same_model(tmp_path):
    from_jadpo = build(project(tmp_path / "a", {"chore_census.jadpo": CENSUS})).schedules
    decorated = 'from tickwork import schedule\n\n@schedule(every="15m")\nasync def chore_census():\n    pass\n'
    named = ACTIONS + '\nfrom tickwork import schedule\nschedule(every="15m", name="chore_census")(queue_chore_census)\n'
    from_python = build(project(tmp_path / "b", {}, actions=named)).schedules
    assert [s.model_dump(exclude={"source"}) for s in from_python] == [
        s.model_dump(exclude={"source"}) for s in from_jadpo
    ]
    assert from_python[0].source == "src/app/domains/planning/__init__.py:11"
    [plain] = build(project(tmp_path / "c", {}, actions=decorated)).schedules
    assert (plain.name, plain.action, plain.every_ms) == ("chore_census", "chore_census", 900_000)


def test_more_declared_schedules_than_an_isolate_holds_are_too_many_schedules(tmp_path):
    from tickwork_build.build import MOST_DECLARED

    many = ACTIONS + (f'\nfrom tickwork import schedule\nfor k in range({MOST_DECLARED + 1}):\n'
                      '    schedule(every="1d", name=f"chore_{k}")(queue_chore_census)\n')
    with pytest.raises(BuildFailed) as failed:
        build(project(tmp_path, {}, actions=many))
    [problem] = failed.value.problems
    assert (problem.code, problem.file, problem.line) == ("deployable.too_many_schedules",
                                                           "src/app/domains/planning/__init__.py", 12)
    assert f"{MOST_DECLARED + 1:,} schedules are declared" in problem.message
    assert "items" in problem.mend


def test_the_manifest_keeps_the_schedules_as_json_and_the_command_reads_them_without_importing_it(tmp_path):
    from tickwork_cli.manifest import declared

    root = project(tmp_path, {"chore_census.jadpo": CENSUS})
    built = build(root)
    assert 'SCHEDULES = tuple(json.loads(r"""[' in built.manifest.read_text()
    assert declared(root)["chore_census"]["every_ms"] == 900_000


def test_the_manifests_json_holds_any_text_a_schedule_declares():
    """Quotes, backslashes and escapes in a raw triple-quoted string of JSON: what the Worker
    imports and what the command reads is what was declared."""
    import ast

    from tickwork_build.output import manifest_source
    from tickwork_build.schedules import Spec
    from tickwork_cli.manifest import _literal

    texts = ['"""', "'''", "\\", 'a\\', '\\"""', '""""', '\\N{BULLET}', '\\u0041', '\\x00', "é€😀",
             "\ud800", "\n\r\t\x00", ']"""))\nimport os\n#', '"\\']
    specs = [Spec(kind="calendar", name=f"s{k}", domain=text, module=text, action=text, source=f"{text}:{k}",
                  cron=text, zone=text, nonexistent=text, repeated=text) for k, text in enumerate(texts)]
    source = manifest_source("DB", specs, 10)
    imported: dict = {}
    exec(compile(source, "tickwork_manifest.py", "exec"), imported)
    [schedules] = [node.value for node in ast.parse(source).body
                   if isinstance(node, ast.Assign) and node.targets[0].id == "SCHEDULES"]
    declared = tuple(spec.manifest_entry() for spec in sorted(specs, key=lambda spec: spec.name))
    assert imported["SCHEDULES"] == _literal(schedules) == declared


def test_the_build_adds_the_minute_cron_trigger_to_wrangler_toml(tmp_path):
    root = project(tmp_path, {"chore_census.jadpo": CENSUS})
    wrangler = root / "wrangler.toml"
    wrangler.write_text(wrangler.read_text().replace('crons = ["* * * * *"]', 'crons = ["0 3 * * *"]'))
    build(root)
    assert 'crons = ["0 3 * * *", "* * * * *"]' in wrangler.read_text()
    wrangler.write_text(wrangler.read_text().split("[triggers]")[0])
    build(root)
    assert wrangler.read_text().endswith('[triggers]\ncrons = ["* * * * *"]\n')


@pytest.mark.parametrize("every", ["15 mins", "0m", "1.5h", "15", "m", "-5m", "15M", "1w", ""])
def test_every_that_is_not_a_whole_number_above_zero_of_s_m_h_or_d_is_every_invalid(tmp_path, every):
    text = f"schedule chore_census {{\n    every: {every}\n    run: queue_chore_census()\n}}\n"
    assert codes(project(tmp_path, {"c.jadpo": text})) == [
        ("schedule.every_invalid", "chore_census", 2)
    ]


def test_a_schedule_without_every_is_every_invalid(tmp_path):
    text = "schedule chore_census { run: queue_chore_census() }"
    assert codes(project(tmp_path, {"c.jadpo": text})) == [("schedule.every_invalid", "chore_census", 1)]


@pytest.mark.parametrize(
    "run",
    [
        "queue_chore_census",  # not a call
        "queue_chore_census(1)",  # arguments
        "missing()",  # no such action
        "not_async()",  # not an async def
        "takes_a_parameter()",  # takes parameters
        "reporting_only()",  # an action of another domain
        "asyncio()",  # a module-level name that is no action
        "",
    ],
)
def test_run_that_is_not_a_bare_call_of_an_action_of_the_domain_is_run_invalid(tmp_path, run):
    text = f"schedule chore_census {{\n  every: 15m\n  run: {run}\n}}\n"
    others = {"reporting": "async def reporting_only():\n    pass\n"}
    actions = "import asyncio\n" + ACTIONS
    root = project(tmp_path, {"c.jadpo": text}, actions=actions, other_domains=others)
    assert codes(root) == [("schedule.run_invalid", "chore_census", 3)]


def test_a_schedule_holding_anything_but_every_and_run_is_item_invalid(tmp_path):
    text = "schedule chore_census {\n  every: 15m\n  run: queue_chore_census()\n  retries: 3\n}\n"
    [problem] = problems(project(tmp_path, {"c.jadpo": text}))
    assert (problem.code, problem.name, problem.line) == ("schedule.item_invalid", "chore_census", 4)
    assert "retries" in problem.message and problem.mend


def test_an_item_given_twice_is_item_invalid(tmp_path):
    text = "schedule chore_census {\n  every: 15m\n  every: 1h\n  run: queue_chore_census()\n}\n"
    assert codes(project(tmp_path, {"c.jadpo": text})) == [("schedule.item_invalid", "chore_census", 3)]


def test_a_schedule_name_declared_twice_is_item_invalid_at_the_second(tmp_path):
    root = project(tmp_path, {"a.jadpo": CENSUS, "b.jadpo": CENSUS})
    [problem] = problems(root)
    assert (problem.code, problem.file) == ("schedule.item_invalid", "src/app/domains/planning/schedules/b.jadpo")
    assert "a.jadpo:3" in problem.message


def test_without_a_d1_database_each_schedule_is_store_required(tmp_path):
    two = {"a.jadpo": CENSUS, "b.jadpo": CENSUS.replace("chore_census {", "other {")}
    assert codes(project(tmp_path, two, databases="")) == [
        ("schedule.store_required", "chore_census", 3),
        ("schedule.store_required", "other", 3),
    ]


def test_several_databases_and_none_named_the_store_is_store_required(tmp_path):
    root = project(tmp_path, {"c.jadpo": CENSUS}, databases=TWO_DATABASES)
    [problem] = problems(root)
    assert problem.code == "schedule.store_required"
    assert "DB, ARCHIVE" in problem.message and "[tool.tickwork] store" in problem.mend


def test_several_databases_with_one_named_the_store_build(tmp_path):
    root = project(tmp_path, {"c.jadpo": CENSUS}, databases=TWO_DATABASES, tool='store = "archive"\n')
    assert build(root).store == "ARCHIVE"


def test_a_store_named_but_not_bound_is_store_required(tmp_path):
    root = project(tmp_path, {"c.jadpo": CENSUS}, tool='store = "main_db"\n')
    assert [p.code for p in problems(root)] == ["schedule.store_required"]


def test_every_under_a_minute_is_target_unsupported_on_a_worker_naming_the_schedule(tmp_path):
    root = project(tmp_path, {"c.jadpo": CENSUS.replace("15m", "30s")})
    [problem] = problems(root)
    assert (problem.code, problem.name, problem.line) == ("deployable.target_unsupported", "chore_census", 4)


def test_every_problem_is_reported_in_one_run(tmp_path):
    many = {
        "a.jadpo": "schedule a { every: 30s  run: queue_chore_census() }",
        "b.jadpo": "schedule b {\n every: soon\n run: nothing()\n colour: red\n}",
        "c.jadpo": "schedule c { every: 15m run: queue_chore_census() ",
    }
    assert sorted((p.code, p.file.rsplit("/", 1)[1], p.line) for p in problems(project(tmp_path, many))) == [
        ("declaration.syntax_invalid", "c.jadpo", 1),
        ("deployable.target_unsupported", "a.jadpo", 1),
        ("schedule.every_invalid", "b.jadpo", 2),
        ("schedule.item_invalid", "b.jadpo", 4),
        ("schedule.run_invalid", "b.jadpo", 3),
    ]


@pytest.mark.parametrize(
    "text, line, words",
    [
        ("schedule c {\n  every: 15m\n  run: queue_chore_census()\n", 1, "never closed"),
        ("schedule c {\n  every: 15m\n  run: queue_chore_census()\n}\n}\n", 5, "unknown declaration `}`"),
        ("\n\nschedul c { every: 15m }", 3, "unknown declaration `schedul`"),
        ("schedule { every: 15m }", 1, "not followed by a name"),
        ("schedule c every: 15m", 1, "not followed by `{`"),
        ("schedule c {\n  every 15m\n}", 2, "expected `key: value`"),
        ('schedule c {\n  every: "15m\n}', 2, "string is not closed"),
    ],
)
def test_a_malformed_file_is_a_syntax_problem_with_its_line(tmp_path, text, line, words):
    [problem] = problems(project(tmp_path, {"c.jadpo": text}))
    assert (problem.code, problem.file, problem.line) == (
        "declaration.syntax_invalid",
        "src/app/domains/planning/schedules/c.jadpo",
        line,
    )
    assert words in problem.message


def test_a_domain_that_fails_to_import_is_reported_where_it_fails(tmp_path):
    root = project(tmp_path, {"c.jadpo": CENSUS}, actions="x = 1\nraise RuntimeError('no config')\n")
    found = problems(root)
    assert found[0].code == "domain.import_failed"
    assert (found[0].file, found[0].line) == ("src/app/domains/planning/__init__.py", 2)


def test_items_may_share_a_line_and_comments_go_anywhere(tmp_path):
    text = "// all on one line\nschedule chore_census { every: 15m  run: queue_chore_census() } // done\n"
    [spec] = build(project(tmp_path, {"c.jadpo": text})).schedules
    assert spec.every_ms == 900_000


def test_the_command_prints_each_problem_with_code_name_place_and_mend_and_exits_non_zero(tmp_path, capsys):
    root = project(tmp_path, {"c.jadpo": CENSUS.replace("15m", "30s")})
    assert build_main([str(root)]) == 1
    err = capsys.readouterr().err
    assert "src/app/domains/planning/schedules/c.jadpo:4: deployable.target_unsupported: chore_census:" in err
    assert "mend: use `every: 1m` or more" in err
    assert "Traceback" not in err


def test_the_command_reports_what_it_built(tmp_path, capsys):
    assert build_main([str(project(tmp_path, {"c.jadpo": CENSUS}))]) == 0
    assert "built 1 schedule(s) (chore_census)" in capsys.readouterr().out


WEEKLY = """\
    /// The sales report, nine on Monday morning in Berlin.
    calendar weekly_report {
        cron: "0 9 * * 1"
        zone: Europe/Berlin
        overdue: 3600
        run: queue_chore_census()
    }
"""

SWEEP = """\
    pulse sweep {
        cycle: 86400
        intervals: 24
        run: queue_chore_census()
    }
"""


def test_calendars_and_pulses_are_declarations_of_their_own_written_to_the_manifest(tmp_path):
    built = build(project(tmp_path, {"weekly.jadpo": WEEKLY, "sweep.jadpo": SWEEP}))
    by_name = {spec.name: spec.manifest_entry() for spec in built.schedules}
    assert by_name["weekly_report"] == {
        "kind": "calendar", "name": "weekly_report", "domain": "planning", "module": "app.domains.planning",
        "action": "queue_chore_census", "source": "src/app/domains/planning/schedules/weekly.jadpo:2",
        "cron": "0 9 * * 1", "zone": "Europe/Berlin", "overdue_ms": 3_600_000,
        "nonexistent": "shift", "repeated": "first",
    }
    assert by_name["sweep"]["cycle_ms"] == 86_400_000 and by_name["sweep"]["intervals"] == 24


def test_a_calendar_defaults_to_utc_and_a_pulse_to_one_interval(tmp_path):
    text = 'calendar noon { cron: 0 12 * * 1-5  run: queue_chore_census() }\npulse expire { cycle: 5m  run: queue_chore_census() }'
    by_name = {s.name: s for s in build(project(tmp_path, {"c.jadpo": text})).schedules}
    assert (by_name["noon"].zone, by_name["noon"].cron, by_name["noon"].overdue_ms) == ("UTC", "0 12 * * 1-5", None)
    assert (by_name["expire"].cycle_ms, by_name["expire"].intervals) == (300_000, 1)


def test_calendars_and_pulses_declared_in_python_compile_to_the_same_model(tmp_path):
    from_jadpo = build(project(tmp_path / "a", {"weekly.jadpo": WEEKLY, "sweep.jadpo": SWEEP})).schedules
    python = ACTIONS + (
        "\nfrom tickwork import calendar, pulse\n"
        'calendar("0 9 * * 1", zone="Europe/Berlin", overdue=3600, name="weekly_report")(queue_chore_census)\n'
        'pulse(cycle=86400, intervals=24, name="sweep")(queue_chore_census)\n'
    )
    from_python = build(project(tmp_path / "b", {}, actions=python)).schedules
    def model(specs):
        return sorted((s.model_dump(exclude={"source"}) for s in specs), key=lambda d: d["name"])

    assert model(from_python) == model(from_jadpo)


def calendar_with(item: str) -> dict[str, str]:
    return {"c.jadpo": f"calendar weekly_report {{\n  {item}\n  run: queue_chore_census()\n}}\n"}


def pulse_with(items: str) -> dict[str, str]:
    return {"p.jadpo": f"pulse sweep {{\n  {items}\n  run: queue_chore_census()\n}}\n"}


@pytest.mark.parametrize(
    "item",
    ['cron: "0 0 30 2 *"', 'cron: "61 * * * *"', 'cron: "* * *"', 'cron: "* * * * * * *"', "cron: every monday", 'cron: ""'],
)
def test_a_cron_that_does_not_parse_has_the_wrong_fields_or_never_comes_due_is_cron_invalid(tmp_path, item):
    assert codes(project(tmp_path, calendar_with(item))) == [("schedule.cron_invalid", "weekly_report", 2)]


def test_a_calendar_without_cron_is_cron_invalid(tmp_path):
    assert codes(project(tmp_path, calendar_with("zone: UTC"))) == [("schedule.cron_invalid", "weekly_report", 1)]


@pytest.mark.parametrize("zone", ["Mars/Olympus_Mons", "../../etc/passwd", "/etc/localtime", "berlin"])
def test_a_zone_that_is_not_an_iana_zone_is_zone_invalid(tmp_path, zone):
    files = calendar_with(f'cron: "0 9 * * 1"\n  zone: {zone}')
    assert codes(project(tmp_path, files)) == [("schedule.zone_invalid", "weekly_report", 3)]


@pytest.mark.parametrize("overdue", ["0", "soon", "-5", "1.5h"])
def test_an_overdue_that_is_not_a_whole_number_of_seconds_above_zero_is_overdue_invalid(tmp_path, overdue):
    files = calendar_with(f'cron: "0 9 * * 1"\n  overdue: {overdue}')
    assert codes(project(tmp_path, files)) == [("schedule.overdue_invalid", "weekly_report", 3)]


@pytest.mark.parametrize("rule", ["nonexistent: later", "repeated: twice"])
def test_a_daylight_saving_rule_that_is_not_one_of_the_choices_is_dst_invalid(tmp_path, rule):
    files = calendar_with(f'cron: "0 9 * * 1"\n  {rule}')
    assert codes(project(tmp_path, files)) == [("schedule.dst_invalid", "weekly_report", 3)]


@pytest.mark.parametrize("items", ["cycle: 300\n  intervals: 0", "cycle: 300\n  intervals: 301", "cycle: 300\n  intervals: some"])
def test_intervals_below_one_or_above_the_cycle_are_intervals_invalid(tmp_path, items):
    assert codes(project(tmp_path, pulse_with(items))) == [("schedule.intervals_invalid", "sweep", 3)]


def test_a_cycle_that_is_not_a_whole_number_of_seconds_above_zero_is_cycle_invalid(tmp_path):
    assert codes(project(tmp_path, pulse_with("cycle: 0"))) == [("schedule.cycle_invalid", "sweep", 2)]


@pytest.mark.parametrize(
    "files, name, line",
    [
        (calendar_with('cron: "*/30 * * * * *"'), "weekly_report", 2),
        (calendar_with('cron: "* * * * * *"'), "weekly_report", 2),
        (pulse_with("cycle: 30"), "sweep", 2),
        (pulse_with("cycle: 300\n  intervals: 10"), "sweep", 2),
    ],
)
def test_a_calendar_or_pulse_due_more_often_than_once_a_minute_is_target_unsupported(tmp_path, files, name, line):
    assert codes(project(tmp_path, files)) == [("deployable.target_unsupported", name, line)]


def test_a_calendar_naming_one_second_of_the_minute_is_supported(tmp_path):
    [spec] = build(project(tmp_path, calendar_with('cron: "30 0 9 * * 1"'))).schedules
    assert spec.cron == "30 0 9 * * 1"


def test_a_calendar_may_not_hold_every(tmp_path):
    files = calendar_with('cron: "0 9 * * 1"\n  every: 15m')
    assert codes(project(tmp_path, files)) == [("schedule.item_invalid", "weekly_report", 3)]


@pytest.mark.parametrize(
    "triggers",
    [
        '[env.staging.triggers]\ncrons = ["0 * * * *"]\n\n[triggers]\ncrons = ["0 3 * * *"]\n',
        '[triggers] # the Worker\'s clock\ncrons = [\n  "0 3 * * *",\n]\n',
        '[triggers]\n',
        '',
    ],
)
def test_the_minute_cron_is_added_to_the_top_level_triggers_whatever_else_the_file_holds(tmp_path, triggers):
    import tomllib

    root = project(tmp_path, {"chore_census.jadpo": CENSUS})
    wrangler = root / "wrangler.toml"
    wrangler.write_text(wrangler.read_text().split("[triggers]")[0] + triggers)
    build(root)
    parsed = tomllib.loads(wrangler.read_text())
    assert "* * * * *" in parsed["triggers"]["crons"]
    if "staging" in triggers:
        assert parsed["env"]["staging"]["triggers"]["crons"] == ["0 * * * *"]


@pytest.mark.parametrize(
    "crons, kept",
    [
        ('[\n  "0 3 * * *", # the nightly [backup]\n  "0 4 * * *",\n]', ["0 3 * * *", "0 4 * * *"]),
        ('["0 3 * * *"] # [the clock]', ["0 3 * * *"]),
        ('["0 3 * * *", "a\\\\b \\"q\\" \\u0000 \\u007f ]"]', ["0 3 * * *", 'a\\b "q" \u0000 \u007f ]']),
    ],
)
def test_the_minute_cron_is_added_to_the_crons_written_keeping_each_as_it_is(tmp_path, crons, kept):
    import tomllib

    root = project(tmp_path, {"chore_census.jadpo": CENSUS})
    wrangler = root / "wrangler.toml"
    wrangler.write_text(wrangler.read_text().split("[triggers]")[0] + f"[triggers]\ncrons = {crons}\n")
    build(root)
    assert tomllib.loads(wrangler.read_text())["triggers"]["crons"] == [*kept, "* * * * *"]


def test_triggers_the_build_cannot_edit_are_a_problem_not_a_worker_that_never_ticks(tmp_path):
    root = project(tmp_path, {"chore_census.jadpo": CENSUS})
    wrangler = root / "wrangler.toml"
    inline = 'triggers = { crons = ["0 * * * *"] }\n'
    wrangler.write_text(inline + wrangler.read_text().split("[triggers]")[0])
    assert [p.code for p in problems(root)] == ["deployable.trigger_missing"]


def test_a_jadpo_file_that_is_not_utf8_is_a_syntax_problem_with_its_line(tmp_path):
    root = project(tmp_path, {})
    (root / "src/app/domains/planning/schedules/c.jadpo").write_bytes(b"// ok\n// \xff\n")
    [problem] = problems(root)
    assert (problem.code, problem.line) == ("declaration.syntax_invalid", 2)


def test_a_jadpo_file_may_start_with_a_byte_order_mark(tmp_path):
    root = project(tmp_path, {})
    (root / "src/app/domains/planning/schedules/c.jadpo").write_text("\ufeff" + textwrap.dedent(CENSUS))
    assert [s.name for s in build(root).schedules] == ["chore_census"]


def test_another_name_for_a_decorated_action_declares_nothing_more(tmp_path):
    decorated = 'from tickwork import schedule\n\n@schedule(every="1h")\nasync def tidy_up():\n    pass\n\ncleanup = tidy_up\n'
    others = {"reporting": "from app.domains.planning import tidy_up\n"}
    built = build(project(tmp_path, {}, actions=decorated, other_domains=others))
    assert [(s.name, s.domain) for s in built.schedules] == [("tidy_up", "planning")]


@pytest.mark.parametrize("zone", ["localtime", "posixrules", "right/UTC", "posix/Europe/Berlin"])
def test_a_zone_the_vendored_tzdata_lacks_is_zone_invalid(tmp_path, zone):
    files = calendar_with(f'cron: "0 9 * * 1"\n  zone: {zone}')
    assert codes(project(tmp_path, files)) == [("schedule.zone_invalid", "weekly_report", 3)]


@pytest.mark.parametrize(
    "files, code",
    [
        ({"c.jadpo": CENSUS.replace("15m", "200000000000d")}, "schedule.every_invalid"),
        (pulse_with("cycle: 99999999999999"), "schedule.cycle_invalid"),
    ],
)
def test_a_duration_longer_than_a_century_is_refused(tmp_path, files, code):
    assert [p.code for p in problems(project(tmp_path, files))] == [code]


def test_the_statements_a_tick_may_make_are_a_setting_written_to_the_manifest(tmp_path):
    built = build(project(tmp_path, {"c.jadpo": CENSUS}, tool="d1_statements_per_tick = 40\n"))
    assert built.statements_per_tick == 40
    assert "STATEMENTS_PER_TICK = 40" in built.manifest.read_text()


@pytest.mark.parametrize("value", ["0", "5000", '"many"', "true"])
def test_statements_per_tick_outside_ten_to_a_thousand_is_refused(tmp_path, value):
    root = project(tmp_path, {"c.jadpo": CENSUS}, tool=f"d1_statements_per_tick = {value}\n")
    [problem] = problems(root)
    assert (problem.code, problem.file, problem.line) == ("settings.statements_per_tick_invalid", "pyproject.toml", 3)
