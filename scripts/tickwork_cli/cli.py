"""The command line: `tickwork VERB [NAME|ID] (--local | --remote | --sqlite FILE) [--json]`."""

import argparse
import asyncio
import getpass
import json
import os
import re
import sqlite3
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

from tickwork.adapters.sqlite import SQLiteDatabase
from tickwork.database import Database
from tickwork.json_values import is_text
from tickwork.store.operator import OperatorStore
from tickwork.times import duration_ms, from_datetime, instant

from . import across, deliveries_and_backfills, deploys, remaking, terminating, verbs
from .local_d1 import DevHostD1, DevHostError, LocalD1File, database_file, running_dev
from .verbs import KINDS, LAG_WINDOW, STATES, STOPPED_AFTER, OperatorError
from .words import json_printable, printable
from .wrangler_d1 import WranglerD1, WranglerError

DEFAULT_THRESHOLD = STOPPED_AFTER
# through wrangler, with --local too
CHANGES = ("pause", "resume", "run", "retry", "dismiss", "cancel", "remake", "terminate")
OUTCOMES = ("succeeded", "failed", "skipped", "running")


# The moments a time can be shown as: the years 1 to 9999.
EARLIEST = from_datetime(datetime.min.replace(tzinfo=timezone.utc))
LATEST = from_datetime(datetime.max.replace(tzinfo=timezone.utc))


def _moment(text: str, now: int | None = None) -> int:
    """An ISO time (UTC unless it says otherwise), epoch ms, `now` (the system's clock), or (with
    `now`) a duration ago: `2h`, `1d`, `30m`; within the years 1 to 9999."""
    if text == "now":
        return _system_now() if now is None else now
    ago = duration_ms(text) if now is not None else None
    moment = now - ago if ago is not None else instant(text)
    if moment is None:
        raise argparse.ArgumentTypeError(
            f"`{text}` is no time: write e.g. 2026-01-05T09:15Z, epoch milliseconds, now"
            + (", or a duration ago such as 2h" if now is not None else ""))
    if not EARLIEST <= moment <= LATEST:
        raise argparse.ArgumentTypeError(f"`{text}` is outside the years 1 to 9999")
    return moment


def _system_now() -> int:
    return int(time.time() * 1000)


def _threshold(text: str) -> int:
    ms = duration_ms(text, bare_seconds=True)
    if ms is None:
        raise argparse.ArgumentTypeError(f"`{text}` is no duration: write e.g. 3m, 180 (seconds), 1h")
    return ms


def _limit(text: str) -> int:
    if not re.fullmatch(r"[0-9]{1,6}", text) or int(text) < 1:
        raise argparse.ArgumentTypeError(f"`{text}` is not a whole number from 1 to 999999")
    return int(text)


def parser() -> argparse.ArgumentParser:
    common, changes = _shared()
    top = argparse.ArgumentParser(
        prog="tickwork",
        description="Operate a tickwork app: its schedules, runs, deliveries and ticks.",
        epilog="Exit status: 0 done; 1 an error (one line on stderr, nothing changed), or ticks "
               "stopped for `status`; 2 a usage error.")
    verbs_ = top.add_subparsers(dest="verb", required=True, metavar="VERB")

    _schedule_verbs(verbs_, common, changes)
    _delivery_verbs(verbs_, common, changes)
    _backfill_verbs(verbs_, common, changes)

    one = verbs_.add_parser("deploys", parents=[common], help="each change of the declared set, newest first: "
                                                              "its version, what it added, removed and changed")
    one.add_argument("--before", metavar="CURSOR", help="the page after the one that said `--before CURSOR`")
    one.add_argument("--limit", type=_limit, default=20, help="at most this many (default 20)")

    one = verbs_.add_parser("status", parents=[common], help="the last tick, its age, and the gaps; "
                                                             "exits 1 when ticks stopped")
    one.add_argument("--threshold", type=_threshold, default=DEFAULT_THRESHOLD,
                     help="how old the last tick may be (default 3m; 180 is seconds)")
    one.add_argument("--window", type=_threshold, default=LAG_WINDOW,
                     help="the runs whose lag from due to start is shown: those of the last (default 1h)")
    return top


