"""``arena run --dry-run``'s run time: an estimate, and what it is made of.

A game takes the arena's own work (views, legal actions, events and moves for every decision)
plus each decision's wait for its bot. The arena's part is timed here, in this process, on a few
games of the schedule played with first-legal moves (no bot is started). The bots' part comes from
the records of games they played before: each bot's mean decision time (``bid_ms``, ``call_ms``,
``play_ms``, as the arena measured them) in the run's own results directory (a run being resumed or
extended) and in any other results given (``--estimate-from``). A bot with no earlier decisions is
counted as answering at once, and the estimate says so; with none at all it is a lower bound.
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass

import engine
from arena.records.reader import ReadNotes, read_lines
from arena.values.work import GameSpec

SAMPLE_GAMES = 3
"""Games of the schedule the arena's own time per game is timed on (the median is taken)."""
TIMED = (("bids", "bid_ms"), ("calls", "call_ms"), ("plays", "play_ms"))
"""A deal's decisions and the wall times beside them (docs/records.md)."""


@dataclass(frozen=True)
class Estimate:
    """A run's time: the estimate, the arena's own time per game, and what the bots' came from."""

    seconds: float
    arena_ms_per_game: float
    games_read: int
    """Earlier games whose decision times were read."""
    sources: tuple[str, ...]
    """The results files or directories read (those that exist)."""
    unknown: tuple[str, ...]
    """Bots of the run with no decision in those games: counted as answering at once."""
    bots: tuple[str, ...] = ()
    """Every bot of the run."""

    @property
    def is_lower_bound(self) -> bool:
        """Whether no bot's decision time was known: the estimate is the arena's part alone."""
        return set(self.unknown) >= set(self.bots)


def decision_ms(paths: Sequence[str | os.PathLike[str]]) -> tuple[dict[str, float], int]:
    """Each bot's mean decision time (ms) over the games in ``paths`` (results files or
    directories), by the name it played under, and how many games were read."""
    total: dict[str, float] = {}
    count: dict[str, int] = {}
    games = 0
    for line in read_lines(paths, ReadNotes()):
        record = line.data
        if "deals" not in record:  # a bare result (docs/ratings.md): no decisions to read
            continue
        games += 1
        names = record["names"]
        for deal in record["deals"]:
            for decisions, times in TIMED:
                for (seat, _), ms in zip(deal.get(decisions) or (), deal.get(times) or (),
                                         strict=False):
                    if ms is not None:
                        total[names[seat]] = total.get(names[seat], 0.0) + ms
                        count[names[seat]] = count.get(names[seat], 0) + 1
    return {name: total[name] / count[name] for name in total}, games


def arena_ms_per_game(specs: Sequence[GameSpec], samples: int = SAMPLE_GAMES) -> float:
    """The arena's own time for one game of ``specs`` (ms): the median over the first
    ``samples`` games, each played here with first-legal moves doing per decision what the
    referee does (the seat's view and legal actions as JSON, the move, every seat's events)."""
    times = []
    for spec in specs[:samples]:
        game = engine.game(spec.game)
        players = len(spec.seats)
        start = time.perf_counter()
        state = game.new_game(players, spec.seed, spec.options, preset=spec.preset)
        while state.to_act is not None:
            seat = state.to_act
            game.view_json(state, seat)
            game.legal_json(state)
            state = game.apply(state, game.legal_actions(state)[0])
            for other in range(players):
                game.events_json(state, other)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def estimate(specs: Sequence[GameSpec], bots: Sequence[str], decisions_per_game: int, jobs: int,
             history: Sequence[str | os.PathLike[str]]) -> Estimate:
    """The time ``specs`` take on ``jobs`` workers: per game the arena's own time plus, for each
    seat, its share of the decisions times its bot's mean decision time in ``history`` (results
    files or directories: ResultsError for one that is missing), games spread evenly over the
    workers."""
    sources = tuple(str(path) for path in history)
    means, games = decision_ms(sources) if sources else ({}, 0)
    arena_ms = arena_ms_per_game(specs)
    total_ms = 0.0
    for spec in specs:
        per_seat = decisions_per_game / len(spec.seats)
        total_ms += arena_ms + per_seat * sum(means.get(name, 0.0) for name in spec.seats)
    unknown = tuple(name for name in bots if name not in means)
    return Estimate(total_ms / 1000 / max(1, jobs), arena_ms, games, sources, unknown,
                    tuple(bots))
