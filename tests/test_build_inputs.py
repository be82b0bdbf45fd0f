"""Whatever a declaration holds, the build answers with a documented code, file:line and a mend,
never a traceback: decorator names, numbers of any length, digits of other scripts, decorators
anywhere in a domain's package."""

import pytest
from test_build import ACTIONS, CENSUS, calendar_with, codes, problems, project, pulse_with
from tickwork_build.__main__ import main as build_main
from tickwork_build.build import build

THOUSANDS = "1" * 4301  # past the 4,300 digits Python's int() reads from text


@pytest.mark.parametrize("name", ["123", '["a"]', 'b"a"', '""', '"a b"', '"1st"', "0", "[]"])
def test_a_decorator_name_that_is_not_a_schedule_name_is_item_invalid_at_the_decorator(tmp_path, capsys, name):
    source = f'from tickwork import schedule\n\n\n@schedule(every="1h", name={name})\nasync def tidy_up():\n    pass\n'
    root = project(tmp_path, {}, actions=source)
    [problem] = problems(root)
    assert (problem.code, problem.line) == ("schedule.item_invalid", 4)
    assert problem.file == "src/app/domains/planning/__init__.py"
    assert "name=" in problem.message and "name=" in problem.mend
    assert build_main([str(root)]) == 1
    assert "Traceback" not in capsys.readouterr().err


def test_a_decorator_name_may_hold_dots_as_a_jadpo_name_may(tmp_path):
    source = 'from tickwork import schedule\n\n@schedule(every="1h", name="tidy.up_2")\nasync def tidy_up():\n    pass\n'
    assert [s.name for s in build(project(tmp_path, {}, actions=source)).schedules] == ["tidy.up_2"]


@pytest.mark.parametrize(
    "files, code, line",
    [
        ({"c.jadpo": CENSUS.replace("15m", THOUSANDS + "m")}, "schedule.every_invalid", 4),
        (pulse_with(f"cycle: {THOUSANDS}"), "schedule.cycle_invalid", 2),
        (pulse_with(f"cycle: {THOUSANDS}s"), "schedule.cycle_invalid", 2),
        (pulse_with(f"cycle: 300\n  intervals: {THOUSANDS}"), "schedule.intervals_invalid", 3),
        (calendar_with(f'cron: "0 9 * * 1"\n  overdue: {THOUSANDS}'), "schedule.overdue_invalid", 3),
    ],
)
def test_a_number_of_thousands_of_digits_has_the_items_own_code_and_a_mend(tmp_path, files, code, line):
    [problem] = problems(project(tmp_path, files))
    assert (problem.code, problem.line) == (code, line)
    assert problem.mend and len(problem.message) < 200


def test_a_number_too_long_to_print_given_to_a_decorator_is_the_items_problem_not_a_crash(tmp_path):
    source = ACTIONS + "\nfrom tickwork import pulse\npulse(cycle=10**5000, name='sweep')(queue_chore_census)\n"
    assert codes(project(tmp_path, {}, actions=source)) == [("schedule.cycle_invalid", "sweep", 11)]


@pytest.mark.parametrize(
    "files, code",
    [
        ({"c.jadpo": CENSUS.replace("15m", "١٥m")}, "schedule.every_invalid"),  # Arabic-Indic
        ({"c.jadpo": CENSUS.replace("15m", "１５m")}, "schedule.every_invalid"),  # full-width
        (pulse_with("cycle: ३००"), "schedule.cycle_invalid"),  # Devanagari
        (pulse_with("cycle: 300\n  intervals: ١٢"), "schedule.intervals_invalid"),
        (calendar_with('cron: "0 9 * * 1"\n  overdue: ３６００'), "schedule.overdue_invalid"),
    ],
)
def test_digits_other_than_ascii_are_not_numbers(tmp_path, files, code):
    assert [p.code for p in problems(project(tmp_path, files))] == [code]


JOBS = 'from tickwork import schedule\n\n\n@schedule(every="1h")\nasync def tidy_up():\n    pass\n'


def domain_with_module(tmp_path, name: str, source: str, init: str = ACTIONS):
    root = project(tmp_path, {}, actions=init)
    path = root / "src/app/domains/planning" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(source)
    return root


