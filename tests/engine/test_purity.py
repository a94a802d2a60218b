"""The engine is pure: it imports nothing of the arena and no module that does I/O or reads a clock."""

import ast
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[2] / "engine"
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


def test_engine_imports_no_io_no_clock_no_arena() -> None:
    files = sorted(ENGINE.glob("*.py"))
    assert files
    for path in files:
        tree = ast.parse(path.read_text())
        assert not imported_modules(tree) & FORBIDDEN, path.name


def test_engine_randomness_comes_only_from_seeded_generators() -> None:
    for path in sorted(ENGINE.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                    and node.value.id == "random":
                assert node.attr == "Random", f"{path.name}: random.{node.attr} uses global state"
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and node.func.attr == "Random":
                assert node.args, f"{path.name}: random.Random() without a seed"
