"""Preset deals: a game started from given hands, turned card and dealer, and its record replaying."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

import engine
from engine import blackout, partnership
from engine.chance import Preset, PresetDeal
from engine.errors import PresetError, ReplayError

# Four one-card hands and a turned card: the first deal of a 4-player Blackout game.
ONE_CARD = PresetDeal.parse(["AS", "2C", "KH", "7D"], trump_card="TD")


def finish(game: Any, state: Any, seed: int = 0) -> Any:
    rng = random.Random(seed)
    while not state.is_over:
        state = game.apply(state, rng.choice(game.legal_actions(state)))
    return state


def test_blackout_plays_the_given_deal_and_draws_the_rest_from_the_seed() -> None:
    options = {"deals": 3}
    preset = Preset(dealer=3, deals=(ONE_CARD,))
    state = blackout.new_game(4, 42, options, preset=preset)
    first = state.rules.deals[0]
    assert first.dealer == 3 and state.to_act == 0
    assert [[str(c) for c in hand] for hand in first.dealt] == [["AS"], ["2C"], ["KH"], ["7D"]]
    assert str(first.trump_card) == "TD" and state.deal.trump == 1
    drawn = blackout.new_game(4, 42, options).rules.deals
    assert [d.dealt for d in state.rules.deals[1:]] == [d.dealt for d in drawn[1:]]
    assert [d.dealer for d in state.rules.deals] == [3, 0, 1]


def test_a_preset_blackout_game_replays_from_its_record() -> None:
    preset = Preset(dealer=1, deals=(ONE_CARD,))
    final = finish(blackout.GAME, blackout.new_game(4, 7, {"deals": 2}, preset=preset))
    record = json.loads(json.dumps(blackout.GAME.record(final, ["a", "b", "c", "d"])))
    assert record["preset"] == preset.to_json()
    assert record["deals"][0]["hands"] == [["AS"], ["2C"], ["KH"], ["7D"]]
    assert blackout.GAME.record(engine.replay(record), record["names"]) == record
    record["preset"]["deals"][0]["hands"][0] = ["QS"]  # a deal the record's plays contradict
    with pytest.raises(ReplayError, match="deal 1: hands recorded as"):
        engine.replay(record)


def test_a_game_without_a_preset_records_none() -> None:
    final = finish(blackout.GAME, blackout.new_game(4, 7, {"deals": 2}))
    assert "preset" not in blackout.GAME.record(final, ["a", "b", "c", "d"])


def test_a_preset_partnership_game_replays_from_its_record() -> None:
    hands = ["2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS", "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH",
             "2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD", "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC"]
    preset = Preset(dealer=0, deals=(PresetDeal.parse(hands),))
    state = partnership.new_game(4, 3, {"target": 20, "max_deals": 3}, preset=preset)
    assert state.deal.dealer == 0 and state.to_act == 1
    assert [str(c) for c in state.hand(0)][-1] == "AS"
    final = finish(partnership.GAME, state, 5)
    record = json.loads(json.dumps(partnership.GAME.record(final, ["a", "b", "c", "d"])))
    assert record["preset"]["dealer"] == 0
    assert partnership.GAME.record(engine.replay(record), record["names"]) == record


@pytest.mark.parametrize(("preset", "message"), [
    (Preset(dealer=4), r"dealer 4 is not a seat \(0..3\)"),
    (Preset(deals=(PresetDeal.parse(["AS", "2C", "KH"], "TD"),)), "3 hands for 4 seats"),
    (Preset(deals=(PresetDeal.parse(["AS", "2C", "KH", "7D 8D"], "TD"),)),
     "seat 3 holds 2 cards, the deal gives 1"),
    (Preset(deals=(PresetDeal.parse(["AS", "2C", "KH", "AS"], "TD"),)), "AS is dealt twice"),
    (Preset(deals=(PresetDeal.parse(["AS", "2C", "KH", "7D"], "KH"),)), "KH is dealt twice"),
    (Preset(deals=(PresetDeal.parse(["AS", "2C", "KH", "7D"]),)), "give its trump_card"),
    (Preset(deals=(ONE_CARD,) * 3), "3 deals given, the game has 2"),
])
def test_deals_the_rules_could_not_deal_are_refused(preset: Preset, message: str) -> None:
    with pytest.raises(PresetError, match=message):
        blackout.new_game(4, 1, {"deals": 2}, preset=preset)


def test_a_turned_card_where_the_rules_turn_none_is_refused() -> None:
    hands = partnership.new_game(4, 1).deal.dealt  # every card dealt: nothing left to turn
    with pytest.raises(PresetError, match="turn no card in this deal, yet trump_card is"):
        partnership.new_game(4, 1, preset=Preset(deals=(PresetDeal(hands, hands[0][0]),)))


def test_preset_parse_names_what_is_wrong() -> None:
    with pytest.raises(PresetError, match=r"preset: deals\[0\].hands\[1\]: 'ZZ' is not a card"):
        Preset.parse({"deals": [{"hands": ["AS", "ZZ"]}]})
    with pytest.raises(PresetError, match="unknown key 'dealers'"):
        Preset.parse({"dealers": 1})
    with pytest.raises(PresetError, match="dealer: expected a seat number"):
        Preset.parse({"dealer": "north"})
    assert Preset.parse(Preset(2, (ONE_CARD,)).to_json()) == Preset(2, (ONE_CARD,))


def test_a_drawn_preset_deals_what_its_seed_would() -> None:
    """``drawn_preset`` (what ``arena deals`` writes) is the engine's own deals: a game given it
    deals exactly what the seed it was drawn from deals (every hand, dealer and turned card)."""
    for name, players, options in [("blackout", 5, {}), ("partnership-blackout", 4, {})]:
        game = engine.game(name)
        preset = game.drawn_preset(players, 11, options, deals=6)
        drawn, given = game.new_game(players, 11, options), game.new_game(players, 3, options,
                                                                         preset=preset)
        for number in range(1, 7):
            a, b = drawn.rules.deal(number), given.rules.deal(number)  # type: ignore[attr-defined]
            assert (a.dealer, a.masks, a.trump_card) == (b.dealer, b.masks, b.trump_card)