def _shared() -> tuple[argparse.ArgumentParser, argparse.ArgumentParser]:
    """The flags every verb takes (where the D1 is, --json, --now), and those every change takes (--who)."""
    common = argparse.ArgumentParser(add_help=False)
    where = common.add_argument_group("where the app's D1 is (one of)")
    place = where.add_mutually_exclusive_group(required=True)
    place.add_argument("--local", action="store_true",
                       help="the local D1 of `tickwork dev`, in .wrangler/state or --persist-to: read from "
                            "Miniflare's file, changed through the running tickwork dev, else through "
                            "wrangler d1 execute --local")
    place.add_argument("--remote", action="store_true",
                       help="Cloudflare's D1 (wrangler d1 execute --remote): wrangler's login decides who may")
    place.add_argument("--sqlite", metavar="FILE", type=Path, help="a SQLite file holding tickwork's tables")
    where.add_argument("--persist-to", metavar="DIR", type=Path, help="with --local: wrangler's state directory")
    where.add_argument("--through-wrangler", action="store_true",
                       help="with --local: read and change through `wrangler d1 execute --local`, not "
                            "Miniflare's file or the running tickwork dev")
    where.add_argument("--project", metavar="DIR", type=Path, default=Path("."),
                       help="the directory of wrangler.toml and pyproject.toml (default: here)")
    common.add_argument("--json", action="store_true", help="answer in JSON on stdout")
    common.add_argument("--now", metavar="TIME", type=_moment,
                        help="the command's clock, for what-ifs and tests (default: the system's)")
    changes = argparse.ArgumentParser(add_help=False)
    changes.add_argument("--who", help="who makes the change, for the operator log (default: the OS user)")
    return common, changes


def _schedule_verbs(verbs_, common: argparse.ArgumentParser, changes: argparse.ArgumentParser) -> None:
    """schedules, history, why, and the changes pause, resume and run."""
    one = verbs_.add_parser("schedules", parents=[common], help="every schedule: timing, next due, last run, state")
    one.add_argument("--name", metavar="GLOB", help="only names matching a glob (`chore_*`)")
    one.add_argument("--kind", choices=[*KINDS, "schedule"], help="only this kind (schedule: every)")
    one.add_argument("--state", choices=STATES,
                     help="only schedules in this state (active and removed, the old words, are live and ended)")
    one.add_argument("--limit", type=_limit, default=100, help="a page of at most this many (default 100)")
    one.add_argument("--after", metavar="NAME", default="",
                     help="the page after this name (the last of the page before, as it says)")
    one.add_argument("--input", action="store_true", help="show the input each was handed over with")

    one = verbs_.add_parser("history", parents=[common],
                            help="a schedule's runs and skips, newest first; without a name, every schedule's")
    one.add_argument("name", nargs="?", help="the schedule; without it, the runs across schedules, latest tick first")
    one.add_argument("--failed", action="store_true", help="only failed runs")
    one.add_argument("--since", metavar="TIME", help="ticks since a time, or a duration ago (2h, 1d)")
    one.add_argument("--limit", type=_limit, default=20, help="at most this many (default 20)")
    one.add_argument("--input", action="store_true", help="with a name: show the input it was handed over with")
    across_ = one.add_argument_group("without a name")
    across_.add_argument("--outcome", choices=OUTCOMES, help="only runs with this outcome")
    across_.add_argument("--name", dest="name_glob", metavar="GLOB", help="only schedules whose name matches a glob")
    across_.add_argument("--before", metavar="CURSOR", help="the page after the one that said `--before CURSOR`")

    one = verbs_.add_parser("why", parents=[common], help="where a schedule is declared, when it runs and why")
    one.add_argument("name", help="the schedule's name, or the id of an item handed over")
    one.add_argument("--input", action="store_true", help="show the input it was handed over with")

    for verb, words in (("pause", "skip a schedule's due times from the next tick, keeping its timing"),
                        ("resume", "let a paused schedule run again from the next tick"),
                        ("run", "ask the next tick for a run of a schedule now, moving no due time")):
        verbs_.add_parser(verb, parents=[common, changes], help=words).add_argument(
            "name", help="the schedule's name, or the id of an item handed over")



