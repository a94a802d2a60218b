"""``arena run --dry-run``: what a tournament file would play, without playing, starting or building.

The summary is read from the schedule alone: tables, games, games per entrant, how often pairs of
entrants meet, whether the games link the whole field (so one rating compares everyone), the deals
file's lines the sets play, and the run time: an estimate (``arena.plans.estimate``: the arena's
own time per game timed here, the bots' from earlier games' records) and a bound from the time
control.
"""

from __future__ import annotations

import itertools
import math
import os
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import orjson

import engine
from arena.connectivity import groups
from arena.formats import PlainOrJson
from arena.plans.apart import is_apart, owner_keys, shared_owners
from arena.plans.estimate import Estimate, estimate
from arena.plans.schedule import schedule, scheduler_for
from arena.plans.seating import neighbour_counts
from arena.plans.tournament import Tournament, load_tournament
from arena.records.reader import RESULTS_FILE
from arena.settings import available_cpus
from arena.values.work import GameSpec


@dataclass(frozen=True)
class SchedulePreview:
    """A tournament's schedule in numbers (entrants are bots, or teams in partnership games)."""

    name: str
    game: str
    entrants: int
    tables: int
    rounds: int
    games: int
    games_per_entrant: tuple[int, int]
    pair_meetings: tuple[int, int]
    pairs_never_meeting: int
    groups: int
    decisions_per_game: int
    seating: str
    neighbours: tuple[int, int]
    """Games in which one entrant sat directly before another: least and most over the ordered
    pairs of entrants that share a table (bots; 0, 0 in team games, whose sides alternate)."""
    neighbour_pairs: tuple[tuple[str, str], tuple[str, str]] | None
    """A least and a most frequent ordered pair (first sits directly before second)."""
    move_ms: int
    jobs: int
    worst_case_seconds: float
    estimate: Estimate
    """The estimated run time, and what it was estimated from."""
    sets: int = 0
    """Duplicate sets (the games of one table and round)."""
    deals: str | None = None
    """The deals file (``deals: FILE``), if any."""
    deals_lines: int = 0
    """Its lines (each set plays one, in order, wrapping round)."""
    shared_owners: dict[str, list[str]] = field(default_factory=dict)
    """The owners of two or more bots, with their bots (``arena.plans.apart``); empty: every
    bot is its own owner's."""
    together: str | None = None
    """Why the schedule cannot keep one owner's bots apart (the run refuses it unless the file
    says ``same_owner_tables: allow``); None when it keeps them apart."""
    together_sets: int = 0
    """Duplicate sets that seat two bots of one owner (only with ``together``)."""
    same_owner_tables: bool = False
    """Whether the file says ``same_owner_tables: allow``."""

    @property
    def is_connected(self) -> bool:
        """Whether the games link every entrant to every other."""
        return self.groups <= 1


