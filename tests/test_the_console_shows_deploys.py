"""The console's deploys (issue 25): a page of the deploy markers, the latest on the overview,
and on a schedule's page its runs skipped or missed after a deploy, beside that deploy, in the
command's words."""

import re
from html import unescape

from console_fixtures import PREFIX, ask
from helpers import calendar, every, open_store, ticks

from tickwork.times import utc

VERSION = {"tickwork:version": {"id": "7c1e9a40-1d2b-4c3e-9f00-5a6b7c8d9e0f", "tag": "v42"}}
NOW = utc("2026-01-04 10:00")


def shown(response) -> str:
    assert response.status == 200, response.body
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", response.body)).split())


def deployed_three_times():
    db = open_store()
    daily = calendar("0 9 * * *", name="daily")
    ticks(db, [daily, every(60, "billing")], utc("2026-01-01 00:00"), utc("2026-01-01 09:00"))
    ticks(db, [every(60, "billing")], utc("2026-01-01 12:00"), utc("2026-01-03 12:00"))
    ticks(db, [daily, every(60, "billing"), every(10, "reminders")], utc("2026-01-04 09:30"), settings=VERSION)
    return db


def test_the_deploys_page_lists_each_deploy_newest_first_with_its_version_and_what_it_changed():
    page = shown(ask(deployed_three_times(), "GET", PREFIX + "/deploys", now=NOW))
    assert ("2026-01-04 09:30 UTC (30 min ago) 7c1e9a40-1d2b-4c3e-9f00-5a6b7c8d9e0f (v42) added daily and reminders"
            in page)
    assert page.index("added daily and reminders") < page.index("removed daily") < page.index("added billing and daily")


def test_the_deploys_page_pages_by_the_deploys_number():
    db = open_store()
    for k in range(55):
        ticks(db, [every(5 + k, "census")], utc("2026-01-01 00:00") + k * 60_000)
    first = ask(db, "GET", PREFIX + "/deploys", now=NOW)
    older = re.search(r'href="([^"]*deploys\?before=[0-9]+)"', first.body).group(1)
    rest = shown(ask(db, "GET", unescape(older), now=NOW))
    assert "added census" not in shown(first)
    assert rest.count("changed form of census") == 4 and rest.endswith("added census")


def test_a_cursor_the_console_never_writes_is_refused_before_anything_is_read():
    assert ask(open_store(), "GET", PREFIX + "/deploys?before=yesterday", now=NOW).status == 400


def test_the_overview_lists_the_latest_deploys():
    page = shown(ask(deployed_three_times(), "GET", PREFIX, now=NOW))
    assert "Deploys DEPLOYED VERSION WHAT CHANGED SKIPPED OR MISSED AFTER 2026-01-04 09:30 UTC" in page


def test_the_overview_puts_the_runs_skipped_or_missed_after_a_deploy_beside_it():
    page = shown(ask(deployed_three_times(), "GET", PREFIX, now=NOW))
    assert "added daily and reminders daily skipped (undeclared) 2026-01-02 09:00 UTC" in page


def test_a_schedules_page_shows_its_skip_after_a_deploy_beside_that_deploy():
    page = shown(ask(deployed_three_times(), "GET", PREFIX + "/schedule?name=daily", now=NOW))
    assert ("Skipped or missed after a deploy DUE (UTC, ITS ZONE) OUTCOME AFTER 2026-01-02 09:00 UTC"
            in page)
    assert "deployed 2026-01-04 09:30 UTC (version 7c1e9a40…, v42): added daily and reminders" in page

