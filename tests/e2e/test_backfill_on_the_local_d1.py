"""Issue 17, "Backfill" and "Missed occurrences are counted", on the local host: a backfill asked
for with the operator's command on the local D1, then ticks by hand make the occurrences."""

from test_the_operators_command_on_the_local_d1 import answer, tickwork

from tickwork.times import MINUTE, utc

NOON = utc("2026-01-05 12:00")


def census_runs(host):
    return host.d1("SELECT at, due_at, outcome, backfill, covers, covers_first, covers_last FROM tickwork_runs "
                   "WHERE schedule = 'chore_census' ORDER BY tick_at, due_at")


def test_a_backfill_asked_for_on_the_local_d1_is_made_by_the_next_ticks(host):
    host.tick(NOON)
    host.tick(utc("2026-01-05 13:00"))  # 12:15 to 13:00 owed: one run, for 13:00
    [late] = census_runs(host)
    assert (late["covers"], late["covers_first"], late["covers_last"]) == (
        4, utc("2026-01-05 12:15"), utc("2026-01-05 13:00"))
    why = tickwork(host, "why", "chore_census", now=utc("2026-01-05 13:01")).stdout
    assert "4 occurrences missed, 2026-01-05 12:15 UTC to 2026-01-05 13:00 UTC" in why
    dry = answer(tickwork(host, "backfill", "chore_census", "--from", "2026-01-05T12:00Z", "--to",
                          "2026-01-05T13:00Z", "--dry-run", "--json", now=utc("2026-01-05 13:01")))
    assert [o["at"]["ms"] for o in dry["occurrences"]] == [utc("2026-01-05 12:15"), utc("2026-01-05 12:30"),
                                                           utc("2026-01-05 12:45")]
    asked = answer(tickwork(host, "backfill", "chore_census", "--from", "2026-01-05T12:00Z", "--to",
                            "2026-01-05T13:00Z", "--who", "ana", "--json", now=utc("2026-01-05 13:01")))
    assert asked["changed"]
    since = len(host.output)
    host.tick(utc("2026-01-05 13:01"))
    printed = host.printed("chore_census due 2026-01-05T12:15:00Z", since=since)
    assert "chore_census due 2026-01-05T12:15:00Z, backfill by ana: succeeded" in printed, printed
    host.tick(utc("2026-01-05 13:02"))
    made = [(r["at"], r["outcome"], r["backfill"]) for r in census_runs(host) if r["backfill"]]
    assert made == [(utc("2026-01-05 12:15"), "succeeded", "ana"), (utc("2026-01-05 12:30"), "succeeded", "ana"),
                    (utc("2026-01-05 12:45"), "succeeded", "ana")]
    [item] = answer(tickwork(host, "backfills", "--json", now=utc("2026-01-05 13:03")))["backfills"]
    assert (item["state"], item["made"]) == ("done", 3)
    assert host.d1("SELECT who, verb FROM tickwork_operator_log") == [{"who": "ana", "verb": "backfill"}]
