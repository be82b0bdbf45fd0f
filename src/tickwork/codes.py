"""Every problem code tickwork reports, once: what it means and how it is mended in general.

Each place that raises one (`errors.ScheduleError`, the build's `Problem`, `events.EventError`,
the command's `OperatorError`, the console's answers) says what is wrong in that case and the
mend that fits it; this is what the code means wherever it is met. The reference page
(docs/reference/problems.md) is made from it, and tests/test_every_code_is_registered.py fails
when a code is raised that is not here, or kept here that nothing raises. Never imported by the
Worker at a cold start: only the build, the docs and the tests read it."""

from typing import Literal, NamedTuple

Where = Literal["build", "run time", "build and run time", "command and console"]


class Code(NamedTuple):
    where: Where  # where it is met: the build's report, an error raised in a run, an operator's answer
    means: str
    mend: str


# Grouped as the page shows them: by what the code's first part names.
CODES: dict[str, Code] = {
    # -- declarations: .jadpo files, decorators, and items handed over at run time ------------------
    "schedule.every_invalid": Code(
        "build and run time", "`every:` is missing, not a whole number above zero (digits 0-9) of s, m, h or d, "
        "or longer than a hundred years", "write e.g. `every: 15m`"),
    "schedule.run_invalid": Code(
        "build", "`run:` is missing, not a call with no arguments, or not a parameterless `async def` action of "
        "the domain; or a decorator sits on anything but a function at the top level of a domain's module",
        "write the action's name and `()`, e.g. `run: tidy_up()`, and define `async def tidy_up():` in the domain"),
    "schedule.workflow_unbound": Code(
        "build", "`workflow:` names a Workflow binding the Worker's configuration does not declare in `[[workflows]]`, "
        "so its instances could never be created", "bind the Workflow in wrangler.toml (`[[workflows]]` with "
        "`binding`, `name` and `class_name`), or name one it binds"),
    "schedule.item_invalid": Code(
        "build", "an item the kind does not hold, an item given twice, a name declared twice, two purges of one "
        "table, or a decorator's `name=` that is not a string holding a name",
        "remove the item, keep one of the two, or give a name of letters, digits, `_` and `.`"),
    "schedule.store_required": Code(
        "build", "no D1 database is bound, or several are and none is named the store",
        "bind a D1 database in wrangler.toml, or name the store: `[tool.tickwork] store = \"DB\"`"),
    "schedule.cron_invalid": Code(
        "build and run time", "`cron:` is missing, not 5 or 6 fields, not standard cron (`R`, `L`, `5/15`, "
        "`@daily` are refused; the message names the field and token), or never comes due (`0 0 30 2 *`)",
        "write five fields of numbers, ranges, lists and steps, e.g. `cron: \"0 9 * * 1\"`"),
    "schedule.zone_invalid": Code(
        "build and run time", "`zone:` is not an IANA time zone of the vendored `tzdata`",
        "write a zone such as `Europe/Paris` or `UTC`"),
    "schedule.overdue_invalid": Code(
        "build and run time", "`overdue:` is not a whole number above zero of seconds (or of s, m, h, d), or is "
        "longer than a hundred years", "write e.g. `overdue: 3600`"),
    "schedule.skip_date_invalid": Code(
        "build and run time", "a date of `skip:` (or `skip=`) is not written YYYY-MM-DD or does not exist; or a "
        "schedule handed over names a list, which only a declaration may", "write a date that exists, e.g. "
        "`2026-12-25`, or in a declaration the name of a list of `[tool.tickwork.dates]`"),
    "schedule.skip_list_unknown": Code(
        "build", "`skip:` names a list of dates that `[tool.tickwork.dates]` does not declare",
        "declare it in pyproject.toml: `[tool.tickwork.dates]` `holidays = [\"2026-12-25\"]`, or name a list declared"),
    "schedule.skip_dates_too_many": Code(
        "build and run time", "a calendar's skip dates, its own and its lists' together, are more than 1,000",
        "keep the dates of the years ahead; drop those past"),
    "schedule.dst_invalid": Code(
        "build and run time", "`nonexistent:` is other than `shift` or `skip`, or `repeated:` other than `first` "
        "or `both`", "write `nonexistent: shift` or `skip`, `repeated: first` or `both`"),
    "schedule.cycle_invalid": Code(
        "build", "`cycle:` is missing, not a whole number above zero of seconds (or of s, m, h, d), or longer than "
        "a hundred years", "write e.g. `cycle: 300`"),
    "schedule.intervals_invalid": Code(
        "build", "`intervals:` is not a whole number (digits 0-9), below 1 or above `cycle`",
        "write e.g. `intervals: 24`, at most the cycle's seconds"),
    "schedule.retry_invalid": Code(
        "build and run time", "`retry:` is not `N after D [up to C] [jitter J] [except code, ...]` (attempts more, "
        "1 to 10, durations of s, m, h or d, its parts in that order), or its last pause is longer than a hundred "
        "years", "write e.g. `retry: 3 after 1m`, or `retry: 8 after 1m up to 30m jitter 30s except invalid_input`"),
    "schedule.starts_invalid": Code(
        "build and run time", "`starts:` (or `starts=`) is not a moment: an ISO 8601 time with its offset in a "
        "declaration, epoch ms handed over; or it is given to a one-off item", "write e.g. "
        "`starts: 2027-01-04T09:00:00Z`, or `starts=` epoch ms on items.every and items.calendar"),
    "schedule.times_invalid": Code(
        "run time", "`times=` is not a whole number above zero, or is given to a one-off item",
        "write e.g. `times=12` on items.every or items.calendar: ended after 12 calls made"),
    "schedule.limit_invalid": Code(
        "build and run time", "`limit:` is not a duration of s, m, h or d above zero, or is longer than the "
        "15-minute run limit", "write e.g. `limit: 2m`, at most `15m`"),
    "schedule.overlap_invalid": Code(
        "build and run time", "`overlap:` is other than `skip`, `buffer` or `allow`",
        "write `overlap: skip` (a due time the previous run still holds is skipped), `overlap: buffer` (it "
        "waits for that run's end) or `overlap: allow` (it runs beside it)"),
    "schedule.overlap_pulse": Code(
        "build", "`overlap: allow` on a pulse, which is never called while its previous call is still running",
        "write `overlap: skip` or `overlap: buffer`, or declare a `schedule:` with `every:` to run calls side by side"),
    "schedule.jitter_invalid": Code(
        "build and run time", "`jitter:` is not a duration of whole seconds (s, m, h or d), is not shorter than the "
        "time between two due times, or is given to a kind that takes none (a pulse, a one-off moment)",
        "write e.g. `jitter: 5m`, shorter than the schedule's interval"),
    "schedule.id_invalid": Code(
        "run time", "`items.cancel` was given something that is not the id of a schedule handed over",
        "cancel with the string `items.calendar`, `items.every` or `items.once` returned"),
    "schedule.input_invalid": Code(
        "run time", "an item's input is not JSON tickwork can keep, or is too large",
        "hand over dicts, lists, strings, numbers, booleans and None: ids, not records"),
    "schedule.label_invalid": Code(
        "run time", "an item's label is not a string, is empty or too long, or holds control, line-break or "
        "bidirectional characters", "give a short label of plain text"),
    "schedule.concurrency_invalid": Code(
        "build and run time", "an item's `concurrency=` is not a pair (key, limit): a key of text and a limit that "
        "is a whole number above zero; or a declared `concurrency:` is not a limit, or a key and a limit "
        "(`concurrency: 4`, `concurrency: api:acme 4`)",
        'give e.g. `concurrency=("api:acme", 4)` or declare `concurrency: api:acme 4`: at most 4 runs of the key '
        'at once'),
    "schedule.at_invalid": Code(
        "run time", "`items.once`'s `at` is not an int of epoch milliseconds within the years tickwork keeps",
        "give `at` as an int of milliseconds since the epoch, e.g. `clock.now_ms + 3600000`"),
    "schedule.expires_invalid": Code(
        "run time", "an item's `expires` is not an int of epoch milliseconds within the years tickwork keeps",
        "give `expires` as an int of milliseconds since the epoch"),
    "items.statements_used_up": Code(
        "run time", "handing items over one by one would pass D1's calls an invocation (1,000; 50 on Free)",
        "hand many over in one call: `items.calendar_many`, `every_many`, `once_many` or `hand_over`, and "
        "`cancel_many`"),
    "purge.table_unknown": Code(
        "build", "`table:` is missing, not a name (letters, digits, `_`), or not a table the migrations of the "
        "store's database create", "name a table the app's migrations create"),
    "purge.table_refused": Code(
        "build", "the table is not the app's: tickwork's own (`tickwork_*`), SQLite's (`sqlite_*`), D1's "
        "(`_cf_*`), or `d1_migrations`", "purge only the app's own tables"),
    "purge.column_unknown": Code(
        "build", "`column:` is missing, or not a column of the table as the migrations leave it",
        "name the column that holds each row's time"),
    "purge.format_invalid": Code(
        "build", "`format:` is missing, none of `epoch_ms`, `epoch_s`, `iso`, or does not fit the column's "
        "declared type", "write the format the column holds its time in: `epoch_ms`, `epoch_s` or `iso`"),
    "purge.after_invalid": Code(
        "build and run time", "`after:` is missing, not a duration of s, m, h or d, under a minute or longer than "
        "a hundred years; or `after: vars.NAME` where `[vars]` does not set `NAME` to such a duration (at run "
        "time: a failed purge run)", "write e.g. `after: 30d`, or set the var to such a duration"),
    "purge.migrations_invalid": Code(
        "build", "a migration of the store's database fails on a scratch SQLite database; the purges' tables and "
        "columns are then not checked", "fix the migration at the statement named"),
    "purge.place_invalid": Code(
        "build", "`tickwork.purge(...)` is called in a module outside the domains' packages",
        "call it in a module of a domain's package"),
    "declaration.syntax_invalid": Code(
        "build", "a `.jadpo` file is malformed: an unclosed brace or string, an unknown keyword, a line that is "
        "not UTF-8, ...", "fix the file at the line named; the rest of it is still read"),
    "domain.import_failed": Code(
        "build", "a module of a domain's package raised (or called `sys.exit()`) when the build imported it",
        "fix the app's line that raised, or its syntax error"),
    # -- the Workers target --------------------------------------------------------------------------
    "deployable.target_unsupported": Code(
        "build", "due more often than a Worker ticks: `every:` under a minute, a seconds field firing more than "
        "once a minute, a pulse share under 60 s, a `retry:` pause under a minute without queues bound (under "
        "10 s with them)", "use `every: 1m` or more, or bind queues for pauses down to 10 s"),
    "deployable.too_many_schedules": Code(
        "build", "more than 30,000 schedules are declared (purges included): an isolate's 128 MB holds no more",
        "hand the others over at run time as items, rows of D1"),
    "deployable.trigger_missing": Code(
        "build", "the Worker's configuration writes its triggers in a form the build cannot add `* * * * *` to, "
        "or `triggers.crons` is not an array of strings", "write `crons = [\"* * * * *\"]` under `[triggers]`"),
    # -- settings: pyproject.toml's [tool.tickwork] and the Worker's configuration -------------------
    "settings.file_invalid": Code(
        "build", "`pyproject.toml` or the Worker's configuration is missing, not a file, not valid TOML (or JSON "
        "with comments), nested too deeply, or two configurations are there; nothing else is checked",
        "build from the directory of pyproject.toml and wrangler.toml, and fix the file at the line named"),
    "settings.tickwork_invalid": Code(
        "build", "`tool` or `tool.tickwork` in `pyproject.toml` is not a table",
        "write the settings under `[tool.tickwork]`"),
    "settings.source_invalid": Code(
        "build", "`source` is not a string naming a directory of the project",
        "name the directory of the Worker's code, entry.py at its top: `source = \"src\"`"),
    "settings.app_invalid": Code(
        "build", "`app` is not a string naming a directory under `source` whose path parts are Python names",
        "name the app package's directory under `source`: `app = \"src/app\"`"),
    "settings.store_invalid": Code(
        "build", "`store` is not a string", "name the D1 binding (or database_name) that keeps schedule state: "
        "`store = \"DB\"`"),
    "settings.retention_invalid": Code(
        "build", "`retention` is not a duration from a day to a century", "write e.g. `retention = \"30d\"`"),
    "settings.statements_per_tick_invalid": Code(
        "build", "`d1_statements_per_tick` is not a whole number from 10 to 1000",
        "write e.g. `d1_statements_per_tick = 900`"),
    "settings.d1_databases_invalid": Code(
        "build", "`d1_databases` is not an array of tables, or one has no `binding`, or its `binding`, "
        "`database_name` or `migrations_dir` is not a non-empty string",
        "write each as `[[d1_databases]]` with `binding = \"DB\"`, `database_name` and `database_id`"),
    "settings.queues_invalid": Code(
        "build", "`queues` is not a table, its producers or consumers not an array of tables, a producer without "
        "a `binding` and `queue`, a consumer without a `queue`",
        "write each as `[[queues.producers]]` with `binding` and `queue`, `[[queues.consumers]]` with `queue`"),
    "settings.max_retries_invalid": Code(
        "build", "a consumer's `max_retries` is not a whole number from 0 to 100 (Cloudflare's limit)",
        "write e.g. `max_retries = 3`"),
    "settings.alerts_invalid": Code(
        "build", "`alerts` is not the name of a `[[queues.producers]]` binding of the Worker's configuration",
        "name a producer binding: `alerts = \"ALERTS\"`"),
    "settings.dates_invalid": Code(
        "build", "a list of `[tool.tickwork.dates]` is not a list of dates written YYYY-MM-DD (or TOML dates), "
        "its name is not a name, or it holds more than 1,000 dates",
        "write e.g. `holidays = [\"2026-12-25\", \"2027-01-01\"]`"),
    "settings.wakes_invalid": Code(
        "build", "`wakes` is not a `[[queues.producers]]` binding whose queue the Worker consumes, and no "
        "`@consumer` reads, in the Worker's configuration",
        "bind a queue of its own: `[[queues.producers]] binding = \"WAKES\"` and `[[queues.consumers]]` of its "
        "queue, and name it: `wakes = \"WAKES\"`"),
    "settings.version_metadata_invalid": Code(
        "build", "`version_metadata` is not the name of the version-metadata binding the Worker's configuration "
        "declares (`[version_metadata] binding`)",
        "declare `[version_metadata] binding = \"CF_VERSION_METADATA\"` and name it: "
        "`version_metadata = \"CF_VERSION_METADATA\"`, or leave it out (deploy markers then keep no version)"),
    "settings.metrics_invalid": Code(
        "build", "`metrics` is not the name of an `[[analytics_engine_datasets]]` binding of the Worker's "
        "configuration", "declare `[[analytics_engine_datasets]] binding = \"TICKWORK_METRICS\"` and name it: "
        "`metrics = \"TICKWORK_METRICS\"`, or leave it out (no data points are written)"),
    "settings.console_invalid": Code(
        "build", "a `console*` setting is not one the console has, or is of the wrong form (a path prefix, an "
        "Access team and AUD given together, a secret's name)", "write e.g. `console = \"/ops\"` with "
        "`console_team` and `console_aud`, or `console_token`"),
    # -- events and their consumers -------------------------------------------------------------------
    "event.name_invalid": Code(
        "run time", "an event's name is not a string of text", "name the event with a string"),
    "event.queue_unbound": Code(
        "build and run time", "an event is sent through a queue the Worker does not bind as a producer",
        "add `[[queues.producers]]` with that binding and the queue's name to wrangler.toml"),
    "event.body_invalid": Code(
        "run time", "an event's body is not JSON tickwork can send", "send dicts, lists, strings, numbers, "
        "booleans and None"),
    "event.body_too_large": Code(
        "run time", "an event's body is larger, as JSON, than a queue message takes",
        "send an id and read the rest where it is kept"),
    "consumer.queue_unbound": Code(
        "build", "a consumer names a queue that is not a string, or one wrangler.toml's `[[queues.consumers]]` "
        "does not name", "add `[[queues.consumers]]` with that queue to wrangler.toml"),
    "consumer.duplicate": Code(
        "build", "a queue has two consumers", "declare one consumer a queue; it reads `call.input` to tell "
        "messages apart"),
    "consumer.action_invalid": Code(
        "build", "a consumer is not an `async def` function without parameters at the top level of its module",
        "make it `async def handle():` at the top level of a domain's module"),
    # -- backfills, asked for by the command or the console -------------------------------------------
    "backfill.range_invalid": Code(
        "command and console", "a backfill's range lacks an end, has its start after its end, ends after now, "
        "or a time is not one", "give `--from` and `--to` as past times, e.g. 2026-01-05T09:15Z or epoch ms"),
    "backfill.schedule_removed": Code(
        "command and console", "the schedule has ended or is no longer declared: there is nothing to backfill",
        "backfill a schedule that is live or paused"),
    "backfill.schedule_missing": Code(
        "command and console", "no schedule was named to backfill", "name the schedule (or an item's id)"),
    "backfill.unknown": Code(
        "command and console", "there is no backfill of that id", "`tickwork backfills` lists them"),
    "backfill.not_pending": Code(
        "command and console", "the backfill is no longer pending, so it cannot be cancelled",
        "only a pending backfill can be cancelled"),
    # -- remakes and terminations of one run, asked for by the command or the console ----------------
    "remake.unknown": Code(
        "command and console", "there is no run of that id to make again", "`tickwork history NAME` lists a "
        "schedule's runs"),
    "remake.not_remakable": Code(
        "command and console", "the run's due time may not be made again: it did not fail, it was made again "
        "already, its schedule is gone, or its timing no longer owes that occurrence", "remake a failed run of a "
        "declared schedule whose timing still owes its due time; the answer says which check refused"),
    "terminate.unknown": Code(
        "command and console", "there is no run of that id to terminate", "`tickwork history NAME` lists a "
        "schedule's runs"),
    "terminate.not_running": Code(
        "command and console", "the run is not a running run through a Workflow, or its termination was asked "
        "for already", "terminate a run that is still running through a Workflow; the answer says why not"),
}


def code_of(code: str) -> Code:
    """What `code` means; KeyError where it is none of tickwork's."""
    return CODES[code]
