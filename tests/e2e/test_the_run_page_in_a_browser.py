"""The console's run page in a real browser (issue 26): on the example app under `tickwork dev`,
a one-off reminder fails for real (its input lost its todo, so `remind` raises KeyError); an
operator finds it in the runs filtered by outcome, clicks through to its page, which shows the
failure whole with its traceback, mends the input, and clicks "Make this due time again": the
console answers 303 See Other back to the page, which says what was done, and the next tick runs
the reminder once more. The screenshots, desktop (1280 px) and phone (390 px), are the docs'
docs/screenshots/run-page.png and run-page-phone.png, made again with
TICKWORK_SCREENSHOTS=docs/screenshots."""

import os
import shutil
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from helpers import ROOT
from test_the_console_in_a_browser import browser, dev, ticked  # noqa: F401  (the fixtures)

from tickwork.times import MINUTE

DOCS = ROOT / "docs" / "screenshots"
TODO = "water the plants"


def _item(host) -> str:
    [row] = host.d1(f"SELECT name FROM tickwork_schedules WHERE action IS NOT NULL AND input LIKE '%{TODO}%'")
    return row["name"]


@pytest.fixture
def failed(dev, ticked):  # noqa: F811
    """The reminder for `water the plants`, handed over by the census at a quarter past for a
    minute later, whose call fails: its input lost the todo before the tick at 16 past."""
    host, _ = dev
    item = _item(host)
    host.d1(f"UPDATE tickwork_schedules SET input = '{{\"note\": \"the todo went missing\"}}' WHERE name = '{item}'")
    runs = [run for run in host.tick(ticked + 16 * MINUTE)["runs"] if run["schedule"] == item]
    assert [(run["outcome"], run["detail"]) for run in runs] == [("failed", "KeyError: 'todo'")], runs
    return item


def _read(browser, selector: str = "main") -> str:
    """The element's text as one line, as a person reads it (the facts' terms beside their values)."""
    return " ".join(browser.text(selector).split())


def _keep(shot: Path, name: str) -> None:
    """A screenshot kept under `name` where TICKWORK_SCREENSHOTS says (the docs' own with
    TICKWORK_SCREENSHOTS=docs/screenshots), as the other browser tests keep theirs; by default
    nowhere but the run's temporary folder, so a run leaves the tree as it was."""
    where = os.environ.get("TICKWORK_SCREENSHOTS")
    if where:
        target = Path(where).resolve() / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if shot.resolve() != target:
            shutil.copyfile(shot, target)


def test_a_failed_due_time_found_in_a_table_is_made_again_from_its_run_page(dev, browser, ticked, failed):  # noqa: F811
    host, console = dev

    browser.goto(f"{console}/runs?outcome=failed")
    opened = browser.click(f"main tr:has-text('{failed}') a.run")
    page = _read(browser)
    assert opened["status"] == 200 and urlsplit(opened["url"]).path.endswith("/run"), opened
    assert f"Run of {failed}" in page and "KeyError: 'todo'" in page and "Traceback (its last lines)" in page
    assert "asked for by its due time" in page

    host.d1(f"UPDATE tickwork_schedules SET input = '{{\"todo\": \"{TODO}\"}}' WHERE name = '{failed}'")  # mended
    done = browser.click("button:has-text('Make this due time again')")
    said = _read(browser, "main .said")
    assert done["status"] == 200 and "said" in parse_qs(urlsplit(done["url"]).query), done  # after the 303
    assert "made again by the next tick, as local's remake" in said and "(logged as local)" in said, said
    assert "not made again: a remake of that due time already waits for the next tick." in _read(browser)

    runs = [run for run in host.tick(ticked + 20 * MINUTE)["runs"] if run["schedule"] == failed]
    assert [(run["outcome"], run["attempt"]) for run in runs] == [("succeeded", 1)], runs
    made = host.d1(f"SELECT outcome, backfill FROM tickwork_runs WHERE schedule = '{failed}' ORDER BY tick_at")
    assert [(row["outcome"], row["backfill"]) for row in made] == [("failed", None), ("succeeded", "local")]
    logged = host.d1(f"SELECT who, verb FROM tickwork_operator_log WHERE schedule = '{failed}'")
    assert [(row["who"], row["verb"]) for row in logged] == [("local", "remake")]

    browser.goto(opened["url"])  # the failed run's page again: its due time's attempts, the remake done
    page = _read(browser)
    assert "Remakes of this due time" in page and "succeeded remake by local" in page
    _keep(browser.screenshot("run-page"), "run-page.png")
    browser.step("viewport", width=390, height=844)
    try:
        _keep(browser.screenshot("run-page-phone"), "run-page-phone.png")
    finally:
        browser.step("viewport", width=1280, height=800)

    browser.click("main td a.run")  # the remade run's own page, from the attempts
    assert "making the due time again (remake of" in _read(browser)
    seen = browser.seen()
    assert seen["errors"] == []
    assert [url for url in seen["requests"] if not url.startswith(host.url + "/")] == []
