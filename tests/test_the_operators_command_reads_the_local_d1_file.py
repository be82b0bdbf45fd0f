"""`tickwork VERB --local` reads Miniflare's SQLite file of the local D1 (issue 18): found where
Miniflare keeps it, opened read-only, never in a writer's way, its rows as D1's JSON gives them;
the verbs that change go through the running `tickwork dev`, else wrangler.
(tests/e2e/test_the_operators_command_on_the_local_d1.py compares its answers with wrangler's on
the host's D1.)"""

import asyncio
import json
import os
import socket
import sqlite3
import subprocess

import pytest
from helpers import MIGRATIONS, ROOT

from tickwork.times import utc
from tickwork_cli.cli import connect, main, parser
from tickwork_cli.local_d1 import DEV_FILE, DevHostD1, LocalD1File, database_file, database_name, object_id
from tickwork_cli.wrangler_d1 import WranglerD1

NOON = utc("2026-01-05 12:00")
EXAMPLE = {"binding": "DB", "database_name": "tickwork", "database_id": "00000000-0000-0000-0000-000000000000"}


@pytest.fixture
def state(tmp_path):
    """wrangler's state directory holding the example's local D1, migrated, in WAL mode as workerd keeps it."""
    path = database_file(tmp_path / "state", EXAMPLE)
    path.parent.mkdir(parents=True)
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode = wal")
    for script in sorted(MIGRATIONS.glob("00*.sql")):
        conn.executescript(script.read_text())
    conn.execute("UPDATE tickwork_app SET last_tick = ?", (NOON,))
    conn.commit()
    conn.close()
    return tmp_path / "state"


def tickwork(capsys, state, *argv):
    capsys.readouterr()
    code = main([*argv, "--local", "--persist-to", str(state), "--project", str(ROOT), "--json"], now=NOON + 60_000)
    out, err = capsys.readouterr()
    return code, json.loads(out) if out else None, err


def test_the_file_is_the_one_miniflare_names_for_the_databases_id():
    # The name Miniflare gave the example's local D1 in a state directory the host wrote.
    assert object_id("miniflare-D1DatabaseObject", EXAMPLE["database_id"]) == (
        "9ba2b04bf514d9facfd57ed57d849e77241a7adc99d1c1545d06688b43d84248")


def test_a_database_is_named_by_its_preview_id_else_its_id_else_its_binding():
    assert database_name({**EXAMPLE, "preview_database_id": "p-1"}) == "p-1"
    assert database_name(EXAMPLE) == EXAMPLE["database_id"]
    assert database_name({"binding": "DB", "database_name": "tickwork"}) == "DB"


def test_a_verb_that_reads_answers_from_the_file_without_wrangler(capsys, state):
    code, answer, err = tickwork(capsys, state, "status")
    assert (code, answer["last_tick"]["ms"], err) == (0, NOON, "")


def test_the_verbs_that_change_go_through_wrangler_and_reads_only_when_asked(state):
    def db_of(*argv):
        db, _ = connect(parser().parse_args([*argv, "--local", "--persist-to", str(state), "--project", str(ROOT)]))
        return type(db)

    assert db_of("schedules") is LocalD1File and db_of("why", "x") is LocalD1File
    assert {db_of(verb, "x") for verb in ("pause", "resume", "run", "retry", "dismiss", "cancel")} == {WranglerD1}
    assert db_of("schedules", "--through-wrangler") is WranglerD1


def test_a_backfill_asked_for_or_cancelled_goes_through_wrangler_and_its_dry_run_reads_the_file(state):
    def db_of(*argv):
        db, _ = connect(parser().parse_args([*argv, "--local", "--persist-to", str(state), "--project", str(ROOT)]))
        return type(db)

    assert db_of("backfill", "x", "--from", "2026-01-05T09:00Z", "--to", "2026-01-05T10:00Z") is WranglerD1
    assert db_of("backfill", "--cancel", "abc") is WranglerD1
    assert db_of("backfill", "x", "--from", "2026-01-05T09:00Z", "--to", "2026-01-05T10:00Z", "--dry-run") is LocalD1File
    assert db_of("backfills") is LocalD1File


def _db_of(state, *argv):
    db, _ = connect(parser().parse_args([*argv, "--local", "--persist-to", str(state), "--project", str(ROOT)]))
    return type(db)


def test_while_tickwork_dev_runs_on_the_state_the_verbs_that_change_go_through_it_and_reads_stay_on_the_file(state):
    with socket.create_server(("127.0.0.1", 0)) as listening:
        port = listening.getsockname()[1]
        (state / DEV_FILE).write_text(json.dumps({"url": f"http://127.0.0.1:{port}", "pid": os.getpid(), "token": "t"}))
        assert {_db_of(state, verb, "x") for verb in ("pause", "resume", "run", "retry", "dismiss", "cancel")} == {
            DevHostD1}
        assert _db_of(state, "backfill", "--cancel", "abc") is DevHostD1
        assert _db_of(state, "schedules") is LocalD1File
        assert _db_of(state, "pause", "x", "--through-wrangler") is WranglerD1


