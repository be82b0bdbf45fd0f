"""tickwork's console in a real browser: `tickwork dev` on the example app serves it with no login
on its loopback port, and headless Chromium (Debian's `chromium`, driven by playwright-core from
tests/e2e/browser/) loads each page, pauses a schedule, runs one by hand and lists a backfill by
clicking, while the test ticks the host at times it passes in (`--no-timer`). Each page's
screenshot is saved under the module's output directory, whose path the test prints (pytest -s
shows it), or in the folder TICKWORK_SCREENSHOTS names."""

import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from conftest import LocalHost
from helpers import ROOT, as_typed_in_a_shell, read_into, stop, when_printed

from tickwork.times import HOUR, MINUTE, iso

BROWSER = ROOT / "tests" / "e2e" / "browser"
CHROMIUM = "/usr/bin/chromium"


def _chromium() -> str:
    found = shutil.which("chromium") or (CHROMIUM if os.access(CHROMIUM, os.X_OK) else None)
    if found is None:
        pytest.fail("Debian's chromium is not installed, and this test needs it: `make test` installs it as root "
                    "(apt-get install -y chromium)", pytrace=False)
    if not (BROWSER / "node_modules" / "playwright-core").is_dir():
        pytest.fail(f"playwright-core is not installed: npm ci --prefix {BROWSER.relative_to(ROOT)} (`make test` runs it)",
                    pytrace=False)
    return found


