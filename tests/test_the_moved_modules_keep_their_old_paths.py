"""The outbox's and the Workers adapter's modules moved (issue 24): each old path still gives the
very objects of the new one, and the façade hands out what moved behind it only when asked."""
import ast
import subprocess
import sys
from pathlib import Path

import pytest

import tickwork.alerts
import tickwork.consumers
import tickwork.outbox
from tickwork.adapters import _d1, _webcrypto, workers
from tickwork.outbox import alerts, consumers

SRC = Path(__file__).resolve().parents[1] / "src"


def test_the_outbox_path_is_the_package_itself():
    assert tickwork.outbox.__file__.endswith("outbox/__init__.py")
    assert {"Outbox", "envelope", "backoff", "SEND_WINDOW", "CONSUMER_WAIT"} <= set(vars(tickwork.outbox))


@pytest.mark.parametrize("name", ["Consumer", "Message", "Received", "consume", "received"])
def test_tickwork_consumers_gives_the_outbox_package_s_own(name):
    assert getattr(tickwork.consumers, name) is getattr(consumers, name)


def test_tickwork_consumers_still_gives_what_the_build_reads():
    from tickwork.declare import CONSUMES, consumer

    assert (tickwork.consumers.CONSUMES, tickwork.consumers.consumer) == (CONSUMES, consumer)


@pytest.mark.parametrize("name", ["Alerts", "GAP_WITH_ALERT", "LAPSED_ALERTS", "TURNS", "deliveries", "sendable"])
def test_tickwork_alerts_gives_the_outbox_package_s_own(name):
    assert getattr(tickwork.alerts, name) is getattr(alerts, name)


@pytest.mark.parametrize("name, module, there", [
    ("D1Database", _d1, "D1Database"), ("_Queue", _d1, "Queue"), ("_Message", _d1, "Message"),
    ("WebCryptoVerifier", _webcrypto, "WebCryptoVerifier"), ("KEYS_KEPT_MS", _webcrypto, "KEYS_KEPT_MS"),
    ("KEYS_REFRESHED_MS", _webcrypto, "KEYS_REFRESHED_MS"), ("KEYS_TIMEOUT_S", _webcrypto, "KEYS_TIMEOUT_S"),
])
def test_the_workers_facade_gives_what_moved_behind_it(name, module, there):
    assert getattr(workers, name) is getattr(module, there)


def test_the_workers_facade_has_no_other_name():
    with pytest.raises(AttributeError, match="has no attribute 'no_such_name'"):
        workers.no_such_name  # noqa: B018


def test_the_facade_imports_d1_only_when_asked():
    probe = (
        "import sys; import tickwork.adapters.workers as w; "
        "before = sorted(m for m in sys.modules if m.startswith('tickwork.adapters.')); "
        "w.D1Database; "
        "after = sorted(m for m in sys.modules if m.startswith('tickwork.adapters.')); "
        "print(before, after)"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True,
                         env={"PYTHONPATH": str(SRC)}).stdout
    assert out.strip() == "['tickwork.adapters.workers'] ['tickwork.adapters._d1', 'tickwork.adapters.workers']"


def test_the_facade_imports_web_crypto_only_when_asked():
    probe = (
        "import sys; import tickwork.adapters.workers as w; "
        "before = '_webcrypto' in sys.modules['tickwork.adapters'].__dict__; "
        "w.WebCryptoVerifier; "
        "print(before, 'tickwork.adapters._webcrypto' in sys.modules, 'tickwork.adapters._d1' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True,
                         env={"PYTHONPATH": str(SRC)}).stdout
    assert out.strip() == "False True False"


def test_only_the_web_crypto_and_workflow_adapters_import_js_or_pyodide():
    """Each at first use, never at a cold start: web crypto for Access JWTs, and the Workflow
    adapter for a bare JavaScript binding's params (the SDK's wrapper takes Python)."""
    importing = set()
    for path in (SRC / "tickwork").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else (
                [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else [])
            if any(name.split(".")[0] in ("js", "pyodide") for name in names):
                importing.add(path.relative_to(SRC).as_posix())
    assert importing == {"tickwork/adapters/_webcrypto.py", "tickwork/adapters/workflows.py"}
