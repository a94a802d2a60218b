"""The matchmaker, a pure function: newcomers first, nobody starves, uncertain neighbours meet."""

from __future__ import annotations

import random
from collections import Counter

from arena.league.matchmaker import NEWCOMER_SETS, Entrant, next_tables


def settled(count: int, sets: int = 40, width: float = 40.0, spacing: float = 100.0) -> list[Entrant]:
    return [Entrant(f"e{i:02d}", sets, 2000 - i * spacing, 2000 - i * spacing - width / 2,
                    2000 - i * spacing + width / 2) for i in range(count)]


def test_tables_have_distinct_entrants_of_the_right_size_and_are_repeatable() -> None:
    field = settled(9)
    for size in (2, 3, 4, 7):
        tables = next_tables(field, size, 20, seed=3)
        assert len(tables) == 20
        assert all(len(t) == len(set(t)) == size for t in tables)
        assert tables == next_tables(field, size, 20, seed=3)
    assert next_tables(field[:3], 4, 5) == []


def test_a_newcomer_plays_the_next_tables_until_it_has_its_first_sets() -> None:
    field = settled(8) + [Entrant("new", 0)]
    tables = next_tables(field, 4, NEWCOMER_SETS + 2, seed=1)
    assert all("new" in table for table in tables[:NEWCOMER_SETS])
    opponents = {e for table in tables[:NEWCOMER_SETS] for e in table if e != "new"}
    assert len(opponents) > 3  # placed against the field, not one group


def test_the_most_uncertain_neighbours_meet_first() -> None:
    field = settled(8)
    # e04 and e05 are 10 Elo apart with wide intervals: their order is the doubtful one.
    field[5] = Entrant("e05", 40, 1590, 1500, 1680)
    field[4] = Entrant("e04", 40, 1600, 1510, 1690)
    first = next_tables(field, 4, 1)[0]
    assert {"e04", "e05"} <= set(first)
    assert next_tables(field, 2, 1)[0] == ("e04", "e05")


def test_nobody_starves_over_many_calls() -> None:
    rng = random.Random(5)
    field = settled(10)
    sets = Counter({e.key: e.sets for e in field})
    for _ in range(200):
        # the same doubtful pair forever (e.g. two copies of one bot): others must still play
        current = [Entrant(e.key, sets[e.key], e.rating, e.lower, e.upper) for e in field]
        current[2] = Entrant("e02", sets["e02"], 1800, 1700, 1900)
        current[3] = Entrant("e03", sets["e03"], 1800, 1700, 1900)
        for table in next_tables(current, 4, 2, seed=rng.randrange(1000)):
            sets.update(table)
    mean = sum(sets.values()) / len(sets)
    assert min(sets.values()) >= 0.25 * mean
