"""D1 on the local Workers host: a Worker's statements go to Miniflare's real D1 by asynchronous
requests only, never by Miniflare's synchronous proxy calls (whose SynchronousFetcher failed
`assert(message?.id === id)` under a thousand prepare+bind calls from one request), and what
comes back is what D1 answers: values, errors, a failed batch rolled back."""

import asyncio
import json
import subprocess
from pathlib import Path

from tickwork.times import utc

ROOT = Path(__file__).resolve().parents[2]

NINE = utc("2026-01-05 09:00")
STORM_EPOCH_MS = 1767600000000


def stored(host, tag):
    return host.d1(
        "SELECT COUNT(*) AS n, MIN(k) AS low, MAX(k) AS high, "
        f"SUM(value = {STORM_EPOCH_MS} + k) AS exact FROM e2e_storm WHERE tag = '{tag}'"
    )[0]


def test_three_thousand_statements_from_one_request_all_answer_right(host):
    answer = host.fetch("/d1/storm?n=3000&tag=fetch", "POST", b"")

    assert (answer.status, answer.json()) == (200, {"statements": 3000, "wrong": []}), answer
    assert stored(host, "fetch") == {"n": 3000, "low": 0, "high": 2999, "exact": 3000}


def test_d1_refuses_the_1001st_call_of_one_request_as_the_workers_runtime_does_and_the_next_request_has_its_own(host):
    # A fifth of a storm's statements are calls of their own: 1,002 of them here, then batches.
    refused = host.fetch("/d1/storm?n=5010&tag=capped", "POST", b"")
    again = host.fetch("/d1/storm?n=5&tag=next", "POST", b"")

    assert refused.status == 500 and "Too many API requests by single worker invocation." in refused.text, refused
    assert stored(host, "capped") == {"n": 1000, "low": 0, "high": 999, "exact": 1000}
    assert (again.status, again.json()) == (200, {"statements": 5, "wrong": []}), again


def test_two_thousand_statements_from_an_action_inside_one_tick_all_answer_right(host):
    handed = host.fetch(f"/d1/storm?n=2000&tag=tick&at={NINE}", "POST", b"")
    assert handed.status == 201, handed

    ticked = host.tick(NINE)

    assert ticked["ok"], ticked
    storms = [run for run in ticked["runs"] if run["schedule"].startswith("d1_storm@")]
    assert [(run["outcome"], run["detail"]) for run in storms] == [("succeeded", None)], storms
    assert stored(host, "tick") == {"n": 2000, "low": 0, "high": 1999, "exact": 2000}


def test_a_run_whose_action_used_up_the_invocations_d1_calls_is_left_to_its_lease_not_retried(host):
    handed = host.fetch(f"/d1/storm?n=5010&tag=tick-capped&at={NINE}", "POST", b"")
    assert handed.status == 201, handed

    ticked = host.tick(NINE)

    said = "\n".join(line["line"] if isinstance(line, dict) else str(line) for line in ticked["lines"])
    assert ticked["ok"] and "d1_storm@" not in json.dumps(ticked["runs"]), ticked
    assert "the ends could not be recorded: Error: Too many API requests by single worker invocation.;" in said
    assert "trying again" not in said
    assert host.d1("SELECT outcome FROM tickwork_runs WHERE schedule LIKE 'd1_storm@%'") == [{"outcome": "running"}]


def test_values_bound_from_python_come_back_as_d1_gives_them(host):
    unicode = "Grüße, 世界 🎉 ‮a\u0301 \"quoted\" 'single' \\ \n end"
    sent = [
        0, -1, STORM_EPOCH_MS, 2**31, 2**52, 2**53 - 2, -(2**53 - 2), 0.1, -2.5, 1.5e300,
        unicode, "", None, True, False, {"bytes": [0, 1, 127, 128, 255]},
    ]

    answers = host.fetch("/d1/values", "POST", json.dumps(sent).encode()).json()

    numbers = [[kind, value] for kind, value, _, _ in answers[:10]]
    assert numbers == [["int", value] for value in sent[:7]] + [["float", value] for value in sent[7:10]]
    assert answers[10:] == [
        ["str", unicode, "text", len(unicode)],
        ["str", "", "text", 0],
        ["NoneType", None, "null", None],
        ["int", 1, answers[13][2], answers[13][3]],
        ["int", 0, answers[14][2], answers[14][3]],
        ["list", [0, 1, 127, 128, 255], "blob", 5],
    ]


def test_integers_pyodide_sends_as_bigint_are_refused_by_d1s_bind(host):
    # Pyodide hands Python ints from 2**53 - 1 up to JS as BigInt, which D1's bind() refuses.
    answers = host.fetch("/d1/values", "POST", json.dumps([2**53 - 1, 2**53, -(2**53), 2**64]).encode()).json()

    assert [kind for kind, _ in answers] == ["error"] * 4
    assert answers[0][1] == (
        "JsException: Error: D1_TYPE_ERROR: Type 'bigint' not supported for value '9007199254740991'"
    )
    assert host.d1("SELECT COUNT(*) AS n FROM e2e_values") == [{"n": 0}]