def preview(tournament: Tournament, jobs: int | None = None,
            history: Sequence[str | os.PathLike[str]] = ()) -> SchedulePreview:
    """The summary of ``tournament``'s schedule; ``jobs`` as ``arena run`` would use them;
    ``history``: results of earlier games the run-time estimate reads the bots' times from."""
    specs = schedule(tournament, refuse_together=False)  # shown, then refused by the run
    scheduler = scheduler_for(tournament)
    entrants = scheduler.entrants()
    owners = tournament.owners
    keys = owner_keys(list(owners), owners)
    sets = {spec.set_id: spec for spec in specs}  # one game per duplicate set: its entrants
    first_round = [spec.entrants for spec in sets.values() if spec.round == 1]
    per_entrant = Counter(name for spec in specs for name in set(spec.entrants))
    games_each = [per_entrant[name] for name in entrants]
    met = Counter(pair for spec in sets.values()
                  for pair in itertools.combinations(sorted(set(spec.entrants)), 2))
    meetings = [met[pair] for pair in itertools.combinations(sorted(entrants), 2)]
    decisions = _decisions_per_game(specs[0])
    sat, pairs = _neighbours(specs, met, tournament.has_teams)
    workers = max(1, jobs or tournament.jobs or len(available_cpus()))
    # Every decision of every game taking its whole move_ms, games spread evenly over workers.
    worst = math.ceil(len(specs) / workers) * decisions * tournament.play.time.move_ms / 1000
    bots = [bot.name for bot in tournament.programs]
    suite = tournament.deals
    return SchedulePreview(
        name=tournament.name, game=tournament.game, entrants=len(entrants),
        tables=len(first_round), rounds=tournament.rounds, games=len(specs),
        games_per_entrant=(min(games_each), max(games_each)),
        pair_meetings=(min(meetings, default=0), max(meetings, default=0)),
        pairs_never_meeting=sum(1 for m in meetings if m == 0),
        groups=len(groups(first_round, entrants)), decisions_per_game=decisions,
        seating="cyclic" if tournament.has_teams else tournament.seating_design.value,
        neighbours=sat, neighbour_pairs=pairs,
        move_ms=tournament.play.time.move_ms, jobs=workers, worst_case_seconds=worst,
        estimate=estimate(specs, bots, decisions, workers, history), sets=len(sets),
        deals=None if suite is None else suite.path, deals_lines=0 if suite is None else len(suite),
        shared_owners=shared_owners(list(owners), owners), together=scheduler.together(),
        together_sets=sum(1 for spec in sets.values()
                          if not is_apart(list(dict.fromkeys(spec.seats)), keys)),
        same_owner_tables=tournament.same_owner_tables)


def preview_file(file: Path, *, jobs: int | None = None, fmt: PlainOrJson = PlainOrJson.PLAIN,
                 out: Path | None = None,
                 estimate_from: Sequence[str | os.PathLike[str]] = ()) -> str:
    """``arena run FILE --dry-run``: load and check the file, then render its preview. The
    estimate reads the bots' times from the run's own results (``out``, default
    ``results/<name>``) when it has games, and from ``estimate_from``."""
    tournament = load_tournament(file)
    own = (out if out is not None else Path("results") / tournament.name) / RESULTS_FILE
    history = ([own] if own.is_file() and own.stat().st_size else []) + list(estimate_from)
    return WRITERS[fmt](preview(tournament, jobs, history))


def render_json(summary: SchedulePreview) -> str:
    """The preview as JSON: its fields, and whether the field is connected."""
    data: dict[str, Any] = asdict(summary)
    data["connected"] = summary.is_connected
    return orjson.dumps(data, option=orjson.OPT_INDENT_2).decode()


def render(summary: SchedulePreview) -> str:
    """The preview as a few lines of text."""
    kind = "bots" if engine.game(summary.game).info.teams is None else "teams"
    low, high = summary.pair_meetings
    linked = ("connected: every entrant is linked to every other by shared tables"
              if summary.is_connected else
              f"NOT connected: {summary.groups} groups that never meet; ratings cannot compare "
              f"them")
    return "\n".join([
        f"{summary.name}: {summary.game}, {summary.entrants} {kind} (dry run: nothing played)",
        f"tables per round: {summary.tables}; rounds: {summary.rounds}; games: {summary.games}",
        f"games per entrant: {_span(summary.games_per_entrant)}",
        f"tables shared by a pair: {_span((low, high))}; pairs never meeting: "
        f"{summary.pairs_never_meeting}",
        linked,
        *_owners_line(summary),
        _neighbour_line(summary),
        *_deals_line(summary),
        _estimate_line(summary),
        f"run time bound: at most {_duration(summary.worst_case_seconds)} with {summary.jobs} "
        f"jobs if every decision took all of move_ms={summary.move_ms} "
        f"({summary.decisions_per_game} decisions a game)",
    ])


WRITERS: dict[PlainOrJson, Callable[[SchedulePreview], str]] = {
    PlainOrJson.PLAIN: render,
    PlainOrJson.JSON: render_json,
}
"""One writer for each format of the preview."""


