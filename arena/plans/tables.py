"""Table designs: which tables of ``size`` seats a field of bots plays, pure combinatorics.

Every combination when there are few enough (``stable_combinations``, in an order that appending
bots extends); otherwise a balanced sample (``sample_tables``: a cyclic design, or a greedy sample
when there are fewer tables than bots), always connected. ``table_count`` counts them without
building them. The formats (``arena.plans.schedule``) choose their tables with these; the same
arguments always give the same tables: seeds are derived with BLAKE2b, never Python's ``hash()``.
"""

from __future__ import annotations

import functools
import itertools
import math
import random
from collections.abc import Sequence
from typing import TypeVar

import numpy as np

from arena.connectivity import is_connected, minimum_tables
from engine.seeding import derive_seed

T = TypeVar("T")


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
