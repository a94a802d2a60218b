"""The build that runs: compiled when a build of exactly these sources is there (never a stale or
foreign one), pure Python otherwise, saying why in one line; ``--pure`` and ARENA_PURE=1 choose."""

from __future__ import annotations

import importlib.machinery
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from arena.startup import COMPILED_MODULES, TREE_BUILDS, choose, sources_hash

from helpers import ROOT, arena

SUFFIX = importlib.machinery.EXTENSION_SUFFIXES[0]
"""The file name ending of a C extension this Python loads."""


def tree(tmp_path: Path) -> Path:
    """A working tree: a copy of both packages and the Makefile, no build."""
    root = tmp_path / "tree"
    for package in ("engine", "arena"):
        shutil.copytree(ROOT / package, root / package, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "Makefile", root / "Makefile")
    return root


def fake_extensions(packages: Path, modules: tuple[str, ...] = COMPILED_MODULES) -> None:
    """A file where each module's C extension would be: not loadable, so importing one fails."""
    for module in modules:
        path = packages.joinpath(*module.split(".")).with_name(module.rpartition(".")[2] + SUFFIX)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("")


def without_choice() -> dict[str, str]:
    """This environment with neither ARENA_PURE (which the suite sets) nor a build on the path."""
    return {key: value for key, value in os.environ.items() if key not in ("ARENA_PURE", "PYTHONPATH")}


def test_the_hash_is_the_makefiles() -> None:
    line = next(line for line in (ROOT / "Makefile").read_text().splitlines()
                if line.startswith("SOURCES_HASH ="))
    command = line.partition("$(shell ")[2].removesuffix(")").replace("$$", "$")
    made = subprocess.run(["sh", "-c", command], cwd=ROOT, capture_output=True, text=True, check=True)
    assert made.stdout.strip() == sources_hash(ROOT)


def test_the_makefile_compiles_the_modules_startup_knows() -> None:
    makefile = (ROOT / "Makefile").read_text().replace("\\\n", " ")
    line = next(line for line in makefile.splitlines() if line.startswith("MYPYC_MODULES"))
    assert {word.removesuffix(".py").replace("/", ".") for word in line.split()[2:]} == set(COMPILED_MODULES)


def test_only_a_build_of_these_sources_for_this_python_runs(tmp_path: Path) -> None:
    root = tree(tmp_path)
    assert not choose(False, root).compiled
    assert "'make' builds one where a C compiler" in choose(False, root).reason
    stale = root / TREE_BUILDS / "0123456789abcdef"
    stale.mkdir(parents=True)
    fake_extensions(stale)
    fake_extensions(root)  # modules compiled in the tree itself are no build of its sources either
    assert choose(False, root).reason == f"{TREE_BUILDS} holds no build of these sources: 'make' builds one"
    current = root / TREE_BUILDS / sources_hash(root)
    current.mkdir()
    fake_extensions(current, COMPILED_MODULES[:-1])
    foreign = current.joinpath(*COMPILED_MODULES[-1].split("."))
    foreign = foreign.with_suffix(".cpython-39-x86_64-linux-gnu.so")
    foreign.parent.mkdir(parents=True, exist_ok=True)
    foreign.write_text("")
    assert "is not built for this Python" in choose(False, root).reason
    fake_extensions(current)
    assert choose(False, root).where == current
    assert choose(True, root).asked and not choose(True, root).compiled
    (root / "engine" / "cards.py").write_text("# edited\n", encoding="utf-8")
    assert not choose(False, root).compiled


def test_an_installed_package_runs_its_compiled_modules_all_or_none(tmp_path: Path) -> None:
    root = tree(tmp_path)
    (root / "Makefile").unlink()  # an installed package: no working tree around it
    assert choose(False, root).reason == "installed without a C compiler"
    fake_extensions(root, COMPILED_MODULES[:3])
    assert choose(False, root).reason.startswith(f"only 3 of the {len(COMPILED_MODULES)} compiled modules")
    fake_extensions(root)
    assert choose(False, root).where == root


