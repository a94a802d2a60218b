# The two set-up commands are `make test` and `make demo`: both build the virtual environment
# (.venv) and the C starter bot on first use, so a fresh clone needs nothing beyond python3 and cc.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: test check demo lint bench bots clean compiled test-compiled compiled-path

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

# The optional compiled build (`make compiled`): mypyc (it ships with mypy, in the dev extra)
# compiles the engine's hot modules and the arena's decision path (the referee's loop, the bot
# process's request, its pipes and its CPU clock) into $(COMPILED), a directory named by the hash
# of the engine's and the arena's sources. The build holds a whole copy of both packages (a
# compiled module must sit in its package), so it is used only where asked for (the test run
# below, `python -m bench versus`, `make -s compiled-path`), with $(COMPILED) first on the path;
# any edited source hashes to another directory, so a stale build is never imported: `make test`
# says so and tests the Python sources alone until `make compiled`.
SOURCES_HASH = $(shell cat $$(find engine arena -name '*.py' | LC_ALL=C sort) | sha256sum | cut -c1-16)
COMPILED = build/compiled/$(SOURCES_HASH)
MYPYC_MODULES := engine/cards.py engine/trickgame.py engine/trick.py engine/wire.py engine/blackout.py \
	engine/partnership.py arena/game/referee.py arena/bots/process.py arena/bots/channel.py \
	arena/bots/cputime.py
# What runs against the compiled build too: the engine, the referee (golden, hidden information,
# faults, check-bot) and the process layer (pipes, clocks, memory, sandbox).
COMPILED_TESTS := tests/engine tests/arena/game tests/arena/bots

# Test processes (pytest-xdist): one more than the CPUs this process may use. Many real-process
# tests spend seconds waiting (bounded lock waits, a Dask connect timeout, bots that sleep), so a
# process per CPU left CPUs idle: on 2 cores 5 min 31 s with 3 against 6 min 11 s with 2.
# worksteal: each process starts with a share of the tests, and one that runs out takes half of the
# longest queue left. The default (load) hands out fixed chunks in collection order, and the slow
# tests, handed out first, all went to one process: it ran 383 s while the other two were done
# after 268 and 281 s.
TEST_PROCESSES := $(shell echo $$(( $$(nproc) + 1 )))
PYTEST := $(PY) -m pytest -q -n $(TEST_PROCESSES) --dist worksteal

# Lint and types first: CI runs `make test`, so a lint or type error fails CI like a test does.
test: $(STAMP) bots lint
	$(PYTEST)
	@if [ -d $(COMPILED) ]; then $(MAKE) --no-print-directory test-compiled; \
	elif [ -d build/compiled ]; then echo "note: build/compiled holds no build of these sources" \
		"(run 'make compiled' to test it too): tested the Python sources only"; fi

# The development loop: lint and types, then every test not marked slow (those start real
# processes for games, builds, clusters or browsers, or take half a second and more; `make test`
# runs them too).
check: $(STAMP) bots lint
	$(PYTEST) -m "not slow"

compiled: $(STAMP)
	@if [ ! -d $(COMPILED) ]; then \
		rm -rf build/compiled && mkdir -p build/compiled/tmp && \
		cp -r engine arena build/compiled/tmp/ && find build/compiled/tmp -name __pycache__ -prune -exec rm -rf {} + && \
		(cd build/compiled/tmp && ../../../$(VENV)/bin/mypyc $(MYPYC_MODULES) >mypyc.log 2>&1 \
			|| { tail -20 mypyc.log; exit 1; }) && \
		rm -rf build/compiled/tmp/build build/compiled/tmp/mypyc.log && \
		printf '"""Put this build first on the path (pytest -p compiled_first)."""\nimport os\nimport sys\n\nsys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))\n' \
			>build/compiled/tmp/compiled_first.py && \
		mv build/compiled/tmp $(COMPILED) && echo "compiled build in $(COMPILED)"; \
	else echo "compiled build up to date in $(COMPILED)"; fi

# The directory to put first on PYTHONPATH to run the arena on the compiled build; fails when
# there is no build of the current sources.
compiled-path:
	@test -d $(COMPILED) || { echo "no compiled build of these sources: run 'make compiled'" >&2; exit 1; }
	@echo $(CURDIR)/$(COMPILED)

# The compiled build's own run: its directory first on the path, ahead of the working directory's
# sources (the plugin compiled_first, loaded in every test process before any test module);
# ARENA_COMPILED=1 makes tests/engine/test_imported_build.py check that the compiled modules, of these very
# sources, are the ones imported.
test-compiled: $(STAMP) bots
	@test -d $(COMPILED) || { echo "no compiled build of these sources: run 'make compiled'"; exit 1; }
	ARENA_COMPILED=1 PYTHONPATH=$(CURDIR)/$(COMPILED) $(PY) -m pytest -q -n auto -p compiled_first \
		$(COMPILED_TESTS)

demo: $(STAMP) bots
	$(VENV)/bin/arena run tournaments/demo.yaml --restart
	$(VENV)/bin/arena report results/demo -o results/demo/report

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy

# The benchmarks measure the compiled build too (bench.versus): built first, when it can be.
bench: $(STAMP) bots
	$(PY) -m pip install --quiet --disable-pip-version-check -e '.[bench]'
	-$(MAKE) --no-print-directory compiled
	$(PY) -m bench

clean:  # build products only: results/ holds users' tournament results and is never deleted here
	rm -rf $(VENV) $(BOT_ENGINE) build
	$(MAKE) --no-print-directory -C bots/c clean
