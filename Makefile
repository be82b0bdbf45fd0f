# tickwork: `make test` and `make dev` set up what they need on a fresh machine.
SHELL := /bin/bash
PYTHON_VERSION := $(shell cat .python-version)
PYTHON ?= $(firstword $(wildcard $(HOME)/.pyenv/versions/$(PYTHON_VERSION)/bin/python3) $(shell command -v python$(basename $(PYTHON_VERSION))))
VENV := .venv
PY := $(VENV)/bin/python
export WRANGLER_SEND_METRICS := false
export WRANGLER_SEND_ERROR_REPORTS := false
export WRANGLER_HIDE_BANNER := true

.PHONY: build bundle vendor test dev tick bench setup clean tickwork

$(VENV)/.installed: requirements/dev.txt .python-version
	@test -n "$(PYTHON)" || { echo "Python $(PYTHON_VERSION) is needed (pyenv install $(PYTHON_VERSION))"; exit 1; }
	rm -rf $(VENV) && $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements/dev.txt
	touch $@

node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	touch $@

# The Worker's packages, pyproject.toml's [project].dependencies: pure-Python wheels from PyPI.
python_modules/.installed: pyproject.toml $(VENV)/.installed
	$(PY) scripts/vendor.py
	touch $@

# The operator's command (scripts/tickwork_cli/, README "Operating tickwork"): .venv/bin/tickwork
# runs it with this checkout's scripts/ and src/ on the path, from wherever it is called.
$(VENV)/bin/tickwork: $(VENV)/.installed
	printf '%s\n' '#!/bin/sh' '# tickwork: the operator'"'"'s command, written by make (scripts/tickwork_cli/).' \
		'export PYTHONPATH="$(CURDIR)/scripts:$(CURDIR)/src$${PYTHONPATH:+:$$PYTHONPATH}"' \
		'exec "$(CURDIR)/$(PY)" -m tickwork_cli "$$@"' > $@
	chmod +x $@

setup: $(VENV)/.installed $(VENV)/bin/tickwork node_modules/.installed python_modules/.installed

vendor: python_modules/.installed

# Validates the app's declarations and lays out the Worker in build/app (see README), with its
# packages vendored: wrangler.toml's [build] command, so `wrangler deploy` uploads them too.
build: $(VENV)/.installed $(VENV)/bin/tickwork python_modules/.installed
	$(PY) scripts/build.py

# What `wrangler deploy` would upload, without the network: build/worker.
# wrangler never empties its --outdir, so the bundle is always written afresh.
bundle: build node_modules/.installed python_modules/.installed
	rm -rf build/worker
	npx wrangler deploy --dry-run --outdir build/worker

test: setup
	$(PY) -m pytest

# The local Workers host (scripts/host/) runs the bundle on Pyodide with wrangler.toml's bindings
# on Miniflare; D1 state in .wrangler/state. ARGS passes flags on: make dev ARGS=--json.
# The set-up's output (make's, pip's, npm's, the build's, wrangler's) goes to stderr, so that
# with --json stdout holds only the host's JSON lines.
dev:
	@$(MAKE) --no-print-directory bundle >&2
	@node scripts/host/cli.mjs dev $(ARGS)

# One tick at TIME (epoch ms, an ISO UTC time such as 2026-01-05T09:15Z, or now), then exit.
# More than a day from now it needs ARGS=--far.
TIME ?= now
tick:
	@$(MAKE) --no-print-directory bundle >&2
	@node scripts/host/cli.mjs tick --time="$(TIME)" $(ARGS)

# Every benchmark runs, in order; `make bench` fails if any of them misses its goal.
BENCHES := scripts/bench/statements.py scripts/bench/calendars.py \
	scripts/bench/calendars_in_host.mjs scripts/bench/coldstart.mjs \
	scripts/bench/scale.py scripts/bench/scale_in_host.mjs \
	scripts/bench/declared.py scripts/bench/declared_in_host.mjs \
	scripts/bench/outbox.py scripts/bench/outbox_in_host.mjs scripts/bench/housekeeping.py scripts/bench/housekeeping_in_host.mjs \
	scripts/bench/rows.py scripts/bench/rows_in_host.mjs
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
