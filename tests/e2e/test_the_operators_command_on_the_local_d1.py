"""The operator's command against the local host's D1, through `wrangler d1 execute --local`."""

import asyncio
import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from conftest import running_host
from helpers import ROOT

from tickwork.times import utc
from tickwork_cli.wrangler_d1 import QUIET, WranglerD1, WranglerError

NOON = utc("2026-01-05 12:00")


def tickwork(host, *argv, now=None):
    """`tickwork ARGV --local --persist-to STATE`, run from the host's project as an operator would."""
    env = {**os.environ, **QUIET, "PYTHONPATH": f"{ROOT / 'scripts'}{os.pathsep}{ROOT / 'src'}"}
    command = [sys.executable, "-m", "tickwork_cli", *argv, "--local", "--persist-to", str(host.state)]
    if now is not None:
        command += ["--now", str(now)]
    return subprocess.run(command, cwd=host.project, env=env, capture_output=True, text=True, timeout=180)


def answer(done):
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_schedules_lists_the_example_apps_schedules_from_the_local_d1(host):
    host.tick(NOON)
    found = {s["name"]: s for s in answer(tickwork(host, "schedules", "--json", now=NOON + 60_000))["schedules"]}
    assert found["chore_census"]["timing"] == "every 15 minutes"
    assert found["chore_census"]["next_due"]["relative"] == "in 14 min"
    assert found["weekly_report"]["timing"] == "0 9 * * 1 in Europe/Berlin"
    assert found["sweep"]["timing"] == "pulse: 60 shares of 1 hour"
    text = tickwork(host, "schedules", now=NOON + 60_000).stdout
    assert "last tick 2026-01-05 12:00 UTC (1 min ago)" in text


def test_history_and_why_read_the_runs_the_worker_recorded(host):
    host.tick(NOON)
    host.tick(utc("2026-01-06 12:00"))
    history = answer(tickwork(host, "history", "always_fails", "--json", now=utc("2026-01-06 12:01")))
    [failed] = history["runs"]
    assert (failed["outcome"], failed["code"], failed["kind"]) == ("failed", "internal_fault", "raised")
    why = answer(tickwork(host, "why", "chore_census", "--json", now=utc("2026-01-06 12:01")))
    assert why["declared"] == "src/app/domains/planning/schedules/chore_census.jadpo:3"
    assert why["last_due_what"].startswith("ran: succeeded")


def test_pause_and_resume_change_the_local_d1_with_their_log_rows(host):
    host.tick(NOON)
    done = tickwork(host, "pause", "chore_census", "--who", "alice", now=NOON + 60_000)
    assert done.returncode == 0 and done.stdout.startswith("paused chore_census"), done.stderr
    assert host.d1("SELECT paused FROM tickwork_schedules WHERE name = 'chore_census'") == [{"paused": 1}]
    host.tick(utc("2026-01-05 12:15"))
    assert host.d1("SELECT outcome, code FROM tickwork_runs WHERE schedule = 'chore_census'") == [
        {"outcome": "skipped", "code": "paused"}]
    assert answer(tickwork(host, "resume", "chore_census", "--who", "bob", "--json", now=NOON))["changed"]
    assert host.d1("SELECT who, verb FROM tickwork_operator_log ORDER BY at, verb") == [
        {"who": "bob", "verb": "resume"}, {"who": "alice", "verb": "pause"}]
    done = tickwork(host, "run", "no_such_schedule")
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == "tickwork run: no schedule named `no_such_schedule`: `tickwork schedules` lists them\n"


