"""What `make` sets up for the console's browser test (tests/e2e/test_the_console_in_a_browser.py)
on a fresh machine: playwright-core with `make setup`, pinned by its lockfile; Debian's chromium
with `make test`, installed without a question asked (CI runs as root, no one to answer)."""

import re
import subprocess

from helpers import ROOT, as_typed_in_a_shell


def _would_run(*args: str) -> str:
    """The commands `make` would run for `args`, none of them run."""
    done = subprocess.run(["make", "--no-print-directory", "-n", *args], cwd=ROOT, env=as_typed_in_a_shell(),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_make_setup_installs_the_browser_tests_playwright_core_from_its_lockfile():
    assert "npm ci --prefix tests/e2e/browser" in _would_run("-W", "tests/e2e/browser/package-lock.json", "setup")


def test_make_test_installs_chromium_with_no_question_asked():
    commands = re.findall(r"[^;|{}&]*apt-get install[^;|{}&]*", _would_run("-B", "chromium"))
    installs = [command for command in commands if "echo " not in command]  # not those saying what to run

    assert installs and all("DEBIAN_FRONTEND=noninteractive apt-get install -y" in line for line in installs), installs


def test_make_test_runs_after_setup_and_chromium():
    assert re.search(r"^test: setup chromium\b", (ROOT / "Makefile").read_text(), re.M)
