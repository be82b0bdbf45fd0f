"""The documentation site builds with `mkdocs build --strict` (as `make docs` does), no warning:
every link and anchor is there, and the reference made from the code describes everything the
code has. And the check can fail: a broken link, a missing anchor, a marker naming no generator,
a declaration item, setting, code, flag or console page the reference cannot describe."""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import ROOT

sys.path.insert(0, str(ROOT / "docs" / "hooks"))
import generate  # noqa: E402 (the hook's generators, beside it in docs/hooks/)

SLOW = pytest.mark.faulthandler_timeout(600)


def mkdocs_build(config: Path, site: Path) -> subprocess.CompletedProcess:
    """Run from outside the repository: the build reads nothing relative to where it is run."""
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(config), "-d", str(site)],
                          capture_output=True, text=True, timeout=600, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
                          cwd=site.parent)


def warnings_of(built: subprocess.CompletedProcess) -> list[str]:
    return [line for line in (built.stdout + built.stderr).splitlines() if "WARNING" in line]


@SLOW
def test_the_site_builds_strictly_without_a_warning(tmp_path):
    built = mkdocs_build(ROOT / "mkdocs.yml", tmp_path / "site")

    assert warnings_of(built) == [] and built.returncode == 0, built.stdout + built.stderr
    for page in ("reference/problems", "reference/declarations", "reference/settings", "reference/commands",
                 "reference/console", "reference/python-api", "reference/versions", "changelog"):
        assert (tmp_path / "site" / page / "index.html").is_file(), page
    from tickwork.codes import CODES
    from tickwork_cli import cli

    problems = (tmp_path / "site" / "reference" / "problems" / "index.html").read_text()
    assert [code for code in CODES if f'id="{code}"' not in problems] == []
    commands = (tmp_path / "site" / "reference" / "commands" / "index.html").read_text()
    verbs = next(action for action in cli.parser()._actions if hasattr(action, "choices") and action.choices)
    assert [verb for verb in ("init", "build", "dev", "tick", *verbs.choices)
            if f'id="tickwork-{verb}"' not in commands] == []


def a_copy(tmp_path: Path) -> Path:
    """The site's sources in a folder of their own, beside the code the hook reads."""
    copy = tmp_path / "project"
    shutil.copytree(ROOT / "docs", copy / "docs", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "mkdocs.yml", copy / "mkdocs.yml")
    for shared in ("src", "scripts", "CHANGELOG.md"):
        (copy / shared).symlink_to(ROOT / shared)
    return copy


BROKEN = {  # each, written on a page, is a warning the strict build fails on, naming what is broken
    "link": ("[a page](no-such-page.md)", "no-such-page.md"),
    "anchor": ("[an anchor](problems.md#schedule.no_such_code)", "schedule.no_such_code"),
    "marker": ("<!-- tickwork:no-such-list -->", "no-such-list"),
}
# A page the nav names that is not written, and not one of the docs pages' author's still to land.
UNWRITTEN = "reference/no-such-page-in-nav.md"


@SLOW
def test_a_broken_link_anchor_marker_or_nav_entry_fails_the_build_each_said(tmp_path):
    """One build for the four (a build is seconds): each must be warned of by itself."""
    copy = a_copy(tmp_path)
    page = copy / "docs" / "reference" / "index.md"
    page.write_text(page.read_text() + "".join(f"\n{broken}\n" for broken, _ in BROKEN.values()))
    config = copy / "mkdocs.yml"
    config.write_text(config.read_text().replace("      - reference/versions.md\n",
                                                 f"      - reference/versions.md\n      - {UNWRITTEN}\n"))

    built = mkdocs_build(config, tmp_path / "site")

    warned = warnings_of(built)
    assert built.returncode != 0
    assert [kind for kind, said in {**{kind: said for kind, (_, said) in BROKEN.items()}, "nav": UNWRITTEN}.items()
            if sum(said in warning for warning in warned) != 1] == [], built.stdout + built.stderr


def missing_of(make) -> list[str]:
    said: list[str] = []
    make(said.append)
    return said


