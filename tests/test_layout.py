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
              if node.module not in ("arena.settings", "arena.errors")
              and not (node.module or "").startswith("arena.records")]
    assert wrong == []


RECORDS_MAY_IMPORT = ("arena.records", "arena.settings", "arena.errors", "arena.bots.faults")
"""What the results lines' package stands on: the engine and the arena's shared values, so every
layer that writes or reads a line (referee, executors, runs, ratings, report, league) can use it."""


def test_records_sit_below_every_reader_and_writer() -> None:
    graph = _imports("arena")
    wrong = [f"{name} imports {dep}" for name, deps in graph.items()
             if name.startswith("arena.records") for dep in deps
             if not dep.startswith(RECORDS_MAY_IMPORT)]
    assert wrong == []


OTHER_JSON = {
    "arena.bots.exactjson": "a bot reply that orjson refuses, read again exactly",
    "arena.bots.process": "the bot protocol's lines",
    "arena.game.checkbot": "the bot protocol's lines",
    "arena.game.referee": "a bot's reply, quoted in an illegal-action fault",
    "arena.league.status": "the submissions log",
    "arena.league.submit": "the submissions log",
    "arena.league.store": "the league's settings, bot commands and planned sets",
    "arena.plans.preview": "arena run --dry-run's JSON",
    "arena.ratings.table": "the ratings table as JSON",
    "arena.report.site": "the report's JavaScript data (a replay copies the reader's line)",
    "arena.runs.match": "a match's match.json",
    "arena.runs.results": "the results directory's marker",
}
"""The modules outside ``arena.records`` that parse or write JSON, and what JSON that is: never a
results line (``arena.records`` writes and reads those, docs/records.md)."""

_JSON_CALLS = {("orjson", "loads"), ("orjson", "dumps"), ("json", "loads"), ("json", "dumps"),
               ("json", "load"), ("json", "dump")}


def _json_users() -> dict[str, list[str]]:
    """Each module of the arena outside ``arena.records`` that calls a JSON parser or writer, with
    the calls (``orjson.loads``...) and where; and each that names the results file itself."""
    found: dict[str, list[str]] = {}
    for path in sorted((ROOT / "arena").rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        if name.startswith("arena.records"):
            continue
        tree = ast.parse(path.read_text(), str(path))
        docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                      if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef)
                      and node.body and isinstance(node.body[0], ast.Expr)}
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                    and (node.value.id, node.attr) in _JSON_CALLS):
                found.setdefault(name, []).append(f"{node.value.id}.{node.attr}:{node.lineno}")
            elif (isinstance(node, ast.Constant) and node.value == "games.jsonl"
                  and id(node) not in docstrings):
                found.setdefault(name, []).append(f"'games.jsonl':{node.lineno}")
    return found


def test_only_the_records_package_writes_or_parses_a_results_line() -> None:
    """A module that serialises or parses JSON outside ``arena.records`` must say what other JSON
    it handles (``OTHER_JSON``); one that does so for a results line goes through the package's
    writer and reader instead. No module but the package names the results file."""
    users = _json_users()
    unlisted = {name: calls for name, calls in users.items() if name not in OTHER_JSON}
    assert unlisted == {}, "parse or write results lines through arena.records"
    naming = {name: calls for name, calls in users.items() if any("games.jsonl" in c for c in calls)}
    assert naming == {}, "name the results file by arena.records.reader.RESULTS_FILE"
    stale = sorted(set(OTHER_JSON) - set(users))
    assert stale == [], "these modules no longer handle JSON: take them off OTHER_JSON"
