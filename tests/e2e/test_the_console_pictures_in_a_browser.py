"""The console's pictures in a real browser, on a desktop and on a phone: `tickwork dev` on the
example app, a week of its schedules' runs written into its local D1 (failures, retries, skips,
a calendar's missed occurrences, statements handed over with labels), and headless Chromium
opening the overview and a schedule's page at 1280 px and 390 px wide. The grid and the charts
are drawn, nothing scrolls sideways on the phone.

The screenshots (overview.png, overview-phone.png, schedule.png, schedule-phone.png) go where the
shared `browser` fixture keeps them: the module's output directory (its path printed, `pytest -s`
shows it), or the folder TICKWORK_SCREENSHOTS names. The documentation's are made again with
`TICKWORK_SCREENSHOTS=docs/screenshots`, run from the checkout's root: a run without it leaves the
tree as it was."""

import time

import pytest
from helpers import run
from test_the_console_in_a_browser import browser, dev  # noqa: F401  (the fixtures, shared)

from tickwork.times import DAY, HOUR, MINUTE
from tickwork_cli.local_d1 import DevHostD1, running_dev

DESKTOP, PHONE = (1280, 900), (390, 844)

# A week of runs as a busy app's: written into the tables as the tick would have left them,
# ids in the tick's form ('z' + the tick in 12 hex digits + 19 digits), each schedule's own range.
WEEK = """
WITH RECURSIVE k(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM k WHERE n < ?3 - 1)
INSERT INTO tickwork_runs (id, schedule, due_at, tick_at, started_at, ended_at, outcome, code, kind, detail,
                           attempt, covers, covers_first, covers_last)
SELECT 'z' || printf('%012x', t) || printf('%019d', ?4 + n), ?1, d, t, t, t + 900 + (n % 7) * 130,
       o, c, CASE o WHEN 'failed' THEN 'raised' END, CASE o WHEN 'failed' THEN ?5 END, a, NULL, NULL, NULL
FROM (SELECT n, ?2 + n * ?6 AS d, ?2 + n * ?6 + (n % 3) * 1000 AS t,
             CASE WHEN n % ?7 = 5 OR n >= ?3 - ?8 THEN 'failed'
                  WHEN (?3 - 1 - n) % 97 BETWEEN ?10 AND ?10 + 2 THEN 'skipped' ELSE 'succeeded' END AS o,
             CASE WHEN n % ?7 = 5 OR n >= ?3 - ?8 THEN 'internal_fault'
                  WHEN (?3 - 1 - n) % 97 BETWEEN ?10 AND ?10 + 2 THEN ?9 END AS c, 1 AS a FROM k)
"""
# A failed first attempt made good by its retry a minute later: the second attempt of a due time.
RETRIED = """
UPDATE tickwork_runs SET outcome = 'failed', code = 'internal_fault', kind = 'raised',
       detail = 'TimeoutError: the reminders queue took longer than 30 s'
WHERE schedule = ?1 AND due_at IN (SELECT due_at FROM tickwork_runs WHERE schedule = ?1 AND outcome = 'succeeded'
                                   ORDER BY due_at DESC LIMIT 4 OFFSET 2)
"""
RETRY = """
INSERT INTO tickwork_runs (id, schedule, due_at, tick_at, started_at, ended_at, outcome, attempt)
SELECT 'z' || printf('%012x', tick_at + 60000) || printf('%019d', 9000000 + rowid_like), schedule, due_at,
       tick_at + 60000, tick_at + 60000, tick_at + 61200, 'succeeded', 2
FROM (SELECT *, row_number() OVER (ORDER BY due_at) AS rowid_like FROM tickwork_runs
      WHERE schedule = ?1 AND detail LIKE 'TimeoutError%')
"""
MISSED = """
INSERT INTO tickwork_runs (id, schedule, due_at, tick_at, started_at, ended_at, outcome, at, covers, covers_first,
                           covers_last)
VALUES ('z' || printf('%012x', ?2) || '0000000000000000001', ?1, ?3, ?2, ?2, ?2 + 2400, 'succeeded', ?3, 2, ?4, ?3)
"""
STATEMENTS = """
INSERT INTO tickwork_schedules (name, action, input, form, every_ms, due_at, first_tick, last_tick, label)
VALUES (?1, 'app.domains.reporting:send_statement', json_object('customer', ?2), 'every 86400000', 86400000,
        ?3, ?4, ?4, ?2)
"""


