"""The example app's purge schedule on the Workers runtime: `chores_done.purge` deletes the rows
of the app's own table older than 30 days, and the host says how many, with `items` and
`batches` in the run's JSON."""

from tickwork.times import DAY, HOUR, utc

NOON = utc("2026-01-05 12:00")


def test_the_example_apps_purge_deletes_its_old_rows_and_says_how_many(host):
    host.d1(
        "INSERT INTO chores_done (chore, done_at) VALUES "
        f"('water the plants', {NOON - 40 * DAY}), ('file the taxes', {NOON - 31 * DAY}), "
        f"('feed the cat', {NOON - DAY})"
    )
    host.tick(NOON)
    since = len(host.output)
    ticked = host.tick(NOON + HOUR)
    [purge] = [run for run in ticked["runs"] if run["schedule"] == "chores_done.purge"]
    assert (purge["outcome"], purge["items"], purge["batches"]) == ("succeeded", 2, [2])
    assert "chores_done.purge due 2026-01-05T13:00:00Z: succeeded, 2 records purged" in host.printed(
        "records purged", since=since)
    assert host.d1("SELECT chore FROM chores_done") == [{"chore": "feed the cat"}]