def test_a_decorator_in_another_module_of_the_domain_is_collected_with_its_module(tmp_path):
    built = build(domain_with_module(tmp_path, "jobs.py", JOBS))
    [spec] = built.schedules
    assert (spec.name, spec.domain, spec.action) == ("tidy_up", "planning", "tidy_up")
    assert spec.module == "app.domains.planning.jobs"
    assert spec.source == "src/app/domains/planning/jobs.py:4"


def test_a_decorator_in_a_subpackage_of_the_domain_is_collected(tmp_path):
    root = domain_with_module(tmp_path, "chores/weekly.py", JOBS)
    (root / "src/app/domains/planning/chores/__init__.py").write_text("")
    [spec] = build(root).schedules
    assert spec.module == "app.domains.planning.chores.weekly"


def test_a_decorated_action_imported_into_the_domains_module_is_declared_once(tmp_path):
    init = ACTIONS + "from .jobs import tidy_up\n"
    [spec] = build(domain_with_module(tmp_path, "jobs.py", JOBS, init)).schedules
    assert spec.module == "app.domains.planning.jobs"


def test_a_jadpo_run_names_an_action_imported_into_the_domains_module_from_its_package(tmp_path):
    jobs = "async def tidy_up():\n    pass\n"
    root = domain_with_module(tmp_path, "jobs.py", jobs, ACTIONS + "from .jobs import tidy_up\n")
    (root / "src/app/domains/planning/schedules/t.jadpo").write_text("schedule t { every: 1h  run: tidy_up() }")
    [spec] = build(root).schedules
    assert (spec.module, spec.action) == ("app.domains.planning", "tidy_up")


def test_another_module_of_the_domain_that_fails_to_import_is_reported_where_it_fails(tmp_path):
    root = domain_with_module(tmp_path, "jobs.py", "x = 1\nraise RuntimeError('no config')\n")
    [problem] = problems(root)
    assert (problem.code, problem.file, problem.line) == ("domain.import_failed", "src/app/domains/planning/jobs.py", 2)


@pytest.mark.parametrize("where", ["chores/weekly.py", "schedules/jobs.py"])
def test_a_decorator_in_a_subdirectory_without_an_init_is_collected_as_python_imports_it(tmp_path, where):
    """A directory of a domain without `__init__.py` is a namespace package: Python, and the
    Worker, import its modules all the same."""
    [spec] = build(domain_with_module(tmp_path, where, JOBS)).schedules
    assert spec.module == "app.domains.planning." + where.removesuffix(".py").replace("/", ".")


def test_a_decorated_method_is_reported_at_its_decorator_not_dropped(tmp_path):
    source = 'from tickwork import schedule\n\nclass Jobs:\n    @schedule(every="1h")\n    async def tidy_up(self):\n        pass\n'
    [problem] = problems(project(tmp_path, {}, actions=source))
    assert (problem.code, problem.file, problem.line) == ("schedule.run_invalid", "src/app/domains/planning/__init__.py", 4)
    assert "`app.domains.planning.Jobs.tidy_up`" in problem.message


def test_a_decorated_function_of_no_domain_imported_into_one_is_reported_not_dropped(tmp_path):
    root = project(tmp_path, {}, actions=ACTIONS + "from app.shared import tidy_up\n")
    (root / "src/app/shared.py").write_text(JOBS)
    [problem] = problems(root)
    assert (problem.code, problem.file, problem.line) == ("schedule.run_invalid", "src/app/shared.py", 4)


def test_a_module_with_a_syntax_error_is_reported_at_that_line_not_inside_importlib(tmp_path):
    root = domain_with_module(tmp_path, "jobs.py", "x = 1\ndef broken(:\n    pass\n")
    [problem] = problems(root)
    assert (problem.code, problem.file, problem.line) == ("domain.import_failed", "src/app/domains/planning/jobs.py", 2)


def test_a_module_failing_inside_a_library_is_reported_at_its_own_line_that_called_it(tmp_path):
    root = domain_with_module(tmp_path, "jobs.py", "import json\n\nSETTINGS = json.loads('not json')\n")
    [problem] = problems(root)
    assert (problem.file, problem.line) == ("src/app/domains/planning/jobs.py", 3)
    assert "JSONDecodeError" in problem.message