def _delivery_verbs(verbs_, common: argparse.ArgumentParser, changes: argparse.ArgumentParser) -> None:
    """deliveries, and the changes retry, dismiss and cancel."""
    one = verbs_.add_parser("deliveries", parents=[common], help="pending, failed and outcome_unknown deliveries")
    one.add_argument("--all", action="store_true", help="every delivery kept, whatever its state")
    one.add_argument("--limit", type=_limit, default=100, help="at most this many (default 100)")
    for verb, words in (("retry", "send a failed, outcome_unknown or pending delivery again now"),
                        ("dismiss", "set aside a failed or outcome_unknown delivery for good"),
                        ("cancel", "never send a pending, outcome_unknown or failed delivery")):
        verbs_.add_parser(verb, parents=[common, changes], help=words).add_argument(
            "id", help="the delivery's id, as `tickwork deliveries` lists it")


def _backfill_verbs(verbs_, common: argparse.ArgumentParser, changes: argparse.ArgumentParser) -> None:
    """backfill (and its --cancel), and backfills."""
    one = verbs_.add_parser("backfill", parents=[common, changes],
                            help="make a schedule's occurrences in a range that have no succeeded run, "
                                 "a few a tick, oldest first")
    one.add_argument("name", nargs="?", help="the schedule's name, or an item's id")
    one.add_argument("--from", dest="start", metavar="TIME", help="the range's start (ISO time or epoch ms)")
    one.add_argument("--to", dest="end", metavar="TIME", help="its end, included; not after now")
    one.add_argument("--dry-run", action="store_true", help="list what it would make; change nothing")
    one.add_argument("--cancel", metavar="ID", help="cancel a pending backfill (`tickwork backfills` lists them)")

    one = verbs_.add_parser("remake", parents=[common, changes],
                            help="make a failed run's due time again: the next tick runs it once more")
    one.add_argument("run", help="the failed run's id (`tickwork history NAME --failed` lists them)")

    one = verbs_.add_parser("terminate", parents=[common, changes],
                            help="terminate a running run's Workflow instance: the next tick does it")
    one.add_argument("run", help="the running run's id (`tickwork history NAME` lists them)")

    one = verbs_.add_parser("backfills", parents=[common], help="the backfills asked for, pending first")
    one.add_argument("name", nargs="?", help="only a schedule's")
    one.add_argument("--limit", type=_limit, default=20, help="at most this many (default 20)")


def connect(args) -> tuple[Database, Path | None]:
    """The database the flags name, and the project directory (for its manifest)."""
    project = args.project.resolve()
    if args.through_wrangler and not args.local:
        raise OperatorError("--through-wrangler is for --local: --remote always goes through wrangler, "
                            "--sqlite never does")
    if args.sqlite is not None:
        if not args.sqlite.is_file():
            raise OperatorError(f"no SQLite file {args.sqlite}")
        return SQLiteDatabase(args.sqlite), project
    from tickwork_build.problems import BuildFailed
    from tickwork_build.project import load_project, resolve_store

    try:
        loaded = load_project(project)
    except BuildFailed as failed:
        raise OperatorError(str(failed.problems[0]).splitlines()[0]) from None
    binding, reason = resolve_store(loaded)
    if binding is None:
        raise OperatorError(reason)
    persist = args.persist_to.resolve() if args.persist_to is not None else None
    if persist is not None and args.remote:
        raise OperatorError("--persist-to is for --local: a remote D1 has no state directory")
    state = persist or loaded.root / ".wrangler" / "state"
    if args.local and not state.is_dir():
        # wrangler would make an empty database there, and answer that it has no tables
        raise OperatorError(f"no local D1 state in {state}: "
                            f"`tickwork dev` (or `npx wrangler d1 migrations apply {binding} --local`) makes it")
    if args.local and not args.through_wrangler:
        path = _local_file(loaded, binding, state)  # a change too: wrangler would make an empty one
        if not _changes(args):
            return LocalD1File(path, binding), loaded.root
        dev = running_dev(state)
        if dev is not None:
            return DevHostD1(dev, binding), loaded.root
    return WranglerD1(loaded.root, binding, remote=args.remote, persist_to=persist), loaded.root