def test_remake_makes_a_failed_due_time_again_through_wrangler_once(host):
    host.tick(NOON)
    host.tick(utc("2026-01-06 12:00"))
    [failed] = host.d1("SELECT id, due_at FROM tickwork_runs WHERE schedule = 'always_fails'")
    asked = answer(tickwork(host, "remake", failed["id"], "--who", "alice", "--json", now=utc("2026-01-06 12:01")))
    assert asked["changed"] and asked["due"]["ms"] == failed["due_at"]
    again = tickwork(host, "remake", failed["id"], now=utc("2026-01-06 12:01"))
    assert again.returncode == 1 and "remake.not_remakable" in again.stderr and "already waits" in again.stderr
    host.tick(utc("2026-01-06 12:02"))
    host.tick(utc("2026-01-06 12:03"))
    assert host.d1("SELECT due_at, outcome, backfill FROM tickwork_runs WHERE schedule = 'always_fails' "
                   "ORDER BY tick_at") == [{"due_at": failed["due_at"], "outcome": "failed", "backfill": None},
                                           {"due_at": failed["due_at"], "outcome": "failed", "backfill": "alice"}]
    assert host.d1("SELECT who, verb FROM tickwork_operator_log WHERE schedule = 'always_fails'") == [
        {"who": "alice", "verb": "remake"}]


def test_status_reports_ticking_and_a_stop(host):
    host.tick(NOON)
    done = tickwork(host, "status", now=NOON + 2 * 60_000)
    assert (done.returncode, done.stdout) == (0, "ticking: the last tick was 2026-01-05 12:00 UTC (2 min ago)\n")
    done = tickwork(host, "status", now=NOON + 10 * 60_000)
    assert done.returncode == 1 and done.stdout.startswith("TICKS STOPPED: the last tick was 2026-01-05 12:00 UTC")


def test_a_batch_through_wrangler_is_one_transaction_a_failing_statement_changes_nothing(host):
    host.tick(NOON)
    db = WranglerD1(host.project, "DB", persist_to=host.state)
    change = [("UPDATE tickwork_schedules SET paused = 1 WHERE name = ?1", ("chore_census",)),
              ("SELECT * FROM tickwork_no_such_table", ())]
    try:
        asyncio.run(db.batch(change))
    except WranglerError as error:
        assert "no such table: tickwork_no_such_table" in str(error)
    else:
        raise AssertionError("the failing batch did not fail")
    assert host.d1("SELECT paused FROM tickwork_schedules WHERE name = 'chore_census'") == [{"paused": 0}]
    rows = asyncio.run(db.batch([("SELECT ?1 AS a, ?2 AS b", ("it's", None)), ("SELECT ?1 AS c", (-7,))]))
    assert rows == [[{"a": "it's", "b": None}], [{"c": -7}]]


def test_a_local_d1_without_tickworks_tables_is_one_clear_line(host, tmp_path):
    empty = tmp_path / "empty-state"
    empty.mkdir()
    env = {**os.environ, **QUIET, "PYTHONPATH": f"{ROOT / 'scripts'}{os.pathsep}{ROOT / 'src'}"}
    for way, says in (([], "has no database for DB"),
                      (["--through-wrangler"], "the database has no tickwork tables (no such table: tickwork_app)")):
        done = subprocess.run([sys.executable, "-m", "tickwork_cli", "status", "--local", "--persist-to", str(empty),
                               *way], cwd=host.project, env=env, capture_output=True, text=True, timeout=180)
        assert done.returncode == 1 and done.stderr.count("\n") == 1
        assert says in done.stderr


def test_a_run_asked_for_by_hand_racing_ticks_on_the_workers_runtime_runs_once(host):
    from concurrent.futures import ThreadPoolExecutor

    host.tick(NOON)
    done = tickwork(host, "run", "tidy_up", "--who", "alice", now=NOON + 60_000)
    assert done.returncode == 0, done.stderr
    with ThreadPoolExecutor(4) as pool:
        answers = list(pool.map(lambda _: host.tick(NOON + 120_000), range(4)))
    assert all(answer["ok"] for answer in answers), answers
    assert host.d1("SELECT by_hand, due_at FROM tickwork_runs WHERE schedule = 'tidy_up'") == [
        {"by_hand": "alice", "due_at": NOON + 3_600_000}]  # once, and its grid not moved