def test_a_module_calling_sys_exit_on_import_is_reported_not_a_silent_exit(tmp_path, capsys):
    root = domain_with_module(tmp_path, "jobs.py", "import sys\n\nsys.exit(3)\n")
    assert build_main([str(root)]) == 1
    err = capsys.readouterr().err
    assert "src/app/domains/planning/jobs.py:3: domain.import_failed:" in err
    assert "SystemExit: 3" in err


def test_two_decorators_with_the_same_bad_name_are_two_bad_names_not_a_name_declared_twice(tmp_path):
    source = ACTIONS + "\nfrom tickwork import schedule\n" + "".join(
        f'\n@schedule(every="1h", name=123)\nasync def job_{n}():\n    pass\n' for n in range(2)
    )
    found = problems(project(tmp_path, {}, actions=source))
    assert [p.message for p in found] == ["`name=` is of type int, not a string"] * 2


@pytest.mark.parametrize("name", ["pyproject.toml", "wrangler.toml"])
def test_a_settings_file_that_is_not_toml_is_a_problem_at_its_line_not_a_traceback(tmp_path, capsys, name):
    root = project(tmp_path, {"c.jadpo": CENSUS})
    (root / name).write_text('name = "app"\n\n[tool.tickwork\n')
    assert build_main([str(root)]) == 1
    err = capsys.readouterr().err
    assert f"{name}:3: settings.file_invalid: {name} is not valid TOML" in err
    assert "Traceback" not in err


def test_a_missing_wrangler_toml_is_a_problem_not_a_traceback(tmp_path):
    root = project(tmp_path, {"c.jadpo": CENSUS})
    (root / "wrangler.toml").unlink()
    [problem] = problems(root)
    assert (problem.code, problem.file) == ("settings.file_invalid", "wrangler.toml")


@pytest.mark.parametrize("databases", ['[[d1_databases]]\ndatabase_name = "main"\n', "d1_databases = 5\n"])
def test_d1_databases_the_build_cannot_read_are_a_settings_problem_and_leave_no_store(tmp_path, databases):
    assert codes(project(tmp_path, {"c.jadpo": CENSUS}, databases=databases)) == [
        ("schedule.store_required", "chore_census", 3), ("settings.d1_databases_invalid", None, 5),
    ]


def test_what_a_module_declared_before_it_failed_to_import_is_not_reported_as_misplaced(tmp_path):
    source = JOBS + "\nraise RuntimeError('no config')\n"
    [problem] = problems(domain_with_module(tmp_path, "jobs.py", source))
    assert (problem.code, problem.line) == ("domain.import_failed", 8)


@pytest.mark.parametrize("action", ["functools.partial(tidy_up)", "5", "print"])
def test_a_decorator_applied_to_what_is_not_a_function_is_run_invalid_at_its_line(tmp_path, action):
    source = JOBS + f"\nimport functools\nschedule(every='1h', name='other')({action})\n"
    [problem] = problems(domain_with_module(tmp_path, "jobs.py", source))
    assert (problem.code, problem.line) == ("schedule.run_invalid", 9)


DECORATOR_ARGUMENTS = [
    ("schedule(every={})", "schedule.every_invalid"),
    ('schedule(every="1h", name={})', "schedule.item_invalid"),
    ("calendar({})", "schedule.cron_invalid"),
    ('calendar("0 9 * * 1", zone={})', "schedule.zone_invalid"),
    ('calendar("0 9 * * 1", overdue={})', "schedule.overdue_invalid"),
    ('calendar("0 9 * * 1", nonexistent={})', "schedule.dst_invalid"),
    ('calendar("0 9 * * 1", repeated={})', "schedule.dst_invalid"),
    ("pulse(cycle={})", "schedule.cycle_invalid"),
    ("pulse(cycle=3600, intervals={})", "schedule.intervals_invalid"),
]
WRONG_TYPES = ["1.5", "True", "[1]", '{"a": 1}', 'b"x"', '""', "object()", '"\\ud800"', 'float("nan")']


@pytest.mark.parametrize("call, code", DECORATOR_ARGUMENTS)
@pytest.mark.parametrize("value", WRONG_TYPES)
def test_a_decorator_argument_of_any_wrong_type_is_its_items_code_at_the_decorator(tmp_path, call, code, value):
    source = f"from tickwork import calendar, pulse, schedule\n\n@{call.format(value)}\nasync def tidy_up():\n    pass\n"
    assert [(p.code, p.line) for p in problems(project(tmp_path, {}, actions=source))] == [(code, 3)]
