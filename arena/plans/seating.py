"""Seat orders: the cyclic order a table's bots sit in, round by round.

Play passes from each seat to the next, so who sits directly before whom matters in a trick-taking
game: a bot always seated after a strong one has a harder game. A duplicate set plays one cyclic
order in every seat rotation (every bot plays every seat, the order stays), so a table's order is
the set's only choice. Two designs:

- ``cyclic`` (runs started before ``seating`` existed): a table keeps one order in every round.
- ``balanced``: a table walks round by round through ``order_design(k)``, cyclic orders of its
  ``k`` places in which every ordered pair of places is adjacent ("p directly before q") equally
  often; after a whole pass (k - 1 rounds, or 2 (k - 1) with 4 or 6 players) every two bots at
  the table have sat in each order equally often, whatever the schedule. Which member takes
  which place is chosen table by table so that every shorter run of rounds is as even as it can
  be too: the placing that adds least to the sum of squares of the neighbour counts of the tables
  before it, round by round, each ordered pair weighted by the tables its two bots have shared
  (a sampled schedule's pairs share different numbers). A table's orders depend only on it and the
  tables before it: more rounds or appended tables never change a game already scheduled.

The league plays each set once: it seats a new set in the cyclic order that adds least to the
sum of squares of the counts of the sets it has planned (``best_order``).
"""

from __future__ import annotations

import functools
import itertools
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import TypeVar

import numpy as np

from arena.settings import DEFAULT_SEATING, Seating

T = TypeVar("T")

__all__ = ["DEFAULT_SEATING", "Seating", "add_order", "balanced_orders", "best_order",
           "neighbour_counts", "order_design", "rotations"]


@functools.cache
def order_design(k: int) -> tuple[tuple[int, ...], ...]:
    """Distinct cyclic orders of places ``0 .. k-1`` (each starting at 0, the identity first) in
    which every ordered pair (p, q) has q directly after p (cyclically) equally often: ``k - 1``
    orders, each pair once, except for k = 4 and 6, which have no such decomposition (Tillson,
    1980): ``2 (k - 1)`` orders, each pair twice. Found by a deterministic depth-first search."""
    if k < 3:
        return (tuple(range(k)),)
    times = 2 if k in (4, 6) else 1
    orders = [(0, *rest) for rest in itertools.permutations(range(1, k))]
    arcs_of = [frozenset(zip(order, order[1:] + order[:1], strict=True)) for order in orders]
    left = dict.fromkeys(itertools.permutations(range(k), 2), times)
    chosen: list[int] = []

    def search() -> bool:
        needed = next((arc for arc in sorted(left) if left[arc]), None)
        if needed is None:
            return True
        for index, arcs in enumerate(arcs_of):
            if needed in arcs and index not in chosen and all(left[arc] for arc in arcs):
                for arc in arcs:
                    left[arc] -= 1
                chosen.append(index)
                if search():
                    return True
                chosen.pop()
                for arc in arcs:
                    left[arc] += 1
        return False

    found = search()
    assert found, f"no balanced design of cyclic orders for {k} places"
    return tuple(orders[index] for index in chosen)


@functools.cache
def _placings(k: int) -> np.ndarray:
    """Every way to put a table's members on the design's places, up to rotation: (k-1)! x k."""
    return np.array([(0, *rest) for rest in itertools.permutations(range(1, k))], dtype=np.int64)


def _table_orders(members: Sequence[int], before: np.ndarray, weight: np.ndarray
                  ) -> list[tuple[int, ...]]:
    """One pass of ``order_design`` for one table, its members placed so that every prefix of the
    pass adds least to the sum of squares of the weighted neighbour counts ``before[r]``."""
    k = len(members)
    design = np.array(order_design(k), dtype=np.int64)  # pass round x seat -> place
    placed = np.asarray(members, dtype=np.int64)[_placings(k)]  # placing x place -> member
    seats = placed[:, design]  # placing x pass round x seat -> member
    arcs = (seats, np.roll(seats, -1, axis=2))
    step = weight[arcs]
    counts = before[np.arange(len(design))[None, :, None], arcs[0], arcs[1]]
    cost = (step * (2.0 * counts * step + step)).sum(axis=(1, 2))
    best = seats[int(np.argmin(cost))]
    return [tuple(int(m) for m in order) for order in best]


def best_order(members: Sequence[int], counts: np.ndarray) -> tuple[int, ...]:
    """The cyclic order of ``members`` (numbers into ``counts``, where ``counts[a, b]`` is how
    often a sat directly before b) that adds least to the sum of squares of the counts; the
    first such, starting at ``members[0]``. For a set played once (the league's)."""
    if len(members) < 3:
        return tuple(members)
    orders = np.asarray(members, dtype=np.int64)[_placings(len(members))]
    cost = (2 * counts[orders, np.roll(orders, -1, axis=1)] + 1).sum(axis=1)
    return tuple(int(m) for m in orders[int(np.argmin(cost))])


def balanced_orders(tables: Sequence[Sequence[T]]) -> list[list[tuple[T, ...]]]:
    """Each table's orders, one per round of a pass through ``order_design`` (the module says
    how); round r plays order (r - 1) mod the pass's length."""
    names = list(dict.fromkeys(name for members in tables for name in members))
    number = {name: i for i, name in enumerate(names)}
    numbered = [[number[name] for name in members] for members in tables]
    passes = max((len(order_design(len(m))) for m in numbered), default=1)
    # before[r]: the counts of the earlier tables' orders in pass rounds 0 .. r, so that every
    # number of rounds is balanced, not only whole passes.
    before = np.zeros((passes, len(names), len(names)), dtype=np.int64)
    # A sampled schedule's pairs share different numbers of tables: what is balanced is each
    # ordered pair's share of the tables its two bots share so far (a pair's ideal is 1 / (k - 1)).
    met = np.zeros((len(names), len(names)), dtype=np.int64)
    chosen = []
    for members in numbered:
        for a, b in itertools.permutations(members, 2):
            met[a, b] += 1
        if len(members) < 3:
            chosen.append([tuple(names[i] for i in members)])
            continue
        orders = _table_orders(members, before, 1.0 / np.maximum(met, 1))
        for pass_round, order in enumerate(orders):
            ring = np.asarray(order, dtype=np.int64)
            before[pass_round:, ring, np.roll(ring, -1)] += 1  # a ring's pairs are distinct
        chosen.append([tuple(names[i] for i in order) for order in orders])
    return chosen


def add_order(order: Sequence[int], counts: np.ndarray) -> None:
    """Count ``order``'s ordered neighbour pairs (a directly before b) in ``counts``."""
    if len(order) >= 2:
        ring = np.asarray(order, dtype=np.int64)
        np.add.at(counts, (ring, np.roll(ring, -1)), 1)


def rotations(order: Sequence[T]) -> list[tuple[T, ...]]:
    """The seats of each game of a duplicate set: every member plays every seat, the order kept."""
    size = len(order)
    return [tuple(order[(seat + r) % size] for seat in range(size)) for r in range(size)]


def neighbour_counts(games: Iterable[Sequence[T]]) -> Counter[tuple[T, T]]:
    """How often ``a`` sat directly before ``b`` (the next seat, cyclically) over ``games``' seats;
    a bot next to a copy of itself is not counted."""
    counts: Counter[tuple[T, T]] = Counter()
    for seats in games:
        for seat, name in enumerate(seats):
            after = seats[(seat + 1) % len(seats)]
            if after != name:
                counts[name, after] += 1
    return counts
