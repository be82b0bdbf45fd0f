"""The console's filters and bulk fixes in a real browser, on `tickwork dev` with its local D1
(issue 26): the runs page filtered by clicking, the failed runs it shows retried in bulk (the dry
run, the confirm, the redirect to the page it came from, the next tick making each once), the
deliveries page paged beyond 200 and dismissed in bulk. The failures and deliveries are rows
written into the local D1 as a tick would have left them (the example app's schedules succeed).
Screenshots go to the module's output directory, or the folder TICKWORK_SCREENSHOTS names (the
docs keep runs-filtered.png, retry-dry-run.png and deliveries.png)."""

from urllib.parse import parse_qs, urlsplit

from test_the_console_in_a_browser import browser, dev, ticked  # noqa: F401  (the fixtures)

from tickwork.times import MINUTE

FAILING = ("chore_census", "sweep", "tidy_up")


def _failures(host, hour: int) -> None:
    """Two failed runs of each of three schedules in the hour, one trace each, and a succeeded one
    between: ids in a tick's form (`z`, the tick in 12 hex digits), as the tick writes them."""
    values = []
    for k, name in enumerate(FAILING):
        for minute in (20 + k, 40 + k):
            tick = hour + minute * MINUTE
            values.append(f"('z{tick:012x}{k:019d}', '{name}', {tick}, {tick}, {tick}, {tick + 40}, 'failed', "
                          f"'internal_fault', 'raised', 'RuntimeError: the ledger is locked', 'trace-{name}-{minute}')")
    tick = hour + 50 * MINUTE
    values.append(f"('z{tick:012x}{9:019d}', 'chore_census', {tick}, {tick}, {tick}, {tick + 5}, 'succeeded', "
                  "NULL, NULL, NULL, 'trace-ok')")
    host.d1("INSERT INTO tickwork_runs (id, schedule, due_at, tick_at, started_at, ended_at, outcome, code, kind, "
            "detail, trace) VALUES " + ", ".join(values))


def _deliveries(host, hour: int, n: int = 230) -> None:
    """`n` failed deliveries of as many events, one in ten through the AUDIT queue."""
    host.d1(f"""
WITH RECURSIVE k(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM k WHERE n < {n})
INSERT INTO tickwork_events (id, name, body, emitted_at) SELECT printf('e%04d', n), 'order_placed',
    json_object('order', n), {hour} + n * 1000 FROM k""")
    host.d1(f"""
WITH RECURSIVE k(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM k WHERE n < {n})
INSERT INTO tickwork_deliveries (id, event, queue, state, attempts, last_error, updated_at)
SELECT printf('d%04d', n), printf('e%04d', n), CASE WHEN n % 10 = 0 THEN 'AUDIT' ELSE 'EVENTS' END, 'failed', 3,
    'the consumer refused it', {hour} + n * 1000 FROM k""")


