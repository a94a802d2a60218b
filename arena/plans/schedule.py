"""Schedules: a pure function from a tournament to its games, each with seats and a deal seed.

Fairness in a luck-heavy card game comes from the schedule:
- Blackout, ``round-robin``: every table of ``players`` distinct bots when there are at most
  ``max_tables`` of them; otherwise a balanced sample of tables (see ``sample_tables``).
- Duplicate deals: each table plays one deal seed once per seat rotation, so every bot at the
  table plays every hand; those games form one duplicate set.
- Partnership Blackout: entrants are teams (each bot with a copy of itself, or the file's
  ``teams``); every pair of teams plays each deal seed twice, swapping seats.
- ``format: gauntlet``: every table holds exactly one challenger, the rest from the field (the
  ``bots``, or their teams): for each challenger the field's tables as a round-robin of
  ``players - 1`` seats would choose them (up to ``max_tables`` per challenger), in every seat
  rotation on one deal seed, as above. Challengers never meet: they are rated through the field.
- ``deals: FILE`` gives the sets their deals instead of their seeds, the file's lines in set order
  (``arena.plans.deals``).
- ``rounds`` repeats the whole schedule with new deal seeds; under ``seating: balanced`` (the
  default) a table's cyclic order changes from round to round (``arena.plans.seating``) so that
  who sits directly before whom evens out.
- Extending a run: more ``rounds`` append rounds; bots (or teams) appended to the list append
  tables when every table is played (colex order, ``stable_combinations``), so the games already
  played keep their ids, seats and seeds. A sampled schedule changes with the number of bots.
The same tournament file always gives the same schedule: seeds are derived with BLAKE2b, never
Python's ``hash()``.
"""

from __future__ import annotations

import functools
import itertools
import math
import random
from collections.abc import Sequence
from typing import TypeVar

import numpy as np

import engine
from arena.connectivity import is_connected, minimum_tables
from arena.errors import ConfigError
from arena.plans.seating import Seating, balanced_orders, rotations
from arena.plans.tournament import Tournament
from arena.settings import MAX_GAMES
from arena.values.ids import tournament_game_id
from arena.values.work import GameSpec
from engine.seeding import derive_seed

T = TypeVar("T")


def schedule(tournament: Tournament) -> list[GameSpec]:
    """Every game of the tournament, in a stable order; ConfigError, before anything is built,
    for a schedule of more than ``MAX_GAMES`` games."""
    check_size(tournament)
    if tournament.format == "gauntlet":
        tables = _gauntlet_tables(tournament)
    elif tournament.has_teams:
        tables = _team_tables(tournament)
    else:
        names = [bot.name for bot in tournament.bots]
        tables = sample_tables(names, tournament.players, tournament.max_tables, tournament.seed)
    games = []
    # Team games swap sides (two entrants): only tables of three or more have an order to vary.
    seating = Seating.CYCLIC if tournament.has_teams else tournament.seating_design
    orders = (balanced_orders([by_rotation[0] for by_rotation in tables])
              if seating is Seating.BALANCED else None)
    suite = tournament.deals
    for round_number in range(1, tournament.rounds + 1):
        for index, seats_by_rotation in enumerate(tables):
            seed = derive_seed(tournament.seed, "deals", round_number, index)
            # a deals file's lines go to the sets in this order, round by round, table by table
            preset = (None if suite is None
                      else suite.preset_for((round_number - 1) * len(tables) + index))
            if orders is not None:
                cycle = orders[index]
                seats_by_rotation = rotations(cycle[(round_number - 1) % len(cycle)])
            for rotation, seats in enumerate(seats_by_rotation):
                games.append(GameSpec(
                    id=tournament_game_id(round_number, index, rotation), game=tournament.game,
                    options=tournament.options, seats=tuple(seats), seed=seed,
                    round=round_number, table=index, rotation=rotation, preset=preset))
    return games


def games_per_round(tournament: Tournament) -> int:
    """How many games one round of ``tournament``'s schedule holds, counted without building it."""
    teams = len(tournament.teams) or len(tournament.bots)
    if tournament.format == "gauntlet":
        challengers = len(tournament.challengers)
        if tournament.has_teams:
            return challengers * teams * 2
        size = tournament.players
        return challengers * table_count(len(tournament.bots), size - 1, tournament.max_tables) * size
    if tournament.has_teams:
        return math.comb(teams, 2) * 2
    return table_count(len(tournament.bots), tournament.players, tournament.max_tables) \
        * tournament.players


