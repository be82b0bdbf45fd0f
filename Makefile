# tickwork: `make test` and `make dev` set up what they need on a fresh machine.
SHELL := /bin/bash
PYTHON_VERSION := $(shell cat .python-version)
PYTHON ?= $(firstword $(wildcard $(HOME)/.pyenv/versions/$(PYTHON_VERSION)/bin/python3) $(shell command -v python$(basename $(PYTHON_VERSION))))
VENV := .venv
PY := $(VENV)/bin/python
export WRANGLER_SEND_METRICS := false
export WRANGLER_SEND_ERROR_REPORTS := false
export WRANGLER_HIDE_BANNER := true

.PHONY: build bundle vendor test dev tick bench setup clean tickwork chromium docs

$(VENV)/.installed: requirements/dev.txt .python-version
	@test -n "$(PYTHON)" || { echo "Python $(PYTHON_VERSION) is needed (pyenv install $(PYTHON_VERSION))"; exit 1; }
	rm -rf $(VENV) && $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements/dev.txt
	touch $@

node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	touch $@

# playwright-core for the console's browser test (it downloads no browser: the test drives Debian's).
tests/e2e/browser/node_modules/.installed: tests/e2e/browser/package.json tests/e2e/browser/package-lock.json
	npm ci --prefix tests/e2e/browser --no-audit --no-fund --loglevel=error
	touch $@

# The Worker's packages, pyproject.toml's [project].dependencies: pure-Python wheels from PyPI.
python_modules/.installed: pyproject.toml $(VENV)/.installed
	$(PY) scripts/vendor.py
	touch $@

# The `tickwork` command (scripts/tickwork_tool/, docs/tutorial/add-to-a-worker.md and
# docs/how-to/operate.md), as the wheel installs it: .venv/bin/tickwork runs it with this
# checkout's scripts/ and src/ on the path, from wherever it is called.
$(VENV)/bin/tickwork: $(VENV)/.installed Makefile
	printf '%s\n' '#!/bin/sh' '# tickwork: the tickwork command, written by make (scripts/tickwork_tool/).' \
		'export PYTHONPATH="$(CURDIR)/scripts:$(CURDIR)/src$${PYTHONPATH:+:$$PYTHONPATH}"' \
		'exec "$(CURDIR)/$(PY)" -m tickwork_tool "$$@"' > $@
	chmod +x $@

setup: $(VENV)/.installed $(VENV)/bin/tickwork node_modules/.installed python_modules/.installed \
	tests/e2e/browser/node_modules/.installed

vendor: python_modules/.installed

# Validates the app's declarations and lays out the Worker in build/app (see
# docs/how-to/declare-schedules.md, "The build"), with its packages vendored: wrangler.toml's
# [build] command, so `wrangler deploy` uploads them too.
build: $(VENV)/.installed $(VENV)/bin/tickwork python_modules/.installed
	$(VENV)/bin/tickwork build

# What `wrangler deploy` would upload, without the network: build/worker, made again only when
# what goes into it changed (20-80 s saved on each `make tick`). BUNDLE_SOURCES are its files;
# their list is kept in build/.bundle-sources, rewritten when a file is added, removed or
# renamed, so that a file gone also makes the bundle again. The stamp takes the time the bundle
# began, so a source saved while it was made is newer than it.
BUNDLE_SOURCES := $(shell find src migrations scripts/tickwork_build -type f -not -path '*/__pycache__/*' \
	-not -name '*.pyc' 2>/dev/null | LC_ALL=C sort) wrangler.toml pyproject.toml scripts/build.py
BUNDLE_LIST := build/.bundle-sources
$(shell mkdir -p build && { echo '$(BUNDLE_SOURCES)' | cmp -s - $(BUNDLE_LIST) || echo '$(BUNDLE_SOURCES)' > $(BUNDLE_LIST); })
BUNDLED := build/.bundled

