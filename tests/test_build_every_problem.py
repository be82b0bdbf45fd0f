"""The build reports every problem in one run: one bad item hides no other item's problem, a
syntax error no other declaration, and the output is sorted by file and line."""

from test_build import CENSUS, calendar_with, codes, problems, project


def where(found):
    return [(p.code, p.file.rsplit("/", 1)[-1], p.line) for p in found]


def test_a_bad_run_hides_no_every_under_a_minute(tmp_path):
    text = "schedule chore_census {\n  every: 30s\n  run: nothing()\n}\n"
    assert codes(project(tmp_path, {"c.jadpo": text})) == [
        ("deployable.target_unsupported", "chore_census", 2),
        ("schedule.run_invalid", "chore_census", 3),
    ]


def test_a_bad_zone_hides_no_seconds_field_firing_more_than_once_a_minute(tmp_path):
    files = calendar_with('cron: "*/30 * * * * *"\n  zone: Mars/Olympus_Mons')
    assert codes(project(tmp_path, files)) == [
        ("deployable.target_unsupported", "weekly_report", 2),
        ("schedule.zone_invalid", "weekly_report", 3),
    ]


def test_a_bad_run_hides_no_pulse_share_under_a_minute(tmp_path):
    text = "pulse sweep {\n  cycle: 30\n  run: nothing()\n}\n"
    assert codes(project(tmp_path, {"p.jadpo": text})) == [
        ("deployable.target_unsupported", "sweep", 2),
        ("schedule.run_invalid", "sweep", 3),
    ]


def test_intervals_above_the_cycle_are_reported_beside_a_bad_run(tmp_path):
    text = "pulse sweep {\n  cycle: 300\n  intervals: 301\n  run: nothing()\n}\n"
    assert codes(project(tmp_path, {"p.jadpo": text})) == [
        ("schedule.intervals_invalid", "sweep", 3),
        ("schedule.run_invalid", "sweep", 4),
    ]


def test_without_a_d1_database_even_a_declaration_with_other_problems_is_store_required(tmp_path):
    text = "schedule chore_census {\n  every: soon\n  run: queue_chore_census()\n}\n"
    assert codes(project(tmp_path, {"c.jadpo": text}, databases="")) == [
        ("schedule.store_required", "chore_census", 1),
        ("schedule.every_invalid", "chore_census", 2),
    ]


def test_a_name_declared_twice_hides_no_problem_of_the_second(tmp_path):
    second = CENSUS.replace("15m", "soon")
    assert where(problems(project(tmp_path, {"a.jadpo": CENSUS, "b.jadpo": second}))) == [
        ("schedule.item_invalid", "b.jadpo", 3),
        ("schedule.every_invalid", "b.jadpo", 4),
    ]


def test_triggers_the_build_cannot_edit_are_reported_with_the_declarations_problems(tmp_path):
    root = project(tmp_path, {"c.jadpo": CENSUS.replace("15m", "soon")})
    wrangler = root / "wrangler.toml"
    wrangler.write_text('triggers = { crons = ["0 * * * *"] }\n' + wrangler.read_text().split("[triggers]")[0])
    assert where(problems(root)) == [
        ("schedule.every_invalid", "c.jadpo", 4),
        ("deployable.trigger_missing", "wrangler.toml", 1),
    ]


def test_the_parser_reports_each_syntax_error_and_checks_every_declaration_between_them(tmp_path):
    text = (
        "schedul first { every: 15m  run: queue_chore_census() }\n"  # 1: unknown keyword
        "schedule second {\n"
        "  every: soon\n"  # 3: parsed, so its own problem is found
        "  run: queue_chore_census()\n"
        "}\n"
        "schedule third every: 15m\n"  # 6: no brace
        "schedule fourth { every: 1h  run: queue_chore_census() }\n"  # valid: no problem
        "calendar fifth { cron: \"0 9 * * 1\" zone: Nowhere run: queue_chore_census() }\n"  # 8
    )
    assert where(problems(project(tmp_path, {"c.jadpo": text}))) == [
        ("declaration.syntax_invalid", "c.jadpo", 1),
        ("schedule.every_invalid", "c.jadpo", 3),
        ("declaration.syntax_invalid", "c.jadpo", 6),
        ("schedule.zone_invalid", "c.jadpo", 8),
    ]


def test_an_unclosed_brace_ends_at_the_next_line_starting_a_declaration(tmp_path):
    text = (
        "schedule first {\n  every: 15m\n  run: queue_chore_census()\n\n"
        "schedule second {\n  every: soon\n  run: queue_chore_census()\n}\n"
    )
    found = problems(project(tmp_path, {"c.jadpo": text}))
    assert where(found) == [("declaration.syntax_invalid", "c.jadpo", 1), ("schedule.every_invalid", "c.jadpo", 6)]
    assert "never closed" in found[0].message


def test_an_unclosed_string_is_reported_and_the_next_declaration_still_checked(tmp_path):
    text = 'schedule first {\n  every: "15m\n}\nschedule second { every: soon  run: queue_chore_census() }\n'
    found = problems(project(tmp_path, {"c.jadpo": text}))
    assert where(found) == [("declaration.syntax_invalid", "c.jadpo", 2), ("schedule.every_invalid", "c.jadpo", 4)]
    assert "string is not closed" in found[0].message


def test_a_file_ending_inside_a_declaration_is_one_problem(tmp_path):
    texts = ("schedule", "schedule c", "schedule c {", "schedule c { every:", 'schedule c { every: "', "}}}{{{")
    for number, text in enumerate(texts):
        found = problems(project(tmp_path / str(number), {"c.jadpo": text}))
        assert [p.code for p in found] == ["declaration.syntax_invalid"], text


def test_lines_that_are_not_utf8_are_reported_and_the_rest_of_the_file_checked(tmp_path):
    root = project(tmp_path, {})
    (root / "src/app/domains/planning/schedules/c.jadpo").write_bytes(
        b"// caf\xe9\nschedule c {\n  every: soon\n  run: queue_chore_census()\n}\n// \xff\n"
    )
    assert where(problems(root)) == [
        ("declaration.syntax_invalid", "c.jadpo", 1),
        ("schedule.every_invalid", "c.jadpo", 3),
        ("declaration.syntax_invalid", "c.jadpo", 6),
    ]


def test_problems_are_sorted_by_file_then_line(tmp_path):
    files = {
        "b.jadpo": "schedule b {\n  every: soon\n  run: nothing()\n}\n",
        "a.jadpo": "pulse a {\n  cycle: 0\n  run: nothing()\n}\n",
    }
    assert where(problems(project(tmp_path, files))) == [
        ("schedule.cycle_invalid", "a.jadpo", 2),
        ("schedule.run_invalid", "a.jadpo", 3),
        ("schedule.every_invalid", "b.jadpo", 2),
        ("schedule.run_invalid", "b.jadpo", 3),
    ]
