"""Schedules: a pure function from a tournament to its games, each with seats and a deal seed.

Fairness in a luck-heavy card game comes from the schedule:
- Blackout, ``round-robin``: every table of ``players`` distinct bots when there are at most
  ``max_tables`` of them; otherwise a balanced sample of tables (see ``sample_tables``).
- Duplicate deals: each table plays one deal seed once per seat rotation, so every bot at the
  table plays every hand; those games form one duplicate set.
- Partnership Blackout: entrants are teams (each bot with a copy of itself, or the file's
  ``teams``); every pair of teams plays each deal seed twice, swapping seats.
- ``rounds`` repeats the whole schedule with new deal seeds.
The same tournament file always gives the same schedule: seeds are derived with BLAKE2b, never
Python's ``hash()``.
"""

from __future__ import annotations

import itertools
import math
import random
from dataclasses import dataclass
from typing import Any

from arena.report import team_names
from arena.tournament import Tournament
from engine.seeding import derive_seed


@dataclass(frozen=True)
class GameSpec:
    """One scheduled game: its stable id, bots by seat, deal seed and place in the schedule."""

    id: str
    game: str
    options: dict[str, Any]
    seats: tuple[str, ...]
    seed: int
    round: int
    table: int
    rotation: int

    @property
    def set_id(self) -> str:
        """The duplicate set: the games of one table and round, which share a deal seed."""
        return f"r{self.round}-t{self.table:04d}"

    @property
    def entrants(self) -> list[str]:
        """Result entrants: bots by seat, or teams (team 0 = seats 0 and 2) in partnership games."""
        names = list(self.seats)
        return team_names(names) if self.game == "partnership-blackout" else names


def schedule(tournament: Tournament) -> list[GameSpec]:
    """Every game of the tournament, in a stable order."""
    if tournament.is_partnership:
        tables = _team_tables(tournament)
    else:
        names = [bot.name for bot in tournament.bots]
        tables = sample_tables(names, tournament.players, tournament.max_tables, tournament.seed)
    games = []
    for round_number in range(1, tournament.rounds + 1):
        for index, seats_by_rotation in enumerate(tables):
            seed = derive_seed(tournament.seed, "deals", round_number, index)
            for rotation, seats in enumerate(seats_by_rotation):
                games.append(GameSpec(
                    id=f"r{round_number}-t{index:04d}-s{rotation}", game=tournament.game,
                    options=tournament.options, seats=tuple(seats), seed=seed,
                    round=round_number, table=index, rotation=rotation))
    return games


def _team_tables(tournament: Tournament) -> list[list[tuple[str, ...]]]:
    teams = list(tournament.teams) or [(bot.name, bot.name) for bot in tournament.bots]
    tables = []
    for a, b in itertools.combinations(teams, 2):
        tables.append([(a[0], b[0], a[1], b[1]), (b[0], a[0], b[1], a[1])])
    return tables


def sample_tables(names: list[str], size: int, max_tables: int,
                  seed: int) -> list[list[tuple[str, ...]]]:
    """The tables, each as its seat rotations (``size`` games of one duplicate set).

    Every combination when there are at most ``max_tables``. Otherwise a balanced sample of T
    tables, the largest multiple of n / gcd(n, size) within ``max_tables`` (but at least that one
    multiple), so that ``T * size`` is divisible by the number of bots n: each table takes
    the bots that have played least so far (so every bot plays exactly ``T * size / n`` tables),
    choosing among equals the ones that have met the others at the table least (so pairs meet
    about equally often), ties broken by a generator seeded from the tournament's seed.
    """
    n = len(names)
    rng = random.Random(derive_seed(seed, "tables"))
    if math.comb(n, size) <= max_tables:
        chosen = [list(c) for c in itertools.combinations(names, size)]
    else:
        step = n // math.gcd(n, size)
        count = max(step, max_tables // step * step)
        chosen = _balanced(names, size, count, rng)
    tables = []
    for members in chosen:
        members = list(members)
        rng.shuffle(members)
        tables.append([tuple(members[(seat + r) % size] for seat in range(size))
                       for r in range(size)])
    return tables


def _balanced(names: list[str], size: int, count: int, rng: random.Random) -> list[list[str]]:
    played = dict.fromkeys(names, 0)
    met = {pair: 0 for pair in itertools.combinations(sorted(names), 2)}

    def meetings(a: str, b: str) -> int:
        return met[(a, b) if a < b else (b, a)]

    tables = []
    for _ in range(count):
        table: list[str] = []
        for _ in range(size):
            candidates = [b for b in names if b not in table]
            fewest = min(played[b] for b in candidates)
            candidates = [b for b in candidates if played[b] == fewest]
            cost = {b: sum(meetings(b, t) for t in table) for b in candidates}
            least = min(cost.values())
            table.append(rng.choice([b for b in candidates if cost[b] == least]))
        for b in table:
            played[b] += 1
        for a, b in itertools.combinations(sorted(table), 2):
            met[(a, b)] += 1
        tables.append(table)
    return tables
