"""The package's layout: each layer imports only what its row of the table allows (``LAYERS``), no
module imports itself back through others, and only ``arena.records`` handles results lines."""

from __future__ import annotations

import ast
import functools
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parents[1]
TOP_PACKAGES = ("arena", "engine", "strategy")
"""Our packages: the arena, the rules engine and the strategy over it."""


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
    # Strategy over the rules (the samplers and play-outs of the search bot and of analysis, the
    # greedy bot's bidding as their model of the other seats): pure too, the engine alone (which
    # every row but the engine's may import).
    "strategy": (),
    # The arena's shared modules, below every layer (``arena`` is the package's own __init__).
    "arena": (),
    "arena.errors": (),
    "arena.names": (),
    "arena.printable": (),
    # The output formats the commands offer, each set an enum parsed where the command line is read.
    "arena.formats": ("arena.errors",),
    "arena.statusline": (),
    "arena.stderrindex": (),
    # Which build runs (compiled or pure), chosen before anything else loads: the standard library.
    "arena.startup": (),
    "arena.connectivity": (),
    "arena.settings": ("arena.errors",),
    "arena.configfile": ("arena.errors", "arena.names"),
    # The values the layers pass to each other: faults, game ids, the work items that plans
    # produce and executors consume, a sandbox's settings.
    "arena.values": ("arena.errors", "arena.settings"),
    # The results line's one owner.
    "arena.records": ("arena.errors", "arena.settings", "arena.values"),
    # The bot protocol's messages, which the bots' processes, the referee and check-bot share.
    "arena.protocol": (),
    # A bot as files, before anything runs: its manifest, its name resolved, what a sandbox
    # would show it. It reads files and starts nothing (no build, no bwrap, no bot).
    "arena.botfiles": ("arena.errors", "arena.configfile", "arena.values"),
    # The key table of play settings, which tournaments, matches and the league compose.
    "arena.spec": ("arena.errors", "arena.settings", "arena.configfile", "arena.values",
                   "arena.botfiles"),
    # Bot processes, and one game between them.
    "arena.bots": ("arena.errors", "arena.settings", "arena.configfile", "arena.stderrindex",
                   "arena.values", "arena.protocol", "arena.botfiles"),
    # One game between bot processes: the referee, and a game between commands (``arena play``).
    "arena.referee": ("arena.errors", "arena.names", "arena.printable", "arena.settings",
                      "arena.values", "arena.records", "arena.protocol", "arena.botfiles",
                      "arena.bots"),
    # The compliance check of one bot program: games through the real referee, step by step
    # (at a table whose players and options the key table's ``game_settings`` checks).
    "arena.checkbot": ("arena.errors", "arena.names", "arena.printable", "arena.settings",
                       "arena.values", "arena.records", "arena.protocol", "arena.botfiles",
                       "arena.bots", "arena.referee", "arena.spec"),
    # How games get played: nothing of plans or runs.
    "arena.executors": ("arena.errors", "arena.settings", "arena.values", "arena.records",
                        "arena.bots", "arena.referee"),
    # What to play: pure data and planning, starting nothing (a bot's files resolved, but no
    # bot, no build, no bwrap).
    "arena.plans": ("arena.errors", "arena.names", "arena.settings", "arena.configfile",
                    "arena.connectivity", "arena.formats", "arena.values", "arena.records",
                    "arena.botfiles",
                    "arena.spec"),
    # Ratings and tables: statistics over results.
    "arena.ratings": ("arena.errors", "arena.printable", "arena.settings", "arena.connectivity",
                      "arena.formats", "arena.records", "strategy"),
    # A plan played: its bots sandboxed and built, its games handed to an executor, results kept.
    "arena.runs": ("arena.errors", "arena.names", "arena.printable", "arena.statusline",
                   "arena.stderrindex", "arena.settings", "arena.configfile", "arena.values",
                   "arena.records", "arena.botfiles", "arena.bots", "arena.executors",
                   "arena.plans", "arena.ratings"),
    # The final's tables need as many tables as link the field (``arena.connectivity``).
    "arena.league": ("arena.errors", "arena.names", "arena.printable", "arena.settings",
                     "arena.connectivity", "arena.formats", "arena.values", "arena.records", "arena.spec",
                     "arena.botfiles", "arena.bots", "arena.referee", "arena.checkbot",
                     "arena.executors", "arena.plans", "arena.ratings", "arena.runs"),
    # Decisions analysed against the reference search: records replayed on the engine, nothing
    # started (no bot, no run).
    "arena.analysis": ("arena.errors", "arena.printable", "arena.statusline", "arena.settings",
                       "arena.records", "strategy"),
    # A view of results, with their analysis. Not of a league's store: the command hands it a
    # league's games (``arena.report.game_records.LeagueGames``).
    "arena.report": ("arena.errors", "arena.names", "arena.printable", "arena.stderrindex",
                     "arena.settings", "arena.configfile", "arena.values", "arena.records",
                     "arena.ratings", "arena.analysis"),
    # The league served over HTTP: a view over the league's library (its store, the submit
    # pipeline, the standings), the ratings, the records and the report's plots and viewer. It
    # plays and builds through the league's own commands in child processes, never a loop of its
    # own (so nothing of runs or executors); bots only for the signal handlers of its build child.
    "arena.serve": ("arena.errors", "arena.names", "arena.printable", "arena.stderrindex",
                    "arena.settings", "arena.formats", "arena.records", "arena.bots",
                    "arena.checkbot", "arena.ratings", "arena.league", "arena.report"),
    # The commands, on top of everything.
    "arena.cli": ("arena", "arena.errors", "arena.names", "arena.printable", "arena.connectivity",
                  "arena.formats", "arena.settings", "arena.configfile", "arena.values",
                  "arena.records", "arena.botfiles", "arena.spec", "arena.bots", "arena.referee",
                  "arena.checkbot", "arena.executors", "arena.plans", "arena.ratings", "arena.runs",
                  "arena.league", "arena.report", "arena.analysis", "arena.serve", "arena.startup"),
    # The command's entry point: the build chosen, then the command line.
    "arena.__main__": ("arena.startup", "arena.cli"),
}
"""Each package of ``arena/`` (and each of its top-level modules), ``engine/`` and ``strategy/``:
the others it may import, at run time or for type checking. Every part of the arena (and the
strategy) may import the engine; the engine imports nothing of ours. There are no exceptions by
name: a type that two layers share lives below both (``arena.values``), and anything else is a row
changed here on purpose."""


