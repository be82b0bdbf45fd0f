"""What each key the build reads means: every item of a declaration and every setting, with its
type and the code a bad value is reported under. Which keys each kind holds, and their defaults,
stay where the build reads them (schedules.ITEMS, purges.ITEMS, settings, project, console): the
reference pages (docs/reference/declarations.md, settings.md) are made from those and from this,
and the docs build fails on a key read there that is not described here
(tests/test_the_docs_build.py)."""

from typing import NamedTuple


class Key(NamedTuple):
    type: str
    means: str
    code: str  # the problem a bad value is


# A declaration's items, as a .jadpo file writes them; the decorators and items.* take the same
# names as keyword arguments.
ITEMS = {
    "every": Key("duration: a whole number of s, m, h or d", "how often the schedule comes due, from its first "
                 "tick; at least a minute", "schedule.every_invalid"),
    "run": Key("a call: `action()`", "the action the run calls: an `async def` of the domain, taking no "
               "parameters", "schedule.run_invalid"),
    "cron": Key("a cron expression, 5 or 6 fields", "when the calendar comes due, in its zone (a sixth, "
                "leading field is seconds)", "schedule.cron_invalid"),
    "zone": Key("an IANA time zone", "the zone the cron's fields are read in", "schedule.zone_invalid"),
    "overdue": Key("seconds, or a duration of s, m, h or d", "how late an occurrence may be and still be "
                   "called; an older one is skipped and recorded `overdue` (unset: the latest one owed is "
                   "called, late)",
                   "schedule.overdue_invalid"),
    "nonexistent": Key("`shift` or `skip`", "a local time a DST change skips: run at the first moment after "
                       "the gap (`shift`) or not that day (`skip`)", "schedule.dst_invalid"),
    "repeated": Key("`first` or `both`", "a local time a DST change repeats: run at its first occurrence, or at "
                    "both", "schedule.dst_invalid"),
    "cycle": Key("seconds, or a duration of s, m, h or d", "the pulse's cycle, counted from the Unix epoch",
                 "schedule.cycle_invalid"),
    "intervals": Key("a whole number", "how many equal shares the cycle is split into: one due time each",
                     "schedule.intervals_invalid"),
    "retry": Key("`N after D`", "a failed run is tried again N times more (1 to 10), D after the failure, each "
                 "pause twice the one before", "schedule.retry_invalid"),
    "limit": Key("duration: s, m, h or d", "the run is stopped at D and recorded `deadline_exceeded`; at most "
                 "15m, or 30d for a run through a Workflow (`workflow:`, 1d unless written)", "schedule.limit_invalid"),
    "workflow": Key("a Workflow binding's name", "the run creates an instance of that Workflow, id the run's, in "
                    "place of calling a `run:` action, and ends as the instance settles (complete, errored, "
                    "terminated)", "schedule.workflow_unbound"),
    "jitter": Key("duration: s, m, h or d", "each due time runs an offset in [0, D) after it, the same for every "
                  "tick (`every:` and calendars; shorter than the time between due times)", "schedule.jitter_invalid"),
    "starts": Key("an ISO 8601 moment with its offset", "no call before it: the first due time is the first at "
                  "or after it", "schedule.starts_invalid"),
    "skip": Key("dates (YYYY-MM-DD) and names of lists, comma-separated", "days in the calendar's zone on which "
                "it makes no call: each due time then is recorded skipped `skip_date`, not missed; a name reads the "
                "list of `[tool.tickwork.dates]`", "schedule.skip_date_invalid"),
    "overlap": Key("`skip`, `buffer` or `allow`", "a due time that finds the previous run still going is skipped, "
                   "recorded `running` (`skip`: the rule of `every:` and pulses), waits and runs as soon as "
                   "that run ends, at most one waiting (`buffer`: a calendar's rule), or runs beside it, each "
                   "due time once (`allow`; not on a pulse)", "schedule.overlap_invalid"),
    "concurrency": Key("a limit, or a key and a limit: `4`, `api:acme 4`", "at most that many runs at once of the "
                       "action across its schedules, or of the key across every schedule and item naming it; the "
                       "others wait, owed, in due order, for a later tick or mark", "schedule.concurrency_invalid"),
    "table": Key("a table's name", "the app's table whose old rows the purge deletes", "purge.table_unknown"),
    "column": Key("a column's name", "the column holding each row's time", "purge.column_unknown"),
    "format": Key("`epoch_ms`, `epoch_s` or `iso`", "how the column holds the time", "purge.format_invalid"),
    "after": Key("duration of s, m, h or d, or `vars.NAME`", "the age past which rows are deleted, at least a "
                 "minute; `vars.NAME` reads it from the Worker's var at run time", "purge.after_invalid"),
}


class Setting(NamedTuple):
    file: str  # where it is written: pyproject.toml's [tool.tickwork], or the Worker's configuration
    key: str
    type: str
    default: str  # as written; "" where there is none
    means: str
    code: str


PYPROJECT = "pyproject.toml `[tool.tickwork]`"
WRANGLER = "wrangler.toml"

