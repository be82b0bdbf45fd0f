"""Alerts carry the console's page of their run (issue 26) where the app sets the console's
address, `[tool.tickwork] console_url`: `run_url` on a schedule failing (by a failed end, a lost
run's lapsed lease, or a skipped retry) and recovering; without the setting, no such field. The
build writes the address to the manifest, and refuses one it cannot link from as
`settings.console_invalid` at its line."""

import pytest
from harness import FakeQueue
from helpers import lose_a_run, lost_run, open_store, run, ticks
from test_build import CENSUS, problems, project
from test_build_console_settings import manifest_console
from test_build_settings import written_at
from test_failures_announced import (
    NINE, SEEDED, FailingFirst, Mailer, alerting, alerts, mailer, retrying, turns,
)

from tickwork.app import App
from tickwork.invocation import run_pages_of
from tickwork.times import MINUTE

PAGES = "https://ops.example.com/ops/run?id="


def linking(db, queue, at=NINE):
    return {**alerting(db, queue, at), "run_pages": PAGES}


def test_a_schedule_starting_to_fail_is_announced_with_its_run_s_page():
    db, queue = open_store(), FakeQueue()
    ticks(db, [mailer(Mailer())], SEEDED, NINE, **linking(db, queue))
    [(_, body)] = alerts(queue)
    [record] = run(db.all("SELECT id FROM tickwork_runs"))
    assert body["run_url"] == PAGES + record["id"]


def test_its_recovery_links_the_run_that_recovered():
    db, queue, action = open_store(), FakeQueue(), Mailer()
    ticks(db, [mailer(action)], SEEDED, NINE, **linking(db, queue))
    action.failing = False
    ticks(db, [mailer(action)], NINE + MINUTE, **linking(db, queue))
    recovered = alerts(queue)[1][1]
    assert recovered["run_url"] == PAGES + recovered["run"]


def test_a_lost_run_s_alert_links_the_lost_run():
    db, queue = open_store(), FakeQueue()
    schedules = [mailer(Mailer())]
    ticks(db, schedules, SEEDED, **linking(db, queue))
    lose_a_run(db, "mailer", due=NINE, next_due=NINE + MINUTE, until=NINE + 2 * MINUTE)
    ticks(db, schedules, NINE + 2 * MINUTE, **linking(db, queue, at=NINE + 2 * MINUTE))
    [(_, body)] = alerts(queue)
    assert body["run_url"] == PAGES + lost_run(NINE)


def test_a_superseded_retry_s_alert_links_the_failed_attempt():
    db, queue = open_store(), FakeQueue()
    schedules = [retrying(FailingFirst(1_000), pause=10 * MINUTE)]
    ticks(db, schedules, NINE - 15 * MINUTE, NINE, NINE + 10 * MINUTE, NINE + 15 * MINUTE, **linking(db, queue))
    [(event, body)] = turns(queue)
    assert event == "tickwork.schedule_failing" and body["run_url"] == PAGES + body["run"]


def test_without_the_console_s_address_an_alert_has_no_run_url():
    db, queue = open_store(), FakeQueue()
    ticks(db, [mailer(Mailer())], SEEDED, NINE, **alerting(db, queue))
    [(_, body)] = alerts(queue)
    assert "run_url" not in body


def test_the_run_pages_are_the_console_s_address_and_its_run_route():
    assert run_pages_of(App("DB", (), console={"prefix": "/ops", "url": "https://ops.example.com/ops"})) == PAGES
    assert run_pages_of(App("DB", (), console={"prefix": "/ops"})) is None
    assert run_pages_of(App("DB", ())) is None


# -- the setting --------------------------------------------------------------------------------

TOOL = 'console = "/ops"\nconsole_token = "CONSOLE_TOKEN"\n'


def test_the_console_s_address_is_written_to_the_manifest(tmp_path):
    root = project(tmp_path, {"c.jadpo": CENSUS}, tool=TOOL + 'console_url = "https://ops.example.com/ops/"\n')
    assert manifest_console(root)["url"] == "https://ops.example.com/ops"


@pytest.mark.parametrize("value", [
    '"ops.example.com/ops"', '"http://ops.example.com/ops"', '"https://ops.example.com/tickwork"',
    '"https://ops.example.com/ops?x=1"', '"https://ana:pw@ops.example.com/ops"', "5", '"https:///ops"',
])
def test_an_address_the_alerts_cannot_link_from_is_console_invalid_at_its_line(tmp_path, value):
    line = f"console_url = {value}"
    root = project(tmp_path, {"c.jadpo": CENSUS}, tool=TOOL + line + "\n")
    text = (root / "pyproject.toml").read_text()
    found = [(p.code, p.file, p.line) for p in problems(root)]
    assert found == [("settings.console_invalid", "pyproject.toml", written_at(text, line))]


def test_a_local_address_may_be_http(tmp_path):
    root = project(tmp_path, {"c.jadpo": CENSUS}, tool=TOOL + 'console_url = "http://localhost:8787/ops"\n')
    assert manifest_console(root)["url"] == "http://localhost:8787/ops"
