"""Seat orders: the balanced design's property over many fields, and that it never moves a game."""

from __future__ import annotations

import dataclasses
import itertools
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
import yaml

from arena.plans.schedule import schedule
from arena.plans.seating import (
    Seating,
    add_order,
    balanced_orders,
    best_order,
    neighbour_counts,
    order_design,
)
from arena.plans.tournament import Tournament, load_tournament

REPO = Path(__file__).resolve().parents[3]
PY_BOT = "python3 bots/python/random_bot.py"  # never run: the schedule only needs valid files


pytestmark = pytest.mark.usefixtures("in_repo")


@pytest.fixture(scope="module")
def thirty(tmp_path_factory: pytest.TempPathFactory) -> Tournament:
    """A tournament of 30 bots, cut down and reshaped by each test (no file per case)."""
    path = tmp_path_factory.mktemp("seating") / "t.yaml"
    config = {"name": "seats", "game": "blackout", "players": 4,
              "bots": [{"name": f"b{i:02d}", "cmd": PY_BOT} for i in range(30)]}
    path.write_text(yaml.safe_dump(config))
    return load_tournament(path)


@pytest.mark.parametrize("k", range(2, 8))
def test_order_design_puts_every_ordered_pair_side_by_side_equally_often(k: int) -> None:
    design = order_design(k)
    assert design[0] == tuple(range(k)) and len(set(design)) == len(design)
    assert all(sorted(order) == list(range(k)) and order[0] == 0 for order in design)
    if k >= 3:
        counts = Counter((a, b) for order in design
                         for a, b in zip(order, order[1:] + order[:1], strict=True))
        assert set(counts) == set(itertools.permutations(range(k), 2))
        assert set(counts.values()) == {2 if k in (4, 6) else 1}


def shares(games: list) -> list[float]:
    """For every ordered pair of bots that share a table: the share of their shared sets in
    which the first sat directly before the second."""
    sets = {spec.set_id: spec.seats for spec in games}
    met = Counter(pair for seats in sets.values() for pair in itertools.permutations(seats, 2))
    before = neighbour_counts(seats for seats in sets.values())
    return [before[pair] / met[pair] for pair in met]


CASES = [(n, k) for k in range(3, 8) for n in range(max(4, k), 31)]


@pytest.mark.parametrize(("bots", "players"), CASES)
def test_balanced_seating_evens_out_who_sits_before_whom(thirty: Tournament, bots: int,
                                                         players: int) -> None:
    # Rounds allow balance at whole passes of the design (k - 1 rounds, 2 (k - 1) for 4 and 6
    # players), round-robins and sampled schedules alike, and there it is exact. (Part of a pass
    # cannot always be: one table of 5 bots, 5 rounds, has four pairs sat side by side twice.)
    rounds = len(order_design(players))
    t = dataclasses.replace(thirty, bots=thirty.bots[:bots], players=players, rounds=rounds,
                            seating=Seating.BALANCED)
    games = schedule(t)
    share = shares(games)
    assert min(share) >= 0.6 * max(share), (min(share), max(share))
    assert max(share) - min(share) < 1e-9
    # Every bot still plays every seat of its duplicate set, on one deal seed.
    by_set: dict[str, list] = {}
    for spec in games:
        by_set.setdefault(spec.set_id, []).append(spec)
    for specs in by_set.values():
        assert len({spec.seed for spec in specs}) == 1
        for seat in range(players):
            assert sorted(spec.seats[seat] for spec in specs) == sorted(specs[0].seats)


def test_cyclic_seating_keeps_each_tables_order(thirty: Tournament) -> None:
    t = dataclasses.replace(thirty, bots=thirty.bots[:6], rounds=3, seating=Seating.CYCLIC)
    by_table: dict[int, set[tuple[str, ...]]] = {}
    for spec in schedule(t):
        if spec.rotation == 0:
            by_table.setdefault(spec.table, set()).add(spec.seats)
    assert all(len(orders) == 1 for orders in by_table.values())
    balanced = dataclasses.replace(t, seating=Seating.BALANCED)
    assert any(len({s.seats for s in schedule(balanced) if s.rotation == 0 and s.table == table})
               > 1 for table in by_table)


@pytest.mark.parametrize("players", [3, 4, 5])
def test_more_rounds_and_appended_bots_keep_every_scheduled_game(thirty: Tournament,
                                                                 players: int) -> None:
    small = dataclasses.replace(thirty, bots=thirty.bots[:players + 2], players=players,
                                rounds=3, seating=Seating.BALANCED)
    grown = dataclasses.replace(small, bots=thirty.bots[:players + 3], rounds=7)
    before = {spec.id: spec for spec in schedule(small)}
    after = {spec.id: spec for spec in schedule(grown)}
    assert all(after[game_id] == spec for game_id, spec in before.items())


def test_the_first_table_starts_in_its_own_order() -> None:
    orders = balanced_orders([("a", "b", "c", "d"), ("a", "c", "e", "f")])
    assert orders[0][0] == ("a", "b", "c", "d")
    assert len(orders[0]) == len(order_design(4))


def test_best_order_picks_the_least_used_neighbours() -> None:
    counts = np.zeros((4, 4), dtype=np.int64)
    add_order((0, 1, 2, 3), counts)
    assert best_order([0, 1, 2, 3], counts) not in {(0, 1, 2, 3)}
    order = best_order([0, 1, 2, 3], counts)
    assert sorted(order) == [0, 1, 2, 3] and order[0] == 0
    # None of 0->1, 1->2, 2->3, 3->0 again: the reverse order uses none of them.
    assert order == (0, 3, 2, 1)
    assert best_order([5, 6], counts[:1, :1]) == (5, 6)
