"""The evaluator on positions with a known answer, seeded, and from the seat's view alone."""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any

import engine
from arena.analysis.decisions import analyse_game
from arena.analysis.evaluate import evaluate
from arena.analysis.marks import mark_of

sys.path.insert(0, str(Path(__file__).parent))
from positions import BLACKOUT, finished_record, preset_of, state_after


def _evaluate(state: Any, samples: int = 24, seed: int = 3) -> Any:
    legal = engine.actions_to_json(BLACKOUT.legal_actions(state))
    return evaluate(BLACKOUT.view(state, state.to_act), state.kind, legal, samples, seed)


def _values(evaluation: Any) -> dict[Any, tuple[float, float]]:
    return {value.action: (value.mean, value.stderr) for value in evaluation.values}


def test_the_card_the_bid_needs_later_is_kept_for_the_last_trick() -> None:
    """Seat 2 bid 1 and holds the top trump and a low club, last to play to a diamond trick it
    cannot follow. The club loses this trick for sure and the trump wins the last one for sure:
    exactly one trick, 11 points on every sample. The trump now wins this trick and leaves the
    club to lead the last one, where it wins whenever nobody can follow or trump: the bid then
    fails, so it is worth less, and playing it is a loss beyond the noise."""
    preset = preset_of(["4D 9H", "5D TH", "AS 2C"], "KS")
    state = state_after(preset, [0, 0, 1, "4D", "5D"])
    assert state.to_act == 2
    evaluation = _evaluate(state, samples=64)
    values = _values(evaluation)
    assert values["2C"] == (11.0, 0.0)
    assert values["AS"][0] < 11.0
    assert evaluation.best.action == "2C"
    loss, stderr = evaluation.loss("AS")
    assert loss == 11.0 - values["AS"][0] and loss > 2 * stderr


def test_a_bid_that_cannot_be_made_loses_exactly_its_score() -> None:
    """One card each, seat 1 holds the lowest club and does not lead: whatever is led, the two of
    clubs never takes the trick. Bidding 0 scores 11 on every sample (zero bid as one trick),
    bidding 1 scores 0: a loss of exactly 11 with no noise, a blunder."""
    preset = preset_of(["9H", "2C", "5D"], "KS")
    state = state_after(preset, [0], deals=1)
    assert state.to_act == 1 and state.kind == "bid"
    evaluation = _evaluate(state)
    assert _values(evaluation) == {0: (11.0, 0.0), 1: (0.0, 0.0)}
    assert evaluation.best.action == 0
    assert evaluation.loss(1) == (11.0, 0.0)
    assert mark_of(*evaluation.loss(1)) == "blunder"
    assert evaluation.loss(0) == (0.0, 0.0) and mark_of(0.0, 0.0) is None


def test_a_forced_play_costs_nothing() -> None:
    preset = preset_of(["4D 9H", "5D TH", "AS 2C"], "KS")
    record = finished_record(preset, [0, 0, 1, "4D", "5D", "2C", "TH", "AS", "9H"])
    decisions = analyse_game(record, [2], 16)
    last = [d for d in decisions if d.deal == 1][-1]
    assert last.chosen == "AS" and last.values == [["AS", None, None]]
    assert last.loss == 0.0 and last.stderr == 0.0 and last.mark is None


def test_the_same_view_and_seed_give_the_same_values() -> None:
    preset = preset_of(["4D 9H", "5D TH", "AS 2C"], "KS")
    state = state_after(preset, [0, 0])
    first, again = _evaluate(state, seed=9), _evaluate(state, seed=9)
    assert first == again
    assert first != _evaluate(state, seed=10)  # the seed matters: another draws other samples


def test_every_action_is_played_out_on_the_same_samples() -> None:
    """Common random numbers: a sample dealt once serves every action, so two actions that play
    the same card in effect (a run of equal cards) score the same on every sample."""
    state = state_after(preset_of(["4D 9H", "5D TH", "AS 2C"], "KS"), [])
    evaluation = _evaluate(state, samples=12)
    assert all(len(scores) == 12 for scores in evaluation.outcomes.values())
    assert len(evaluation.values) == 3  # bids 0, 1 and 2


def test_no_hidden_card_of_the_record_reaches_the_evaluator() -> None:
    """Two records that differ only in the cards other seats hold, unseen when seat 0 decides:
    the analyses of seat 0's decisions before any of those cards shows are identical. Seat 0 bids
    first and leads first on a one-card deal, seeing only its hand and the turned card, then the
    bids."""
    rng = random.Random(4)
    compared = 0
    for _ in range(4):
        deck = [str(card) for card in engine.cards.DECK]
        rng.shuffle(deck)
        mine, turned = deck.pop(), deck.pop()
        first = preset_of([mine, deck[0], deck[1]], turned)
        second = preset_of([mine, deck[2], deck[3]], turned)
        analyses = []
        for preset in (first, second):
            record = finished_record(preset, [0, 0, 0], deals=1)
            record = {**record, "deals": record["deals"][:1], "complete": False}
            analyses.append([d for d in analyse_game(record, [0], 16) if d.decision <= 4])
        assert [d.decision for d in analyses[0]] == [1, 4]  # its bid and its lead
        assert analyses[0] == analyses[1]
        compared += 1
    assert compared == 4
