"""Issue 27, "Runs past 15 minutes through Cloudflare Workflows": a schedule that names a Workflow
binding runs by creating its instance under the run's id (never two for one claim), and its run
settles from the instance's status at later ticks: complete succeeded (the output kept), errored
failed `workflow_errored`, terminated failed `terminated`; still going, left, until its limit."""

import asyncio

from helpers import open_store, runs

from tickwork import Schedule, env
from tickwork.kinds.every import Every
from tickwork.model import Retry
from tickwork.testing import Workflows, tick_at
from tickwork.times import HOUR, MINUTE, utc


async def _never() -> None:  # a `workflow:` schedule's action is tickwork's, never called
    raise AssertionError("called")


def hourly(retry: Retry | None = None, limit: int | None = None) -> Schedule:
    return Schedule("nightly_export", Every(HOUR), _never, retry=retry, limit=limit, workflow="EXPORTS")


def ticked(schedules, at, db, flows, **options):
    with env.given(EXPORTS=flows):
        return asyncio.run(tick_at(schedules, at, db, **options))


def seeded():
    """A store whose first tick, at 08:00, saw the schedule: its first due time is 09:00."""
    db = open_store()
    asyncio.run(tick_at([hourly()], utc("2026-03-02T08:00Z"), db))
    return db


def records(db):
    return [(r["outcome"], r["code"], r["detail"]) for r in runs(db, "nightly_export")]


def test_a_due_run_creates_the_instance_under_its_own_id_and_stays_running():
    db, flows = seeded(), Workflows()
    report = ticked([hourly()], utc("2026-03-02T09:00Z"), db, flows)
    [run] = runs(db, "nightly_export")
    assert flows.ids == [run["id"]] and run["outcome"] == "running" and run["ended_at"] is None
    params = flows.instances[run["id"]].params
    assert (params["schedule"], params["at"], params["attempt"]) == ("nightly_export", utc("2026-03-02T09:00Z"), 1)
    assert [r.outcome for r in report.runs] == ["running"]


def test_a_complete_instance_settles_its_run_succeeded_at_a_later_tick_with_its_output_kept():
    db, flows = seeded(), Workflows()
    ticked([hourly()], utc("2026-03-02T09:00Z"), db, flows)
    flows.complete(flows.ids[0], {"rows": 12})
    report = ticked([hourly()], utc("2026-03-02T09:01Z"), db, flows)
    assert records(db) == [("succeeded", None, '{"rows": 12}')]
    assert [(r.schedule, r.outcome) for r in report.runs] == [("nightly_export", "succeeded")]


def test_an_instance_still_going_leaves_its_run_running_and_the_next_due_time_is_skipped_running():
    db, flows = seeded(), Workflows()
    ticked([hourly()], utc("2026-03-02T09:00Z"), db, flows)
    flows.running(flows.ids[0])
    ticked([hourly()], utc("2026-03-02T09:30Z"), db, flows)
    ticked([hourly()], utc("2026-03-02T10:00Z"), db, flows)
    assert [(o, c) for o, c, _ in records(db)] == [("running", None), ("skipped", "running")]
    assert len(flows.ids) == 1


def test_an_errored_instance_fails_its_run_workflow_errored_with_its_error_and_is_retried():
    db, flows = seeded(), Workflows()
    schedules = [hourly(retry=Retry(2, MINUTE))]
    ticked(schedules, utc("2026-03-02T09:00Z"), db, flows)
    flows.errored(flows.ids[0], "the warehouse refused the export")
    ticked(schedules, utc("2026-03-02T09:01Z"), db, flows)
    ticked(schedules, utc("2026-03-02T09:02Z"), db, flows)
    assert records(db)[0] == ("failed", "workflow_errored", "Error: the warehouse refused the export")
    assert len(flows.ids) == 2 and flows.instances[flows.ids[1]].params["attempt"] == 2


