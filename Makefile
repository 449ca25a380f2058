# Two commands set everything up on a fresh machine (Python 3.11+ and make):
#   make demo   - a real Claude CLI session against the example config, driven by the
#                 built-in scripted model (no API key needed)
#   make test   - lint, type-check and the whole test suite (what CI runs)
VENV ?= .venv
PYTHON ?= python3
PY := $(VENV)/bin/python
PLUGINS := $(wildcard plugins/*/pyproject.toml)

.PHONY: install demo test lint bench clean e2e-cli-latest e2e-cli-oldest

# The e2e suite against another Claude CLI than the pinned wheel's (docs/running.md,
# "Which CLI versions"): the newest on npm, and the oldest version toolhost supports.
E2E_CLI_OLDEST ?= 2.1.200
CLI_DIR ?= .cli

$(VENV)/.installed: pyproject.toml $(PLUGINS)
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || { \
		echo "toolhost needs Python 3.11 or newer; $(PYTHON) is $$($(PYTHON) -V 2>&1)." \
		"Run e.g. 'make PYTHON=python3.12 $(MAKECMDGOALS)'." >&2; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check --upgrade pip
	$(PY) -m pip install -q --disable-pip-version-check -e '.[test]' $(foreach p,$(PLUGINS),-e $(dir $(p)))
	touch $@

# toolhost's own bytecode, written even where PYTHONDONTWRITEBYTECODE is set (an editable
# install compiles nothing, and every start would compile ~150 modules again: +60-80 ms);
# cheap when it is up to date, and a changed source is simply compiled again
install: $(VENV)/.installed
	$(PY) -m compileall -q -j 0 toolhost $(foreach p,$(PLUGINS),$(dir $(p)))

demo: install
	$(VENV)/bin/toolhost run examples/configs/demo.yaml --script examples/scenarios/demo.yaml \
		-p "What is in the demo notes, and what is 6 times 7?"

lint: install
	$(PY) -m ruff check toolhost tests bench plugins
	$(PY) -m mypy

# two workers (pytest-xdist): most tests wait on a subprocess, so one worker left a core idle;
# TEST_JOBS=0 runs the suite in one process
TEST_JOBS ?= 2
test: lint
	$(PY) -m pytest -q -n $(TEST_JOBS) --dist loadgroup

bench: install
	for b in bench/bench_*.py; do $(PY) $$b || exit 1; done
	$(PY) bench/bench_control_session.py --subject can_use_tool

e2e-cli-latest: install
	npm install --silent --no-audit --no-fund --prefix $(CLI_DIR)/latest @anthropic-ai/claude-code@latest
	$(CLI_DIR)/latest/node_modules/.bin/claude --version
	TOOLHOST_E2E_CLI=$(abspath $(CLI_DIR))/latest/node_modules/.bin/claude $(PY) -m pytest -q tests/e2e

e2e-cli-oldest: install
	npm install --silent --no-audit --no-fund --prefix $(CLI_DIR)/$(E2E_CLI_OLDEST) @anthropic-ai/claude-code@$(E2E_CLI_OLDEST)
	$(CLI_DIR)/$(E2E_CLI_OLDEST)/node_modules/.bin/claude --version
	TOOLHOST_E2E_CLI=$(abspath $(CLI_DIR))/$(E2E_CLI_OLDEST)/node_modules/.bin/claude $(PY) -m pytest -q tests/e2e

clean:
	rm -rf $(VENV) $(CLI_DIR) .mypy_cache .ruff_cache .pytest_cache
