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


def test_equal_ratings_with_zero_width_intervals_make_a_table() -> None:
    # Four copies of one deterministic bot tie every set: every resample gives the same ratings.
    field = [Entrant(f"copy{i}", 4, 1500.0, 1500.0, 1500.0) for i in range(4)]
    tables = next_tables(field, 4, 3, seed=1)
    assert len(tables) == 3 and all(sorted(t) == [e.key for e in field] for t in tables)
    larger = [*field, *(Entrant(f"more{i}", 4, 1500.0, 1500.0, 1500.0) for i in range(3))]
    assert all(len(set(t)) == 3 for t in next_tables(larger, 3, 10, seed=2))


def test_zero_width_intervals_apart_are_certain_and_together_are_doubtful() -> None:
    field = [Entrant("a", 40, 1700.0, 1700.0, 1700.0), Entrant("b", 40, 1600.0, 1600.0, 1600.0),
             Entrant("c", 40, 1500.0, 1500.0, 1500.0), Entrant("d", 40, 1500.0, 1500.0, 1500.0)]
    assert sorted(next_tables(field, 2, 1)[0]) == ["c", "d"]  # the tie is the doubtful order


def test_one_entrant_per_table_takes_the_least_certain() -> None:
    field = settled(3)
    field[1] = Entrant("e01", 40, 1900.0, 1700.0, 2100.0)
    assert next_tables(field, 1, 1) == [("e01",)]
    assert next_tables([Entrant("alone", 40, 1500.0, 1500.0, 1500.0)], 1, 2) == \
        [("alone",), ("alone",)]


def test_ratings_or_intervals_the_model_could_not_give_are_uncertain_not_an_error() -> None:
    nan = float("nan")
    inf = float("inf")
    field = [Entrant("a", 40, 1800.0, 1790.0, 1810.0), Entrant("b", 40, 1500.0, 1490.0, 1510.0),
             Entrant("c", 40, nan, nan, nan), Entrant("d", 40, -inf, -inf, 1200.0)]
    for size in (1, 2, 3, 4):
        tables = next_tables(field, size, 4, seed=size)
        assert all(len(set(t)) == size for t in tables)
