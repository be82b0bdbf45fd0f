import asyncio
from pathlib import Path

import pytest

from tickwork.adapters.sqlite import SQLiteDatabase

ROOT = Path(__file__).resolve().parent.parent
MIGRATIONS = ROOT / "migrations"


def open_store(path=":memory:") -> SQLiteDatabase:
    db = SQLiteDatabase(path)
    db.apply_migrations(MIGRATIONS)
    return db


@pytest.fixture
def db():
    database = open_store()
    yield database
    database.close()


def run(coroutine):
    return asyncio.run(coroutine)
