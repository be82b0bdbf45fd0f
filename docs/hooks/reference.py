"""The docs build's hook (mkdocs.yml `hooks:`): the reference is made from the code at each build,
so it cannot drift from it. A page writes `<!-- tickwork:NAME -->` where generate.GENERATORS[NAME]
goes; a marker naming no generator, or anything the code has that the page cannot describe, is a
warning, which `mkdocs build --strict` turns into a failed build.

The nav names every page of the site. Those the docs pages' author writes (PENDING) may not be in
this checkout yet: a page of PENDING that is absent is left out of the nav (said at info level);
any other page the nav names and the docs lack fails the build, as MkDocs has it."""

import logging
import re
import sys
from pathlib import Path

log = logging.getLogger("mkdocs.hooks.tickwork_reference")
MARKER = re.compile(r"<!-- tickwork:([a-z-]+) -->")

# The pages the tutorial, the how-to guides and the explanations are (their author's, landing
# beside this): once they are all in docs/, this list can go.
PENDING = frozenset({
    "index.md",
    *(f"tutorial/{page}.md" for page in ("index", "add-to-a-worker", "first-schedule", "per-item", "billing-job",
                                          "console")),
    *(f"how-to/{page}.md" for page in ("deploy", "upgrade", "from-cron-triggers", "from-celery-beat",
                                        "from-apscheduler", "from-agents-sdk", "uptime-monitor",
                                        "test-your-schedules", "operate", "declare-schedules", "hand-over-items",
                                        "events", "alerts", "console", "reach-the-worker", "run-locally")),
    *(f"explanation/{page}.md" for page in ("tick", "exactly-once", "dst", "d1-costs", "housekeeping",
                                             "specification", "architecture")),
})


def on_config(config):
    root = Path(config.config_file_path).resolve().parent
    for path in (root / "src", root / "scripts", Path(__file__).resolve().parent):
        if str(path) not in sys.path:
            sys.path.insert(0, str(path))
    # The changelog's snippet is read from the repository's root wherever mkdocs is run from.
    config.mdx_configs.setdefault("pymdownx.snippets", {})["base_path"] = [str(root)]
    docs = Path(config.docs_dir)
    config.nav = _present(config.nav or [], docs)
    return config


def _present(nav: list, docs: Path) -> list:
    """The nav without the pages of PENDING that are not written yet (nor sections left empty)."""
    kept = []
    for entry in nav:
        if isinstance(entry, dict):
            ((title, value),) = entry.items()
            if isinstance(value, list):
                value = _present(value, docs)
                if value:
                    kept.append({title: value})
                continue
            entry_path = value
        else:
            entry_path = entry
        if isinstance(entry_path, str) and entry_path in PENDING and not (docs / entry_path).is_file():
            log.info("tickwork: %s is not written yet; left out of the nav", entry_path)
            continue
        kept.append(entry)
    return kept


def on_page_markdown(markdown, page, config, files):
    import generate

    def made(match: re.Match) -> str:
        name = match.group(1)
        generator = generate.GENERATORS.get(name)
        if generator is None:
            log.warning("%s: `<!-- tickwork:%s -->` names no generator of docs/hooks/generate.py",
                        page.file.src_uri, name)
            return match.group(0)
        return generator(lambda what: log.warning("%s: %s", page.file.src_uri, what))

    return MARKER.sub(made, markdown)