def test_runs_filtered_by_clicking_and_their_failures_retried_in_bulk_each_made_once(dev, browser, ticked):  # noqa: F811
    host, console = dev
    _failures(host, ticked)
    owed = ticked + 10 * MINUTE  # a share sweep's pulse owed before its due time (:16), failed
    host.d1(f"INSERT INTO tickwork_runs (id, schedule, due_at, tick_at, started_at, ended_at, outcome, code, kind, "
            f"detail, trace) VALUES ('z{owed:012x}{7:019d}', 'sweep', {owed}, {owed}, {owed}, {owed + 40}, 'failed', "
            "'internal_fault', 'raised', 'RuntimeError: the ledger is locked', 'trace-sweep-10')")

    browser.goto(f"{console}/runs?since=7d&outcome=failed")
    browser.step("fill", selector="input[name=error]", value="LEDGER is locked")
    browser.step("fill", selector="input[name=name]", value="chore_census")
    filtered = browser.click("form[method=get] button:has-text('Show')")
    shown = browser.text("main table")
    browser.screenshot("runs-filtered")
    assert filtered["status"] == 200 and "error=LEDGER" in filtered["url"]
    assert shown.count("the ledger is locked") == 2 and "sweep" not in shown and "trace-ok" not in shown

    browser.goto(f"{console}/runs?since=7d&outcome=failed&error=ledger")
    dry = browser.click("button:has-text('List the failed runs this filter shows')")
    said = browser.text("main")
    browser.screenshot("retry-dry-run")
    assert dry["status"] == 200, said
    # Of the seven failed due times shown, only sweep's :10 is an occurrence a timing still owes, as
    # the one remake judges it: the others at :20-:22 and :40-:42 are no occurrence of chore_census
    # (every 15m) or tidy_up (every 1h), and sweep's are after its due time (:16), its own to run.
    assert "1 of the 7 failed due times this filter shows would each be made again" in said
    assert said.count("is no occurrence its timing owes") == 6
    assert "at most 100 a post" in said
    assert host.d1("SELECT count(*) AS n FROM tickwork_operator_log") == [{"n": 0}]  # a dry run changes nothing

    confirmed = browser.click("button:has-text('Make these 1 failed due times again')")
    back = urlsplit(confirmed["url"])
    assert confirmed["status"] == 200 and back.path.endswith("/runs"), confirmed
    assert set(parse_qs(back.query)) == {"since", "outcome", "error", "said", "seal"}  # the sealed notice
    assert "1 failed due times asked for again" in browser.text("main")
    logged = host.d1("SELECT schedule, who, verb FROM tickwork_operator_log ORDER BY schedule")
    assert logged == [{"schedule": "sweep", "who": "local", "verb": "remake"}]

    host.tick(ticked + 61 * MINUTE)
    host.tick(ticked + 62 * MINUTE)
    remade = host.d1("SELECT r.schedule, r.due_at FROM tickwork_runs AS r JOIN tickwork_backfills AS b "
                     "ON b.remake_of IS NOT NULL AND b.schedule = r.schedule AND b.from_at = r.due_at "
                     f"WHERE r.tick_at > {ticked + 60 * MINUTE} ORDER BY r.due_at")
    # Each remake asked for is made, once: none dropped by the tick's backfill step.
    assert remade == [{"schedule": "sweep", "due_at": owed}]


def test_deliveries_paged_beyond_200_and_dismissed_in_bulk_by_clicking(dev, browser, ticked):  # noqa: F811
    host, console = dev
    _deliveries(host, ticked)

    first = browser.goto(f"{console}/deliveries")
    page_one = browser.text("main table")
    assert first["status"] == 200 and "d0001" in page_one and "d0200" in page_one and "d0201" not in page_one
    second = browser.click("a:has-text('next page')")
    page_two = browser.text("main table")
    assert second["status"] == 200 and "d0201" in page_two and "d0230" in page_two and "d0200" not in page_two

    browser.goto(f"{console}/deliveries?queue=AUDIT")
    browser.screenshot("deliveries")
    dry = browser.click("button:has-text('Dismiss the deliveries this filter shows')")
    said = browser.text("main")
    browser.screenshot("deliveries-dismiss-dry-run")
    assert dry["status"] == 200 and "Dismiss would take these 23 deliveries, at most 100 a post" in said, said
    done = browser.click("button:has-text('Dismiss these 23 deliveries')")
    assert done["status"] == 200 and set(parse_qs(urlsplit(done["url"]).query)) == {"queue", "said", "seal"}
    assert "23 deliveries dismissed" in browser.text("main")
    assert host.d1("SELECT queue, state, count(*) AS n FROM tickwork_deliveries GROUP BY 1, 2 ORDER BY 1") == [
        {"queue": "AUDIT", "state": "dismissed", "n": 23}, {"queue": "EVENTS", "state": "failed", "n": 207}]
    assert host.d1("SELECT count(*) AS n FROM tickwork_operator_log WHERE verb = 'dismiss'") == [{"n": 23}]
    assert browser.seen()["errors"] == []