def check_size(tournament: Tournament) -> None:
    """ConfigError naming the key to lower when the schedule would exceed ``MAX_GAMES`` games."""
    per_round = games_per_round(tournament)
    total = per_round * tournament.rounds
    if total <= MAX_GAMES:
        return
    if per_round > MAX_GAMES:
        key = "max_tables" if not tournament.has_teams else "bots"
        raise ConfigError(f"{tournament.path}: {key}: one round is {per_round} games: a run "
                          f"schedules at most {MAX_GAMES}")
    raise ConfigError(f"{tournament.path}: rounds: {tournament.rounds} rounds of {per_round} games "
                      f"are {total} games: a run schedules at most {MAX_GAMES} "
                      f"(at most {MAX_GAMES // per_round} rounds here)")


def table_count(n: int, size: int, max_tables: int) -> int:
    """How many tables ``sample_tables`` gives ``n`` bots at ``size``-player tables (its docstring
    says why): every combination, the cyclic design, or the greedy sample's rounded count."""
    every = math.comb(n, size)
    if every <= max_tables:
        return every
    if max_tables >= n:
        return n * (max_tables // n)
    step = n // math.gcd(n, size)
    count = max(step, max_tables // step * step)
    if count < minimum_tables(n, size):
        count = -(-minimum_tables(n, size) // step) * step
    return count


def stable_combinations(items: Sequence[T], size: int) -> list[tuple[T, ...]]:
    """Every ``size``-combination of ``items`` in colex order: those of the first ``k`` items come
    first, so appending items appends combinations (and keeps earlier tables' ids and seeds).

    Lexicographic order would not: ``(0, 1, 4)`` comes before ``(0, 2, 3)``. The two orders agree
    when ``len(items) <= size + 1`` (the demos' case).
    """
    indices = sorted(itertools.combinations(range(len(items)), size), key=lambda c: c[::-1])
    return [tuple(items[i] for i in c) for c in indices]


def _team_tables(tournament: Tournament) -> list[list[tuple[str, ...]]]:
    """Every pair of teams, each in the game's first team seats and then in its second."""
    seats_of = engine.game(tournament.game).info.teams
    assert seats_of is not None and len(seats_of) == 2
    teams = list(tournament.teams) or [(bot.name, bot.name) for bot in tournament.bots]
    tables = []
    for a, b in stable_combinations(teams, 2):
        tables.append([_seated(seats_of, (a, b)), _seated(seats_of, (b, a))])
    return tables


def _gauntlet_tables(tournament: Tournament) -> list[list[tuple[str, ...]]]:
    """Every challenger at every field table: its own seat (team) plus ``players - 1`` field seats."""
    challengers = [bot.name for bot in tournament.challengers]
    seats_of = engine.game(tournament.game).info.teams
    if seats_of is not None:  # the challenger is a team of copies against each field team
        field = list(tournament.teams) or [(bot.name, bot.name) for bot in tournament.bots]
        return [[_seated(seats_of, ((c, c), b)), _seated(seats_of, (b, (c, c)))]
                for c in challengers for b in field]
    size = tournament.players
    names = [bot.name for bot in tournament.bots]
    field_tables = [rotations[0] for rotations in
                    sample_tables(names, size - 1, tournament.max_tables, tournament.seed)]
    tables = []
    for challenger in challengers:
        for members in field_tables:
            seats = (challenger, *members)
            tables.append([tuple(seats[(seat + r) % size] for seat in range(size))
                           for r in range(size)])
    return tables


def _seated(seats_of: tuple[tuple[int, ...], ...],
            teams: tuple[tuple[str, ...], ...]) -> tuple[str, ...]:
    """Bots by seat: the i-th member of each team in the i-th seat of its team."""
    seats = [""] * sum(len(team) for team in seats_of)
    for team_seats, members in zip(seats_of, teams, strict=True):
        for seat, member in zip(team_seats, members, strict=True):
            seats[seat] = member
    return tuple(seats)


def sample_tables(names: list[str], size: int, max_tables: int,
                  seed: int) -> list[list[tuple[str, ...]]]:
    """The tables, each as its seat rotations (``size`` games of one duplicate set).

    Every combination when there are at most ``max_tables``: every pair of bots meets equally often.
    Otherwise, with ``n`` bots, a cyclic design of ``T = n * (max_tables // n)`` tables: ``m =
    max_tables // n`` base tables ("blocks") of residues mod n, each shifted by 0 .. n-1, with bots
    placed on the residues in a seeded order:
    - every bot plays exactly ``m * size`` tables (each block's shifts cover each residue ``size``
      times), and every bot sees the same schedule up to relabelling, so none is favoured;
    - two bots ``d`` apart meet as often as the blocks hold two residues ``d`` apart, and the
      blocks are searched (``_difference_blocks``) for differences as even as possible: pairs meet
      within 1 of each other in most cases and within 2 in every case tested (n up to 200, 3..7
      seats, several ``max_tables``); exact evenness is sometimes impossible (parity, e.g. 12
      bots, 5 seats).
    The design depends only on (n, size, max_tables), not on the seed, so those bounds hold for
    every seed. With fewer than ``n`` tables allowed, a greedy sample instead: each table takes the
    bots that have played least, preferring those that have met least (equal appearances, pairs
    only about even: within 4 of each other in every case tested).

    Every schedule is connected: any two bots are linked by a chain of shared tables, so one
    rating compares them all. The design's differences generate Z_n (``_difference_blocks``); a
    greedy sample that falls apart is replaced by one built on a chain of tables spanning the
    field. That needs at least ``minimum_tables(n, size)`` tables: ValueError below it. The
    greedy sample rounds its count to a multiple of ``n / gcd(n, size)`` so that every bot plays
    equally often: down when that still connects the field, else up (past ``max_tables``).
    """
    n = len(names)
    if max_tables < minimum_tables(n, size):
        raise ValueError(f"{max_tables} tables cannot link {n} bots at {size}-player tables: "
                         f"at least {minimum_tables(n, size)} needed")
    rng = random.Random(derive_seed(seed, "tables"))
    if math.comb(n, size) <= max_tables:
        chosen = [list(c) for c in stable_combinations(names, size)]
    elif max_tables >= n:
        labels = list(names)
        rng.shuffle(labels)
        chosen = [[labels[(b + shift) % n] for b in block]
                  for block in _difference_blocks(n, size, max_tables // n) for shift in range(n)]
        rng.shuffle(chosen)  # so that an interrupted round has not favoured some bots
    else:  # fewer tables than bots: no cyclic design fits
        step = n // math.gcd(n, size)
        count = max(step, max_tables // step * step)
        chosen = _balanced(names, size, count, rng) if count >= minimum_tables(n, size) else []
        if count < minimum_tables(n, size):
            count = -(-minimum_tables(n, size) // step) * step
        if not is_connected(chosen, names):  # only then, so connected schedules stay as they were
            chosen = _balanced(names, size, count, rng, start=_chain(names, size, rng))
    tables = []
    for members in chosen:
        members = list(members)
        rng.shuffle(members)
        tables.append([tuple(members[(seat + r) % size] for seat in range(size))
                       for r in range(size)])
    return tables


SEARCH_ATTEMPTS = 4
SEARCH_STEPS = 10_000
"""The blocks' search budget per attempt (at most about 0.05 s)."""


@functools.lru_cache(maxsize=16)
def _difference_blocks(n: int, k: int, m: int) -> tuple[tuple[int, ...], ...]:
    """``m`` blocks of ``k`` residues mod ``n`` whose differences are spread as evenly as found.

    ``counts[d]`` is how many ordered pairs (a, b) inside one block have ``a - b = d`` (mod n): in
    the shifted design, that is how often two bots ``d`` apart meet. Local search moving one residue
    of one block at a time, keeping moves that do not raise the sum of squared counts (equal moves
    too, to cross plateaus), from a few fixed starting points; the most even result is kept.

    Only block sets whose differences generate Z_n (gcd with n of 1) count: otherwise the bots
    fall apart into cosets that never meet. If no free attempt finds one, further attempts keep
    residues 0 and 1 in the first block (difference 1 generates Z_n) and never move them. (The
    free attempts come first and are chosen as before, so designs that were already connected
    are unchanged.)
    """
    even, extra = divmod(m * k * (k - 1), n - 1)
    floor = extra * (even + 1) ** 2 + (n - 1 - extra) * even**2  # every count within one
    best: tuple[bool, int, int, tuple[tuple[int, ...], ...]] | None = None
    for attempt in range(2 * SEARCH_ATTEMPTS):
        pinned = attempt >= SEARCH_ATTEMPTS
        if pinned and best is not None and not best[0]:
            break
        stream = _Stream(derive_seed(attempt, "design", n, k, m))
        blocks = []
        for index in range(m):
            block: list[int] = [0, 1] if pinned and index == 0 else []
            while len(block) < k:
                residue = stream.below(n)
                if residue not in block:
                    block.append(residue)
            blocks.append(block)
        counts = [0] * n
        for block in blocks:
            for a, b in itertools.permutations(block, 2):
                counts[(a - b) % n] += 1
        score = sum(c * c for c in counts[1:])
        # The steps' draws, three a step, computed at once: the same numbers as stream.below.
        draws = stream.batch(3 * SEARCH_STEPS)
        picked_blocks = (draws[0::3] % np.uint64(m)).tolist()
        positions = (draws[1::3] % np.uint64(k)).tolist()
        residues = (draws[2::3] % np.uint64(n)).tolist()
        for step in range(SEARCH_STEPS):
            if score == floor:
                break
            block = blocks[picked_blocks[step]]
            position = positions[step]
            old, new = block[position], residues[step]
            if new in block or (pinned and block is blocks[0] and position < 2):
                continue
            change: dict[int, int] = {}
            get = change.get
            for other in block:
                if other != old:  # then d and n - d are both nonzero; the same for new
                    d = (old - other) % n
                    change[d] = get(d, 0) - 1
                    change[n - d] = get(n - d, 0) - 1
                    d = (new - other) % n
                    change[d] = get(d, 0) + 1
                    change[n - d] = get(n - d, 0) + 1
            delta = sum(2 * counts[d] * step + step * step for d, step in change.items())
            if delta <= 0:
                for d, step in change.items():
                    counts[d] += step
                block[position] = new
                score += delta
        spread = max(counts[1:]) - min(counts[1:])
        apart = functools.reduce(math.gcd, (d for d in range(1, n) if counts[d]), n) != 1
        if best is None or (apart, spread, score) < best[:3]:
            best = (apart, spread, score, tuple(tuple(block) for block in blocks))
        if score == floor and not apart:
            break
    assert best is not None and not best[0]
    return best[3]


class _Stream:
    """SplitMix64: a generator whose output is fixed by its seed on every Python version."""

    MASK = (1 << 64) - 1

    def __init__(self, seed: int) -> None:
        self.state = seed & self.MASK

    def below(self, bound: int) -> int:
        """A number in ``0 .. bound-1`` (modulo bias under 2**-50 for the bounds used here)."""
        self.state = (self.state + 0x9E3779B97F4A7C15) & self.MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & self.MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & self.MASK
        return (z ^ (z >> 31)) % bound

    def batch(self, count: int) -> np.ndarray:
        """The next ``count`` raw outputs (before ``% bound``) as uint64, advancing the stream."""
        steps = np.arange(1, count + 1, dtype=np.uint64)
        z = np.uint64(self.state) + steps * np.uint64(0x9E3779B97F4A7C15)  # wraps mod 2**64
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        self.state = (self.state + count * 0x9E3779B97F4A7C15) & self.MASK
        return z ^ (z >> np.uint64(31))


def _chain(names: list[str], size: int, rng: random.Random) -> list[list[str]]:
    """Tables that link every bot, ``minimum_tables`` of them: consecutive tables of a seeded order
    share one bot; the last, if short, is left for ``_balanced`` to fill."""
    order = list(names)
    rng.shuffle(order)
    return [order[first:first + size] for first in range(0, max(1, len(order) - 1), size - 1)]


def _balanced(names: list[str], size: int, count: int, rng: random.Random,
              start: Sequence[Sequence[str]] = ()) -> list[list[str]]:
    """``count`` tables: ``start`` (each filled up to ``size``), then tables taken greedily.

    Each seat goes to a bot among those that have played least, preferring the least met. That
    keeps tables per bot within one of each other throughout (given a start that does), so every
    bot plays ``count * size / n`` tables when that is whole.
    """
    # Arrays indexed like ``names``: candidates come out in ``names`` order, as the seeded
    # choice among them needs, at numpy speed (fields of hundreds of bots).
    number = {name: i for i, name in enumerate(names)}
    played = np.zeros(len(names), dtype=np.int64)
    met = np.zeros((len(names), len(names)), dtype=np.int64)
    tables = []
    for index in range(count):
        seats = [number[b] for b in start[index]] if index < len(start) else []
        while len(seats) < size:
            free = np.ones(len(names), dtype=bool)
            free[seats] = False
            candidates = np.flatnonzero(free)
            candidates = candidates[played[candidates] == played[candidates].min()]
            if seats:
                cost = met[np.ix_(candidates, seats)].sum(axis=1)
                candidates = candidates[cost == cost.min()]
            seats.append(rng.choice(candidates.tolist()))
        played[seats] += 1
        for a, b in itertools.combinations(seats, 2):
            met[a, b] += 1
            met[b, a] += 1
        tables.append([names[i] for i in seats])
    return tables