class Import(NamedTuple):
    """One import of ours: a name (``from M import n`` is ``M.n``) or a module (``import M``)."""

    module: str
    target: str
    line: int


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def unit_of(name: str) -> str:
    """The row of ``LAYERS`` a module or an imported name belongs to: ``engine``, a package of the
    arena (``arena.bots``) or one of its top-level modules (``arena.settings``)."""
    parts = name.split(".")
    return parts[0] if len(parts) == 1 or parts[0] in ("engine", "strategy") else ".".join(parts[:2])


@functools.cache  # parsed once for the tests that read them (nothing changes them)
def imports_of(package: str) -> list[Import]:
    """Every import of one of ``TOP_PACKAGES`` in ``package``'s modules, function-level ones and
    those for type checking included."""
    found: list[Import] = []
    for path in sorted((ROOT / package).rglob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                targets = [f"{node.module}.{alias.name}" for alias in node.names]
            elif isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                continue
            found += [Import(_module_name(path), target, node.lineno)
                      for target in targets if target.split(".")[0] in TOP_PACKAGES]
    return found


def violations(imports: list[Import]) -> list[str]:
    """The imports that ``LAYERS`` does not allow, one line each."""
    wrong: list[str] = []
    for found in imports:
        home, there = unit_of(found.module), unit_of(found.target)
        where = f"{found.module}:{found.line} imports {found.target}"
        if home not in LAYERS:
            unplaced = f"{home} has no row in LAYERS (say what it may import)"
            wrong += [unplaced] if unplaced not in wrong else []
            continue
        allowed = LAYERS[home] + (() if home == "engine" else ("engine",))
        if there != home and there not in allowed:
            wrong.append(f"{where}: {home} may not import {there}")
    return wrong


def test_each_layer_imports_only_what_the_table_allows() -> None:
    wrong = violations([found for top in TOP_PACKAGES for found in imports_of(top)])
    assert wrong == [], "\n".join(["", *wrong])


def test_every_package_has_a_row_and_every_row_a_package() -> None:
    units = {unit_of(_module_name(path)) for top in TOP_PACKAGES
             for path in (ROOT / top).rglob("*.py")}
    assert sorted(units - set(LAYERS)) == [], "add a row to LAYERS"
    assert sorted(set(LAYERS) - units) == [], "these are gone: take their rows off LAYERS"


def test_the_table_is_layered() -> None:
    """No row allows, through others, a row that allows it: the layers stack."""
    cycle = _cycle({unit: set(allowed) for unit, allowed in LAYERS.items()})
    assert cycle is None, "rows allow each other: " + " -> ".join(cycle or [])


def test_the_table_refuses_a_plans_to_bots_import_and_every_other_crossing() -> None:
    refused = [Import("arena.plans.tournament", "arena.bots.build.run_build", 1),
               Import("arena.plans.tournament", "arena.bots.sandbox.choose_sandbox", 1),
               Import("arena.plans.match_plan", "arena.bots.process.BotProcess", 1),
               Import("arena.plans.schedule", "arena.bots.sandbox", 1),
               Import("arena.plans.match_plan", "arena.ratings.sprt.unit_score", 1),
               Import("arena.plans.match_plan", "arena.referee.seats.free_name", 1),
               Import("arena.plans.schedule", "arena.runs.runner.run", 1),
               Import("arena.executors.batch", "arena.plans.match_plan.Match", 1),
               Import("arena.report.site", "arena.league.database.DATABASE", 1),
               Import("arena.report.game_records", "arena.league.status.league_games", 1),
               Import("arena.analysis.entrant", "arena.runs.progress.Progress", 1),
               Import("arena.records.writer", "arena.bots.process.BotProcess", 1),
               Import("arena.botfiles.resolve", "arena.bots.build.run_build", 1),
               Import("arena.values.work", "arena.bots.sandbox.wrap", 1),
               Import("arena.values.work", "arena.records.writer.serialise", 1),
               Import("engine.blackout", "arena.settings.Limits", 1),
               Import("engine.trickgame", "strategy.sampling.Playouts", 1),
               Import("strategy.sampling", "arena.errors.ConfigError", 1),
               Import("arena.report.site", "strategy.bidding.bid_estimate", 1),
               Import("arena.newpackage.x", "arena.errors.ConfigError", 1)]
    assert [len(violations([found])) for found in refused] == [1] * len(refused)
    allowed = [Import("arena.plans.match_plan", "arena.botfiles.resolve.resolve_bot", 1),
               Import("arena.values.work", "arena.values.sandbox_settings.Sandbox", 1),
               Import("arena.records.writer", "arena.values.faults.Fault", 1),
               Import("arena.report.replay_stderr", "arena.stderrindex.DecisionLogs", 1),
               Import("arena.analysis.entrant", "arena.statusline.StatusLine", 1),
               Import("arena.runs.session", "arena.bots.build.run_build", 1),
               Import("arena.plans.schedule", "engine.seeding.derive_seed", 1),
               Import("strategy.sampling", "engine.cards.CARD_BY_NAME", 1),
               Import("arena.analysis.evaluate", "strategy.sampling.Playouts", 1)]
    assert violations(allowed) == []


OTHER_JSON = {
    "arena.bots.exactjson": "a bot reply that orjson refuses, read again exactly",
    "arena.stderrindex": "the index beside a bot's stderr log: which decision wrote what",
    "arena.bots.process": "a bot's replies",
    "arena.cli.league": "league invite --format json's one line",
    "arena.protocol": "the bot protocol's messages",
    "arena.referee.referee": "a bot's reply, quoted in an illegal-action fault",
    "arena.analysis.cache": "the analyses kept beside the results (analysis.jsonl)",
    "arena.cli.analyse": "arena analyse --format json: one decision a line",
    "arena.league.accounts": "an upload's check-bot steps",
    "arena.league.status": "the submissions log",
    "arena.league.submit": "the submissions log",
    "arena.league.database": "the league's settings and their changes",
    "arena.league.setting_changes": "league config --format json",
    "arena.league.entrants": "a bot version's command",
    "arena.league.games": "a planned set's rotations",
    "arena.league.finals": "the versions a final seats",
    "arena.league.final_table": "the final's table",
    "arena.plans.deals": "a deals file (deal suite): one game's preset deals per line",
    "arena.plans.preview": "arena run --dry-run's JSON",
    "arena.ratings.table": "the ratings table as JSON",
    "arena.ratings.audit_text": "the collusion audit as JSON",
    "arena.report.site": "the report's JavaScript data (a replay copies the reader's line)",
    "arena.report.match_section": "a match's match.json, read for its report",
    "arena.runs.match_play": "a match's match.json",
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
    assert {"arena.runs.runner", "arena.runs.match_play", "arena.league.playing"} <= users


MAX_MODULE_LINES = 600
"""The longest a module of the arena may be: past it, a module holds more than one job."""


def test_no_arena_module_is_over_600_lines() -> None:
    long = {str(path.relative_to(ROOT)): lines for path in sorted((ROOT / "arena").rglob("*.py"))
            if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES}
    assert long == {}, f"split these by job: {long}"
