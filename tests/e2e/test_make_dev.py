"""`make dev` as a newcomer types it, on this repository's example app (which has no `fetch`):
`make dev ARGS="--json --fresh ..."` once for the module, stopped with Ctrl-C (SIGINT to its
process group, as a terminal sends it). Its D1 state is a directory of its own."""

import dataclasses
import json
import os
import re
import socket
import subprocess
import threading
import time
from typing import NamedTuple

import pytest
from helpers import ROOT, stop

from tickwork.times import utc

LEFT_OVER = "left_from_before"


class Dev(NamedTuple):
    host: object  # the session host's helpers (fetch, tick, d1, printed) pointed at `make dev`
    stderr: list


def _as_typed_in_a_shell():
    """The environment of a shell, not of the `make test` that runs these tests."""
    return {key: value for key, value in os.environ.items() if key not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}


def _read(stream, into):
    for line in stream:
        into.append(line)


@pytest.fixture(scope="module")
def dev(host, tmp_path_factory):
    state = tmp_path_factory.mktemp("dev") / "state"
    local = dataclasses.replace(host, project=ROOT, state=state, url=None, process=None, output=[])
    local.d1(f"CREATE TABLE {LEFT_OVER} (x INTEGER)")
    process = subprocess.Popen(
        ["make", "dev", f"ARGS=--json --fresh --no-timer --port 0 --persist-to {state}"],
        cwd=ROOT, env=_as_typed_in_a_shell(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, start_new_session=True,
    )
    stderr = []
    for stream, lines in ((process.stdout, local.output), (process.stderr, stderr)):
        threading.Thread(target=_read, args=(stream, lines), daemon=True).start()
    deadline = time.monotonic() + 300
    url = None
    while url is None and process.poll() is None and time.monotonic() < deadline:
        found = re.search(r"listening on (http://\S+)", "".join(stderr))
        url = found and found.group(1)
        time.sleep(0.1)
    try:
        if url is None:
            pytest.fail("make dev did not start:\n" + "".join(local.output) + "".join(stderr))
        yield Dev(dataclasses.replace(local, url=url, process=process), stderr)
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


def test_a_port_in_use_is_named_with_how_to_pick_another_in_one_line(host):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]

        done = host.run_host("dev", "--port", str(port))

    assert done.returncode == 1
    assert done.stderr == (
        f'tickwork host: port {port} is in use (another make dev?); pick another: make dev ARGS="--port {port + 1}"\n'
    )
