"""The ``arena`` command's first step: which build runs, chosen before any module of it loads.

The same sources run two ways: compiled (mypyc's C extensions of the engine's hot modules and the
referee's decision path, ``COMPILED_MODULES``) or pure Python. The compiled modules come from:

- an installed package (``pip install .`` where a C compiler is found, see setup.py): each next to
  its source, where Python's import prefers it;
- a working tree (``make``): ``build/compiled/<hash>``, a whole copy of both packages compiled
  there, named by the hash of the sources (the Makefile's SOURCES_HASH). It runs only when it is
  the build of the sources in the tree, for this Python: a stale or foreign build is never
  imported.

``arena --pure`` or ``ARENA_PURE=1`` runs pure Python. Without either, a pure run says why in one
line on stderr (``arena.__main__``, the command's entry point). Only the standard library is
imported here at the top: this module runs before the choice.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

COMPILED_MODULES: tuple[str, ...] = (
    "engine.cards", "engine.trickgame", "engine.trick", "engine.wire", "engine.blackout",
    "engine.partnership", "arena.protocol", "arena.referee.referee", "arena.bots.process",
    "arena.bots.clocks", "arena.bots.channel", "arena.bots.cputime")
"""What mypyc compiles (the Makefile's MYPYC_MODULES; setup.py reads it here)."""
PACKAGES = ("engine", "arena")
"""The packages the sources' hash covers, and a working tree's build holds a copy of."""
PURE_VARIABLE = "ARENA_PURE"
PURE_OPTION = "--pure"
TREE_BUILDS = Path("build") / "compiled"
"""Where ``make`` puts a working tree's compiled builds, under the tree's root."""


@dataclass(frozen=True)
class Build:
    """The build a process runs: compiled (from ``where``) or pure Python (``reason`` says why)."""

    where: Path | None = None
    """The directory the compiled packages load from: a working tree's build, or where they are
    installed."""
    reason: str = ""
    asked: bool = False
    """Pure Python because ``--pure`` or ARENA_PURE=1 asked for it (a pure run says nothing then)."""

    @property
    def compiled(self) -> bool:
        """Whether the compiled modules run."""
        return self.where is not None

    def describe(self) -> str:
        """``compiled build (mypyc) in build/compiled/1cf6ba5657e45edb`` or ``pure Python (why)``."""
        if self.where is None:
            return f"pure Python ({self.reason})"
        where = self.where
        if where.is_relative_to(Path.cwd()):
            where = where.relative_to(Path.cwd())
        return f"compiled build (mypyc) in {where}"


RUNNING: Build | None = None
"""The build ``start`` chose for this process (None: ``start`` did not run, e.g. under pytest)."""


def running() -> Build:
    """The build this process runs: the one ``start`` chose, else (the command line entered some
    other way, as under pytest) the one its engine was imported from."""
    if RUNNING is not None:
        return RUNNING
    from engine import cards

    origin = Path(cards.__file__ or "")
    if origin.suffix == ".py":
        return Build(reason=f"{PURE_VARIABLE}=1 asked for it" if os.environ.get(PURE_VARIABLE) == "1"
                     else "the sources imported as they are", asked=True)
    return Build(where=origin.parents[1])


def sources_hash(root: Path) -> str:
    """The name of the build of the sources under ``root``: sha256 over every ``.py`` of both
    packages, in byte order of their paths, 16 hex digits (the Makefile's SOURCES_HASH)."""
    paths: list[str] = []
    for package in PACKAGES:
        for directory, _, files in os.walk(root / package):
            relative = os.path.relpath(directory, root)
            paths += [os.path.join(relative, name) for name in files if name.endswith(".py")]
    digest = hashlib.sha256()
    for path in sorted(paths):
        digest.update((root / path).read_bytes())
    return digest.hexdigest()[:16]


def choose(pure: bool, packages: Path) -> Build:
    """The build to run, for the packages installed in (or checked out under) ``packages``."""
    if pure:
        why = f"{PURE_OPTION}" if os.environ.get(PURE_VARIABLE) != "1" else f"{PURE_VARIABLE}=1"
        return Build(reason=f"{why} asked for it", asked=True)
    builds = packages / TREE_BUILDS
    if not (packages / "Makefile").is_file():  # an installed package: its modules compiled or not
        in_place = [name for name in COMPILED_MODULES if _is_compiled(packages, name)]
        if len(in_place) == len(COMPILED_MODULES):
            return Build(where=packages)
        if in_place:
            return Build(reason=f"only {len(in_place)} of the {len(COMPILED_MODULES)} compiled "
                                f"modules are installed in {packages}")
        return Build(reason="installed without a C compiler")
    if not builds.is_dir():
        return Build(reason="no compiled build: 'make' builds one where a C compiler and the Python "
                            "headers are found")
    build = builds / sources_hash(packages)
    if not build.is_dir():
        return Build(reason=f"{TREE_BUILDS} holds no build of these sources: 'make' builds one")
    if not all(_is_compiled(build, name) for name in COMPILED_MODULES):
        return Build(reason=f"{build.relative_to(packages)} is not built for this Python "
                            f"({sys.implementation.cache_tag}): 'make' builds one")
    return Build(where=build)


def _is_compiled(packages: Path, module: str) -> bool:
    """Whether ``module`` has a C extension this Python loads under ``packages``."""
    base = packages.joinpath(*module.split("."))
    return any(base.with_name(base.name + suffix).is_file()
               for suffix in importlib.machinery.EXTENSION_SUFFIXES)


def apply(build: Build, packages: Path) -> None:
    """Make this process import ``build``: called before any module of either package but this
    one (and the ``arena`` package around it) is imported."""
    global RUNNING
    RUNNING = build
    if build.where is not None and build.where != packages:
        # A working tree's build: both packages come from its copy, this package's modules too
        # (``arena`` itself, already imported, is the same source).
        sys.path.insert(0, str(build.where))
        sys.modules["arena"].__path__[:] = [str(build.where / "arena")]
    elif build.where is None:
        sys.meta_path.insert(0, SourcesFirst())


class SourcesFirst:
    """Imports each of ``COMPILED_MODULES`` from its ``.py`` even where a C extension of it sits
    next to it (an installed compiled package run pure). A meta path finder by its method alone:
    importlib.abc would import importlib.resources at every start."""

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        """The spec of ``fullname``'s source, for a compiled module; None for any other."""
        if fullname not in COMPILED_MODULES or path is None:
            return None
        import importlib.util

        name = fullname.rpartition(".")[2] + ".py"
        for directory in path:
            source = Path(directory) / name
            if source.is_file():
                return importlib.util.spec_from_file_location(fullname, source)
        return None


def start(argv: Sequence[str]) -> Build:
    """Choose the build from the command line's options before its command (``--pure``) and the
    environment, and make this process run it. ``--pure`` is passed on to processes this one
    starts as ARENA_PURE=1."""
    root_options = []
    for word in argv[1:]:
        if not word.startswith("-"):
            break
        root_options.append(word)
    pure = os.environ.get(PURE_VARIABLE) == "1" or PURE_OPTION in root_options
    packages = Path(__file__).resolve().parents[1]
    build = choose(pure, packages)
    if pure:
        os.environ[PURE_VARIABLE] = "1"
    apply(build, packages)
    return build