def test_a_file_a_dev_killed_outright_left_is_passed_over(state):
    gone = subprocess.Popen(["true"])
    gone.wait()
    with socket.create_server(("127.0.0.1", 0)) as listening:
        port = listening.getsockname()[1]
        (state / DEV_FILE).write_text(json.dumps({"url": f"http://127.0.0.1:{port}", "pid": gone.pid, "token": "t"}))
        assert _db_of(state, "pause", "x") is WranglerD1  # its process is gone
    (state / DEV_FILE).write_text(json.dumps({"url": f"http://127.0.0.1:{port}", "pid": os.getpid(), "token": "t"}))
    assert _db_of(state, "pause", "x") is WranglerD1  # nothing listens where it says
    (state / DEV_FILE).write_text("{")
    assert _db_of(state, "pause", "x") is WranglerD1


def test_the_file_is_opened_read_only_and_a_write_changes_nothing(state):
    db = LocalD1File(database_file(state, EXAMPLE))
    with pytest.raises(sqlite3.OperationalError, match="readonly"):
        asyncio.run(db.batch([("UPDATE tickwork_app SET last_tick = 0", ())]))
    assert asyncio.run(db.all("SELECT last_tick FROM tickwork_app")) == [{"last_tick": NOON}]
    db.close()


def test_a_reader_in_the_middle_of_its_batch_keeps_no_writer_waiting_and_reads_one_snapshot(state):
    path = database_file(state, EXAMPLE)
    db = LocalD1File(path)
    db._conn.execute("BEGIN")
    assert db._conn.execute("SELECT last_tick FROM tickwork_app").fetchone()[0] == NOON
    writer = sqlite3.connect(path, timeout=0)  # as workerd would write during the read: no waiting
    writer.execute("UPDATE tickwork_app SET last_tick = ?", (NOON + 60_000,))
    writer.commit()
    assert db._conn.execute("SELECT last_tick FROM tickwork_app").fetchone()[0] == NOON
    db._conn.execute("COMMIT")
    assert asyncio.run(db.all("SELECT last_tick FROM tickwork_app")) == [{"last_tick": NOON + 60_000}]
    writer.close()
    db.close()


def test_a_whole_real_reads_as_an_integer_as_d1s_json_gives_it(state):
    db = LocalD1File(database_file(state, EXAMPLE))
    assert asyncio.run(db.all("SELECT 3.0 AS whole, 2.5 AS half, ?1 AS bound", (7.0,))) == [
        {"whole": 3, "half": 2.5, "bound": 7}]
    db.close()


def test_a_state_directory_without_the_database_is_one_clear_line(capsys, tmp_path):
    (tmp_path / "state").mkdir()
    code, _, err = tickwork(capsys, tmp_path / "state", "status")
    assert code == 1 and err.count("\n") == 1
    assert "has no database for DB" in err and "tickwork dev" in err


def test_numbers_beyond_a_doubles_53_bits_read_as_wranglers_json_gives_them(state):
    """D1 makes every number a JavaScript double: what `wrangler d1 execute --local --json` answered
    for this statement (an integer past 2^53 rounded, a whole REAL past it in JavaScript's digits,
    an infinity as null, 1e21 and above as a float)."""
    db = LocalD1File(database_file(state, EXAMPLE))
    assert asyncio.run(db.all(
        "SELECT 9007199254740993 AS big, 1152921504606846976.0 AS big_real, 123456789012345678901.0 AS below_e21, "
        "1e21 AS e21, 9e999 AS infinity, -0.0 AS negative_zero, -9007199254740993 AS negative")) == [
        {"big": 9007199254740992, "big_real": 1152921504606847000, "below_e21": 123456789012345680000,
         "e21": 1e21, "infinity": None, "negative_zero": 0, "negative": -9007199254740992}]
    db.close()


def test_a_change_to_a_state_directory_without_the_database_is_refused_and_makes_no_database(capsys, tmp_path):
    """wrangler would make an empty database there (and answer that it has no tables): a change
    is refused as a read is, before wrangler starts, with --persist-to as the way to point elsewhere."""
    (tmp_path / "state").mkdir()
    code, _, err = tickwork(capsys, tmp_path / "state", "pause", "chore_census")
    assert code == 1 and "has no database for DB" in err and "--persist-to" in err
    assert list((tmp_path / "state").iterdir()) == []


def test_through_wrangler_with_a_sqlite_file_is_refused_not_ignored(capsys, state):
    capsys.readouterr()
    code = main(["status", "--sqlite", str(database_file(state, EXAMPLE)), "--through-wrangler"], now=NOON)
    _, err = capsys.readouterr()
    assert code == 1 and "--through-wrangler is for --local" in err
