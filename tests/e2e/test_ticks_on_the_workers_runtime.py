"""The Worker's ticks on the Workers runtime (Pyodide and the SDK's D1 wrappers), end to end."""

import json
from concurrent.futures import ThreadPoolExecutor

from tickwork.times import utc

RUNS = "SELECT schedule, due_at, tick_at, outcome, code, kind, detail FROM tickwork_runs"


def test_a_schedule_runs_on_its_grid_over_a_sequence_of_ticks(host):
    for at in ["2026-01-05 12:00", "2026-01-05 12:14", "2026-01-05 12:15", "2026-01-05 12:16",
               "2026-01-05 12:40", "2026-01-05 12:45", "2026-01-05 13:00", "2026-01-05 13:01"]:
        assert host.tick(utc(at))["ok"]

    rows = host.d1(f"{RUNS} WHERE schedule IN ('chore_census', 'tidy_up') ORDER BY tick_at, schedule")

    assert [(row["schedule"], row["due_at"], row["tick_at"], row["outcome"]) for row in rows] == [
        ("chore_census", utc("2026-01-05 12:15"), utc("2026-01-05 12:15"), "succeeded"),
        # 12:30 was missed: the 12:40 tick runs it once, and due moves on to 12:45
        ("chore_census", utc("2026-01-05 12:30"), utc("2026-01-05 12:40"), "succeeded"),
        ("chore_census", utc("2026-01-05 12:45"), utc("2026-01-05 12:45"), "succeeded"),
        ("chore_census", utc("2026-01-05 13:00"), utc("2026-01-05 13:00"), "succeeded"),
        ("tidy_up", utc("2026-01-05 13:00"), utc("2026-01-05 13:00"), "succeeded"),
    ]


def test_the_host_reports_each_run_once_with_its_duration(host):
    host.tick(utc("2026-01-05 12:00"))

    runs = host.tick(utc("2026-01-05 12:15"))["runs"]

    census = [run for run in runs if run["schedule"] == "chore_census"]
    assert [(run["due"], run["outcome"]) for run in census] == [("2026-01-05T12:15:00Z", "succeeded")]
    assert census[0]["duration_ms"] >= 0
    assert len({run["id"] for run in runs}) == len(runs)


def test_two_ticks_of_the_same_minute_at_once_make_exactly_one_run(host):
    host.tick(utc("2026-01-05 12:00"))

    with ThreadPoolExecutor(2) as pool:
        ticks = list(pool.map(host.tick, [utc("2026-01-05 12:15")] * 2))

    assert all(tick["ok"] for tick in ticks)
    rows = host.d1(f"{RUNS} WHERE schedule = 'chore_census'")
    assert [(row["due_at"], row["outcome"]) for row in rows] == [(utc("2026-01-05 12:15"), "succeeded")]


def test_an_action_that_raises_is_recorded_failed_with_its_code_and_kind(host):
    host.tick(utc("2026-01-05 12:00"))

    tick = host.tick(utc("2026-01-06 12:00"))

    assert tick["ok"]
    rows = {row["schedule"]: row for row in host.d1(f"{RUNS} WHERE schedule IN ('always_fails', 'refuses')")}
    assert (rows["always_fails"]["outcome"], rows["always_fails"]["code"], rows["always_fails"]["kind"]) == (
        "failed", "internal_fault", "raised",
    )
    assert rows["always_fails"]["detail"] == "ValueError: the e2e action fails on purpose"
    assert (rows["refuses"]["outcome"], rows["refuses"]["code"], rows["refuses"]["kind"]) == (
        "failed", "e2e_unavailable", "raised",
    )


def _said(line: str) -> str:
    """A printed line as its reader sees it: a JSON log line's message and stack, or the line."""
    try:
        said = json.loads(line)
    except ValueError:
        return line
    return "\n".join(str(said.get(key) or "") for key in ("message", "stack")) if isinstance(said, dict) else line


def test_an_action_that_raises_has_its_python_traceback_printed(host):
    host.tick(utc("2026-01-05 12:00"))

    printed = "\n".join(_said(line["line"]) for line in host.tick(utc("2026-01-06 12:00"))["lines"])

    assert "Traceback (most recent call last):" in printed
    assert 'File "/session/metadata/app/domains/e2e/__init__.py", line 8, in always_fails' in printed
    assert "ValueError: the e2e action fails on purpose" in printed


def test_a_one_shot_tick_runs_once_prints_what_ran_and_exits(host):
    host.tick(utc("2026-01-05 12:00"))

    done = host.run_host("tick", "--time", "2026-01-05T12:15Z", "--far", "--json")

    assert done.returncode == 0, done.stderr
    runs = [json.loads(line) for line in done.stdout.splitlines()]
    assert [(run["due"], run["outcome"]) for run in runs if run["schedule"] == "chore_census"] == [
        ("2026-01-05T12:15:00Z", "succeeded")
    ]
    assert {run["tick"] for run in runs} == {"2026-01-05T12:15:00Z"}
    assert len(host.d1(f"{RUNS} WHERE schedule = 'chore_census'")) == 1
