"""The rules engine and the strategy over it are pure: they import nothing of the arena and no
module that does I/O or reads a clock, and take their randomness only from seeded generators."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PURE = ("engine", "strategy")
FORBIDDEN = {"os", "sys", "io", "time", "datetime", "socket", "subprocess", "pathlib", "select",
             "threading", "multiprocessing", "logging", "arena", "shutil", "tempfile", "signal"}


def imported_modules(tree: ast.AST) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("package", PURE)
def test_imports_no_io_no_clock_no_arena(package: str) -> None:
    files = sorted((ROOT / package).glob("*.py"))
    assert files
    for path in files:
        tree = ast.parse(path.read_text())
        assert not imported_modules(tree) & FORBIDDEN, f"{package}/{path.name}"


@pytest.mark.parametrize("package", PURE)
def test_randomness_comes_only_from_seeded_generators(package: str) -> None:
    for path in sorted((ROOT / package).glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                    and node.value.id == "random":
                assert node.attr == "Random", f"{package}/{path.name}: random.{node.attr} uses global state"
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and node.func.attr == "Random":
                assert node.args, f"{package}/{path.name}: random.Random() without a seed"
