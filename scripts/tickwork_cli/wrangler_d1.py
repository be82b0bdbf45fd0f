"""The app's D1 through `wrangler d1 execute`, as tickwork's `Database`.

`wrangler d1 execute --command` binds no parameters, so each statement's `?N` (and bare `?`)
are written into it as SQL literals: integers as integers, None as NULL, strings quoted with
their quotes doubled (and cut where wrangler would rewrite them, see `_UNTOUCHABLE`); anything
else is refused. A batch is one `--command` of the statements joined by `;` (each on a line of
its own, so no comment swallows one), which wrangler runs as one transaction: the first statement
that fails rolls them all back and wrangler exits non-zero with `{"error": {"text": ...}}` on stdout.
"""

import json
import os
import re
import shutil
import subprocess
import time
from pathlib import Path
from typing import Sequence

from tickwork.database import Database, Params, Row, Statement

QUIET = {
    "WRANGLER_SEND_METRICS": "false",
    "WRANGLER_SEND_ERROR_REPORTS": "false",
    "WRANGLER_HIDE_BANNER": "true",
    "NO_COLOR": "1",
}

# wrangler's `trimSqlQuery` deletes the first `BEGIN TRANSACTION;` and `COMMIT;` of a command
# holding `BEGIN TRANSACTION` (refusing one that holds two), inside string literals too: a string
# is written as literals joined with `||`, cut inside each, so the command never holds them.
_UNTOUCHABLE = re.compile(r"(?<=BEGIN TRANS)(?=ACTION)|(?<=COMMIT)(?=;)", re.IGNORECASE)

# A local D1 that another workerd holds (a `tickwork tick` host, or a dev older than this command)
# answers SQLITE_BUSY, its batch rolled back: tried again this many times, this far apart.
BUSY_TRIES = 5
BUSY_PAUSE_S = 2.0

# SQLite's own integers: a larger one would be read as a REAL.
_SMALLEST, _LARGEST = -(2**63), 2**63 - 1


class WranglerError(Exception):
    """wrangler could not run the statements, or said why it refused them."""


def literal(value) -> str:
    """`value` as a SQL literal; ValueError for anything but an integer, None or a string."""
    if value is None:
        return "NULL"
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise ValueError(f"cannot write {type(value).__name__} {value!r} into SQL: only integers, None and strings")
    if isinstance(value, int):
        if not _SMALLEST <= value <= _LARGEST:
            raise ValueError(f"the integer {value} is outside SQLite's 64 bits")
        # In parentheses, so that `x -?1` never becomes a `--` comment.
        return f"({value})" if value < 0 else str(value)
    if "\x00" in value:
        raise ValueError("a string holding a NUL character cannot go on wrangler's command line")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("a string that is not valid Unicode (a lone surrogate) cannot go into SQL") from None
    pieces = _UNTOUCHABLE.split(value.replace("'", "''"))
    joined = " || ".join(f"'{piece}'" for piece in pieces)
    return joined if len(pieces) == 1 else f"({joined})"


def inline(sql: str, params: Params) -> str:
    """`sql` with its parameters written in as literals. Quoted strings, quoted names and
    comments are left alone; every parameter given must be used, and none may be missing."""
    out: list[str] = []
    used: set[int] = set()
    sequential = 0
    k, n = 0, len(sql)
    while k < n:
        c = sql[k]
        if c in "'\"`[":
            close = "]" if c == "[" else c
            end = k + 1
            while True:
                end = sql.find(close, end)
                if end < 0:
                    raise ValueError(f"an unclosed {c} in the statement")
                if close != "]" and sql.startswith(close * 2, end):
                    end += 2  # a doubled quote stays inside
                    continue
                break
            out.append(sql[k : end + 1])
            k = end + 1
        elif sql.startswith("--", k):
            end = sql.find("\n", k)
            end = n if end < 0 else end
            out.append(sql[k:end])
            k = end
        elif sql.startswith("/*", k):
            end = sql.find("*/", k + 2)
            if end < 0:
                raise ValueError("an unclosed /* comment in the statement")
            out.append(sql[k : end + 2])
            k = end + 2
        elif c == "?":
            digits = k + 1
            while digits < n and sql[digits].isdigit():
                digits += 1
            if digits > k + 1:
                index = int(sql[k + 1 : digits])
            else:
                sequential += 1
                index = sequential
            if not 1 <= index <= len(params):
                raise ValueError(f"the statement uses ?{index} but {len(params)} parameter(s) were given")
            used.add(index)
            out.append(literal(params[index - 1]))
            k = digits
        else:
            out.append(c)
            k += 1
    if len(used) != len(params):
        unused = sorted(set(range(1, len(params) + 1)) - used)
        raise ValueError(f"parameter(s) {', '.join(f'?{i}' for i in unused)} given but not used")
    return "".join(out)