def test_status_reports_a_stop_the_ticks_recorded(host):
    host.tick(NOON)
    host.d1(f"UPDATE tickwork_app SET last_clock = last_clock - {10 * 60_000}")  # gaps are on the clock
    host.tick(NOON + 10 * 60_000)  # ten minutes without ticks: the gap is recorded
    done = tickwork(host, "status", "--json", now=NOON + 20 * 60_000)
    assert done.returncode == 1
    assert [gap["from"]["ms"] for gap in answer_of(done)["gaps"]] == [NOON]


def answer_of(done):
    return json.loads(done.stdout)


def test_a_who_that_wrangler_would_trim_is_stored_as_printed(host):
    """wrangler d1 execute deletes `BEGIN TRANSACTION;` and `COMMIT;` from a command holding
    `BEGIN TRANSACTION`, inside string literals too: the value is written so it cannot."""
    host.tick(NOON)
    who = "BEGIN TRANSACTION;alice COMMIT; 'o'"
    done = tickwork(host, "pause", "chore_census", "--who", who, now=NOON + 60_000)
    assert done.returncode == 0, done.stderr
    assert done.stdout.rstrip().endswith(f"(logged as {who})")
    assert host.d1("SELECT who FROM tickwork_operator_log") == [{"who": who}]
    done = tickwork(host, "resume", "chore_census", "--who", "BEGIN TRANSACTION", now=NOON + 60_000)
    assert done.returncode == 0, done.stderr
    assert host.d1("SELECT who FROM tickwork_operator_log ORDER BY verb") == [{"who": who}, {"who": "BEGIN TRANSACTION"}]


def _hosts_line_of_a_run_by_hand(host, who):
    """What the host prints for a run of tidy_up asked for by `who`, at the tick after."""
    host.tick(NOON)
    assert tickwork(host, "run", "tidy_up", "--who", who, now=NOON + 60_000).returncode == 0
    since = len(host.output)
    host.tick(NOON + 120_000)
    return host.printed("tidy_up run by hand by", since=since)


def test_the_hosts_line_of_a_run_by_hand_says_by_hand_and_by_whom_not_a_due_time(host):
    printed = _hosts_line_of_a_run_by_hand(host, "alice")
    assert "tidy_up run by hand by alice: succeeded" in printed, printed
    assert "tidy_up due" not in printed


def test_the_hosts_line_prints_control_characters_read_from_d1_escaped(host):
    printed = _hosts_line_of_a_run_by_hand(host, "\x1b]0;owned\x07eve\x1b[2J")
    assert "tidy_up run by hand by \\x1b]0;owned\\x07eve\\x1b[2J: succeeded" in printed, printed
    assert "\x1b" not in printed


# What an operator reads, each verb once: answered from Miniflare's file and through wrangler alike.
READS = [
    ("schedules",), ("schedules", "--input", "--limit", "3"), ("schedules", "--state", "handed-over"),
    ("history", "chore_census"), ("history", "always_fails", "--failed"), ("history",),
    ("history", "--outcome", "failed", "--since", "1d"), ("history", "--name", "chore_*", "--limit", "2"),
    ("why", "chore_census"), ("deliveries", "--all"), ("status",),
]


def test_each_verb_that_reads_answers_the_same_from_miniflares_file_as_through_wrangler(host):
    """The same SQL and the same rows: --local reads the file the host's Miniflare keeps, with
    `tickwork dev`'s host running, and answers what `wrangler d1 execute --local` answers."""
    host.tick(NOON)
    handed = host.fetch("/hand-over", method="POST", body=json.dumps([
        {"order": 7, "at": NOON + 30 * 60_000, "label": "Ada's order"}, {"order": 8, "at": NOON + 30 * 60_000}]).encode())
    assert handed.status == 201, handed
    host.tick(utc("2026-01-05 12:30"))
    assert tickwork(host, "pause", "chore_census", "--who", "alice", now=NOON + 31 * 60_000).returncode == 0
    host.tick(utc("2026-01-05 12:45"))
    now = utc("2026-01-05 12:50")

    def both_ways(verb):
        return tickwork(host, *verb, "--json", now=now), tickwork(host, *verb, "--json", "--through-wrangler", now=now)

    # Reads only, nothing written meanwhile: the verbs run side by side, each one's two answers compared.
    with ThreadPoolExecutor(3) as pool:
        answered = list(pool.map(both_ways, READS))
    for verb, (direct, through) in zip(READS, answered, strict=True):
        assert (direct.returncode, direct.stderr) == (through.returncode, through.stderr), verb
        assert direct.stdout and json.loads(direct.stdout) == json.loads(through.stdout), verb
    [handed] = [s for s in answer(tickwork(host, "schedules", "--json", now=now))["schedules"]
                if s["label"] == "Ada's order"]
    assert handed["handed_over"] and handed["action"].endswith("remember")


