"""Deploys in words (issue 25): `tickwork deploys` lists the markers, newest first, a page at a
time; `why` and `history` show a run skipped or missed after a deploy beside that deploy."""

from helpers import calendar, every

from tickwork.times import MINUTE, utc

VERSION = {"tickwork:version": {"id": "7c1e9a40-1d2b-4c3e-9f00-5a6b7c8d9e0f", "tag": "v42"}}


def removed_and_declared_again(app):
    """`daily` declared, removed by a deploy, then declared again with `reminders` added: the tick
    after the last deploy records what `daily` missed while it was gone."""
    daily = calendar("0 9 * * *", name="daily")
    app.tick([daily, every(60, "billing")], utc("2026-01-01 00:00"), utc("2026-01-01 09:00"))
    app.tick([every(60, "billing")], utc("2026-01-01 12:00"), utc("2026-01-03 12:00"))
    app.tick([daily, every(60, "billing"), every(10, "reminders")], utc("2026-01-04 09:30"), settings=VERSION)
    app.tick([daily, every(60, "billing"), every(10, "reminders")], utc("2026-01-04 09:31"))


def test_deploys_lists_each_marker_newest_first_with_its_version_and_what_it_changed(app):
    removed_and_declared_again(app)
    code, text, _ = app.run("deploys", now=utc("2026-01-04 10:00"), json_=False)
    assert code == 0
    assert "deployed 2026-01-04 09:30 UTC (version 7c1e9a40…, v42): added daily and reminders" in text
    assert "deployed 2026-01-01 12:00 UTC: removed daily" in text
    assert "deployed 2026-01-01 00:00 UTC: added billing and daily" in text
    assert text.index("2026-01-04 09:30 UTC (") < text.index("2026-01-01 12:00 UTC:")


def test_deploys_pages_by_its_cursor(app):
    removed_and_declared_again(app)
    _, first, _ = app.run("deploys", "--limit", "2", now=utc("2026-01-04 10:00"))
    assert [d["at"]["utc"] for d in first["deploys"]] == ["2026-01-04T09:30:00.000Z", "2026-01-01T12:00:00.000Z"]
    assert first["deploys"][0]["version"] == "7c1e9a40-1d2b-4c3e-9f00-5a6b7c8d9e0f"
    _, second, _ = app.run("deploys", "--limit", "2", "--before", first["next_before"], now=utc("2026-01-04 10:00"))
    assert [d["added"] for d in second["deploys"]] == [["billing", "daily"]] and second["next_before"] is None


def test_a_bad_cursor_is_said_so(app):
    code, _, err = app.run("deploys", "--before", "tomorrow", now=utc("2026-01-04 10:00"))
    assert code == 1 and "no cursor" in err


def test_history_shows_the_skip_after_a_deploy_beside_that_deploy(app):
    removed_and_declared_again(app)
    _, text, _ = app.run("history", "daily", now=utc("2026-01-04 10:00"), json_=False)
    assert ("2026-01-02 09:00 UTC skipped undeclared: after deployed 2026-01-04 09:30 UTC (version 7c1e9a40…, v42): "
            "added daily and reminders") in text
    _, answer, _ = app.run("history", "daily", now=utc("2026-01-04 10:00"))
    skip, made = answer["runs"]
    assert skip["after_deploy"]["added"] == ["daily", "reminders"] and made["after_deploy"] is None


def test_why_shows_the_deploy_before_its_last_run_where_it_was_skipped(app):
    removed_and_declared_again(app)
    _, text, _ = app.run("why", "daily", now=utc("2026-01-04 10:00"), json_=False)
    assert "  deploy     deployed 2026-01-04 09:30 UTC (version 7c1e9a40…, v42): added daily and reminders" in text
    app.tick([calendar("0 9 * * *", name="daily"), every(60, "billing"), every(10, "reminders")],
             utc("2026-01-04 10:00"))
    _, text, _ = app.run("why", "billing", now=utc("2026-01-04 10:05"), json_=False)
    assert "ran: succeeded" in text and "deploy " not in text  # its last run ran on time: no deploy explains it


def test_a_run_long_after_a_deploy_is_not_put_beside_it(app):
    app.tick([calendar("0 9 * * *", name="daily")], utc("2026-01-01 00:00"), utc("2026-01-01 09:00"))
    app.tick([], utc("2026-01-01 12:00"))
    app.tick([calendar("0 9 * * *", name="daily")], utc("2026-01-01 12:01"))
    app.tick([calendar("0 9 * * *", name="daily")], utc("2026-01-03 12:00"), utc("2026-01-03 12:00") + MINUTE)
    _, answer, _ = app.run("history", "daily", now=utc("2026-01-04 10:00"))
    later = [run for run in answer["runs"] if run["tick"]["ms"] >= utc("2026-01-03 12:00")]
    assert any(run["covers"] for run in later) and all(run["after_deploy"] is None for run in later)