def wrangler_command(project: Path) -> list[str]:
    """The project's wrangler, else this repository's, else `npx wrangler`."""
    here = Path(__file__).resolve().parents[2]
    for root in (project, here):
        candidate = root / "node_modules" / ".bin" / "wrangler"
        if candidate.exists():
            return [str(candidate)]
    npx = shutil.which("npx")
    if npx is None:
        raise WranglerError("wrangler is not installed: run `npm ci` (or `make setup`) in the project")
    return [npx, "--no-install", "wrangler"]


class WranglerD1(Database):
    """The D1 database bound as `binding`, local (the `make dev` state, or `persist_to`) or
    remote (Cloudflare's, as wrangler's login allows)."""

    def __init__(self, project: Path, binding: str, remote: bool = False, persist_to: Path | None = None,
                 runner=subprocess.run, pause=time.sleep):
        self.project = project
        self.binding = binding
        self.remote = remote
        self.persist_to = persist_to
        self.runner = runner
        self.pause = pause
        self.statements_run = 0
        self.round_trips = 0
        self.rows_written = 0

    def command(self, sql: str) -> list[str]:
        where = ["--remote"] if self.remote else ["--local"]
        if self.persist_to is not None and not self.remote:
            where += ["--persist-to", str(self.persist_to)]
        return [*wrangler_command(self.project), "d1", "execute", self.binding, *where, "--json", "--command", sql]

    async def all(self, sql: str, params: Params = ()) -> list[Row]:
        [rows] = await self.batch([(sql, params)])
        return rows

    async def batch(self, statements: Sequence[Statement]) -> list[list[Row]]:
        try:
            text = "\n;\n".join(inline(sql.strip().rstrip(";"), params) for sql, params in statements)
        except ValueError as error:
            raise WranglerError(f"a statement could not be written for wrangler: {error}") from None
        self.statements_run += len(statements)
        self.round_trips += 1
        done, answer = self._execute(text)
        if done.returncode != 0 or not isinstance(answer, list):
            raise WranglerError(_error_text(answer, done))
        if len(answer) != len(statements):
            raise WranglerError(f"wrangler answered {len(answer)} result(s) for {len(statements)} statement(s)")
        results = []
        for result in answer:
            if not isinstance(result, dict) or result.get("success") is False:
                raise WranglerError(f"wrangler answered a statement that failed: {json.dumps(result)[:300]}")
            results.append([dict(row) for row in result.get("results") or []])
        return results

    def _execute(self, text: str) -> tuple[subprocess.CompletedProcess, object]:
        """wrangler's run of the command and its JSON answer; a local D1 found busy, again."""
        for tried in range(1, BUSY_TRIES + 1):
            try:
                done = self.runner(self.command(text), cwd=self.project, env={**os.environ, **QUIET},
                                   capture_output=True, text=True, timeout=300)
            except (OSError, subprocess.TimeoutExpired) as error:
                raise WranglerError(f"wrangler did not run: {error}") from None
            answer = _json(done.stdout)
            busy = done.returncode != 0 and "SQLITE_BUSY" in done.stdout + done.stderr
            if not busy or self.remote:
                return done, answer
            if tried < BUSY_TRIES:
                self.pause(BUSY_PAUSE_S)
        raise WranglerError(f"the local D1 stayed busy (SQLITE_BUSY) through {BUSY_TRIES} tries "
                            f"{BUSY_PAUSE_S:g} s apart: another process holds it, such as a `tickwork tick`; "
                            "nothing was changed: try again once it ends")


def _json(stdout: str):
    """wrangler's JSON answer: an array of results, or an object with its error; None if none."""
    text = stdout.strip()
    start = min((i for i in (text.find("["), text.find("{")) if i >= 0), default=-1)
    if start < 0:
        return None
    try:
        return json.loads(text[start:])
    except json.JSONDecodeError:
        return None


def _error_text(answer, done: subprocess.CompletedProcess) -> str:
    if isinstance(answer, dict) and isinstance(answer.get("error"), dict):
        error = answer["error"]
        text = error.get("text") or json.dumps(error)
        notes = [note.get("text") for note in error.get("notes") or [] if isinstance(note, dict)]
        return "; ".join([text, *filter(None, notes)])
    lines = [line.strip() for line in (done.stderr + "\n" + done.stdout).splitlines() if line.strip()]
    useful = [line for line in lines if not line.startswith(("▲", "⛅", "─", "🌀", "Resource location"))]
    return (useful or lines or [f"wrangler exited with {done.returncode}"])[-1][:500]
