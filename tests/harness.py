"""The fixtures and fakes many test files share, each once: the store (`db`), the operator's
command against a SQLite file (`OperatorHarness`, the `app` fixture), a producer binding
(`FakeQueue`) and an action handed over that only reads its input (`send_statement`).

tests/conftest.py makes the fixtures every test's; the rest is imported from here."""

import json

import pytest
from helpers import open_store, run, ticks

from tickwork import call


@pytest.fixture
def db():
    """A store migrated with tickwork's migrations, empty."""
    database = open_store()
    yield database
    database.close()


class OperatorHarness:
    """A SQLite file of tickwork's tables, a project directory, and the command run against both."""

    def __init__(self, tmp_path, capsys):
        self.path = tmp_path / "d1.sqlite"
        self.db = open_store(self.path)
        self.project = tmp_path / "project"
        self.project.mkdir()
        self.capsys = capsys

    def tick(self, schedules, *moments, **options):
        return ticks(self.db, schedules, *moments, **options)

    def run(self, *argv, now, json_=True):
        """(exit status, the answer (JSON unless json_=False), stderr)."""
        from tickwork_cli.cli import main  # the command's modules only for the tests that run it

        self.capsys.readouterr()
        args = [*argv, "--sqlite", str(self.path), "--project", str(self.project)] + (["--json"] if json_ else [])
        code = main(args, now=now)
        out, err = self.capsys.readouterr()
        return code, (json.loads(out) if json_ and out else out), err

    def rows(self, sql, *params):
        return run(self.db.all(sql, params))

    def manifest(self, *entries):
        (self.project / "build" / "app").mkdir(parents=True, exist_ok=True)
        (self.project / "build" / "app" / "tickwork_manifest.py").write_text(
            '"""Written by `make build`."""\n\nSCHEDULES = (\n' + "".join(f"    {e!r},\n" for e in entries) + ")\n")


@pytest.fixture
def app(tmp_path, capsys):
    """The operator's command against a store of its own."""
    made = OperatorHarness(tmp_path, capsys)
    yield made
    made.db.close()


class FakeQueue:
    """A producer binding as the outbox sees it: the batches it was sent, or a send that raises
    (the first `failures` of them)."""

    def __init__(self, failures: int = 0):
        self.sent: list[list[dict]] = []
        self.failures = failures

    async def send_batch(self, bodies):
        if self.failures:
            self.failures -= 1
            raise ConnectionError("the network went away mid-send")
        self.sent.append(list(bodies))

    @property
    def messages(self) -> list[dict]:
        """Every message sent, in order, whatever batch it went in."""
        return [body for batch in self.sent for body in batch]


async def send_statement():
    """An action handed over at run time that only reads its input."""
    _ = call.input
