"""The engine under test is the build the run asked for: the pure sources, or the compiled build.

``make test`` runs the suite against the engine's Python sources, then (when ``make compiled`` has
built them) the engine, referee and process tests again with ``ARENA_COMPILED=1`` and the compiled
build first on the path. These tests make sure neither run silently tests the other build: a
compiled module must never shadow the sources in a pure run, and a compiled run must import
compiled modules built from exactly the sources in this tree (``build/compiled/<hash>``).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import engine
from engine import blackout, cards, partnership, state, trick, wire

ROOT = Path(__file__).resolve().parents[2]
ENGINE = ROOT / "engine"
HOT_MODULES = (blackout, cards, partnership, state, trick, wire)
"""The modules ``make compiled`` compiles with mypyc (the Makefile's MYPYC_MODULES)."""


def source_hash() -> str:
    """The name ``make compiled`` gives the build of these sources (the Makefile's ENGINE_HASH)."""
    sources = b"".join(path.read_bytes() for path in sorted(ENGINE.glob("*.py")))
    return hashlib.sha256(sources).hexdigest()[:16]


def test_the_engine_imported_is_the_build_asked_for() -> None:
    if os.environ.get("ARENA_COMPILED") == "1":
        build = ROOT / "build" / "compiled" / source_hash()
        for module in HOT_MODULES:
            path = Path(module.__file__ or "")
            assert path.suffix == ".so", f"{module.__name__} is not compiled: {path}"
            assert path.parent == build / "engine", f"{module.__name__} from {path}, not {build}"
        assert Path(engine.__file__ or "").parent == build / "engine"
    else:
        for module in (engine, *HOT_MODULES):
            path = Path(module.__file__ or "")
            assert path.parent == ENGINE and path.suffix == ".py", f"{module.__name__}: {path}"


def test_the_makefile_compiles_the_modules_checked_here() -> None:
    makefile = (ROOT / "Makefile").read_text()
    line = next(line for line in makefile.splitlines() if line.startswith("MYPYC_MODULES"))
    named = {word.removeprefix("engine/").removesuffix(".py") for word in line.split()[2:]}
    assert named == {module.__name__.rsplit(".", 1)[1] for module in HOT_MODULES}