class Browser:
    """One page of headless Chromium, one step at a time (tests/e2e/browser/drive.mjs)."""

    def __init__(self, process: subprocess.Popen, shots: Path, stderr: list[str]):
        self.process = process
        self.shots = shots
        self.stderr = stderr  # drained on a thread of its own, so Chromium's chatter never fills the pipe

    def step(self, do: str, **args):
        self.process.stdin.write(json.dumps({"do": do, **args}) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        assert line, f"the browser driver ended: {''.join(self.stderr)}"
        answer = json.loads(line)
        assert "error" not in answer, f"{do} {args}: {answer['error']}"
        return answer["value"]

    def goto(self, url: str) -> dict:
        return self.step("goto", url=url)

    def click(self, selector: str) -> dict:
        return self.step("click", selector=selector)

    def text(self, selector: str = "body") -> str:
        return self.step("text", selector=selector)

    def screenshot(self, name: str) -> Path:
        return Path(self.step("screenshot", path=str(self.shots / f"{name}.png")))

    def seen(self) -> dict:
        """What the page logged and threw, and every URL it requested, since the browser started."""
        return self.step("seen")


@pytest.fixture(scope="module")
def dev(tmp_path_factory):
    """`tickwork dev --no-timer` on the example app in this checkout, its D1 state of its own:
    its LocalHost helpers, and the console's address it printed."""
    state = tmp_path_factory.mktemp("console") / "state"
    process = subprocess.Popen(
        [str(ROOT / ".venv" / "bin" / "tickwork"), "dev", "--fresh", "--no-timer", "--port", "0",
         "--persist-to", str(state)],
        cwd=ROOT, env=as_typed_in_a_shell(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True,
    )
    output, stderr = [], []
    read_into(process.stdout, output)
    read_into(process.stderr, stderr)
    found = when_printed(output, r"listening on (http://\S+)\n.*console: (http://\S+)", process)
    try:
        if found is None:
            pytest.fail("tickwork dev did not print the console's address:\n" + "".join(output) + "".join(stderr))
        yield LocalHost(project=ROOT, state=state, url=found.group(1), process=process, output=output), found.group(2)
    finally:
        stop(process)


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    chromium = _chromium()
    # Resolved here: a relative folder is from where pytest runs, not from the driver's folder.
    shots = Path(os.environ.get("TICKWORK_SCREENSHOTS") or tmp_path_factory.mktemp("screenshots")).resolve()
    shots.mkdir(parents=True, exist_ok=True)
    print(f"\nthe console's screenshots: {shots}")
    process = subprocess.Popen(
        ["node", str(BROWSER / "drive.mjs"), chromium, str(tmp_path_factory.mktemp("chromium-profile"))],
        cwd=BROWSER, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True,
    )
    stderr: list[str] = []
    read_into(process.stderr, stderr)
    try:
        assert process.stdout.readline().strip() == '{"value":"ready"}', "".join(stderr)
        yield Browser(process, shots, stderr)
    finally:
        process.stdin.close()  # drive.mjs closes Chromium and ends
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            stop(process)  # Ctrl-C to it and what it started: playwright closes Chromium as it goes


@pytest.fixture
def ticked(dev):
    """A fresh local D1, ticked at the whole hour two hours back and a quarter past it: the
    example's schedules seen, chore_census run once. Returns that hour (epoch ms)."""
    host, _ = dev
    host.reset()
    hour = (int(time.time() * 1000) // HOUR - 2) * HOUR
    host.tick(hour)
    assert [run["outcome"] for run in host.tick(hour + 15 * MINUTE)["runs"] if run["schedule"] == "chore_census"] == [
        "succeeded"]
    return hour


def test_tickwork_dev_prints_the_consoles_loopback_address(dev):
    host, console = dev

    assert console == host.url + "/cdn-cgi/tickwork/console"
    assert host.url.startswith("http://127.0.0.1:")


# From the overview, each page by a link of the one before: the link, the heading it leads to,
# and the screenshot's name.
WALK = [
    ("header a:has-text('Schedules')", "Schedules", "schedules"),
    ("main a:has-text('chore_census')", "chore_census", "schedule-chore_census"),
    ("header a:has-text('Runs')", "Runs across schedules", "runs"),
    ("header a:has-text('Deliveries')", "Deliveries", "deliveries"),
    ("header a:has-text('Operator log')", "Operator log", "operator-log"),
    ("header a:has-text('Deploys')", "Deploys", "deploys"),
]


def _heading(browser) -> str:
    """The page's heading; on a page with none (an error's plain text), the start of its text."""
    return browser.step("eval", expression="document.querySelector('main h1')?.innerText ?? "
                                           "document.body.innerText.slice(0, 2000)")


def test_each_page_of_the_console_loads_from_the_one_before_it(dev, browser, ticked):
    host, console = dev

    loaded = [(browser.goto(console)["status"], _heading(browser))]
    browser.screenshot("overview")
    for link, _, shot in WALK:
        loaded.append((browser.click(link)["status"], _heading(browser)))
        browser.screenshot(shot)

    assert loaded == [(200, "Overview")] + [(200, heading) for _, heading, _ in WALK]
    seen = browser.seen()
    assert seen["errors"] == []
    assert [url for url in seen["requests"] if not url.startswith(host.url + "/")] == []


def _click_then_tick(dev, browser, name, button, tick_at, shot):
    """Clicks `button` on schedule `name`'s page, ticks at `tick_at` and opens the page again:
    the click's response, what the page then said, and the tick's runs."""
    host, console = dev
    browser.goto(f"{console}/schedule?name={name}")
    done = browser.click(f"button:has-text('{button}')")
    said = browser.text("main")
    runs = host.tick(tick_at)["runs"]
    browser.goto(f"{console}/schedule?name={name}")
    browser.screenshot(shot)
    return done, said, runs


def test_a_schedule_paused_by_clicking_is_skipped_by_the_next_tick(dev, browser, ticked):
    done, said, runs = _click_then_tick(dev, browser, "chore_census", "Pause", ticked + 30 * MINUTE,
                                        "schedule-chore_census-paused")

    assert done["status"] == 200 and "chore_census paused" in said and "(logged as local)" in said, said
    assert [(run["outcome"], run["code"]) for run in runs if run["schedule"] == "chore_census"] == [("skipped", "paused")]
    assert "Resume" in browser.text("main")
    assert {"skipped", "(paused)"} <= set(browser.text("main table tbody tr").split())  # its history's newest


def test_a_run_by_hand_asked_for_by_clicking_is_made_by_the_next_tick(dev, browser, ticked):
    done, said, runs = _click_then_tick(dev, browser, "tidy_up", "Run now, by hand", ticked + 16 * MINUTE,
                                        "schedule-tidy_up-run-by-hand")

    assert done["status"] == 200 and "tidy_up a run by hand is asked for" in said, said
    assert [(run["outcome"], run["by_hand"]) for run in runs if run["schedule"] == "tidy_up"] == [("succeeded", "local")]
    assert {"succeeded", "local"} <= set(browser.text("main table tbody tr").split())  # its history's newest


def test_a_backfill_listed_by_clicking_shows_what_it_would_make_and_asks_for_nothing(dev, browser, ticked):
    host, console = dev
    browser.goto(f"{console}/schedule?name=chore_census")

    browser.step("fill", selector="input[name=from]", value=iso(ticked))
    browser.step("fill", selector="input[name=to]", value=iso(ticked + 15 * MINUTE))
    done = browser.click("button:has-text('List what it would make')")
    said = browser.text("main")
    browser.screenshot("schedule-chore_census-backfill-listed")
    browser.goto(f"{console}/schedule?name=chore_census")

    assert done["status"] == 200 and "chore_census: 0 occurrences from" in said, said
    assert "(1 made already)" in said  # the quarter past, which its run made
    assert "no backfill asked for" in browser.text("main")