def test_a_terminated_instance_fails_its_run_terminated_and_is_not_retried():
    db, flows = seeded(), Workflows()
    schedules = [hourly(retry=Retry(2, MINUTE))]
    ticked(schedules, utc("2026-03-02T09:00Z"), db, flows)
    asyncio.run(flows.instances[flows.ids[0]].terminate())
    ticked(schedules, utc("2026-03-02T09:01Z"), db, flows)
    ticked(schedules, utc("2026-03-02T09:05Z"), db, flows)
    assert [(o, c) for o, c, _ in records(db)] == [("failed", "terminated")]
    assert len(flows.ids) == 1


def test_an_instance_past_its_limit_is_terminated_and_its_run_fails_deadline_exceeded():
    db, flows = seeded(), Workflows()
    schedules = [hourly(limit=20 * MINUTE)]
    ticked(schedules, utc("2026-03-02T09:00Z"), db, flows, started_at=utc("2026-03-02T09:00Z"))
    ticked(schedules, utc("2026-03-02T09:22Z"), db, flows, started_at=utc("2026-03-02T09:22Z"))
    assert [(o, c) for o, c, _ in records(db)] == [("failed", "deadline_exceeded")]
    assert flows.instances[flows.ids[0]].state == "terminated"


class CreatedBefore(Workflows):
    """A binding that finds each instance created already, as a claim made again does (a claim batch
    read back after D1 answered an error, racing ticks): the first attempt's instance exists."""

    async def create(self, options=None):
        await super().create(options)
        return await super().create(options)


def test_a_claim_made_again_finds_its_instance_created_and_starts_no_second():
    db, flows = seeded(), CreatedBefore()
    ticked([hourly()], utc("2026-03-02T09:00Z"), db, flows)
    [(outcome, code, detail)] = records(db)
    assert (outcome, code, len(flows.ids), flows.creates) == ("running", None, 1, 2)
    assert "created already" in detail


def test_a_binding_the_worker_lacks_fails_the_run_workflow_unstarted():
    db = seeded()
    asyncio.run(tick_at([hourly()], utc("2026-03-02T09:00Z"), db))
    [(outcome, code, detail)] = records(db)
    assert (outcome, code) == ("failed", "workflow_unstarted") and "EXPORTS" in detail


# -- terminated by an operator: the command and the console ask, the next tick terminates ------------

def file_store(tmp_path):
    db = open_store(tmp_path / "store.sqlite")
    asyncio.run(tick_at([hourly()], utc("2026-03-02T08:00Z"), db))
    return db


def logged(db):
    return [(r["who"], r["verb"], r["schedule"]) for r in asyncio.run(db.all("SELECT * FROM tickwork_operator_log"))]


def test_tickwork_terminate_run_has_the_next_tick_terminate_the_instance_and_record_the_run_terminated(
        tmp_path, capsys):
    from tickwork_cli.cli import main

    db, flows = file_store(tmp_path), Workflows()
    ticked([hourly()], utc("2026-03-02T09:00Z"), db, flows)
    [run] = runs(db, "nightly_export")
    code = main(["terminate", run["id"], "--sqlite", str(tmp_path / "store.sqlite"), "--who", "ada"],
                now=utc("2026-03-02T09:10Z"))
    assert code == 0 and "terminated by the next tick, as ada asked" in capsys.readouterr().out
    assert flows.instances[run["id"]].state == "queued"  # the command holds no binding: the tick terminates it
    ticked([hourly()], utc("2026-03-02T09:11Z"), db, flows)
    assert flows.instances[run["id"]].state == "terminated"
    assert records(db) == [("failed", "terminated", "the Workflow instance was terminated by ada")]
    assert logged(db) == [("ada", "terminate", "nightly_export")]