async def _values_on_the_sqlite_store(values):
    """`_d1_values` of the host's Worker (conftest.py), on the unit tests' SQLite store."""
    from tickwork.adapters.sqlite import SQLiteDatabase

    db = SQLiteDatabase()
    await db.all("CREATE TABLE e2e_values (id INTEGER PRIMARY KEY, value)")
    answers = []
    for id, value in enumerate(values):
        await db.all("INSERT INTO e2e_values (id, value) VALUES (?1, ?2)", (id, value))
        [row] = await db.all("SELECT value, typeof(value) AS type, length(value) AS length FROM e2e_values "
                             "WHERE id = ?1", (id,))
        answers.append([type(row["value"]).__name__, row["value"], row["type"], row["length"]])
    db.close()
    return answers


def test_an_int_bound_from_python_is_kept_as_a_real_and_the_unit_tests_store_keeps_it_so(host):
    # D1 binds a JS number as REAL: a column of no affinity keeps 5.0, whose text is '5.0'.
    sent = [5, -1, STORM_EPOCH_MS, 2**53 - 2, True, 2.5]

    answers = host.fetch("/d1/values", "POST", json.dumps(sent).encode()).json()

    assert [[kind, type_, length] for kind, _, type_, length in answers[:2]] == [["int", "real", 3], ["int", "real", 4]]
    assert {type_ for _, _, type_, _ in answers} == {"real"}
    assert asyncio.run(_values_on_the_sqlite_store(sent)) == answers


def test_a_failing_statement_fails_its_whole_batch_with_d1s_message(host):
    seen = host.fetch("/d1/failures", "POST", b"").json()

    assert seen["batch"].startswith("JsException: Error: D1_ERROR: UNIQUE constraint failed: e2e_values.id")
    assert seen["after_batch"] == []  # the batch's first insert was rolled back with it
    assert seen["statement"].startswith("JsException: Error: D1_ERROR: no such table: e2e_no_such_table")
    assert seen["column"] == "JsException: Error: D1_COLUMN_NOTFOUND: Column not found (two)"
    assert seen["batch_after"] == [{"n": 1}]  # and D1 goes on answering
    assert host.d1("SELECT id, value FROM e2e_values") == [{"id": 1003, "value": "after"}]


# A host of its own in Node, on the test project's bundle and a D1 state of its own, counting
# Atomics.wait: each of Miniflare's synchronous proxy calls blocks Node's main thread on it (the
# old D1 wrapper made two per statement, prepare and bind). A request making a thousand
# statements and a tick running an action that makes a thousand more must not block there once.
NO_SYNCHRONOUS_CALLS = """
import { Host } from %(host)s;

let waits = 0;
const wait = Atomics.wait;
Atomics.wait = (...args) => { waits++; return wait(...args); };
process.on('unhandledRejection', (error) => { console.error(error); process.exit(1); });
const host = await Host.start({ configPath: %(config)s, bundleDir: %(bundle)s, persistTo: %(state)s });
// Counted from here: at start the host gets the queue producer, one synchronous call.
waits = 0;
try {
  const storm = await host.fetch(new Request('http://localhost/d1/storm?n=1000&tag=node', { method: 'POST' }));
  const handed = await host.fetch(new Request('http://localhost/d1/storm?n=1000&tag=tick&at=%(at)d', { method: 'POST' }));
  const runs = await host.scheduled('* * * * *', %(at)d);
  console.log(JSON.stringify({
    waits,
    storm: [storm.status, await storm.json()],
    handed: handed.status,
    runs: runs.filter((run) => run.schedule.startsWith('d1_storm@')).map((run) => run.outcome),
  }));
} finally {
  await host.dispose();
}
// As the host's command line does: what Pyodide and Miniflare leave behind may keep Node alive.
process.exit(0);
"""


def test_the_workers_d1_calls_never_block_node_on_a_synchronous_miniflare_call(host, tmp_path):
    script = NO_SYNCHRONOUS_CALLS % {
        "host": json.dumps((ROOT / "scripts" / "host" / "host.mjs").as_uri()),
        "config": json.dumps(str(host.project / "wrangler.toml")),
        "bundle": json.dumps(str(host.project / "build" / "worker")),
        "state": json.dumps(str(tmp_path / "state")),
        "at": NINE,
    }
    # A file, not `node --input-type=module -e`: worker threads inherit that flag, and Miniflare's
    # (CommonJS) SynchronousFetcher thread would then never answer.
    (tmp_path / "no_synchronous_calls.mjs").write_text(script)
    done = subprocess.run(
        ["node", str(tmp_path / "no_synchronous_calls.mjs")], cwd=host.project,
        capture_output=True, text=True, timeout=300,
    )

    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1]) == {
        "waits": 0,
        "storm": [200, {"statements": 1000, "wrong": []}],
        "handed": 201,
        "runs": ["succeeded"],
    }