# The defaults the build takes are read from the build itself where it keeps them (the docs hook
# fills `source`, `app`, `d1_statements_per_tick`, `retention`, `migrations_dir` and the cron the
# build adds from settings._DIRECTORIES, project, migrations and output); the others are said here.
SETTINGS = (
    Setting(PYPROJECT, "source", "string: a directory", "", "the Worker's code: `entry.py`, `tickwork/`, the app",
            "settings.source_invalid"),
    Setting(PYPROJECT, "app", "string: a directory under `source`", "", "the app package: its domains are "
            "`<app>/domains/<domain>/`", "settings.app_invalid"),
    Setting(PYPROJECT, "store", "string", "", "the D1 binding (or `database_name`) that keeps schedule state; "
            "unset, the one D1 database bound: needed only when several are", "settings.store_invalid"),
    Setting(PYPROJECT, "d1_statements_per_tick", "integer, 10 to 1000", "", "the statements a tick may make "
            "(D1 allows 1,000 queries an invocation, 50 on the Free plan)", "settings.statements_per_tick_invalid"),
    Setting(PYPROJECT, "retention", "duration, a day to a century", "", "how long run records, the operator "
            "log and handed-over schedules that ended are kept before housekeeping deletes them",
            "settings.retention_invalid"),
    Setting(PYPROJECT, "alerts", "string: a producer binding", "", "the queue that is told of schedules failing "
            "or recovering and of ticks stopped", "settings.alerts_invalid"),
    Setting(PYPROJECT, "wakes", "string: a producer binding", "", "the queue, the Worker's own, that a tick "
            "sends delayed messages to for the `once` items and retries due before the next minute tick: each "
            "wakes the Worker at its second (docs/how-to/exact-timing.md); unset, the 10-second marks",
            "settings.wakes_invalid"),
    Setting(PYPROJECT, "console", "string: a path prefix", "", "serve the operator's console under this path of "
            "the Worker's fetch (`/ops`)", "settings.console_invalid"),
    Setting(PYPROJECT, "console_team", "string", "", "the Cloudflare Access team (`<team>.cloudflareaccess.com`) "
            "whose JWT lets an operator in", "settings.console_invalid"),
    Setting(PYPROJECT, "console_aud", "string", "", "the Access application's AUD tag; given with "
            "`console_team`", "settings.console_invalid"),
    Setting(PYPROJECT, "console_token", "string: a secret's name", "", "the Worker secret holding a bearer "
            "token that lets an operator in", "settings.console_invalid"),
    Setting(PYPROJECT, "console_url", "string: an https address", "", "the console's own address, ending with "
            "its prefix: alerts sent to the app's queue then carry `run_url`, the failed run's page",
            "settings.console_invalid"),
    Setting(PYPROJECT, "dates", "table of lists of dates", "", "named lists of dates (YYYY-MM-DD) that "
            "calendars skip with `skip: NAME`, e.g. `[tool.tickwork.dates] holidays = [\"2026-12-25\"]`",
            "settings.dates_invalid"),
    Setting(PYPROJECT, "version_metadata", "string: a binding's name", "", "the Worker's version-metadata "
            "binding, whose version id each deploy marker keeps (`CF_VERSION_METADATA`)",
            "settings.version_metadata_invalid"),
    Setting(PYPROJECT, "metrics", "string: a binding's name", "", "the Analytics Engine dataset each run and "
            "skip writes a data point to (docs: how-to/metrics.md); left out, none is written",
            "settings.metrics_invalid"),
    Setting(WRANGLER, "d1_databases[].binding", "string", "", "the D1 binding the Worker reads the database by",
            "settings.d1_databases_invalid"),
    Setting(WRANGLER, "d1_databases[].database_name", "string", "", "the database's name",
            "settings.d1_databases_invalid"),
    Setting(WRANGLER, "d1_databases[].migrations_dir", "string", "", "where the store's migrations "
            "are; `tickwork build` copies tickwork's own there", "settings.d1_databases_invalid"),
    Setting(WRANGLER, "queues.producers[].binding", "string", "", "a queue an event or an alert is sent "
            "through, by binding", "settings.queues_invalid"),
    Setting(WRANGLER, "queues.producers[].queue", "string", "", "the queue's name", "settings.queues_invalid"),
    Setting(WRANGLER, "queues.consumers[].queue", "string", "", "a queue a `@consumer` handles",
            "settings.queues_invalid"),
    Setting(WRANGLER, "queues.consumers[].max_retries", "integer, 0 to 100", "3", "how many times a message is "
            "retried", "settings.max_retries_invalid"),
    Setting(WRANGLER, "version_metadata.binding", "string", "", "the binding the Worker reads its version "
            "metadata by; `version_metadata` names it", "settings.version_metadata_invalid"),
    Setting(WRANGLER, "analytics_engine_datasets[].binding", "string", "", "an Analytics Engine dataset's "
            "binding; `metrics` names the one tickwork writes to", "settings.metrics_invalid"),
    Setting(WRANGLER, "triggers.crons", "array of strings", "", "the Worker's cron triggers; the "
            "build adds the minute cron", "deployable.trigger_missing"),
)