def test_a_run_that_ended_is_not_terminated_and_nothing_is_logged(tmp_path, capsys):
    from tickwork_cli.cli import main

    db, flows = file_store(tmp_path), Workflows()
    ticked([hourly()], utc("2026-03-02T09:00Z"), db, flows)
    flows.complete(flows.ids[0])
    ticked([hourly()], utc("2026-03-02T09:01Z"), db, flows)
    code = main(["terminate", flows.ids[0], "--sqlite", str(tmp_path / "store.sqlite"), "--who", "ada"],
                now=utc("2026-03-02T09:10Z"))
    assert code != 0 and "terminate.not_running" in capsys.readouterr().err
    assert logged(db) == []


def test_the_console_s_run_page_terminates_a_running_instance_by_a_post_with_its_csrf_token():
    from console_fixtures import ORIGIN, PREFIX, ask, csrf_of, said_of

    db, flows = seeded(), Workflows()
    ticked([hourly()], utc("2026-03-02T09:00Z"), db, flows)
    [run] = runs(db, "nightly_export")
    now = utc("2026-03-02T09:10Z")
    page = ask(db, "GET", f"{PREFIX}/run?id={run['id']}", now=now).body
    assert "Terminate its Workflow instance" in page
    form = {"id": run["id"], "back": f"{PREFIX}/run?id={run['id']}"}
    refused = ask(db, "POST", f"{PREFIX}/run/terminate", now=now, headers={"origin": ORIGIN}, form=form)
    assert refused.status == 403 and logged(db) == []  # no token, no change
    answer = ask(db, "POST", f"{PREFIX}/run/terminate", now=now, headers={"origin": ORIGIN},
                 form={**form, "csrf": csrf_of(page)})
    assert answer.status == 303 and "terminated by the next tick" in said_of(answer)
    asked = ask(db, "GET", f"{PREFIX}/run?id={run['id']}", now=now).body
    assert "Terminate its Workflow instance" not in asked  # asked once: the button goes with the request
    ticked([hourly()], utc("2026-03-02T09:11Z"), db, flows)
    assert [(o, c) for o, c, _ in records(db)] == [("failed", "terminated")]
    assert logged(db) == [("local", "terminate", "nightly_export")]


def test_the_run_page_offers_no_termination_to_a_running_run_that_is_no_workflow_s():
    from console_fixtures import PREFIX, ask

    db = seeded()
    asyncio.run(db.all("INSERT INTO tickwork_runs (id, schedule, due_at, tick_at, outcome, detail, attempt) "
                       "VALUES ('r1', 'nightly_export', ?1, ?1, 'running', 'Workflow of mine, said the action', 1)",
                       (utc("2026-03-02T09:00Z"),)))
    page = ask(db, "GET", f"{PREFIX}/run?id=r1", now=utc("2026-03-02T09:10Z")).body
    assert "Run of nightly_export" in page and "Terminate its Workflow instance" not in page


def test_a_tick_while_an_instance_goes_on_writes_one_row_and_asks_it_once():
    db, flows = seeded(), Workflows()
    ticked([hourly()], utc("2026-03-02T09:00Z"), db, flows)
    flows.running(flows.ids[0])
    asked = []
    get = flows.get

    async def counted(id):
        asked.append(id)
        return await get(id)

    flows.get = counted
    before = db.statements_run, db.rows_written
    ticked([hourly()], utc("2026-03-02T09:01Z"), db, flows)
    assert (db.statements_run - before[0], db.rows_written - before[1], len(asked)) == (3, 1, 1)


# -- handed over by items.*: `workflow=` beside the action, which the run does not call ----------

def test_an_item_handed_over_with_workflow_creates_its_instance_with_the_items_input():
    from tickwork.per_item import Items

    db, flows = open_store(), Workflows()
    with env.given(EXPORTS=flows):
        id = asyncio.run(Items(db, lambda: utc("2026-03-02T08:00Z")).every(
            _never, {"customer": "acme"}, "1h", workflow="EXPORTS", limit="6h"))
    ticked([], utc("2026-03-02T09:00Z"), db, flows)
    [run] = runs(db, id)
    assert run["outcome"] == "running" and flows.instances[run["id"]].params["input"] == {"customer": "acme"}
    flows.complete(run["id"], "done")
    ticked([], utc("2026-03-02T09:01Z"), db, flows)
    assert [r["outcome"] for r in runs(db, id)] == ["succeeded"]


