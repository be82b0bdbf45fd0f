"""`migration.out_of_date` on the Workers runtime: a Worker whose local D1 was migrated only to
before migration 0023 (the host applies the migrations its wrangler.toml's directory holds)
refuses to tick, says so in its log and on the health route, and ticks once they are applied."""

import shutil

from conftest import running_host

from tickwork.times import utc

NINE = utc("2026-01-05 09:00")


def _from_0023(_, names: list[str]) -> list[str]:
    """tickwork's migrations from 0023 on, each of which sets the schema's number (the example
    app's own, from 0100, stay)."""
    return [name for name in names if "0023" <= name < "0100"]


def test_a_worker_on_tables_migrated_before_0023_refuses_to_tick_until_they_are_applied(host, tmp_path):
    for name in ("wrangler.toml", ".dev.vars"):
        shutil.copy(host.project / name, tmp_path / name)
    shutil.copytree(host.project / "migrations", tmp_path / "migrations", ignore=_from_0023)
    with running_host(host.project, config=tmp_path / "wrangler.toml", state=tmp_path / "state") as behind:
        ticked = behind.tick(NINE)
        assert ticked["runs"] == [], ticked
        assert "migration.out_of_date" in behind.printed("migration.out_of_date")
        answer = behind.fetch("/health")
        assert answer.status == 503 and answer.json()["migration"].startswith("migration.out_of_date:")

        for name in _from_0023(None, [path.name for path in (host.project / "migrations").iterdir()]):
            shutil.copy(host.project / "migrations" / name, tmp_path / "migrations")
        behind.reset()  # the local D1 emptied and every migration applied, the isolate the same
        assert behind.tick(NINE)["ok"]
        body = behind.fetch("/health").json()
        assert "migration" not in body and body["last_tick"] == "2026-01-05T09:00:00.000Z"