def test_the_reference_describes_everything_the_code_has():
    assert {name: missing_of(make) for name, make in generate.GENERATORS.items()} == {
        name: [] for name in generate.GENERATORS}


def test_an_item_the_build_reads_and_the_reference_does_not_describe_is_said(monkeypatch):
    from tickwork_build import schedules

    monkeypatch.setitem(schedules.ITEMS, "pulse", {**schedules.ITEMS["pulse"], "phase": None})

    assert missing_of(generate.declarations) == [
        "the pulse's item `phase:` is not described in tickwork_build/keys.py ITEMS"]


def test_a_setting_the_build_reads_and_the_reference_does_not_describe_is_said(monkeypatch):
    from tickwork_build import console

    monkeypatch.setattr(console, "KEYS", (*console.KEYS, "console_theme"))

    assert missing_of(generate.settings_page) == [
        "the setting `console_theme` of [tool.tickwork] is not described in tickwork_build/keys.py SETTINGS"]


def test_a_console_page_without_a_description_is_said(monkeypatch):
    from tickwork.console import routes

    async def _undescribed(db, app, frame, query):
        return 200, ""

    monkeypatch.setitem(routes.PAGES, "/undescribed", _undescribed)

    assert missing_of(generate.console) == [
        "the console's page `/undescribed` is described neither by its handler's docstring nor in "
        "generate.PAGE_WORDS"]


def test_a_flag_without_help_is_said(monkeypatch):
    from tickwork_tool import init

    made = init.parser

    def parser():
        parser = made()
        parser.add_argument("--quietly", action="store_true")
        return parser

    monkeypatch.setattr(init, "parser", parser)

    assert missing_of(generate.commands) == ["`tickwork init`'s `--quietly` has no help"]


def test_every_problem_code_has_its_anchor_on_the_problems_page():
    from tickwork.codes import CODES

    made = generate.problems(lambda what: None)

    assert all(f'<a id="{code}"></a>' in made for code in CODES)


def test_make_docs_builds_the_site_strictly():
    makefile = (ROOT / "Makefile").read_text()

    assert re.search(r"^\.PHONY:.* docs\b", makefile, re.MULTILINE)
    assert re.search(r"^docs:.*\n\t.*mkdocs build --strict --site-dir site$", makefile, re.MULTILINE)


def test_the_settings_defaults_are_the_ones_the_build_takes(monkeypatch):
    from tickwork_build import migrations, output, project

    monkeypatch.setattr(project.Project.__dataclass_fields__["retention"], "default", "7d")
    monkeypatch.setattr(migrations, "DEFAULT_DIRECTORY", "db/migrations")
    monkeypatch.setattr(output, "MINUTE_CRON", "*/1 * * * *")

    rows = [line for line in generate.settings_page(lambda what: None).splitlines() if line.startswith("| `")]

    assert [row.split(" | ")[1] for row in rows if row.startswith(
        ("| `retention`", "| `d1_databases[].migrations_dir`", "| `triggers.crons`"))] == [
        "`7d`", "`db/migrations`", '`["*/1 * * * *"]`']


def test_a_bad_value_of_each_item_is_refused_under_the_code_the_reference_names():
    from tickwork import ScheduleError
    from tickwork_build import keys, purges, schedules

    checks = {**schedules.CHECKS, "retry": lambda text: schedules._retry(text, False), "limit": schedules._limit,
              "format": purges._format, "after": purges._after,
              "starts": schedules.starts_of, "skip": lambda text: schedules._skip(text, {})}
    refused = {}
    for key, check in checks.items():
        with pytest.raises(ScheduleError) as raised:
            check("!! not a value")
        refused[key] = raised.value.code
    # `run:`, `table:` and `column:` are read against the domain and the app's tables; their code
    # is the one they are missing under.
    refused |= {key: code for key, (code, _) in (schedules._MISSING | purges._MISSING).items() if key not in refused}

    assert {key: described.code for key, described in keys.ITEMS.items()} == refused
