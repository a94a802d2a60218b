"""The package's layout: each layer imports only what its row of the table allows (``LAYERS``), no
module imports itself back through others, and only ``arena.records`` handles results lines."""

from __future__ import annotations

import ast
import functools
from pathlib import Path
from typing import NamedTuple

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


LAYERS: dict[str, tuple[str, ...]] = {
    # The engine: pure rules, nothing of the arena.
    "engine": (),
    # The arena's shared values, below every layer (``arena`` is the package's own __init__).
    "arena": (),
    "arena.errors": (),
    "arena.names": (),
    "arena.printable": (),
    # Which build runs (compiled or pure), chosen before anything else loads: the standard library.
    "arena.startup": (),
    "arena.connectivity": (),
    "arena.settings": ("arena.errors",),
    "arena.configfile": ("arena.errors", "arena.names"),
    # The results line's one owner, and the work items that plans produce and executors consume.
    "arena.records": ("arena.errors", "arena.settings"),
    # The bot protocol's messages, which the bots' processes and the referee share.
    "arena.protocol": (),
    "arena.work": ("arena.errors", "arena.settings", "arena.records"),
    # The key table of play settings, which tournaments, matches and the league compose.
    "arena.spec": ("arena.errors", "arena.settings", "arena.configfile", "arena.work"),
    # Bot processes, and one game between them.
    "arena.bots": ("arena.errors", "arena.settings", "arena.configfile", "arena.work",
                   "arena.protocol"),
    "arena.game": ("arena.errors", "arena.names", "arena.printable", "arena.settings",
                   "arena.records", "arena.protocol", "arena.bots"),
    # How games get played: nothing of plans or runs.
    "arena.executors": ("arena.errors", "arena.settings", "arena.records", "arena.work",
                        "arena.bots", "arena.game"),
    # What to play: pure data and planning, starting nothing (no bot, no build, no bwrap).
    "arena.plans": ("arena.errors", "arena.names", "arena.settings", "arena.configfile",
                    "arena.connectivity", "arena.records", "arena.work", "arena.spec"),
    # Ratings and tables: statistics over results.
    "arena.ratings": ("arena.errors", "arena.printable", "arena.settings", "arena.connectivity",
                      "arena.records"),
    # A plan played: its bots sandboxed and built, its games handed to an executor, results kept.
    "arena.runs": ("arena.errors", "arena.names", "arena.printable", "arena.settings",
                   "arena.configfile", "arena.records", "arena.work", "arena.bots",
                   "arena.executors", "arena.plans", "arena.ratings"),
    "arena.league": ("arena.errors", "arena.names", "arena.printable", "arena.settings",
                     "arena.records", "arena.work", "arena.spec", "arena.bots", "arena.game",
                     "arena.executors", "arena.plans", "arena.ratings", "arena.runs"),
    # Decisions analysed against the reference search: records replayed on the engine, nothing
    # started (no bot, no run); its progress line is the runs' one (NAMED).
    "arena.analysis": ("arena.errors", "arena.printable", "arena.settings", "arena.records"),
    # A view of results (of a league only through its one function in NAMED), with their analysis.
    "arena.report": ("arena.errors", "arena.names", "arena.printable", "arena.settings",
                     "arena.configfile", "arena.records", "arena.game", "arena.ratings",
                     "arena.analysis"),
    # The league served over HTTP: a view over the league's library (its store, the submit
    # pipeline, the standings), the ratings, the records and the report's plots and viewer. It
    # plays and builds through the league's own commands in child processes, never a loop of its
    # own (so nothing of runs or executors); bots only for the signal handlers of its build child.
    "arena.serve": ("arena.errors", "arena.names", "arena.printable", "arena.settings",
                    "arena.records", "arena.bots", "arena.game", "arena.ratings", "arena.league",
                    "arena.report"),
    # The commands, on top of everything.
    "arena.cli": ("arena", "arena.errors", "arena.names", "arena.printable", "arena.connectivity",
                  "arena.settings", "arena.configfile", "arena.records", "arena.work", "arena.spec",
                  "arena.bots", "arena.game", "arena.executors", "arena.plans", "arena.ratings",
                  "arena.runs", "arena.league", "arena.report", "arena.analysis",
                  "arena.serve", "arena.startup"),
    # The command's entry point: the build chosen, then the command line.
    "arena.__main__": ("arena.startup", "arena.cli"),
}
"""Each package of ``arena/`` (and each of its top-level modules) and ``engine/``: the others it
may import, at run time or for type checking. Every part of the arena may import the engine; the
engine imports nothing of the arena. Anything else is a row changed here on purpose, or one name
in ``NAMED``."""


class Crossing(NamedTuple):
    """Why a layer may import one name from a package its row leaves out."""

    why: str
    type_only: bool = False
    """Only under ``if TYPE_CHECKING:``, never at run time."""


