"""Issue 25: a replace and a count as the operator reads them. `tickwork why` and `history` and
the console's schedule page say of the old schedule "replaced by <new id>", of the new one
"replaces <old id>", of one with `times` how many calls it made, and why it ended ("made its 2
calls"); `tickwork schedules` and the console's table say it in the state column."""

import re
from html import unescape
from urllib.parse import quote

from console_fixtures import PREFIX, ask
from harness import send_statement
from helpers import run, ticks

from tickwork.per_item import Items
from tickwork.times import DAY, HOUR, utc

SUNDAY = utc("2026-01-04 12:00")
LATER = SUNDAY + 3 * HOUR


def replaced_and_counted(db):
    items = Items(db, lambda: SUNDAY)
    old = run(items.calendar(send_statement, {"customer": 1}, "0 9 * * 1", label="Acme"))
    new = run(items.replace(old, send_statement, {"customer": 1}, every="1h", times=2, starts=SUNDAY + HOUR))
    ticks(db, [], SUNDAY + HOUR, SUNDAY + 2 * HOUR, LATER)
    return old, new


def said(app, *argv):
    code, out, _ = app.run(*argv, now=LATER, json_=False)
    assert code == 0
    return out


def test_why_and_history_link_the_old_and_the_new_schedule(app):
    old, new = replaced_and_counted(app.db)
    for verb in ("why", "history"):
        assert f"  replaced by {new}\n" in said(app, verb, old)
        assert f"  replaces   {old}\n" in said(app, verb, new)
    assert f"next due   none: it ended (replaced by {new}) at 2026-01-04 12:00 UTC" in said(app, "why", old)


def test_why_says_how_many_calls_were_made_and_that_it_ended_for_it(app):
    _, new = replaced_and_counted(app.db)
    why = said(app, "why", new)
    assert "  calls      2 of 2 calls made (`times`)" in why
    assert "; no call before 2026-01-04 13:00 UTC (`starts`)\n" in why
    assert "next due   none: it ended (made its 2 calls) at 2026-01-04 14:00 UTC" in why


def test_the_schedules_table_says_why_each_ended(app):
    old, new = replaced_and_counted(app.db)
    table = said(app, "schedules")
    assert f"ended (replaced by {new})" in table and "ended (made its 2 calls)" in table
    _, data, _ = app.run("why", old, now=LATER)
    assert data["links"] == {"replaced by": f"replaced by {new}"}


def shown(response) -> str:
    assert response.status == 200, response.body
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", response.body)).split())


def test_the_console_schedule_page_links_the_two_and_says_why_it_ended(db):
    old, new = replaced_and_counted(db)
    old_page = ask(db, "GET", f"{PREFIX}/schedule?name={old}", now=LATER)
    assert f'href="{PREFIX}/schedule?name={quote(new)}"' in old_page.body
    assert f"replaced by {new} ended replaced by {new}" in shown(old_page)
    new_page = shown(ask(db, "GET", f"{PREFIX}/schedule?name={new}", now=LATER))
    assert f"replaces {old}" in new_page and "ended made its 2 calls" in new_page
    assert "calls 2 of 2 calls made" in new_page and "no call before 2026-01-04 13:00 UTC (`starts`)" in new_page
    listed = shown(ask(db, "GET", f"{PREFIX}/schedules?state=ended", now=LATER + DAY))
    assert f"ended (replaced by {new})" in listed and "ended (made its 2 calls)" in listed


def test_an_every_schedule_with_a_start_says_its_grid_is_counted_from_its_start(app):
    # its calls fall at the start and each `every` after it, not on the grid of the first tick
    starts = SUNDAY + HOUR // 2
    id = run(Items(app.db, lambda: SUNDAY).every(send_statement, {"customer": 2}, "1h", starts=starts))
    ticks(app.db, [], SUNDAY + HOUR // 2)
    why = said(app, "why", id)
    assert "runs fall on a grid counted in UTC from its start (2026-01-04 12:30 UTC)" in why
    assert "first tick that saw it" not in why


def test_the_schedules_json_keeps_the_end_s_code_and_gives_its_words_beside_it(app):
    # a script reads `ended` as the code it always was ("cancelled", "replaced", "made_its_calls")
    old, new = replaced_and_counted(app.db)
    _, data, _ = app.run("schedules", now=LATER)
    found = {item["name"]: item for group in data.values() if isinstance(group, list) for item in group
             if isinstance(item, dict) and "name" in item}
    assert (found[old]["ended"], found[old]["ended_words"]) == ("replaced", f"replaced by {new}")
    assert (found[new]["ended"], found[new]["ended_words"]) == ("made_its_calls", "made its 2 calls")
