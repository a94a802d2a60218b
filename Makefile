# The set-up commands are `make`, `make test` and `make demo`: each builds the virtual environment
# (.venv), the C starter bot and the compiled build on first use, so a fresh clone needs nothing
# beyond python3 and cc (without cc, and the Python headers, the arena runs pure Python).
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: all test check demo lint bench bots bytecode test-bytecode clean compiled default-build compiled-path

# `make`: the virtual environment, the bots, and the compiled build where it can be built.
all: $(STAMP) bots default-build bytecode

# pip runs quiet (its lines would bury everything else), so one line first says what it does.
# pip compiles the libraries' bytecode one file at a time; compileall does it on every CPU (as pip,
# a file that does not compile is left to compile on import).
$(STAMP): pyproject.toml
	@echo "installing the arena and its libraries into $(VENV) (first time only, about a minute)"
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check --no-compile -e '.[dev]'
	@$(PY) -m compileall -q -j 0 $(VENV)/lib >/dev/null 2>&1 || true
	touch $(STAMP)

# The Python search bot imports the engine and the strategy over it. A bot in the sandbox sees only
# its own directory, so both are copied next to it (a link would point outside and vanish there);
# see bots/README.md.
BOT_PACKAGES := engine strategy
BOT_COPIES := $(BOT_PACKAGES:%=bots/python/%)

bots: $(BOT_COPIES:%=%/.copied)
	$(MAKE) --no-print-directory -C bots/c

