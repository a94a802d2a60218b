"""A record replayed decision by decision: the seat's own decisions, up to its fault."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from arena.analysis.decisions import analyse_game, seats_of
from arena.errors import ResultsError

sys.path.insert(0, str(Path(__file__).parent))
from positions import finished_record, preset_of

ACTIONS = [0, 0, 1, "4D", "5D", "2C", "TH", "AS", "9H"]


def test_decisions_after_a_seat_s_fault_are_the_fallback_s_and_left_out() -> None:
    record = finished_record(preset_of(["4D 9H", "5D TH", "AS 2C"], "KS"), ACTIONS)
    every = [d.decision for d in analyse_game(record, [2], 4)]
    assert every[:3] == [3, 6, 8]  # its bid, then its plays of deal 1
    faulted = {**record, "faults": [{"seat": 2, "decision": 8}, {"seat": 2, "decision": 20}]}
    assert [d.decision for d in analyse_game(faulted, [2], 4)] == [3, 6]


def test_the_entrant_s_seats_are_found_by_name() -> None:
    record = finished_record(preset_of(["4D 9H", "5D TH", "AS 2C"], "KS"), ACTIONS)
    assert seats_of(record, "b") == [1]
    assert seats_of(record, "nobody") == []


def test_a_record_whose_actions_do_not_replay_is_an_error_naming_the_game() -> None:
    record = finished_record(preset_of(["4D 9H", "5D TH", "AS 2C"], "KS"), ACTIONS)
    first = record["deals"][0]
    broken = {**record, "deals": [{**first, "plays": [[1, "4D"], *first["plays"][1:]]}]}
    with pytest.raises(ResultsError, match="game g1: deal 1: seat 1 acted but seat 0"):
        analyse_game(broken, [0], 4)
