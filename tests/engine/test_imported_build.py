"""The code under test is the build the run asked for: the Python sources, or the compiled build.

``make test`` runs the whole suite with ``ARENA_COMPILED=1`` and the compiled build first on the
path (where ``make`` could build it), then the engine, referee and process tests again against the
Python sources. These tests make sure neither run silently tests the other build: a compiled
module must never shadow the sources in a pure run, and a compiled run must import compiled
modules built from exactly the sources in this tree (``build/compiled/<hash>``), the rest of both
packages from the build's own copy of those sources.
"""

from __future__ import annotations

import os
from pathlib import Path

import arena
import engine
from arena import protocol
from arena.bots import channel, clocks, cputime, process
from arena.referee import referee
from arena.startup import COMPILED_MODULES, sources_hash
from engine import blackout, cards, partnership, trick, trickgame, wire

ROOT = Path(__file__).resolve().parents[2]
HOT_MODULES = (blackout, cards, partnership, trick, trickgame, wire, protocol, referee, process, clocks,
               channel, cputime)
"""The modules ``make compiled`` compiles with mypyc (``arena.startup.COMPILED_MODULES``)."""


def relative(module: object) -> Path:
    return Path(getattr(module, "__file__", None) or "")


def test_the_code_imported_is_the_build_asked_for() -> None:
    if os.environ.get("ARENA_COMPILED") == "1":
        build = ROOT / "build" / "compiled" / sources_hash(ROOT)
        for module in HOT_MODULES:
            path = relative(module)
            assert path.suffix == ".so", f"{module.__name__} is not compiled: {path}"
            package = build.joinpath(*module.__name__.split(".")[:-1])
            assert path.parent == package, f"{module.__name__} from {path}, not {package}"
        for package in (engine, arena):
            assert relative(package).parent == build / package.__name__
    else:
        for module in (engine, arena, *HOT_MODULES):
            path = relative(module)
            assert path.suffix == ".py", f"{module.__name__}: {path}"
            assert ROOT in path.parents and "build" not in path.relative_to(ROOT).parts, path


def test_every_compiled_module_is_checked_here() -> None:
    assert {module.__name__ for module in HOT_MODULES} == set(COMPILED_MODULES)
