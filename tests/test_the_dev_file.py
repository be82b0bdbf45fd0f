"""`tickwork dev`'s file in its state directory (scripts/host/dev_file.mjs): where it listens and
the token its command endpoint asks for, which only its user may read; the token is compared in
constant time (crypto.timingSafeEqual), and a wrong one, or none, is refused."""

import json
import os
import socket
import stat
import subprocess
from pathlib import Path

from helpers import in_node

DEV_FILE_MJS = Path(__file__).parent.parent / "scripts" / "host" / "dev_file.mjs"
RECORD = {"url": "http://127.0.0.1:8787", "pid": 4242, "token": "b5e0c5c2-secret"}


def _write(state: Path) -> Path:
    answer = in_node(DEV_FILE_MJS, "writeDevFile", f"writeDevFile({json.dumps(str(state))}, {json.dumps(RECORD)})")
    assert "value" in answer, answer
    return Path(answer["value"])


def _mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def test_the_dev_file_holding_the_token_is_readable_by_its_user_alone(tmp_path):
    written = _write(tmp_path / "state")
    assert json.loads(written.read_text()) == RECORD
    assert _mode(written) == 0o600


def test_a_leftover_dev_file_readable_by_others_is_made_afresh_for_its_user_alone(tmp_path):
    """A file left by a dev killed outright, or made by hand, keeps its mode when written over."""
    state = tmp_path / "state"
    state.mkdir()
    (state / "tickwork-dev.json").write_text('{"token": "old"}')
    os.chmod(state / "tickwork-dev.json", 0o644)
    written = _write(state)
    assert json.loads(written.read_text()) == RECORD
    assert _mode(written) == 0o600


def test_a_link_in_place_of_the_dev_file_is_not_followed_to_write_the_token_elsewhere(tmp_path):
    state, elsewhere = tmp_path / "state", tmp_path / "readable-by-all"
    state.mkdir()
    elsewhere.write_text("")
    os.chmod(elsewhere, 0o644)
    (state / "tickwork-dev.json").symlink_to(elsewhere)
    written = _write(state)
    assert not written.is_symlink() and _mode(written) == 0o600
    assert elsewhere.read_text() == ""


def test_only_dev_s_own_token_is_taken(tmp_path):
    def matches(given) -> bool:
        return in_node(DEV_FILE_MJS, "tokenMatches", f"tokenMatches({json.dumps(given)}, 'b5e0c5c2-secret')")["value"]

    assert matches("b5e0c5c2-secret")
    assert not matches("b5e0c5c2-secreT")
    assert not matches("b5e0c5c2")
    assert not matches(None)  # no header
    assert not matches("")


CLI_MJS = DEV_FILE_MJS.parent / "cli.mjs"


def _dev(tmp_path: Path, state: Path, port: int) -> subprocess.CompletedProcess:
    """`tickwork dev`'s host, refusing before it loads any Worker (so no bundle is needed)."""
    return subprocess.run(["node", str(CLI_MJS), "dev", "--port", str(port), "--persist-to", str(state),
                           "--config", str(tmp_path / "wrangler.toml"), "--bundle", str(tmp_path / "none")],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)


def test_a_second_dev_on_the_local_d1_a_dev_runs_on_is_refused_saying_which(tmp_path):
    """Two workerds on one file meet each other's lock (SQLITE_BUSY), and the second's file would
    hide the first's from the command."""
    state = tmp_path / "state"
    with socket.create_server(("127.0.0.1", 0)) as listening:
        url = f"http://127.0.0.1:{listening.getsockname()[1]}"
        state.mkdir()
        (state / "tickwork-dev.json").write_text(json.dumps({"url": url, "pid": os.getpid(), "token": "t"}))
        done = _dev(tmp_path, state, 0)
    assert done.returncode == 1
    assert f"tickwork dev already runs on the local D1 in {state} ({url}, pid {os.getpid()})" in done.stderr
    assert json.loads((state / "tickwork-dev.json").read_text())["url"] == url, "the running dev's file is kept"