def test_reading_miniflares_file_while_the_host_ticks_keeps_no_tick_waiting_and_fails_no_read(host):
    """Reads in a tight loop beside ticks that write: every tick commits, every read answers."""
    from tickwork_build.project import load_project
    from tickwork_cli.local_d1 import LocalD1File, database_file

    host.tick(NOON)
    [binding] = [b for b in load_project(host.project).d1_bindings if b["binding"] == "DB"]
    db = LocalD1File(database_file(host.state, binding))
    with ThreadPoolExecutor(1) as pool:
        ticking = pool.submit(lambda: [host.tick(NOON + k * 60_000) for k in range(1, 6)])
        def last_tick():
            [app], _ = asyncio.run(db.batch([("SELECT last_tick FROM tickwork_app", ()),
                                             ("SELECT COUNT(*) AS n FROM tickwork_runs", ())]))
            return app["last_tick"]

        reads = []
        while not ticking.done() or len(reads) < 10:
            reads.append(last_tick())
        answers = ticking.result()
    reads.append(last_tick())
    db.close()
    assert all(answer["ok"] for answer in answers), answers
    assert reads == sorted(reads) and reads[-1] == NOON + 5 * 60_000


def test_numbers_text_and_nulls_read_from_miniflares_file_are_wranglers(host):
    """The same statement through `wrangler d1 execute --local` and from the file: D1's doubles
    (an integer past 2^53 rounded, a whole REAL read as an integer, Infinity as null), NULLs and
    text beyond the Basic Multilingual Plane."""
    from tickwork_build.project import load_project
    from tickwork_cli.local_d1 import LocalD1File, database_file

    host.tick(NOON)
    sql = ("SELECT 9007199254740993 AS big, -9007199254740993 AS negative, 1152921504606846976.0 AS big_real, "
           "123456789012345678901.0 AS below_e21, 1e21 AS e21, 9e999 AS infinity, -0.0 AS negative_zero, "
           "3.0 AS whole, 2.5 AS half, NULL AS empty, ?1 AS words, last_tick FROM tickwork_app")
    params = ("Zoë 👩\u200d💻 顧客 it's",)
    [binding] = [b for b in load_project(host.project).d1_bindings if b["binding"] == "DB"]
    db = LocalD1File(database_file(host.state, binding))
    direct = asyncio.run(db.all(sql, params))
    db.close()
    through = asyncio.run(WranglerD1(host.project, "DB", persist_to=host.state).all(sql, params))
    assert direct == through and direct[0]["last_tick"] == NOON


WRANGLER_CONFIGS = [
    ("wrangler.toml", '[[d1_databases]]\nbinding = "DB"\ndatabase_name = "shop"\ndatabase_id = "id-1"\n'
                      'preview_database_id = "preview-1"\n'),
    ("wrangler.toml", '[[d1_databases]]\nbinding = "DB"\ndatabase_name = "shop"\ndatabase_id = "id-2"\n'),
    ("wrangler.jsonc", '// jsonc\n{"d1_databases": [{"binding": "DB", "database_name": "shop", "database_id": "id-3"},]}\n'),
    ("wrangler.jsonc", '{"d1_databases": [{"binding": "DB", "database_name": "shop"}]}\n'),
]


