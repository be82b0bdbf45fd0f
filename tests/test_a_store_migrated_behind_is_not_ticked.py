"""`migration.out_of_date`: a Worker deployed before `wrangler d1 migrations apply` refuses to
tick against its store's old tables, and says so in its log line, on the health route and in
`tickwork status`. The schema is read once an isolate (an `App`), at its first invocation, and
at each while the tables are behind."""

import logging

from helpers import migrate_from, migrated_before, open_store, run

from tickwork.app import App
from tickwork.health import health
from tickwork.invocation import cron_invocation
from tickwork.operator_store import OperatorStore
from tickwork.tick import FIRST_READ
from tickwork.times import MINUTE, utc
from tickwork_cli import verbs

NINE = utc("2026-03-02 09:00")


def invoke(app, db, at):
    return run(cron_invocation(db, app, at, clock=lambda: at, sleep=None, cap=900))


def last_tick(db):
    return run(db.all("SELECT last_tick FROM tickwork_app WHERE id = 1"))[0]["last_tick"]


def test_an_invocation_against_tables_migrated_before_0023_refuses_to_tick_and_logs_the_code(caplog):
    db, app = migrated_before("0023"), App("BILLING", ())
    with caplog.at_level(logging.ERROR, logger="tickwork"):
        assert invoke(app, db, NINE) == []
    assert last_tick(db) is None
    assert "migration.out_of_date" in caplog.text and "wrangler d1 migrations apply BILLING --remote" in caplog.text


def test_once_the_migrations_are_applied_the_same_isolate_ticks_again():
    db, app = migrated_before("0023"), App("DB", ())
    assert invoke(app, db, NINE) == []
    migrate_from(db, "0023")
    assert [report.at for report in invoke(app, db, NINE + MINUTE)] == [NINE + MINUTE]


def test_an_isolates_first_invocation_reads_the_schema_once_and_its_later_ones_cost_two_statements(db):
    app = App("DB", ())
    invoke(app, db, NINE)
    run(db.all("UPDATE tickwork_app SET housekeeping_done_at = ?1", (NINE + MINUTE,)))
    before = db.statements_run, db.round_trips, db.rows_written
    invoke(app, db, NINE + MINUTE)
    assert (db.statements_run - before[0], db.round_trips - before[1], db.rows_written - before[2]) == (FIRST_READ, 1, 1)
    fresh = App("DB", ())  # a new isolate
    before = db.statements_run, db.round_trips, db.rows_written
    invoke(fresh, db, NINE + 2 * MINUTE)
    assert (db.statements_run - before[0], db.round_trips - before[1], db.rows_written - before[2]) == (FIRST_READ + 1, 2, 1)


def test_the_health_route_answers_503_with_the_code_while_the_tables_are_behind():
    status, body = run(health(migrated_before("0023"), NINE))
    assert status == 503 and not body["ok"]
    assert body["migration"].startswith("migration.out_of_date:")


def test_the_health_route_of_a_current_store_says_nothing_of_migrations(db):
    assert "migration" not in run(health(db, NINE))[1]


def test_status_says_the_tables_are_behind_and_that_nothing_ticks_and_exits_1():
    answer = run(verbs.status(OperatorStore(migrated_before("0023")), NINE, 3 * MINUTE))
    assert answer.code == 1 and answer.data["migration"].startswith("migration.out_of_date:")
    assert answer.lines[0].startswith("MIGRATION OUT OF DATE, NO TICKS: migration.out_of_date:")


def test_status_of_a_current_store_tells_the_ticks():
    db = open_store()
    answer = run(verbs.status(OperatorStore(db), NINE, 3 * MINUTE))
    assert "migration" not in answer.data and answer.lines[0].startswith("TICKS STOPPED")


def test_a_schema_read_that_d1_failed_leaves_the_invocation_ticking_and_is_read_again_next_time():
    from faults import Faulty, at

    db, app = Faulty(open_store(), at("schema")), App("DB", ())
    assert [report.at for report in invoke(app, db, NINE)] == [NINE]
    assert not app.schema_current
    invoke(app, db, NINE + MINUTE)
    assert app.schema_current


def test_each_migration_from_0023_on_sets_the_schema_to_its_own_number_and_the_runtime_needs_the_newest():
    """The version is kept by hand: a migration that does not set `schema_version` to its own
    number, or a runtime whose `SCHEMA` is not the newest migration's, would let a Worker tick
    against tables that lack it. Applied in order, each tickwork migration (0001 to 0099) from
    0023 on leaves the store at its own number, and the newest is the runtime's SCHEMA."""
    from helpers import MIGRATIONS

    from tickwork.schedule_store import SCHEMA, ScheduleStore

    tickwork = sorted(script.name for script in MIGRATIONS.glob("00*.sql"))
    after = tickwork[1:] + ["0100"]  # a store migrated through a script is one migrated before the next
    at = {name[:4]: run(ScheduleStore(migrated_before(then)).schema()) for name, then in zip(tickwork, after)
          if name >= "0023"}
    assert at == {number: int(number) for number in at}
    assert SCHEMA == int(tickwork[-1][:4])


def test_status_names_the_projects_own_binding_and_local_d1_in_its_mend(tmp_path, capsys):
    """A project whose store is bound as BILLING, its local D1 migrated before 0023: `tickwork
    status --local` says to apply BILLING's migrations locally, not DB's remotely."""
    import shutil
    import sqlite3

    from helpers import MIGRATIONS, ROOT

    from tickwork_cli.cli import main
    from tickwork_cli.local_d1 import database_file

    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    (tmp_path / "src" / "app").mkdir(parents=True)
    wrangler = (ROOT / "wrangler.toml").read_text()
    (tmp_path / "wrangler.toml").write_text(wrangler.replace('binding = "DB"', 'binding = "BILLING"'))
    path = database_file(tmp_path / "state", {"binding": "BILLING", "database_id": "00000000-0000-0000-0000-000000000000"})
    path.parent.mkdir(parents=True)
    conn = sqlite3.connect(path)
    for script in sorted(MIGRATIONS.glob("00*.sql")):
        if script.name < "0023":
            conn.executescript(script.read_text())
    conn.commit()
    conn.close()
    code = main(["status", "--local", "--persist-to", str(tmp_path / "state"), "--project", str(tmp_path)], now=NINE)
    assert code == 1
    assert "npx wrangler d1 migrations apply BILLING --local)" in capsys.readouterr().out


# The tickwork migrations there were before 0023 made the schema a version. wrangler applies a
# store's missing migrations in name order, so one numbered below 0023 that lands after it is
# applied after 0023 on stores already migrated, and the version cannot tell it is missing.
BEFORE_THE_VERSION = [f"{n:04d}" for n in range(1, 23)]  # 0020-0022 came in its own round, before any release


def test_no_migration_is_numbered_below_the_version_after_it_was_made():
    """A migration that lands after 0023 takes a number above the newest one and sets the
    schema to it: a Worker that needs it then refuses to tick until it is applied. One merged
    below 0023 would let a Worker tick on tables that lack it: renumber it above (listing it
    here is right only where no store was migrated to 0023 without it)."""
    from helpers import MIGRATIONS

    below = sorted(script.name[:4] for script in MIGRATIONS.glob("00*.sql") if script.name < "0023")
    assert below == BEFORE_THE_VERSION