def _owners_line(summary: SchedulePreview) -> list[str]:
    """Whether one owner's bots are kept apart (nothing when no two bots share an owner). Owners
    and bots are names (``arena.names.NAME``): printable as they are."""
    if not summary.shared_owners:
        return []
    shared = "; ".join(f"{owner}: {', '.join(bots)}"
                       for owner, bots in summary.shared_owners.items())
    if summary.together is None:
        return [f"owners: no table seats two bots of one owner ({shared})"]
    problem = summary.together
    if summary.same_owner_tables:
        return [f"owners: CANNOT be kept apart: {problem}; same_owner_tables: allow: "
                f"{summary.together_sets} of {summary.sets} sets seat two bots of one owner"]
    return [f"owners: CANNOT be kept apart: {problem}; the run refuses this schedule unless the "
            f"file says same_owner_tables: allow"]


def _deals_line(summary: SchedulePreview) -> list[str]:
    if summary.deals is None:
        return []
    used = min(summary.sets, summary.deals_lines)
    again = (f", each played by up to {-(-summary.sets // summary.deals_lines)} sets"
             if summary.sets > summary.deals_lines else "")
    sets = f"{summary.sets} sets play lines 1..{used}" if summary.sets > 1 else "1 set plays line 1"
    return [f"deals: {summary.deals}: {sets} of its {summary.deals_lines}{again}"]


def _estimate_line(summary: SchedulePreview) -> str:
    """The estimate, and which it is: from earlier games, or the arena's part alone."""
    found = summary.estimate
    arena = f"the arena's own {found.arena_ms_per_game:.0f} ms a game, timed here"
    if found.is_lower_bound:
        where = (f"in {', '.join(found.sources)}" if found.sources
                 else "(the run's results directory has none)")
        return (f"run time: at least {_duration(found.seconds, exact=True)} with {summary.jobs} "
                f"jobs ({arena}); the bots' thinking comes on top: no earlier games of these bots "
                f"{where} to estimate it from; --estimate-from DIR reads another run's")
    unknown = (f"; no earlier decisions of {', '.join(found.unknown)}: counted as answering at "
               f"once" if found.unknown else "")
    return (f"run time: about {_duration(found.seconds, exact=True)} with {summary.jobs} jobs, "
            f"estimated from {found.games_read} earlier games in {', '.join(found.sources)} (the "
            f"bots' mean decision times there) and {arena}{unknown}")


def _neighbours(specs: list[GameSpec], met: Counter[tuple[str, str]], teams: bool
                ) -> tuple[tuple[int, int], tuple[tuple[str, str], tuple[str, str]] | None]:
    """(least, most) games with one bot directly before another, over the ordered pairs that
    share a table, and a pair at each end."""
    if teams:
        return (0, 0), None
    counts = neighbour_counts(spec.seats for spec in specs)
    ordered = sorted((counts[a, b], (a, b)) for pair in met for a, b in (pair, pair[::-1]))
    if not ordered:
        return (0, 0), None
    return (ordered[0][0], ordered[-1][0]), (ordered[0][1], ordered[-1][1])


def _neighbour_line(summary: SchedulePreview) -> str:
    if summary.neighbour_pairs is None:
        return "seat order: team sides alternate (seating does not apply)"
    low, high = summary.neighbours
    (a, b), (c, d) = summary.neighbour_pairs
    return (f"seat order ({summary.seating}): a bot directly before another in {_span((low, high))} "
            f"games (least: {a} before {b}; most: {c} before {d})")


def _decisions_per_game(spec: GameSpec) -> int:
    """Decisions in one game of ``spec``'s game and options: the engine plays it with first-legal
    actions, in this process (a millisecond; no bot is involved)."""
    game = engine.game(spec.game)
    state = game.new_game(len(spec.seats), spec.seed, spec.options)
    decisions = 0
    while state.to_act is not None:
        state = game.apply(state, game.legal_actions(state)[0])
        decisions += 1
    return decisions


def _span(values: tuple[int, int]) -> str:
    low, high = values
    return str(low) if low == high else f"{low}..{high}"


def _duration(seconds: float, exact: bool = False) -> str:
    if exact and seconds < 10:
        return f"{seconds:.1f} s"
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"
