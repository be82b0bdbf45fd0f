"""The local D1 of `tickwork dev`, read straight from Miniflare's SQLite file: a verb in well under
a second, where `wrangler d1 execute --local` starts Node and workerd for each one.

Miniflare keeps a D1 database as a Durable Object's SQLite file,
`<state>/v3/d1/miniflare-D1DatabaseObject/<id>.sqlite`, the id derived from the database's name
as Miniflare's `durableObjectNamespaceIdFromName` derives it; wrangler (`d1 execute --local`,
`dev`) and the host name a database by its `preview_database_id`, else its `database_id`, else
its binding.

The file is opened read-only, for one verb: workerd keeps it in WAL mode, where a reader takes
no lock a writer waits for and sees what was committed when its read began, so reading while
`tickwork dev` ticks is safe; a batch is one read transaction (one snapshot), and a busy timeout
covers the moment a checkpoint holds the file. The statements are the operator store's, bound
as SQLite binds them. Writes (`pause`, `resume`, `run`, `retry`, `dismiss`, `cancel`, `backfill`) are not
made here: while `tickwork dev` runs they go through it (DevHostD1), else through `wrangler d1
execute --local`, as D1 batches made by workerd.
"""

import hashlib
import hmac
import json
import math
import os
import socket
import urllib.error
import urllib.request
from decimal import Decimal
from pathlib import Path
from typing import Sequence
from urllib.parse import urlsplit

from tickwork.adapters.sqlite import SQLiteDatabase
from tickwork.database import Database, Params, Row, Statement

NAMESPACE = "miniflare-D1DatabaseObject"  # Miniflare's D1 plugin: the Durable Object's unique key


def object_id(unique_key: str, name: str) -> str:
    """The id Miniflare gives the Durable Object `name` of the namespace `unique_key`: 16 bytes of
    an HMAC of the name, then 16 of an HMAC of those, each keyed by the key's SHA-256, in hex."""
    key = hashlib.sha256(unique_key.encode()).digest()
    named = hmac.new(key, name.encode(), hashlib.sha256).digest()[:16]
    return (named + hmac.new(key, named, hashlib.sha256).digest()[:16]).hex()


def database_name(binding: dict) -> str:
    """The name wrangler gives a `[[d1_databases]]` entry's local database."""
    for key in ("preview_database_id", "database_id", "binding"):
        if isinstance(binding.get(key), str):
            return binding[key]
    raise ValueError("a D1 database without a binding")


def database_file(state: Path, binding: dict) -> Path:
    """Where Miniflare keeps the local database of `binding` under wrangler's state directory."""
    return state / "v3" / "d1" / NAMESPACE / f"{object_id(NAMESPACE, database_name(binding))}.sqlite"


class LocalD1File(SQLiteDatabase):
    """Miniflare's file of a local D1 database, read-only; rows as D1 answers them through wrangler."""

    def __init__(self, path: Path, binding: str | None = None):
        super().__init__(path, read_only=True, as_the_worker=False)  # bound as wrangler binds them
        self.path, self.binding = path, binding

    async def all(self, sql: str, params: Params = ()) -> list[Row]:
        return [_as_d1(row) for row in await super().all(sql, params)]

    async def batch(self, statements: Sequence[Statement]) -> list[list[Row]]:
        return [[_as_d1(row) for row in rows] for rows in await super().batch(statements)]


def _as_d1(row: Row) -> Row:
    """A row as D1's JSON gives it through wrangler."""
    return {k: _js_number(v) if isinstance(v, (int, float)) else v for k, v in row.items()}


def _js_number(value: int | float) -> int | float | None:
    """A number as JavaScript's JSON writes it and Python reads it back: a double (an integer past
    2^53 rounded), whole ones below 1e21 in their shortest digits (an integer), Infinity as null."""
    if isinstance(value, int) and abs(value) <= 2**53:
        return value
    number = float(value)
    if not math.isfinite(number):
        return None
    return int(Decimal(repr(number))) if number.is_integer() and abs(number) < 1e21 else number


# Where a running `tickwork dev` says it listens, in its state directory, and how a batch of the
# command reaches it: scripts/host/dev_file.mjs's DEV_FILE, COMMAND_ROUTE and TOKEN_HEADER.
DEV_FILE = "tickwork-dev.json"
COMMAND_ROUTE = "/cdn-cgi/tickwork/d1"
TOKEN_HEADER = "x-tickwork-dev-token"
DEV_TIMEOUT_S = 120  # a batch waits behind the Worker's own D1 calls: a tick's, at most its minute


class DevHostError(Exception):
    """What the running `tickwork dev` answered to a batch it could not run."""


def running_dev(state: Path) -> dict | None:
    """The `tickwork dev` running on the local D1 in `state` ({url, pid, token}), or None: no file,
    or one a dev killed outright left, its process gone or nothing listening where it says."""
    try:
        dev = json.loads((state / DEV_FILE).read_text())
        os.kill(int(dev["pid"]), 0)
    except PermissionError:
        pass  # a process of another user: its port says whether it is dev
    except (OSError, ValueError, KeyError, TypeError):
        return None
    address = urlsplit(str(dev.get("url")))
    try:
        socket.create_connection((address.hostname, address.port), timeout=5).close()
    except (OSError, ValueError):
        return None
    return dev


class DevHostD1(Database):
    """The local D1 through the running `tickwork dev`: each batch runs on the Worker's own binding
    in dev's process, one D1 transaction, so that no second workerd meets dev's lock (SQLITE_BUSY)."""

    def __init__(self, dev: dict, binding: str):
        self.url, self.token, self.binding = dev["url"], dev["token"], binding
        self.statements_run = self.round_trips = 0

    async def all(self, sql: str, params: Params = ()) -> list[Row]:
        [rows] = await self.batch([(sql, params)])
        return rows

    async def batch(self, statements: Sequence[Statement]) -> list[list[Row]]:
        body = {"binding": self.binding,
                "statements": [{"sql": sql, "params": list(params)} for sql, params in statements]}
        request = urllib.request.Request(self.url + COMMAND_ROUTE, data=json.dumps(body).encode(), method="POST",
                                         headers={"content-type": "application/json", TOKEN_HEADER: self.token})
        self.statements_run += len(statements)
        self.round_trips += 1
        try:
            with urllib.request.urlopen(request, timeout=DEV_TIMEOUT_S) as answer:
                return json.loads(answer.read())["results"]
        except urllib.error.HTTPError as error:
            raise DevHostError(f"{self.url} answered {error.code}: {_said(error.read())}") from None
        except (OSError, ValueError, KeyError) as error:
            raise DevHostError(f"{self.url} did not answer the change (it may have been made): {error}") from None


def _said(body: bytes) -> str:
    try:
        return str(json.loads(body)["error"])[:500]
    except (ValueError, KeyError, TypeError):
        return body.decode(errors="replace")[:500]
