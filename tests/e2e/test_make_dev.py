"""`make dev` as a newcomer types it, on this repository's example app (which has no `fetch`):
`make dev ARGS="--json --fresh ..."` once for the module, stopped with Ctrl-C (SIGINT to its
process group, as a terminal sends it). Its D1 state is a directory of its own."""

import dataclasses
import json
import os
import re
import signal
import socket
import subprocess
import threading
import time
import urllib.request
from typing import NamedTuple

import pytest
from helpers import ROOT, as_typed_in_a_shell, read_into, stop, when_printed

from tickwork.times import utc

LEFT_OVER = "left_from_before"


class Dev(NamedTuple):
    host: object  # the session host's helpers (fetch, tick, d1, printed) pointed at `make dev`
    stderr: list


@pytest.fixture(scope="module")
def dev(host, tmp_path_factory):
    state = tmp_path_factory.mktemp("dev") / "state"
    local = dataclasses.replace(host, project=ROOT, state=state, url=None, process=None, output=[])
    local.d1(f"CREATE TABLE {LEFT_OVER} (x INTEGER)")
    # make dev bundles the Worker only when it is stale: made stale, so that the build's output
    # is there to check where it goes
    for stamp in (".bundled", ".tickwork-bundled"):  # make bundle's, and tickwork dev's
        (ROOT / "build" / stamp).unlink(missing_ok=True)
    process = subprocess.Popen(
        ["make", "dev", f"ARGS=--json --fresh --no-timer --port 0 --persist-to {state}"],
        cwd=ROOT, env=as_typed_in_a_shell(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, start_new_session=True,
    )
    stderr = []
    read_into(process.stdout, local.output)
    read_into(process.stderr, stderr)
    found = when_printed(stderr, r"listening on (http://\S+)", process)
    try:
        if found is None:
            pytest.fail("make dev did not start:\n" + "".join(local.output) + "".join(stderr))
        yield Dev(dataclasses.replace(local, url=found.group(1), process=process), stderr)
    finally:
        stop(process)


def test_make_dev_json_keeps_stdout_to_one_json_object_per_line(dev):
    dev.host.tick(utc("2026-01-05 12:00"))
    dev.host.tick(utc("2026-01-05 12:15"))

    printed = dev.host.printed('"schedule":"chore_census"')

    runs = [json.loads(line) for line in printed.splitlines()]
    assert all(isinstance(run, dict) for run in runs)
    assert ("chore_census", "succeeded") in [(run["schedule"], run["outcome"]) for run in runs]
    assert re.search(r"built \d+ schedule", "".join(dev.stderr)), "the set-up's output goes to stderr"


def test_make_dev_fresh_starts_from_an_empty_local_d1(dev):
    tables = {row["name"] for row in dev.host.d1("SELECT name FROM sqlite_master WHERE type = 'table'")}

    assert LEFT_OVER not in tables
    assert {"tickwork_schedules", "tickwork_runs"} <= tables


def test_a_request_to_a_worker_without_fetch_answers_a_plain_404_saying_so(dev):
    answer = dev.host.fetch("/")

    assert answer.status == 404
    assert answer.headers["content-type"].startswith("text/plain")
    assert "This Worker has no fetch handler" in answer.text
    assert "async def fetch(self, request)" in answer.text
    assert "Traceback" not in answer.text


def test_a_port_in_use_is_named_with_how_to_pick_another_in_one_line(host, tmp_path):
    """In the `tickwork dev` form every Worker has; on a D1 of its own (beside the host's running
    dev, a second dev is refused first)."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]

        done = host.run_host("dev", "--port", str(port), "--persist-to", str(tmp_path / "state"))

    assert done.returncode == 1
    assert done.stderr == (
        f"tickwork host: port {port} is in use (another tickwork dev?); pick another: tickwork dev --port {port + 1}\n"
    )


def _state_of(host, state, sql):
    done = subprocess.run(
        [str(ROOT / "node_modules" / ".bin" / "wrangler"), "d1", "execute", "DB", "--local", "--persist-to",
         str(state), "--json", "--command", sql],
        cwd=host.project, env=as_typed_in_a_shell(), capture_output=True, text=True, timeout=120)
    return json.loads(done.stdout)[-1]["results"] if done.returncode == 0 else None


def test_ctrl_c_during_an_invocation_stops_the_host_at_once_without_a_traceback(host, tmp_path):
    state = tmp_path / "state"
    process = subprocess.Popen(
        ["node", str(ROOT / "scripts" / "host" / "cli.mjs"), "dev", "--no-timer", "--port", "0",
         "--config", str(host.project / "wrangler.toml"), "--bundle", str(host.project / "build" / "worker"),
         "--persist-to", str(state)],
        cwd=host.project, env=as_typed_in_a_shell(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        start_new_session=True)
    output = []
    read_into(process.stdout, output)
    try:
        deadline = time.monotonic() + 300
        while not re.search(r"listening on (http://\S+)", "".join(output)) and time.monotonic() < deadline:
            assert process.poll() is None, "".join(output)
            time.sleep(0.1)
        url = re.search(r"listening on (http://\S+)", "".join(output)).group(1)
        # A tick at a moment of the current minute: its invocation goes on ticking at the 10-second
        # marks ahead, for most of a minute.
        moment = int(time.time() * 1000) - 5_000
        request = f"{url}/cdn-cgi/handler/scheduled?time={moment}"
        threading.Thread(target=lambda: _quietly(request), daemon=True).start()
        while (_state_of(host, state, "SELECT last_tick FROM tickwork_app") or [{"last_tick": 0}])[0]["last_tick"] < moment:
            assert time.monotonic() < deadline and process.poll() is None, "".join(output)
        asked = time.monotonic()
        os.killpg(process.pid, signal.SIGINT)  # as a terminal sends it: to workerd as well
        process.wait(timeout=60)
        took = time.monotonic() - asked
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    printed = "".join(output)
    assert took < 10, f"stopping took {took:.1f} s:\n{printed}"
    assert "Traceback" not in printed and "fetch failed" not in printed, printed
    assert "tickwork host: stopping" in printed


def _quietly(url):
    try:
        urllib.request.urlopen(url, timeout=120).read()
    except Exception:
        pass  # the host stopped mid-answer


def test_a_runs_line_is_printed_as_the_run_ends_not_when_its_invocation_does(host):
    host.tick(int(time.time() * 1000) - 120_000)  # the first tick sees the schedules; the sweep's next share is due
    since = len(host.output)
    answered = []
    moment = int(time.time() * 1000) - 5_000  # 5 s ago: its invocation ticks on at the 10-second marks after it
    ticking = threading.Thread(target=lambda: answered.append((host.tick(moment), time.monotonic())))
    ticking.start()
    printed = host.printed("sweep due", since=since, timeout=120)
    line_at = time.monotonic()
    ticking.join(timeout=180)
    [(answer, answered_at)] = answered
    assert "sweep due" in printed and any(run["schedule"] == "sweep" for run in answer["runs"]), printed
    # the invocation ticks on at the 10-second marks of its minute, for about 45 s more
    assert answered_at - line_at > 15, f"the line came {answered_at - line_at:.1f} s before the invocation ended"


def test_no_file_the_project_tracks_is_one_git_ignores():
    """src/entry.py, the Worker's entry, is the project's own: edited, tracked, never ignored."""
    done = subprocess.run(["git", "ls-files", "--cached", "--ignored", "--exclude-standard"], cwd=ROOT,
                          capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"not a git checkout: {done.stderr.strip()}")
    assert done.stdout == ""
    done = subprocess.run(["git", "check-ignore", "--no-index", "src/entry.py"], cwd=ROOT, capture_output=True)
    assert done.returncode == 1, "src/entry.py is ignored"
