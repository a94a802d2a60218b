"""Owners kept apart: table designs in which no two entrants of one owner sit at one table.

A bot's owner is who entered it (a tournament file's ``owner:``, a league's participant); a bot
without one is its own owner. Two bots of one owner at a table could play for each other (one
spends its score to make the other's bid), so the schedules seat them apart when the field
allows it. Owners are compared by their key (``arena.names.name_key``: ``Ann`` and ``ann`` are
one owner).

- When no two bots share an owner, the tables are ``arena.plans.tables.sample_tables``' as they
  always were, byte for byte.
- Otherwise, with every combination within ``max_tables``: the combinations of different owners
  (``stable_combinations`` filtered, so appending bots still appends tables); with more, a
  greedy sample of ``table_count`` tables (each seat to a bot of an owner not yet at the table,
  among those that have played least, preferring the least met).
- The field allows it when it has at least ``size`` owners and those tables link every bot
  (one rating compares them all). When it does not, ``apart_tables`` gives the plain design and
  says why (``Seated.problem``): the schedule refuses the run unless the file allows it.

Pure: the same arguments give the same tables; seeds are derived with BLAKE2b.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from arena.connectivity import is_connected
from arena.names import name_key
from arena.plans.tables import sample_tables, stable_combinations, table_count
from engine.seeding import derive_seed


@dataclass(frozen=True)
class Seated:
    """A design's tables, each as its seat rotations, and why it seats one owner's entrants
    together (None: it keeps them apart)."""

    tables: list[list[tuple[str, ...]]]
    problem: str | None = None


def owner_keys(names: Sequence[str], owner_of: Mapping[str, str]) -> dict[str, str]:
    """Each bot's owner as compared (``name_key``); a bot ``owner_of`` lacks is its own owner."""
    return {name: name_key(owner_of.get(name, name)) for name in names}


def shared_owners(names: Sequence[str], owner_of: Mapping[str, str]) -> dict[str, list[str]]:
    """The owners (as ``owner_of`` writes them) of two or more of ``names``, with their bots."""
    keys = owner_keys(names, owner_of)
    by_key: dict[str, list[str]] = {}
    for name in names:
        by_key.setdefault(keys[name], []).append(name)
    return {owner_of.get(bots[0], bots[0]): bots for bots in by_key.values() if len(bots) > 1}


def is_apart(members: Sequence[str], keys: Mapping[str, str]) -> bool:
    """Whether no two of ``members`` share an owner (``keys``: ``owner_keys``)."""
    return len({keys[member] for member in members}) == len(members)


def apart_tables(names: list[str], owner_of: Mapping[str, str], size: int, max_tables: int,
                 seed: int) -> Seated:
    """``size``-player tables for ``names`` with no two bots of one owner at a table (the module's
    docstring says how), or the plain design and the reason it cannot."""
    shared = shared_owners(names, owner_of)
    if not shared:
        return Seated(sample_tables(names, size, max_tables, seed))
    keys = owner_keys(names, owner_of)
    problem = too_few_owners(names, owner_of, size)
    if problem is None:
        rng = random.Random(derive_seed(seed, "apart tables"))
        if math.comb(len(names), size) <= max_tables:
            chosen = [list(c) for c in stable_combinations(names, size) if is_apart(c, keys)]
        else:
            chosen = _greedy(names, keys, size, table_count(len(names), size, max_tables), rng)
        if is_connected(chosen, names):
            return Seated(_rotated(chosen, size, rng))
        owner, bots = next(iter(shared.items()))
        problem = (f"the tables that keep owners apart do not link the {len(names)} bots (owner "
                   f"{owner!r} enters {', '.join(bots)}): raise max_tables")
    return Seated(sample_tables(names, size, max_tables, seed), problem)


def too_few_owners(names: Sequence[str], owner_of: Mapping[str, str], size: int) -> str | None:
    """Why ``size``-player tables of ``names`` cannot all have ``size`` owners: fewer owners than
    seats (naming the owner of the most bots); None when there are enough."""
    keys = owner_keys(names, owner_of)
    owners = len(set(keys.values()))
    if owners >= size:
        return None
    shared = shared_owners(names, owner_of)
    owner, bots = max(shared.items(), key=lambda item: len(item[1]))
    return (f"owner {owner!r} enters {len(bots)} of the {len(names)} bots ({', '.join(bots)}): "
            f"{size}-player tables of different owners need {size} owners, and these bots have "
            f"{owners}")


def _greedy(names: list[str], keys: Mapping[str, str], size: int, count: int,
            rng: random.Random) -> list[list[str]]:
    """``count`` tables, each seat to a bot whose owner is not yet at the table, among those that
    have played least, preferring the least met (``arena.plans.tables._balanced``, with owners).
    Never stuck: the caller has checked that there are at least ``size`` owners."""
    owner_number = {key: i for i, key in enumerate(dict.fromkeys(keys.values()))}
    owner = np.array([owner_number[keys[name]] for name in names], dtype=np.int64)
    played = np.zeros(len(names), dtype=np.int64)
    met = np.zeros((len(names), len(names)), dtype=np.int64)
    tables = []
    for _ in range(count):
        seats: list[int] = []
        while len(seats) < size:
            free = ~np.isin(owner, owner[seats])
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


def _rotated(chosen: list[list[str]], size: int,
             rng: random.Random) -> list[list[tuple[str, ...]]]:
    """Each table in a seeded cyclic order, as its seat rotations (``sample_tables``' form)."""
    tables = []
    for members in chosen:
        members = list(members)
        rng.shuffle(members)
        tables.append([tuple(members[(seat + r) % size] for seat in range(size))
                       for r in range(size)])
    return tables


Team = tuple[str, str]


def apart_pairs(teams: Sequence[Team], owner_of: Mapping[str, str]
                ) -> tuple[list[tuple[Team, Team]], str | None]:
    """Every pair of teams (``stable_combinations``' order) in which no bot of one shares an owner
    with another bot of the other, and why that cannot link every team (None when it does): then
    every pair."""
    pairs = [(a, b) for a, b in stable_combinations(teams, 2)]
    names = list(dict.fromkeys(name for team in teams for name in team))
    keys = owner_keys(names, owner_of)

    def together(a: Team, b: Team) -> bool:  # one bot in both teams is the file's design
        return any(x != y and keys[x] == keys[y] for x in a for y in b)

    kept = [(a, b) for a, b in pairs if not together(a, b)]
    if len(kept) == len(pairs):
        return kept, None
    labels = {team: "+".join(dict.fromkeys(team)) for team in teams}
    if not is_connected([[labels[a], labels[b]] for a, b in kept], list(labels.values())):
        both = next(f"{labels[a]} and {labels[b]}" for a, b in pairs if together(a, b))
        return pairs, f"teams of different owners do not link every team (one owner enters {both})"
    return kept, None