$(BUNDLED): $(BUNDLE_SOURCES) $(BUNDLE_LIST) $(VENV)/.installed $(VENV)/bin/tickwork python_modules/.installed node_modules/.installed
	touch $@.begun
	$(PY) scripts/build.py
	rm -rf build/worker
	npx wrangler deploy --dry-run --outdir build/worker
	mv $@.begun $@

# wrangler never empties its --outdir, so the bundle is always written afresh.
bundle: $(BUNDLED)
	@:

# What the console's browser test drives (tests/e2e/test_the_console_in_a_browser.py): Debian's
# headless `chromium`, installed by `make test` when missing (CI runs as root, Debian's registry
# reachable), and playwright-core, pinned in tests/e2e/browser/ (`make setup`). A chromium that
# cannot be had is said here and fails that test, saying so; the other tests run.
chromium:
	@command -v chromium >/dev/null || { echo "chromium is missing: apt-get install -y chromium" >&2; \
		{ DEBIAN_FRONTEND=noninteractive apt-get install -y chromium || { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium; }; } >&2 \
		|| echo "could not install chromium (apt-get install chromium, as root): the browser test will fail" >&2; }

# On TEST_WORKERS pytest-xdist workers, a module at a time each (tests/conftest.py, worker_group);
# TEST_WORKERS=0 runs them in this process.
TEST_WORKERS ?= 2
test: setup chromium
	$(PY) -m pytest -n $(TEST_WORKERS) --dist loadgroup

# `tickwork dev` builds, bundles (wrangler deploy --dry-run --outdir build/worker) and runs the
# local Workers host (scripts/host/): it runs the bundle on Pyodide with wrangler.toml's bindings
# on Miniflare; D1 state in .wrangler/state. ARGS passes flags on: make dev ARGS=--json.
# The set-up's output (make's, pip's, npm's, the build's, wrangler's) goes to stderr, so that
# with --json stdout holds only the host's JSON lines.
dev:
	@$(MAKE) --no-print-directory setup >&2
	@$(VENV)/bin/tickwork dev $(ARGS)

# One tick at TIME (epoch ms, an ISO UTC time such as 2026-01-05T09:15Z, or now), then exit.
# More than a day from now it needs ARGS=--far.
TIME ?= now
tick:
	@$(MAKE) --no-print-directory setup >&2
	@$(VENV)/bin/tickwork tick "$(TIME)" $(ARGS)

# The documentation site (mkdocs.yml) into site/: a broken link, a missing anchor or a reference
# the code has and the pages cannot describe fails it (`strict`). tests/test_the_docs_build.py
# builds it in `make test` too.
docs: $(VENV)/.installed
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --site-dir site

# Every benchmark runs, in order; `make bench` fails if any of them misses its goal.
BENCHES := scripts/bench/statements.py scripts/bench/calendars.py \
	scripts/bench/calendars_in_host.mjs scripts/bench/coldstart.mjs \
	scripts/bench/scale.py scripts/bench/scale_in_host.mjs \
	scripts/bench/declared.py scripts/bench/declared_in_host.mjs \
	scripts/bench/outbox.py scripts/bench/outbox_in_host.mjs scripts/bench/housekeeping.py scripts/bench/housekeeping_in_host.mjs \
	scripts/bench/bulk.py scripts/bench/bulk_in_host.mjs \
	scripts/bench/rows.py scripts/bench/rows_in_host.mjs scripts/bench/backfill.py scripts/bench/backfill_in_host.mjs \
	scripts/bench/local_cli.py scripts/bench/console.py scripts/bench/overlap.py scripts/bench/jitter.py \
	scripts/bench/concurrency.py scripts/bench/policies.py \
	scripts/bench/wakes.py scripts/bench/metrics.py scripts/bench/workflows.py
bench: bundle
	@status=0; for bench in $(BENCHES); do \
		echo "== $$bench"; \
		case $$bench in *.py) $(PY) $$bench ;; *) node $$bench ;; esac || status=1; \
	done; exit $$status

# The operator's command from the project's root: make tickwork ARGS="schedules --local"
tickwork: $(VENV)/bin/tickwork
	@$(VENV)/bin/tickwork $(ARGS)

clean:
	rm -rf build .wrangler
