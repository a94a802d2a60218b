"""The command line answers at once: ``arena --help`` and the other quick paths import only what
they need (checked by the modules a real start loads, never by timing)."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import C_BOT, ROOT, arena

HEAVY = {
    "numpy": "the ratings' arithmetic",
    "tabulate": "tables",
    "yaml": "tournament files and manifests",
    "dask": "the cluster executor",
    "distributed": "the cluster executor",
    "multiprocess": "the local workers",
    "arena.league": "the league (its store, matchmaker, submissions)",
    "arena.report": "the web report",
    "arena.serve": "the league's web server",
    "fastapi": "the league's web server",
    "starlette": "the league's web server",
    "uvicorn": "the league's web server",
    "jinja2": "the pages (the report's and the served league's)",
    "arena.ratings.model": "the ratings",
    "arena.bots.sandbox": "the sandbox",
    "arena.bots.process": "the bots' processes",
    "arena.executors": "the executors",
    "arena.runs": "the runs",
    "pydantic": "typer 0.29's coercion of options (pyproject.toml keeps typer below it)",
    "rich": "typer's rich help (the apps say rich_markup_mode=None: plain help)",
    "arena.plans": "the plans",
    "arena.analysis": "the analysis of decisions",
}
"""What a quick path must not import, and what it is for: each loads with the command that runs."""
LIGHT: set[str] = set()
"""Modules under a heavy name that hold only what the options show (none: the options' numbers
and defaults are ``arena.settings``' rows)."""

LOAD = """
import json, sys
out, sys.argv = sys.argv[1], ["arena", *sys.argv[2:]]
try:
    from arena.cli import main
    main()
finally:
    with open(out, "w") as handle:
        json.dump(sorted(sys.modules), handle)
"""
"""Runs the entry point's ``main`` as ``arena ARGS`` and writes every module then imported."""


def loaded(args: list[str], tmp_path: Path) -> tuple[int, list[str]]:
    """``arena ARGS`` run in a new interpreter: its exit status and every module it imported."""
    out = tmp_path / "modules.json"
    done = subprocess.run([sys.executable, "-c", LOAD, str(out), *args], capture_output=True,
                          text=True, cwd=ROOT, timeout=120)
    assert out.is_file(), done.stderr
    return done.returncode, json.loads(out.read_text())


def heavy_in(modules: list[str], allowed: tuple[str, ...] = ()) -> dict[str, str]:
    """The modules of ``HEAVY`` (a package or anything under it) among ``modules``."""
    return {name: why for name in modules if name not in LIGHT for prefix, why in HEAVY.items()
            if prefix not in allowed and (name == prefix or name.startswith(prefix + "."))}


@pytest.mark.parametrize("args", [["--help"], ["table", "--help"], ["league", "--help"],
                                  ["league", "init", "--help"], ["play", "--help"],
                                  ["analyse", "--help"]])
def test_help_imports_no_library_of_a_command(args: list[str], tmp_path: Path) -> None:
    status, modules = loaded(args, tmp_path)
    assert status == 0
    assert heavy_in(modules) == {}


def test_rules_imports_the_engine_and_tabulate_only(tmp_path: Path) -> None:
    status, modules = loaded(["rules", "blackout"], tmp_path)
    assert status == 0
    assert "engine.blackout" in modules and "tabulate" in modules
    assert heavy_in(modules, allowed=("tabulate",)) == {}


def test_table_imports_the_ratings_but_no_runner(tmp_path: Path) -> None:
    """``arena table`` needs numpy and tabulate, not the match runner (its paired estimate loads
    for a match's results only: tests/arena/runs/test_match.py), the executors, the bots'
    processes, manifests, the league or the report."""
    game = tmp_path / "game.json"
    played = arena("play", "blackout", C_BOT, C_BOT, C_BOT, "-o", "deals=2", "--log", game)
    assert played.returncode == 0, played.stderr
    status, modules = loaded(["table", str(game)], tmp_path)
    assert status == 0
    assert "numpy" in modules and "arena.ratings.model" in modules
    assert heavy_in(modules, allowed=("numpy", "tabulate", "arena.ratings.model")) == {}
    # numpy's masked arrays (np.unique of a plain array loads them, ~10 ms): the table needs none
    assert "numpy.ma" not in modules


def test_command_modules_evaluate_their_annotations_once() -> None:
    """Under ``from __future__ import annotations`` typer evaluates each option's annotation
    (its typer.Option call, its help text) again every time it reads a signature."""
    cli = ROOT / "arena" / "cli"
    deferred = []
    for path in sorted(cli.glob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        commands = any(isinstance(node, ast.FunctionDef) and node.name.endswith("_command")
                       for node in tree.body)
        future = any(isinstance(node, ast.ImportFrom) and node.module == "__future__"
                     for node in tree.body)
        if commands and future:
            deferred.append(path.name)
    assert deferred == []