@pytest.mark.parametrize("config, text", WRANGLER_CONFIGS, ids=["preview_id", "id", "jsonc_id", "binding_only"])
def test_local_reads_the_file_wrangler_writes_for_each_way_of_naming_the_database(tmp_path, config, text):
    """`wrangler d1 execute --local` writes a row; `--local` finds the file it went to, read through
    the command's own reading of the configuration."""
    from tickwork_cli.cli import connect, parser
    from tickwork_cli.local_d1 import LocalD1File

    (tmp_path / config).write_text('name = "shop"\ncompatibility_date = "2026-01-01"\n' + text if config.endswith("toml")
                                   else text)
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "shop"\nversion = "0"\n')
    state = tmp_path / "state"
    done = subprocess.run([str(ROOT / "node_modules" / ".bin" / "wrangler"), "d1", "execute", "DB", "--local",
                           "--persist-to", str(state), "--command", "CREATE TABLE t (x); INSERT INTO t VALUES ('here')"],
                          cwd=tmp_path, env={**os.environ, **QUIET, "CI": "1"}, capture_output=True, text=True,
                          timeout=180)
    assert done.returncode == 0, done.stderr or done.stdout
    db, _ = connect(parser().parse_args(["status", "--local", "--persist-to", str(state), "--project", str(tmp_path)]))
    assert isinstance(db, LocalD1File)
    assert asyncio.run(db.all("SELECT x FROM t")) == [{"x": "here"}]
    db.close()


@pytest.fixture(scope="module")
def ticking(host, tmp_path_factory):
    """`tickwork dev` ticking by itself, on a local D1 of its own: with queues bound, at each
    10-second mark, so that its workerd holds the D1 most of each minute. A fresh D1's first tick
    only starts its count, so one by hand at the minute before the clock's (its marks all past:
    nothing to wait for) lets the timer's first whole minute run the sweep, not its second."""
    with running_host(host.project, state=tmp_path_factory.mktemp("ticking") / "state", timer=True) as dev:
        started = dev.tick((int(time.time() * 1000) // 60_000 - 1) * 60_000)
        assert started["ok"], started
        by_hand = sum(run["schedule"] == "sweep" for run in started["runs"])
        deadline = time.monotonic() + 150
        while "".join(dev.output).count("sweep due") <= by_hand and time.monotonic() < deadline:
            time.sleep(0.1)
        assert "".join(dev.output).count("sweep due") > by_hand, "".join(dev.output)
        yield dev


def test_with_dev_ticking_the_commands_changes_go_through_it_and_each_one_is_made(ticking):
    """Made through `wrangler d1 execute --local`, a second workerd on dev's file, 2 in 3 failed
    with a raw SQLITE_BUSY, and dev's own D1 calls met it too."""
    for i, verb in enumerate(["pause", "resume"] * 3 + ["run"]):
        done = tickwork(ticking, verb, "chore_census", "--who", f"op{i}")
        assert done.returncode == 0, done.stderr
        assert done.stderr.startswith(f"tickwork {verb}: made through the tickwork dev running on this local D1 "
                                      f"({ticking.url})"), done.stderr
    logged = answer(tickwork(ticking, "history", "chore_census", "--json"))["operator_log"]
    assert sorted(row["who"] for row in logged) == ["op0", "op1", "op2", "op3", "op4", "op5", "op6"]
    assert "SQLITE_BUSY" not in "".join(ticking.output)


def test_a_tick_by_hand_beside_dev_ticking_is_dev_s_own_and_meets_no_sqlite_busy(ticking):
    # The minute before the clock's: its 10-second marks are past, so the tick is one, not six
    # waited for; dev's own invocation holds the D1 meanwhile as before.
    minute_before = (int(time.time() * 1000) // 60_000 - 1) * 60_000
    done = ticking.run_host("tick", "--time", str(minute_before), "--json")
    assert done.returncode == 0, done.stderr
    assert "ticked through it" in done.stderr
    assert "SQLITE_BUSY" not in done.stdout + done.stderr + "".join(ticking.output)
