"""What the host runs is what `wrangler deploy` uploads: a module missing from the bundle fails."""

import re

from tickwork.times import utc

SESSION = "/session/metadata/"
# Pyodide's own standard library, of whichever Python wrangler.toml selects.
STDLIB = re.compile(r"/lib/python3\.?\d+(\.zip)?/")


def _bundle_files(directory):
    return sorted(
        str(path.relative_to(directory))
        for path in directory.rglob("*")
        if path.is_file() and str(path.relative_to(directory)) != "README.md"
    )


def test_the_host_mounts_exactly_the_files_of_a_fresh_dry_run_bundle(host, tmp_path):
    host.dry_run(tmp_path / "bundle")

    assert host.modules()["mounted"] == _bundle_files(tmp_path / "bundle")


def test_every_module_the_worker_imports_comes_from_the_bundle_or_pyodides_stdlib(host):
    host.tick(utc("2026-01-05 12:00"))
    host.tick(utc("2026-01-05 12:15"))
    modules = host.modules()
    mounted = set(modules["mounted"])

    outside = [
        (name, file)
        for name, file in modules["loaded"]
        if file
        and not STDLIB.match(file)
        and not (file.startswith(SESSION) and file[len(SESSION):] in mounted)
        and file != "tickwork-host-bridge.py"
    ]
    assert outside == []
    assert {"entry", "tickwork_manifest", "workers", "app.domains.planning"} <= {
        name for name, _ in modules["loaded"]
    }


def test_pydantic_is_never_imported_at_run_time(host):
    host.tick(utc("2026-01-05 12:00"))
    host.tick(utc("2026-01-06 12:00"))

    names = {name for name, _ in host.modules()["loaded"]}

    assert not {name for name in names if name.split(".")[0] in ("pydantic", "pydantic_core")}


def test_nothing_of_the_tools_is_bundled_nor_imported_at_run_time(host, tmp_path):
    """The Worker vendors the runtime distribution alone: the build, the command and the host's
    own files stay with the tools (tickwork-dev)."""
    host.tick(utc("2026-01-05 12:00"))
    tools = ("tickwork_build", "tickwork_cli", "tickwork_tool")
    host.dry_run(tmp_path / "bundle")

    assert [name for name in _bundle_files(tmp_path / "bundle")
            if any(tool in name for tool in tools) or name.endswith((".mjs", ".sql"))] == []
    assert not {name for name, _ in host.modules()["loaded"] if name.split(".")[0] in tools}