def test_an_item_naming_a_workflow_the_worker_does_not_bind_is_workflow_unbound():
    from tickwork import ScheduleError
    from tickwork.per_item import Items

    db = open_store()
    with env.given(DB=db):
        try:
            asyncio.run(Items(db, lambda: utc("2026-03-02T08:00Z")).every(_never, None, "1h", workflow="EXPORTS"))
        except ScheduleError as error:
            assert error.code == "schedule.workflow_unbound" and "EXPORTS" in error.message
        else:
            raise AssertionError("handed over")


def test_a_handed_over_items_errored_instance_is_retried_by_its_own_retry():
    from tickwork.per_item import Items

    db, flows = open_store(), Workflows()
    with env.given(EXPORTS=flows):
        id = asyncio.run(Items(db, lambda: utc("2026-03-02T08:00Z")).every(
            _never, None, "1h", workflow="EXPORTS", retry="2 after 1m"))
    ticked([], utc("2026-03-02T09:00Z"), db, flows)
    flows.errored(flows.ids[0], "the warehouse refused")
    ticked([], utc("2026-03-02T09:01Z"), db, flows)
    ticked([], utc("2026-03-02T09:02Z"), db, flows)
    assert [(r["outcome"], r["code"], r["attempt"]) for r in runs(db, id)] == [
        ("failed", "workflow_errored", 1), ("running", None, 2)]


def test_why_says_a_schedules_runs_create_instances_of_its_workflow(tmp_path, capsys):
    from tickwork.per_item import Items
    from tickwork_cli.cli import main

    db, flows = file_store(tmp_path), Workflows()
    with env.given(EXPORTS=flows):
        id = asyncio.run(Items(db, lambda: utc("2026-03-02T08:00Z")).every(_never, None, "1h", workflow="EXPORTS"))
    capsys.readouterr()
    assert main(["why", id, "--sqlite", str(tmp_path / "store.sqlite")], now=utc("2026-03-02T08:30Z")) == 0
    assert "each run creates an instance of the Workflow EXPORTS and ends as it settles" in capsys.readouterr().out


# -- alerts: a settled run turns its schedule as any run's end ------------------------------------

def test_an_errored_instance_announces_its_schedule_failing_and_a_complete_one_its_recovery():
    from harness import FakeQueue
    from test_failures_announced import alerting, alerts

    def turns(queue):  # the schedule's turns, not the gaps between these ticks hours apart
        return [(event, body) for event, body in alerts(queue) if event != "tickwork.ticks_stopped"]

    db, flows, queue = seeded(), Workflows(), FakeQueue()
    ticked([hourly()], utc("2026-03-02T09:00Z"), db, flows, **alerting(db, queue, utc("2026-03-02T09:00Z")))
    assert turns(queue) == []  # a run going on turns nothing
    flows.errored(flows.ids[0], "the warehouse refused")
    at = utc("2026-03-02T09:01Z")
    ticked([hourly()], at, db, flows, **alerting(db, queue, at))
    ticked([hourly()], utc("2026-03-02T10:00Z"), db, flows, **alerting(db, queue, utc("2026-03-02T10:00Z")))
    flows.complete(flows.ids[1])
    at = utc("2026-03-02T10:01Z")
    ticked([hourly()], at, db, flows, **alerting(db, queue, at))
    assert [(event, body["schedule"], body.get("code")) for event, body in turns(queue)] == [
        ("tickwork.schedule_failing", "nightly_export", "workflow_errored"),
        ("tickwork.schedule_recovered", "nightly_export", None)]


