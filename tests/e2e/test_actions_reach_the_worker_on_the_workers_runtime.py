"""Actions reach the Worker on the Workers runtime: the example app's actions read and write its
own D1 table through the Worker's own binding (`tickwork.env.DB`, the SDK's wrapper), read a var
of wrangler.toml and a secret of .dev.vars, keep a row with the run's end, and hand work to
`ctx.waitUntil`."""

import hashlib
import hmac

from conftest import E2E_REPORTS_TOKEN

from tickwork.times import iso, utc

NINE, TEN = utc("2026-03-02 09:00"), utc("2026-03-02 10:00")


def outcome(tick, name):
    return [run["outcome"] for run in tick["runs"] if run["schedule"] == name]


def test_an_action_reads_and_writes_the_apps_own_table_through_the_workers_d1_binding(host):
    host.d1(
        "INSERT INTO chores_done (chore, done_at) VALUES "
        f"('dishes', {utc('2026-03-02 08:30')}), ('laundry', {utc('2026-02-20 08:00')})"
    )
    host.tick(NINE)  # the hourly tally is first due an hour after the tick that first sees it

    tick = host.tick(TEN)

    assert outcome(tick, "tally_chores") == ["succeeded"], tick
    assert host.d1("SELECT at, done FROM chore_tallies") == [{"at": TEN, "done": 1}]
    printed = "\n".join(line["line"] for line in tick["lines"])
    assert "planning: 1 chores done in the day to 2026-03-02 10:00 UTC" in printed


def test_an_action_reads_a_var_and_a_secret_and_its_row_commits_with_the_runs_end(host):
    host.tick(NINE)

    tick = host.tick(TEN)

    assert outcome(tick, "publish_digest") == ["succeeded"], tick
    digest = f"digest to sales@example.com as of {iso(TEN)}"
    signature = hmac.new(E2E_REPORTS_TOKEN.encode(), digest.encode(), hashlib.sha256).hexdigest()
    assert host.d1("SELECT at, recipient, signature FROM digests_sent") == [
        {"at": TEN, "recipient": "sales@example.com", "signature": signature},
    ]
    [run] = host.d1("SELECT outcome, ended_at FROM tickwork_runs WHERE schedule = 'publish_digest'")
    assert run["outcome"] == "succeeded"
    assert f"reporting: {digest}, signed {signature[:12]}..." in host.printed(f"signed {signature[:12]}")
    assert E2E_REPORTS_TOKEN not in host.printed()


def test_with_secrets_in_dev_vars_a_json_tick_keeps_stdout_to_json_lines(host, tmp_path):
    """A host of its own, on a local D1 no dev runs on (beside one, the tick would be dev's)."""
    done = host.run_host("tick", "--time", str(NINE), "--far", "--json", "--persist-to", str(tmp_path / "state"))

    assert done.returncode == 0, done.stderr
    assert all(line.startswith("{") for line in done.stdout.splitlines()), done.stdout
    assert ".dev.vars" in done.stderr  # wrangler's note of where the secrets came from
