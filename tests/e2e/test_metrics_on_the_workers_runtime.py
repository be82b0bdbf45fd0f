"""Metrics on the Workers runtime (issue 27): with an Analytics Engine dataset bound and named
(`metrics =`), each run and skip of a cron invocation writes one data point, indexed by its
schedule, laid out as docs/how-to/metrics.md queries it; a tick with nothing due writes none.
Miniflare drops Analytics Engine writes, so the host binds a dataset that keeps them."""

import json

from tickwork.times import utc

ELEVEN = utc("2031-06-02 11:00")


def test_each_run_writes_its_point_and_a_quiet_tick_none(host):
    host.tick(ELEVEN - 60_000)
    before = len(host.metrics())
    ticked = host.tick(ELEVEN)
    assert ticked["ok"], ticked
    points = host.metrics()[before:]
    runs = [r for r in ticked["runs"] if r["outcome"] != "running"]
    assert runs and len(points) == len(runs)
    by_trace = {p["blobs"][3]: p for p in points if p["blobs"][3]}
    made = [r for r in runs if r["outcome"] != "skipped"]
    assert made and {r["outcome"] for r in made} >= {"succeeded"}
    for run in made:
        point = by_trace[run["trace"]]
        assert point["indexes"] == [run["schedule"]] and point["blobs"][:3] == [
            run["schedule"], run["outcome"], run["code"] or ""]
        assert point["doubles"][0] >= 0 and point["doubles"][1] == run.get("attempt", 1)
    again = host.tick(ELEVEN)  # the same minute again: nothing due
    assert not again["runs"] and len(host.metrics()) == before + len(points), json.dumps(again)