def test_a_complete_instance_s_long_output_is_kept_bounded_to_2000_characters():
    db, flows = seeded(), Workflows()
    ticked([hourly()], utc("2026-03-02T09:00Z"), db, flows)
    flows.complete(flows.ids[0], "x" * 5000)
    ticked([hourly()], utc("2026-03-02T09:01Z"), db, flows)
    [(outcome, _, detail)] = records(db)
    assert outcome == "succeeded" and 1990 < len(detail) <= 2000 and detail.endswith("(kept)")


def test_a_tick_asks_at_most_50_open_instances_their_status_and_the_rest_at_the_next():
    many = [Schedule(f"export_{i:02}", Every(HOUR), _never, workflow="EXPORTS") for i in range(55)]
    db, flows = open_store(), Workflows()
    asyncio.run(tick_at(many, utc("2026-03-02T08:00Z"), db))
    ticked(many, utc("2026-03-02T09:00Z"), db, flows)
    assert len(flows.ids) == 55
    asked = []
    get = flows.get

    async def counted(id):
        asked.append(id)
        return await get(id)

    flows.get = counted
    ticked(many, utc("2026-03-02T09:01Z"), db, flows)
    first = set(asked)
    ticked(many, utc("2026-03-02T09:02Z"), db, flows)
    assert len(first) == 50 and set(flows.ids) - first <= set(asked[50:])


def test_without_a_limit_an_instance_may_go_on_a_day_and_is_terminated_past_it():
    db, flows = seeded(), Workflows()
    ticked([hourly()], utc("2026-03-02T09:00Z"), db, flows, started_at=utc("2026-03-02T09:00Z"))
    flows.running(flows.ids[0])
    ticked([hourly()], utc("2026-03-03T08:59Z"), db, flows, started_at=utc("2026-03-03T08:59Z"))
    assert [(o, c) for o, c, _ in records(db)][0] == ("running", None)
    ticked([hourly()], utc("2026-03-03T09:01Z"), db, flows, started_at=utc("2026-03-03T09:01Z"))
    assert [(o, c) for o, c, _ in records(db)][0] == ("failed", "deadline_exceeded")
    assert flows.instances[flows.ids[0]].state == "terminated"


def test_runs_through_a_workflow_side_by_side_keep_their_own_leases_and_settle_each_once():
    """`overlap: allow`: each due time creates its instance beside the one still going; none is
    ended `lease_expired` while its instance goes on, and each settles, a failed one retried."""
    def beside() -> Schedule:
        return Schedule("nightly_export", Every(HOUR), _never, workflow="EXPORTS", overlap="allow",
                        retry=Retry(1, MINUTE))

    db, flows = open_store(), Workflows()
    asyncio.run(tick_at([beside()], utc("2026-03-02T08:00Z"), db))
    for at in ("09:00", "09:30", "10:00", "10:30"):
        ticked([beside()], utc(f"2026-03-02T{at}Z"), db, flows)
        for id in flows.ids:
            if flows.instances[id].state == "queued":
                flows.running(id)
    assert [(r["outcome"], r["code"]) for r in runs(db, "nightly_export")] == [("running", None)] * 2
    first, second = flows.ids
    flows.errored(first, "the warehouse refused")  # the older run, whose schedule's lease the later one holds
    flows.complete(second, {"rows": 1})
    ticked([beside()], utc("2026-03-02T10:31Z"), db, flows)
    ticked([beside()], utc("2026-03-02T10:32Z"), db, flows)
    outcomes = sorted((r["due_at"], r["attempt"], r["outcome"], r["code"]) for r in runs(db, "nightly_export"))
    assert outcomes == [(utc("2026-03-02T09:00Z"), 1, "failed", "workflow_errored"),
                        (utc("2026-03-02T09:00Z"), 2, "running", None),
                        (utc("2026-03-02T10:00Z"), 1, "succeeded", None)]
    assert len(flows.ids) == 3