NAMED: dict[str, dict[str, Crossing]] = {
    "arena.records": {
        "arena.bots.faults": Crossing("the fault kinds a results line records (values only)"),
    },
    "arena.work": {
        "arena.bots.sandbox.Sandbox": Crossing("the type of a BotCommand's sandbox", type_only=True),
    },
    "arena.spec": {
        "arena.bots.installations.check_interpreters": Crossing(
            "the setting sandbox_interpreters: directories, checked"),
    },
    "arena.plans": {  # naming a bot reads files and starts nothing: no build, no bwrap, no bot
        "arena.bots.resolve.ResolvedBot": Crossing("a tournament's or a match's program, resolved"),
        "arena.bots.resolve.resolve_command": Crossing("a tournament file's cmd: and workdir:"),
        "arena.bots.resolve.resolve_manifest": Crossing("a tournament file's dir:"),
        "arena.bots.resolve.resolve_bot": Crossing("a match's bots, as the command line gives them"),
        "arena.bots.sandbox.Sandbox": Crossing("the sandbox a match's bots are checked against"),
    },
    "arena.analysis": {
        "arena.runs.progress.StatusLine": Crossing("the one status line of long work"),
    },
    "arena.report": {
        "arena.league.status.league_of_export": Crossing(
            "the league whose export a report shows (its name, for the title)"),
        "arena.league.status.league_games": Crossing(
            "a league given to `arena report` itself: its games as its export would hold them, "
            "the one way the report reads a league's games"),
        "arena.bots.stderrindex.DecisionLogs": Crossing(
            "each decision's stderr in the replay: the bots' logs read by the one reader of the "
            "index their stderr sink writes beside them (it reads files, starts nothing)"),
    },
}
"""The imports across the table's lines, each by the one name it imports: the rest of that package
stays out of reach (a plan importing ``arena.bots.build`` or ``choose_sandbox``, or a report
opening the league's store, fails)."""


class Import(NamedTuple):
    """One import of ours: a name (``from M import n`` is ``M.n``) or a module (``import M``)."""

    module: str
    target: str
    line: int
    type_only: bool


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def unit_of(name: str) -> str:
    """The row of ``LAYERS`` a module or an imported name belongs to: ``engine``, a package of the
    arena (``arena.bots``) or one of its top-level modules (``arena.settings``)."""
    parts = name.split(".")
    return parts[0] if len(parts) == 1 or parts[0] == "engine" else ".".join(parts[:2])