def a_week_of_runs(host, now: int) -> None:
    hour = now // HOUR * HOUR
    census = (hour - 7 * DAY) // (15 * MINUTE) * (15 * MINUTE)
    statements = [
        (WEEK, ("chore_census", census, 7 * 24 * 4 - 1, 1_000_000, "ConnectionError: the reminders queue refused "
                "the batch (503 Service Unavailable)", 15 * MINUTE, 41, 2, "paused", 30)),
        (WEEK, ("sweep", hour - 6 * HOUR, 6 * 60, 2_000_000, "", MINUTE, 100_000, 0, "running", 6)),
        (WEEK, ("chores_done.purge", hour - 7 * DAY, 7 * 24, 3_000_000, "OperationalError: D1_ERROR: the "
                "statement took longer than its limit", HOUR, 59, 0, "paused", 50)),
        (RETRIED, ("chore_census",)), (RETRY, ("chore_census",)),
        (MISSED, ("weekly_report", hour - 5 * HOUR + 17 * MINUTE, hour - 5 * HOUR, hour - 5 * HOUR - 7 * DAY)),
    ]
    for k, (who, failing) in enumerate((("Ada Lovelace", 0), ("Grace Hopper", 2), ("Alan Turing", 0))):
        name = f"statement@{k + 1:05d}"
        statements += [(STATEMENTS, (name, who, hour + DAY, hour - 7 * DAY)),
                       (WEEK, (name, hour - 7 * DAY + 6 * HOUR, 7, 4_000_000 + 1000 * k,
                               "CardError: the card was declined (402)", DAY, 100, failing, "paused", 90))]
    run(_d1(host).batch(statements))


def _d1(host) -> DevHostD1:
    """The local D1 through the running dev, which holds its file."""
    return DevHostD1(running_dev(host.state), "DB")


@pytest.fixture(scope="module")
def busy(dev):  # noqa: F811
    """The example app ticked a minute apart just now, and a week of runs written before it."""
    host, console = dev
    host.reset()
    now = run_now()
    host.tick(now - 3 * MINUTE)
    a_week_of_runs(host, now)
    host.tick(now - 2 * MINUTE)
    return host, console


def run_now() -> int:
    return int(time.time() * 1000)


def _size(browser, size):  # noqa: F811
    browser.step("viewport", width=size[0], height=size[1])


def _shot(browser, name: str):  # noqa: F811
    browser.screenshot(name)


def _count(browser, selector: str) -> int:  # noqa: F811
    return browser.step("eval", expression=f"document.querySelectorAll({selector!r}).length")


def _wide(browser) -> int:  # noqa: F811
    return browser.step("eval", expression="document.documentElement.scrollWidth")


def test_the_overview_draws_its_charts_and_grid_on_a_desktop(busy, browser):  # noqa: F811
    host, console = busy
    _size(browser, DESKTOP)
    assert browser.goto(console)["status"] == 200
    _shot(browser, "overview")

    assert _count(browser, "svg.bars") == 2 and _count(browser, "svg.bars g.bar") == 24 + 28
    assert _count(browser, ".cells svg.cell") >= 60
    for kind in ("succeeded", "failed", "retried", "skipped", "missed"):
        assert _count(browser, f".cells svg.cell.{kind}"), kind
    assert "statement@00002" in browser.text("main") and "label Grace Hopper" in browser.text("main")
    assert browser.seen()["errors"] == []


def test_a_schedule_page_draws_its_due_times_on_a_desktop(busy, browser):  # noqa: F811
    host, console = busy
    _size(browser, DESKTOP)
    browser.goto(f"{console}/schedule?name=chore_census")
    _shot(browser, "schedule")
    retried = browser.step("eval", expression="document.querySelector('main .cells a:has(svg.cell.retried)').href")
    [second] = run(_d1(host).all("SELECT id FROM tickwork_runs WHERE schedule = 'chore_census' AND attempt = 2 "
                                 "ORDER BY due_at DESC LIMIT 1 OFFSET 3"))  # the oldest of the four retried

    assert _count(browser, ".cells svg.cell") >= 40 and _count(browser, ".cells svg.cell.retried") == 4
    assert retried == f"{console}/run?id={second['id']}"  # the run page's address (issue 26's run page)
    assert "attempt 2" in browser.text("main table")


def test_on_a_phone_the_overview_and_a_schedule_page_fit_their_width_and_the_navigation_wraps(busy, browser):  # noqa: F811
    host, console = busy
    _size(browser, PHONE)
    browser.goto(console)
    _shot(browser, "overview-phone")
    wide = [_wide(browser)]
    who = browser.step("eval", expression="(r => [r.left, r.right])(document.querySelector('header .who')"
                                          ".getBoundingClientRect())")
    log = browser.step("eval", expression="document.querySelector('header a[href$=\"/log\"]').getBoundingClientRect()"
                                          ".right")
    assert _count(browser, "svg.bars") == 2 and _count(browser, ".cells svg.cell") >= 60
    browser.goto(f"{console}/schedule?name=chore_census")
    _shot(browser, "schedule-phone")
    wide.append(_wide(browser))
    error = browser.step("eval", expression="(r => r.right)(document.querySelector("
                                            "'td[data-label=\"DETAIL\"]:not(:empty)').getBoundingClientRect())")

    assert all(width <= 390 for width in wide) and 0 <= who[0] and who[1] <= 390 and log <= 390
    assert error <= 390  # the error's column read without scrolling sideways
