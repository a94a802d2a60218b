# The two set-up commands are `make test` and `make demo`: both build the virtual environment
# (.venv) and the C starter bot on first use, so a fresh clone needs nothing beyond python3 and cc.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: test demo lint bench bots clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	touch $(STAMP)

# The Python search bot imports the engine. A bot in the sandbox sees only its own directory, so
# the engine is copied next to it (a link would point outside and vanish there); see bots/README.md.
BOT_ENGINE := bots/python/engine

bots: $(BOT_ENGINE)/.copied
	$(MAKE) --no-print-directory -C bots/c

$(BOT_ENGINE)/.copied: $(wildcard engine/*.py)
	rm -rf $(BOT_ENGINE)
	mkdir -p $(BOT_ENGINE)
	cp engine/*.py $(BOT_ENGINE)/
	touch $@

# Lint and types first: CI runs `make test`, so a lint or type error fails CI like a test does.
test: $(STAMP) bots lint
	$(PY) -m pytest -q -n auto  # one test process per CPU (pytest-xdist)

demo: $(STAMP) bots
	$(VENV)/bin/arena run tournaments/demo.yaml --restart
	$(VENV)/bin/arena report results/demo -o results/demo/report

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy

bench: $(STAMP) bots
	$(PY) -m pip install --quiet --disable-pip-version-check -e '.[bench]'
	$(PY) -m bench

clean:  # build products only: results/ holds users' tournament results and is never deleted here
	rm -rf $(VENV) $(BOT_ENGINE)
	$(MAKE) --no-print-directory -C bots/c clean
