"""The matchmaker, a pure function: newcomers first, nobody starves, uncertain neighbours meet."""

from __future__ import annotations

import random
from collections import Counter

from arena.league.matchmaker import (
    NEWCOMER_SETS,
    Entrant,
    PairState,
    next_tables,
    pair_states,
    share,
)


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


def test_a_newcomer_sits_at_no_more_than_its_share_until_it_has_finished_a_game() -> None:
    # A batch of 4 tables of 3 in a field of 6, spread evenly: 2 tables each. A bot that stalls
    # every game it sits in held up all 4 as a newcomer (behind the field, it starved).
    assert share(4, 3, 6) == 2 and share(4, 3, 4) == 3 and share(4, 3, 3) == 4
    assert share(2, 4, 200) == 1  # never none: it must finish a game to be rated
    field = settled(5)
    for seed in range(20):
        new = Entrant("new", 0, has_finished_a_game=False)
        tables = next_tables([*field, new], 3, 4, seed=seed)
        assert sum("new" in table for table in tables) == 2
        assert all(len(set(t)) == 3 for t in tables)
    # Its games so far all stalled (a rating, sets): still no more than its share.
    stalled = Entrant("new", 2, 1200.0, 900.0, 1500.0, has_finished_a_game=False)
    assert sum("new" in t for t in next_tables([*field, stalled], 3, 4, seed=1)) == 2
    # Once it has finished a game, a newcomer catches up at once again: far behind the field
    # (nobody starves), it sits at every table of the batch.
    assert all("new" in t for t in next_tables([*field, Entrant("new", 0)], 3, 4, seed=1))
    # A field too small to seat a table without it: it sits at every one.
    small = [*settled(2), Entrant("new", 0, has_finished_a_game=False)]
    assert all("new" in t for t in next_tables(small, 3, 4, seed=1))


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


def test_zero_width_intervals_apart_are_settled_and_together_are_a_tie() -> None:
    field = [Entrant("a", 40, 1700.0, 1700.0, 1700.0), Entrant("b", 40, 1600.0, 1600.0, 1600.0),
             Entrant("c", 40, 1500.0, 1500.0, 1500.0), Entrant("d", 40, 1500.0, 1500.0, 1500.0)]
    states = [(upper.key, lower.key, state) for upper, lower, state in pair_states(field)]
    assert states == [("a", "b", PairState.OPEN), ("b", "c", PairState.OPEN),
                      ("c", "d", PairState.TIE)]
    # Nothing open, nothing to learn: the games spread evenly instead of going to the tie.
    played = Counter(key for table in next_tables(field, 2, 40, seed=4) for key in table)
    assert set(played.values()) == {20}


def test_settled_and_tied_pairs_get_no_more_games_than_settled_ones() -> None:
    # Three copies of one bot, their ties clear (intervals inside +-delta), and three bots far
    # apart with LOS 100%: every pair is closed, so over many calls everyone plays alike.
    field = [Entrant("top", 40, 1900.0, 1880.0, 1920.0, 1.0),
             Entrant("mid", 40, 1700.0, 1680.0, 1720.0, 1.0),
             Entrant("low", 40, 1600.0, 1580.0, 1620.0, 1.0)]
    field += [Entrant(f"copy{i}", 40, 1400.0 + i, 1390.0 + i, 1410.0 + i, 0.6, (-4.0, 6.0))
              for i in (2, 1, 0)]
    assert [state for _, _, state in pair_states(field)] == [
        PairState.SETTLED, PairState.SETTLED, PairState.SETTLED, PairState.TIE, PairState.TIE]
    sets = Counter({e.key: e.sets for e in field})
    for call in range(60):
        current = [Entrant(e.key, sets[e.key], e.rating, e.lower, e.upper, e.los_next,
                           e.gap_next) for e in field]
        sets.update(key for table in next_tables(current, 4, 4, seed=call) for key in table)
    assert max(sets.values()) - min(sets.values()) <= 1
    # A wider margin than the pair's interval: the copies' order is open again.
    assert pair_states(field, delta=3.0)[3][2] is PairState.OPEN


def test_identical_entrants_still_doubtful_take_at_most_about_their_share() -> None:
    # Two copies whose order stays doubtful forever, the rest settled: the copies may play more,
    # but nobody gets fewer than 1 / MOST_PER_LEAST of the busiest one's sets.
    field = [Entrant(f"e{i}", 0, 2000.0 - 100 * i, 1990.0 - 100 * i, 2010.0 - 100 * i, 1.0)
             for i in range(4)]
    field += [Entrant("copy0", 0, 1500.0, 1400.0, 1600.0, 0.5, (-150.0, 150.0)),
              Entrant("copy1", 0, 1500.0, 1400.0, 1600.0)]
    sets = Counter({e.key: 0 for e in field})
    for call in range(200):
        current = [Entrant(e.key, sets[e.key], e.rating, e.lower, e.upper, e.los_next,
                           e.gap_next) for e in field]
        sets.update(key for table in next_tables(current, 4, 2, seed=call) for key in table)
    assert max(sets.values()) <= 2.5 * min(sets.values())
    assert sets["copy0"] > sets["e0"]  # more where the doubt is than at the settled top


def test_a_single_entrant_and_too_few_for_a_table() -> None:
    alone = [Entrant("alone", 40, 1500.0, 1500.0, 1500.0)]
    assert pair_states(alone) == []
    assert next_tables(alone, 1, 2) == [("alone",), ("alone",)]
    assert next_tables(alone, 2, 2) == []
    assert next_tables([Entrant("new", 0)], 1, 1) == [("new",)]


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


def owners_at(tables: list[tuple[str, ...]], owner: dict[str, str]) -> list[tuple[str, ...]]:
    """The tables that seat two entrants of one owner."""
    return [t for t in tables if len({owner.get(k, k) for k in t}) < len(t)]


def test_owners_are_kept_apart_when_the_field_allows_it() -> None:
    from dataclasses import replace

    owner = {"e00": "ann", "e01": "ANN", "e02": "ann", "e03": "bob", "e04": "bob"}
    for field in (settled(9), settled(9, sets=1), settled(9, width=400.0)):
        owned = [replace(e, owner=owner.get(e.key)) for e in field]
        for size in (3, 4):
            tables = next_tables(owned, size, 30, seed=5)
            assert len(tables) == 30
            assert owners_at(tables, {k: v.lower() for k, v in owner.items()}) == []
            # the neighbours e00..e02 (one owner) are the most uncertain without owners
            plain = next_tables(field, size, 30, seed=5)
            assert owners_at(plain, {k: v.lower() for k, v in owner.items()})


def test_too_few_owners_still_fill_the_tables() -> None:
    from dataclasses import replace

    field = [replace(e, owner="ann" if i < 4 else None) for i, e in enumerate(settled(5))]
    tables = next_tables(field, 3, 10, seed=2)  # two owners for three seats
    assert len(tables) == 10 and all(len(set(t)) == 3 for t in tables)
