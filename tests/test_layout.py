"""The package's layout: imports point one way, and no module imports itself back through others."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _imports(package: str) -> dict[str, set[str]]:
    """Each module of ``package`` and the modules of ``package`` it imports (function-level and
    type-checking imports included: a cycle through them is still a tangle)."""
    graph: dict[str, set[str]] = {}
    for path in sorted((ROOT / package).rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                found.add(node.module)
                found.update(f"{node.module}.{alias.name}" for alias in node.names)
            elif isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
        graph[name] = found
    return {name: {dep for dep in deps if dep in graph and dep != name} for name, deps in graph.items()}


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle of ``graph`` as a path that ends where it starts, or None."""
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(name: str) -> list[str] | None:
        state[name] = 1
        path.append(name)
        for dep in sorted(graph[name]):
            if state.get(dep) == 1:
                return path[path.index(dep):] + [dep]
            if dep not in state and (found := visit(dep)) is not None:
                return found
        path.pop()
        state[name] = 2
        return None

    for name in sorted(graph):
        if name not in state and (found := visit(name)) is not None:
            return found
    return None


def test_no_import_cycle_in_arena() -> None:
    cycle = _cycle(_imports("arena"))
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_cycle_finder_finds_a_cycle() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


def test_layers_point_one_way() -> None:
    """Plans start nothing (no executor, no run); executors know nothing of plans or runs; the work
    items import nothing of the arena above the settings."""
    graph = _imports("arena")
    rules = {"arena.plans": ("arena.executors", "arena.runs", "arena.league", "arena.cli"),
             "arena.executors": ("arena.plans", "arena.runs", "arena.league", "arena.cli"),
             "arena.runs": ("arena.league", "arena.cli"),
             "arena.bots": ("arena.game", "arena.plans", "arena.executors", "arena.runs")}
    wrong = [f"{name} imports {dep}" for name, deps in graph.items() for layer, banned in rules.items()
             if name.startswith(layer) for dep in deps if dep.startswith(banned)]
    work = ROOT / "arena" / "work.py"
    runtime = [node for node in ast.parse(work.read_text()).body
               if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("arena")]
    wrong += [f"arena.work imports {node.module}" for node in runtime
              if node.module not in ("arena.settings", "arena.errors")]
    assert wrong == []
