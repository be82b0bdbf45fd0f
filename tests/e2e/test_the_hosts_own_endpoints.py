"""The host's own endpoints (/cdn-cgi/..., /__scheduled) tick and reset the local D1, so any web
page could harm it through a browser: they answer only requests addressed to the host's own
loopback address (a DNS-rebinding page sends its own name as `Host`) and coming from no other
site (`Origin`, `Sec-Fetch-Site`). Requests to the Worker's `fetch` are the app's business."""

from tickwork.times import utc

RESET = "/cdn-cgi/tickwork/reset"


def _census_runs_at_12_15(host):
    """The grid set at 12:00 survived when the 12:15 tick runs chore_census."""
    runs = host.tick(utc("2026-01-05 12:15"))["runs"]
    return [run["due"] for run in runs if run["schedule"] == "chore_census"]


def _port(host):
    return host.url.rsplit(":", 1)[1]


def test_a_reset_addressed_to_another_host_name_is_refused_and_drops_nothing(host):
    host.tick(utc("2026-01-05 12:00"))

    answer = host.fetch(RESET, "POST", headers={"Host": f"rebound.example:{_port(host)}"})

    assert answer.status == 403
    assert f"its Host 'rebound.example:{_port(host)}' is not 127.0.0.1:{_port(host)}" in answer.text
    assert _census_runs_at_12_15(host) == ["2026-01-05T12:15:00Z"]


def test_a_reset_from_a_foreign_origin_is_refused_and_drops_nothing(host):
    host.tick(utc("2026-01-05 12:00"))

    answer = host.fetch(RESET, "POST", headers={"Origin": "https://evil.example"})

    assert answer.status == 403
    assert "its Origin 'https://evil.example' is not this host's own" in answer.text
    assert _census_runs_at_12_15(host) == ["2026-01-05T12:15:00Z"]


def test_a_tick_from_another_sites_page_is_refused_even_without_an_origin(host):
    path = f"/cdn-cgi/handler/scheduled?time={utc('2026-01-05 12:00')}&far=1"

    answer = host.fetch(path, headers={"Sec-Fetch-Site": "cross-site"})

    assert answer.status == 403
    assert host.d1("SELECT name FROM tickwork_schedules") == []


def test_the_hosts_own_pages_and_tools_without_an_origin_are_served(host):
    own = host.fetch(RESET, "POST", headers={"Origin": host.url, "Sec-Fetch-Site": "same-origin"})
    tool = host.fetch(RESET, "POST", headers={"Host": f"localhost:{_port(host)}"})

    assert (own.status, tool.status) == (200, 200)


def test_requests_to_the_workers_fetch_are_left_to_the_app(host):
    answer = host.fetch("/hello?name=Ada", headers={"Origin": "https://evil.example", "Host": "app.example"})

    assert (answer.status, answer.text) == (200, "hello, Ada")


# The console as the host serves it, with no login (docs/how-to/run-locally.md).
CONSOLE = "/cdn-cgi/tickwork/console"


def test_the_console_is_served_to_this_machines_own_pages_with_no_login(host):
    answer = host.fetch(CONSOLE, headers={"Sec-Fetch-Site": "none"})

    assert answer.status == 200
    assert answer.headers["content-type"].startswith("text/html")


def test_a_console_page_addressed_to_another_host_name_is_refused(host):
    answer = host.fetch(CONSOLE, headers={"Host": f"rebound.example:{_port(host)}"})

    assert answer.status == 403
    assert f"its Host 'rebound.example:{_port(host)}' is not 127.0.0.1:{_port(host)}" in answer.text


def test_the_apps_own_console_prefix_stays_the_workers_behind_its_login(host):
    """The e2e copy serves the console at /ops through its fetch: the host's own console, with no
    login, never takes the app's path."""
    answer = host.fetch("/ops/schedules", headers={"Sec-Fetch-Site": "none"})

    assert answer.status == 401


def test_a_console_page_another_sites_page_asks_for_is_refused(host):
    answer = host.fetch(CONSOLE, headers={"Sec-Fetch-Site": "cross-site"})

    assert answer.status == 403
    assert "it comes from another site (cross-site)" in answer.text


def _pause_posted(host, **headers):
    """A form posting `pause chore_census` to the console, without its CSRF token."""
    host.tick(utc("2026-01-05 12:00"))
    return host.fetch(f"{CONSOLE}/schedule/pause", "POST", f"name=chore_census&back={CONSOLE}".encode(),
                      headers={"Content-Type": "application/x-www-form-urlencoded", **headers})


def _paused(host):
    return host.d1("SELECT paused FROM tickwork_schedules WHERE name = 'chore_census'") == [{"paused": 1}]


def test_a_console_form_another_site_posts_is_refused_by_the_host_and_changes_nothing(host):
    answer = _pause_posted(host, Origin="https://evil.example")

    assert answer.status == 403
    assert "its Origin 'https://evil.example' is not this host's own" in answer.text
    assert not _paused(host)
    assert host.d1("SELECT * FROM tickwork_operator_log") == []


def test_a_console_form_of_this_machine_without_its_csrf_token_changes_nothing(host):
    answer = _pause_posted(host, Origin=host.url, **{"Sec-Fetch-Site": "same-origin"})

    assert answer.status == 403
    assert "Nothing changed" in answer.text
    assert not _paused(host)
    assert host.d1("SELECT * FROM tickwork_operator_log") == []