.SECONDEXPANSION:
bots/python/%/.copied: % $$(wildcard %/*.py)
	rm -rf bots/python/$*
	mkdir -p bots/python/$*
	cp $*/*.py bots/python/$*/
	touch $@

# The compiled build, the one `make` (so `make demo` and `make test`) gives where a C compiler and
# the Python headers are found: mypyc (it ships with mypy, in the dev extra) compiles the engine's
# hot modules and the arena's decision path (the referee's loop, the messages, the bot process's
# request, its clocks and pipes: arena.startup.COMPILED_MODULES) into $(COMPILED), a directory named by
# the hash of the engine's and the arena's sources. The build holds a whole copy of both packages
# (a compiled module must sit in its package), except the pages' templates and static files, which
# are links to this tree's (the build is named by the .py sources only: a copy of a template would
# go stale at its first edit); .venv/bin/arena runs it when it is the build of the
# sources in this tree (arena/startup.py), so a stale build is never imported: after an edit the
# arena runs pure Python and says so, until `make` builds the new sources. A wheel
# (`pip install .`, setup.py) holds its compiled modules next to their sources instead.
SOURCES_HASH = $(shell cat $$(find engine arena -name '*.py' | LC_ALL=C sort) | sha256sum | cut -c1-16)
COMPILED = build/compiled/$(SOURCES_HASH)
MYPYC_MODULES := engine/cards.py engine/trickgame.py engine/trick.py engine/wire.py engine/blackout.py \
	engine/partnership.py arena/protocol.py arena/referee/referee.py arena/bots/process.py \
	arena/bots/clocks.py arena/bots/channel.py arena/bots/cputime.py
# What runs against the compiled build too: the engine, the referee (golden, hidden information,
# faults, check-bot) and the process layer (pipes, clocks, memory, sandbox).
COMPILED_TESTS := tests/engine tests/arena/referee tests/arena/checkbot tests/arena/bots

# Test processes (pytest-xdist): two more than the CPUs this process may use, since many
# real-process tests spend seconds waiting (lock waits, a Dask connect timeout, bots that sleep).
# worksteal: a process that runs out of tests takes half of the longest queue left, so the slow
# tests, handed out first, do not all end up on one process.
TEST_PROCESSES := $(shell echo $$(( $$(nproc) + 2 )))
PYTEST := $(PY) -m pytest -q -n $(TEST_PROCESSES) --dist worksteal

# Everything, as CI runs it, in two passes at once: the whole suite against the build the arena
# runs (the compiled one where `make` built it: its directory first on the path, ahead of the
# working directory's sources, by the plugin compiled_first, loaded in every test process before
# any test module; ARENA_COMPILED=1 makes tests/engine/test_imported_build.py check that the
# compiled modules, of these very sources, are the ones imported), and the engine, referee,
# check-bot and process tests not marked slow against the other, pure Python: the compiled modules'
# own tests, where a difference between the two builds would show. The slow ones (real bots that
# hang, sleep or build, a few hundred games) test the same code through processes and run once,
# compiled: twice they cost a tenth of the suite's CPU. The pure pass needs no build: it starts at
# once, in the background, while lint and types and the compiled build run (side by side). Its
# output goes to build/test-pure.log, shown when both are done (all of it when it failed).
# Without a compiled build, the whole suite runs against pure Python alone.
test: $(STAMP) bots test-bytecode
	@if $(CAN_COMPILE); then \
		mkdir -p build; \
		echo "$(COMPILED_TESTS) (not slow), against pure Python: in the background, to build/test-pure.log"; \
		( ARENA_PURE=1 $(PYTEST) -p no:cacheprovider -m "not slow" $(COMPILED_TESTS) >build/test-pure.log 2>&1; \
		  echo $$? >build/test-pure.status ) & \
		pure=$$!; \
		$(MAKE) --no-print-directory -j2 lint compiled && \
		$(PY) -m compileall -q -j 0 $(COMPILED) >/dev/null && \
		echo "the whole suite, against the compiled build $(COMPILED)" && \
		ARENA_COMPILED=1 PYTHONPATH=$(CURDIR)/$(COMPILED) $(PYTEST) -p compiled_first; \
		status=$$?; wait $$pure; \
		echo "$(COMPILED_TESTS) (not slow), against pure Python (build/test-pure.log):"; \
		if [ "$$(cat build/test-pure.status)" = 0 ]; then tail -1 build/test-pure.log; \
		else cat build/test-pure.log; status=1; fi; \
		exit $$status; \
	else \
		$(MAKE) --no-print-directory lint && \
		echo "the whole suite, against pure Python (no compiled build)" && ARENA_PURE=1 $(PYTEST); \
	fi

# Bytecode for the sources, the Python bots and the tests, and for the compiled build's pure
# modules once it is built: where PYTHONDONTWRITEBYTECODE is set (as where CI runs) or a directory
# is not writable (a sandboxed bot's), every process would otherwise compile each module it
# imports again, and a test run starts hundreds of arena commands. Bytecode is read whatever the
# environment says; an edited source is compiled again on import, as ever.
bytecode: $(STAMP)
	@$(PY) -m compileall -q -j 0 arena engine tests bots/python bench $(wildcard $(COMPILED)) >/dev/null

# pytest's rewritten test modules, which every test process would otherwise rewrite: written by
# one collection with the variable cleared, and read whatever it says. A collection that fails is
# left to the test run to report.
test-bytecode: bytecode
	@PYTHONDONTWRITEBYTECODE= $(PY) -m pytest -q --collect-only -p no:cacheprovider >/dev/null 2>&1 || true

# The development loop: lint and types, then every test not marked slow (those start real
# processes for games, builds, clusters or browsers, or take half a second and more; `make test`
# runs them too).
check: $(STAMP) bots test-bytecode lint
	$(PYTEST) -m "not slow"

# The compiled build where the compiler mypyc uses (CC, else Python's own) takes the Python headers;
# else a note, and the arena runs pure Python (saying so at each start). A failing build with a
# working compiler is an error. CAN_COMPILE: the shell test of that compiler.
CAN_COMPILE = include=$$($(PY) -c 'import sysconfig; print(sysconfig.get_paths()["include"])'); \
	cc=$${CC:-$$($(PY) -c 'import sysconfig; print(sysconfig.get_config_var("CC") or "cc")')}; \
	printf '\#include <Python.h>\n' | $$cc -fsyntax-only -x c -I"$$include" - >/dev/null 2>&1
default-build: $(STAMP)
	@if $(CAN_COMPILE); then $(MAKE) --no-print-directory compiled; \
	else echo "note: no C compiler that takes the Python headers (CC, else Python's own compiler):" \
		"no compiled build, the arena runs pure Python"; fi

compiled: $(STAMP)
	@if [ ! -d $(COMPILED) ]; then \
		echo "compiling the engine and the referee with mypyc into $(COMPILED)" \
			"(once for these sources: a few minutes)" && \
		rm -rf build/compiled && mkdir -p build/compiled/tmp && \
		cp -r engine arena build/compiled/tmp/ && find build/compiled/tmp -name __pycache__ -prune -exec rm -rf {} + && \
		for data in $$(cd build/compiled/tmp && find engine arena -type d \( -name templates -o -name static \)); do \
			rm -rf build/compiled/tmp/$$data && ln -s $(CURDIR)/$$data build/compiled/tmp/$$data; done && \
		(cd build/compiled/tmp && ../../../$(VENV)/bin/mypyc $(MYPYC_MODULES) >mypyc.log 2>&1 \
			|| { tail -20 mypyc.log; exit 1; }) && \
		rm -rf build/compiled/tmp/build build/compiled/tmp/mypyc.log && \
		printf '"""Put this build first on the path (pytest -p compiled_first)."""\nimport os\nimport sys\n\nsys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))\n' \
			>build/compiled/tmp/compiled_first.py && \
		mv build/compiled/tmp $(COMPILED) && echo "compiled build in $(COMPILED)"; \
	else echo "compiled build up to date in $(COMPILED)"; fi

# The directory of the compiled build of the current sources (what bench.versus and a Python
# program of one's own put first on the path); fails when there is none.
compiled-path:
	@test -d $(COMPILED) || { echo "no compiled build of these sources: run 'make compiled'" >&2; exit 1; }
	@echo $(CURDIR)/$(COMPILED)

demo: $(STAMP) bots default-build bytecode
	@echo "playing the demo tournament (tournaments/demo.yaml): building its bots, then its games"
	$(VENV)/bin/arena run tournaments/demo.yaml --restart
	$(VENV)/bin/arena report results/demo -o results/demo/report

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy

# The benchmarks run on the build users run (the compiled one where `make` builds it; bench.versus
# measures it against pure Python too), with OpenSpiel (the bench extra) for the engine's anchor.
bench: $(STAMP) bots default-build
	$(PY) -m pip install --quiet --disable-pip-version-check -e '.[bench]'
	$(PY) -m bench

clean:  # build products only: results/ holds users' tournament results and is never deleted here
	rm -rf $(VENV) $(BOT_COPIES) build
	$(MAKE) --no-print-directory -C bots/c clean