@functools.cache  # parsed once for the tests that read them (nothing changes them)
def imports_of(package: str) -> list[Import]:
    """Every import of ``arena`` or ``engine`` in ``package``'s modules, function-level ones and
    those for type checking included."""
    found: list[Import] = []
    for path in sorted((ROOT / package).rglob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        checking = {id(node) for guard in ast.walk(tree)
                    if isinstance(guard, ast.If) and "TYPE_CHECKING" in ast.unparse(guard.test)
                    for statement in guard.body for node in ast.walk(statement)}
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                targets = [f"{node.module}.{alias.name}" for alias in node.names]
            elif isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                continue
            found += [Import(_module_name(path), target, node.lineno, id(node) in checking)
                      for target in targets if target.split(".")[0] in ("arena", "engine")]
    return found


def _crossing(home: str, target: str) -> tuple[str, Crossing] | None:
    """The entry of ``NAMED`` that lets ``home`` import ``target``, if any."""
    return next(((name, crossing) for name, crossing in NAMED.get(home, {}).items()
                 if target == name or target.startswith(name + ".")), None)


def violations(imports: list[Import]) -> list[str]:
    """The imports that ``LAYERS`` and ``NAMED`` do not allow, one line each."""
    wrong: list[str] = []
    for found in imports:
        home, there = unit_of(found.module), unit_of(found.target)
        where = f"{found.module}:{found.line} imports {found.target}"
        if home not in LAYERS:
            unplaced = f"{home} has no row in LAYERS (say what it may import)"
            wrong += [unplaced] if unplaced not in wrong else []
            continue
        allowed = LAYERS[home] + (() if home == "engine" else ("engine",))
        if there == home or there in allowed:
            continue
        named = _crossing(home, found.target)
        if named is None:
            wrong.append(f"{where}: {home} may not import {there}")
        elif named[1].type_only and not found.type_only:
            wrong.append(f"{where}: only for type checking (under if TYPE_CHECKING:)")
    return wrong


def test_each_layer_imports_only_what_the_table_allows() -> None:
    wrong = violations(imports_of("arena") + imports_of("engine"))
    assert wrong == [], "\n".join(["", *wrong])


def test_every_package_has_a_row_and_every_row_a_package() -> None:
    units = {unit_of(_module_name(path)) for top in ("arena", "engine")
             for path in (ROOT / top).rglob("*.py")}
    assert sorted(units - set(LAYERS)) == [], "add a row to LAYERS"
    assert sorted(set(LAYERS) - units) == [], "these are gone: take their rows off LAYERS"


def test_the_table_is_layered() -> None:
    """No row allows, through others, a row that allows it: the layers stack."""
    cycle = _cycle({unit: set(allowed) for unit, allowed in LAYERS.items()})
    assert cycle is None, "rows allow each other: " + " -> ".join(cycle or [])


def test_the_table_refuses_a_plans_to_bots_import_and_every_other_crossing() -> None:
    refused = [Import("arena.plans.tournament", "arena.bots.build.run_build", 1, False),
               Import("arena.plans.tournament", "arena.bots.sandbox.choose_sandbox", 1, False),
               Import("arena.plans.match", "arena.bots.process.BotProcess", 1, False),
               Import("arena.plans.schedule", "arena.bots.resolve", 1, False),
               Import("arena.plans.match", "arena.ratings.sprt.unit_score", 1, False),
               Import("arena.plans.match", "arena.game.seats.free_name", 1, False),
               Import("arena.plans.schedule", "arena.runs.run.run", 1, False),
               Import("arena.executors.batch", "arena.plans.match.Match", 1, False),
               Import("arena.report.site", "arena.league.store.DATABASE", 1, False),
               Import("arena.work", "arena.bots.sandbox.Sandbox", 1, False),
               Import("engine.blackout", "arena.settings.Limits", 1, False),
               Import("arena.newpackage.x", "arena.errors.ConfigError", 1, False)]
    assert [len(violations([found])) for found in refused] == [1] * len(refused)
    allowed = [Import("arena.plans.match", "arena.bots.resolve.resolve_bot", 1, False),
               Import("arena.work", "arena.bots.sandbox.Sandbox", 1, True),
               Import("arena.runs.session", "arena.bots.build.run_build", 1, False),
               Import("arena.plans.schedule", "engine.seeding.derive_seed", 1, False)]
    assert violations(allowed) == []


def test_every_named_crossing_is_still_used() -> None:
    """An entry of ``NAMED`` that nothing imports any more is a door left open: close it."""
    used = {(unit_of(found.module), named[0]) for found in imports_of("arena")
            if (named := _crossing(unit_of(found.module), found.target)) is not None}
    stale = sorted((home, name) for home, names in NAMED.items() for name in names
                   if (home, name) not in used)
    assert stale == [], "nothing imports these any more: take them off NAMED"


OTHER_JSON = {
    "arena.bots.exactjson": "a bot reply that orjson refuses, read again exactly",
    "arena.bots.stderrindex": "the index beside a bot's stderr log: which decision wrote what",
    "arena.bots.process": "a bot's replies",
    "arena.cli.league": "league invite --format json's one line",
    "arena.protocol": "the bot protocol's messages",
    "arena.game.referee": "a bot's reply, quoted in an illegal-action fault",
    "arena.analysis.cache": "the analyses kept beside the results (analysis.jsonl)",
    "arena.cli.analyse": "arena analyse --format json: one decision a line",
    "arena.league.accounts": "an upload's check-bot steps",
    "arena.league.status": "the submissions log",
    "arena.league.submit": "the submissions log",
    "arena.league.store": "the league's settings, bot commands and planned sets",
    "arena.plans.deals": "a deals file (deal suite): one game's preset deals per line",
    "arena.plans.preview": "arena run --dry-run's JSON",
    "arena.ratings.table": "the ratings table as JSON",
    "arena.report.site": "the report's JavaScript data (a replay copies the reader's line)",
    "arena.report.match": "a match's match.json, read for its report",
    "arena.runs.match": "a match's match.json",
    "arena.serve.pages": "a replay's seed, as a JavaScript string",
    "arena.serve.views": "league table --format json, read back for the pages and the API",
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


SESSION_ONLY = ("arena.executors.choose.executor_for", "arena.executors.batch.preflight",
                "arena.runs.results.results_dir", "arena.runs.results.ResultsWriter")
"""What only the session (``arena.runs.session``) uses: a run, a match and the league are its
planners, and claim, build, start and play through it."""


def test_only_the_session_claims_results_and_makes_executors() -> None:
    wrong = [f"{found.module}:{found.line} imports {found.target}: go through arena.runs.session"
             for found in imports_of("arena")
             if found.target in SESSION_ONLY and found.module != "arena.runs.session"]
    assert wrong == [], "\n".join(["", *wrong])
    users = {found.module for found in imports_of("arena")
             if found.target == "arena.runs.session.Session"}
    assert {"arena.runs.run", "arena.runs.match", "arena.league.run"} <= users
