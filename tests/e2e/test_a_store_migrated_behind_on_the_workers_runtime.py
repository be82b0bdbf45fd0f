"""`migration.out_of_date` on the Workers runtime: a Worker whose local D1 was migrated only to
before migration 0023 (the host applies the migrations its wrangler.toml's directory holds)
refuses to tick, says so in its log and on the health route, and ticks once they are applied."""

import shutil

from conftest import running_host

from tickwork.times import utc

NINE = utc("2026-01-05 09:00")


def test_a_worker_on_tables_migrated_before_0023_refuses_to_tick_until_they_are_applied(host, tmp_path):
    for name in ("wrangler.toml", ".dev.vars"):
        shutil.copy(host.project / name, tmp_path / name)
    # 0023 left out, and the tickwork migrations after it, each of which sets schema_version
    shutil.copytree(host.project / "migrations", tmp_path / "migrations",
                    ignore=lambda _, names: [name for name in names if _from_0023(name)])
    with running_host(host.project, config=tmp_path / "wrangler.toml", state=tmp_path / "state") as behind:
        ticked = behind.tick(NINE)
        assert ticked["runs"] == [], ticked
        assert "migration.out_of_date" in behind.printed("migration.out_of_date")
        answer = behind.fetch("/health")
        assert answer.status == 503 and answer.json()["migration"].startswith("migration.out_of_date:")

        for script in (host.project / "migrations").iterdir():
            if _from_0023(script.name):
                shutil.copy(script, tmp_path / "migrations")
        behind.reset()  # the local D1 emptied and every migration applied, the isolate the same
        assert behind.tick(NINE)["ok"]
        body = behind.fetch("/health").json()
        assert "migration" not in body and body["last_tick"] == "2026-01-05T09:00:00.000Z"


def _from_0023(name: str) -> bool:
    """A tickwork migration from 0023 on (the app's own are numbered from 0100)."""
    return name[:4].isdigit() and 23 <= int(name[:4]) < 100