def _changes(args) -> bool:
    """Whether the verb writes: a change, or a backfill asked for or cancelled (not --dry-run)."""
    return args.verb in CHANGES or (args.verb == "backfill" and not args.dry_run)


def _local_file(loaded, binding: str, state: Path) -> Path:
    """Miniflare's file of the local database under wrangler's `state` directory, which must be there."""
    [entry] = [b for b in loaded.d1_bindings if b.get("binding") == binding]
    path = database_file(state, entry)
    if not path.is_file():
        raise OperatorError(f"the local D1 state in {state} has no database for {binding} (no {path.name}): "
                            f"`tickwork dev` (or `npx wrangler d1 migrations apply {binding} --local`) makes it, "
                            "or --persist-to names the state directory it keeps")
    return path


def _database_error(text: str) -> str:
    """What a database error means to an operator."""
    missing = re.search(r"no such table: (\w+)", text)
    apply = "apply the migrations (npx wrangler d1 migrations apply DB --local, or --remote)"
    if missing and missing.group(1).startswith("tickwork_"):
        return f"the database has no tickwork tables (no such table: {missing.group(1)}): {apply}"
    column = re.search(r"no such column: ([\w.]+)", text)
    if column:
        return (f"the database's tickwork tables are older than this command (no such column: {column.group(1)}): "
                f"{apply}")
    return text


async def _run(args, db: Database, project: Path | None, now: int) -> verbs.Answer:
    store = OperatorStore(db)
    if args.verb == "schedules":
        return await verbs.schedules(store, now, project, args.name, args.kind, args.state, args.after, args.limit,
                                     args.input)
    if args.verb == "history":
        since = None
        if args.since is not None:
            try:
                since = _moment(args.since, now)
            except argparse.ArgumentTypeError as error:
                raise OperatorError(str(error)) from None
        if args.name is None:
            return await _across(args, store, now, since)
        if args.outcome or args.name_glob or args.before:
            raise OperatorError("--outcome, --name and --before are for the runs across schedules: "
                                "leave out the schedule's name (or use --failed with it)")
        answer = await verbs.history(store, now, args.name, since, args.failed, args.limit, args.input, project)
        return await deploys.beside_history(store, answer)
    if args.verb == "why":
        return await deploys.beside_why(store, await verbs.why(store, now, args.name, project, args.input))
    if args.verb == "deploys":
        return await deploys.deploys(store, now, args.before, args.limit)
    if args.verb in ("pause", "resume", "run"):
        return await verbs.change_schedule(store, now, args.verb, args.name, args.who or _user())
    if args.verb == "deliveries":
        return await deliveries_and_backfills.deliveries(store, now, args.all, args.limit, project)
    if args.verb in ("retry", "dismiss", "cancel"):
        return await deliveries_and_backfills.change_delivery(store, now, args.verb, args.id, args.who or _user())
    if args.verb == "backfill":
        if args.cancel is not None:
            return await deliveries_and_backfills.cancel_backfill(store, now, args.cancel, args.who or _user())
        start, end = (_range_end(flag, text) for flag, text in (("--from", args.start), ("--to", args.end)))
        return await deliveries_and_backfills.backfill(store, now, args.name, start, end, args.who or _user(),
                                                       args.dry_run, project)
    if args.verb == "remake":
        return await remaking.remake(store, now, args.run, args.who or _user())
    if args.verb == "terminate":
        return await terminating.terminate(store, now, args.run, args.who or _user())
    if args.verb == "backfills":
        return await deliveries_and_backfills.backfills(store, now, args.name, args.limit)
    return await verbs.status(store, now, args.threshold, getattr(db, "binding", None) or "DB",
                              "--remote" if args.remote else "--local", args.window)


