"""`wrangler deploy --dry-run` packages the Worker offline: entry, runtime, build output and
the vendored packages, as a deploy would upload them, and nothing of the tools (the build, the
command, the host's JavaScript, tickwork's migrations, pydantic)."""

import os
import subprocess

from helpers import ROOT

VENDORED = ("croniter", "dateutil", "tzdata", "workers")
TOOLS = ("tickwork_build", "tickwork_cli", "tickwork_tool", "pydantic")


def test_the_dry_run_bundle_holds_the_entry_the_runtime_the_manifest_and_vendored_packages(tmp_path):
    out = tmp_path / "worker"
    env = {**os.environ, "WRANGLER_SEND_METRICS": "false", "WRANGLER_HIDE_BANNER": "true"}
    subprocess.run(
        ["npx", "wrangler", "deploy", "--dry-run", "--outdir", str(out)],
        cwd=ROOT, env=env, check=True, capture_output=True, text=True,
    )
    bundled = {str(path.relative_to(out)) for path in out.rglob("*") if path.is_file()}
    runtime = {
        f"tickwork/{path.relative_to(ROOT / 'src' / 'tickwork')}"
        for path in (ROOT / "src" / "tickwork").rglob("*.py")
    }
    assert {"entry.py", "tickwork_manifest.py", "app/domains/planning/__init__.py"} <= bundled
    assert runtime <= bundled
    for package in VENDORED:
        assert any(name.startswith(f"python_modules/{package}") for name in bundled), package
    assert not any("pydantic" in name or "tickwork_build" in name for name in bundled)
    assert [name for name in bundled if any(tool in name for tool in TOOLS) or name.endswith((".mjs", ".sql"))] == []
    assert {name for name in bundled if name.startswith(("tickwork/", "python_modules/tickwork/"))} == runtime