IMPORTED = """
import sys
from arena.startup import start
start(["arena", *sys.argv[1:]])
import engine.cards
print(engine.cards.__file__)
"""


@pytest.mark.slow
def test_pure_imports_the_sources_beside_compiled_modules(tmp_path: Path) -> None:
    """--pure over an installed compiled package: each module from its source (the extensions here
    are empty files: importing one would fail)."""
    root = tree(tmp_path)
    (root / "Makefile").unlink()
    fake_extensions(root)
    for args in (["--pure"], ["--pure", "--version", "rules"]):
        done = subprocess.run([sys.executable, "-c", IMPORTED, *args], cwd=root, env=without_choice(),
                              capture_output=True, text=True, check=False)
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == str(root / "engine" / "cards.py")
    compiled = subprocess.run([sys.executable, "-c", IMPORTED], cwd=root, env=without_choice(),
                              capture_output=True, text=True, check=False)
    assert compiled.returncode != 0 and "ImportError" in compiled.stderr


@pytest.mark.slow
def test_a_pure_run_not_asked_for_says_why_in_one_line(tmp_path: Path) -> None:
    root = tree(tmp_path)
    (root / TREE_BUILDS / "0123456789abcdef").mkdir(parents=True)
    done = subprocess.run([sys.executable, "-m", "arena", "rules", "blackout"], cwd=root,
                          env=without_choice(), capture_output=True, text=True, check=False)
    assert done.returncode == 0
    assert done.stderr == ("arena: running pure Python: build/compiled holds no build of these "
                           "sources: 'make' builds one\n")
    asked = subprocess.run([sys.executable, "-m", "arena", "--pure", "rules", "blackout"], cwd=root,
                           env=without_choice(), capture_output=True, text=True, check=False)
    assert (asked.returncode, asked.stderr) == (0, "")


@pytest.mark.slow
def test_version_says_which_build_runs() -> None:
    """The suite's own build: compiled under ``make test`` (ARENA_COMPILED=1), else the sources."""
    shown = arena("--version")
    assert shown.returncode == 0, shown.stderr
    if os.environ.get("ARENA_COMPILED") == "1":
        build = ROOT / TREE_BUILDS / sources_hash(ROOT)
        assert shown.stdout.endswith(f": compiled build (mypyc) in {build.relative_to(ROOT)}\n")
    else:
        assert shown.stdout.endswith(": pure Python (ARENA_PURE=1 asked for it)\n")
    pure = arena("--pure", "--version", env={**os.environ, "ARENA_PURE": ""})
    assert pure.stdout.endswith(": pure Python (--pure asked for it)\n"), pure.stderr


def test_make_says_what_it_does_before_each_long_step(tmp_path: Path) -> None:
    """pip runs quiet and mypyc writes to a log, so a first `make demo` looked frozen for minutes:
    a line before each says what it is doing (here with stand-ins for Python, pip and mypyc)."""
    root = tree(tmp_path)
    (root / "pyproject.toml").write_text("")
    stand_in = "#!/bin/sh\nexit 0\n"
    for program in ("python", "mypyc"):
        path = root / ".venv" / "bin" / program
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(stand_in)
        path.chmod(0o755)

    def make(target: str) -> list[str]:
        done = subprocess.run(["make", "-s", "--no-print-directory", target, "PYTHON=true"],
                              cwd=root, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        return done.stdout.splitlines()

    assert make(".venv/.installed")[0] == ("installing the arena and its libraries into .venv "
                                           "(first time only, about a minute)")
    said = make("compiled")
    build = f"{TREE_BUILDS}/{sources_hash(root)}"
    assert said[0].startswith(f"compiling the engine and the referee with mypyc into {build} ")
    assert said[-1] == f"compiled build in {build}"
    assert make(".venv/.installed") == []  # once installed, nothing to say