def _range_end(flag: str, text: str | None) -> int | None:
    if text is None:
        return None
    try:
        return _moment(text)
    except argparse.ArgumentTypeError as error:
        raise OperatorError(f"backfill.range_invalid: {flag}: {error}") from None


async def _across(args, store: OperatorStore, now: int, since: int | None) -> verbs.Answer:
    if args.input:
        raise OperatorError("--input is for one schedule's history: give its name (`tickwork schedules --input` "
                            "shows every input)")
    if args.failed and args.outcome not in (None, "failed"):
        raise OperatorError(f"--failed and --outcome {args.outcome} ask for different runs: give one")
    before = None
    if args.before is not None:
        before = across.read_cursor(args.before)
        if before is None:
            raise OperatorError(f"`{args.before}` is no cursor: give the one a page ended with (TICK/ID)")
    outcome = "failed" if args.failed else args.outcome
    return await across.recent(store, now, since, outcome, args.name_glob, before, args.limit)


def _all_text(args) -> None:
    """Refuses a name, id or `--who` that is not UTF-8 (argv hands a byte such as 0xff over as a lone
    surrogate): no row of the app's D1 could match it, and SQLite cannot bind it. Paths may be."""
    for value in vars(args).values():
        if isinstance(value, str) and not is_text(value):
            try:
                shown = value.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
            except UnicodeEncodeError:  # a surrogate no byte of argv makes
                shown = value.encode("utf-8", "backslashreplace").decode()
            raise OperatorError(f"`{shown}` is not UTF-8 text, as every name and id in the app's D1 is")


def _user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "unknown"


def main(argv: list[str] | None = None, now: int | None = None, stdout=None, stderr=None) -> int:
    """Runs one verb; `now` (epoch ms) is the command's clock, the system's by default."""
    stdout, stderr = stdout or sys.stdout, stderr or sys.stderr
    args = parser().parse_args(argv)
    if args.now is not None:
        now = args.now
    now = _system_now() if now is None else now
    db = None
    try:
        _all_text(args)
        db, project = connect(args)
        answer = asyncio.run(_run(args, db, project, now))
    except OperatorError as error:
        return _say(stderr, printable(f"tickwork {args.verb}: {error}"), 1)
    except WranglerError as error:
        return _say(stderr, printable(f"tickwork {args.verb}: wrangler: {_database_error(str(error))}"), 1)
    except DevHostError as error:
        return _say(stderr, printable(f"tickwork {args.verb}: tickwork dev: {_database_error(str(error))}"), 1)
    except sqlite3.Error as error:
        return _say(stderr, printable(f"tickwork {args.verb}: {_database_error(str(error))}"), 1)
    finally:
        if isinstance(db, SQLiteDatabase):
            db.close()
    if isinstance(db, DevHostD1):
        _say(stderr, f"tickwork {args.verb}: made through the tickwork dev running on this local D1 ({db.url})", 0)
    if args.json:
        return _say(stdout, json_printable(json.dumps(answer.data, indent=2, ensure_ascii=False)), answer.code)
    return _say(stdout, "\n".join(printable(line) for line in answer.lines), answer.code)


def _say(stream, text: str, code: int) -> int:
    """Prints `text` (its control characters escaped by the caller) and returns `code`. A reader
    that stops early (`| head`) ends the output, not with a traceback."""
    try:
        print(text, file=stream)
        stream.flush()
    except BrokenPipeError:
        # What is still buffered would be flushed again at exit, and fail the same way.
        os.dup2(os.open(os.devnull, os.O_WRONLY), stream.fileno())
    return code
