"""Blackout rules: the worked examples of docs/rules.md and the error messages."""

import itertools

import pytest

from engine import blackout
from engine.cards import Card
from engine.chance import Preset, PresetDeal
from engine.errors import IllegalActionError, InvalidActionError, OptionError
from engine.trickgame import State

GAME = blackout.GAME


def rules_with(**options: object) -> blackout.Rules:
    return blackout.Rules(4, 1, blackout.resolve_options(4, {"deals": 5, **options}))


BIDS = (2, 0, 1, 1)
TRICKS = (2, 0, 2, 1)


def scores(rules: blackout.Rules) -> list[int]:
    return [rules.deal_score(b, t) for b, t in zip(BIDS, TRICKS, strict=True)]


def test_worked_example_1_defaults() -> None:
    assert scores(rules_with()) == [12, 11, 0, 11]


def test_worked_example_2_zero_bid_bonus_only() -> None:
    assert scores(rules_with(zero_bid="bonus_only")) == [12, 10, 0, 11]


def test_worked_example_3_points_per_trick_10_bonus_5() -> None:
    assert scores(rules_with(points_per_trick=10, bonus=5)) == [25, 15, 0, 15]


def test_worked_example_4_penalty_scoring() -> None:
    assert rules_with(scoring="penalty").deal_score(3, 1) == -2
    assert rules_with(scoring="penalty", points_per_trick=10).deal_score(3, 1) == -20
    assert rules_with(scoring="penalty").deal_score(1, 2) == 0


OH_HELL = {"zero_bid": "bonus_only"}


def test_worked_example_5_oh_hell_scores_a_miss_as_its_tricks() -> None:
    rules = rules_with(scoring="oh_hell", **OH_HELL)
    assert scores(rules) == [12, 10, 2, 11]  # seat 2 bid 1, took 2: its 2 tricks
    assert rules.deal_score(3, 1) == 1
    assert rules.deal_score(0, 3) == 3
    assert rules_with(scoring="oh_hell", points_per_trick=10, **OH_HELL).deal_score(3, 1) == 10


def test_worked_example_6_oh_hell_penalty_costs_over_and_under() -> None:
    rules = rules_with(scoring="oh_hell_penalty", **OH_HELL)
    assert scores(rules) == [12, 10, -1, 11]
    assert rules.deal_score(3, 1) == -2
    assert rules.deal_score(0, 3) == -3
    assert rules_with(scoring="oh_hell_penalty", points_per_trick=10, **OH_HELL).deal_score(0, 3) == -30


def open_spiel_oh_hell(bid: int, tricks: int, off_bid_penalty: bool, points_per_trick: int) -> int:
    """OpenSpiel's OhHellState::ComputeScore (open_spiel/games/oh_hell/oh_hell.cc), transcribed:
    the made-bid bonus is its kMadeBidBonus, 10."""
    if off_bid_penalty:
        if tricks == bid:
            return points_per_trick * tricks + 10
        return -(points_per_trick * abs(tricks - bid))
    return points_per_trick * tricks + (10 if tricks == bid else 0)


@pytest.mark.parametrize("off_bid_penalty", [False, True])
@pytest.mark.parametrize("points_per_trick", [1, 3])
def test_oh_hell_scoring_is_open_spiels_for_every_bid_and_tricks(
        off_bid_penalty: bool, points_per_trick: int) -> None:
    scoring = "oh_hell_penalty" if off_bid_penalty else "oh_hell"
    rules = blackout.Rules(3, 1, blackout.resolve_options(
        3, {"scoring": scoring, "points_per_trick": points_per_trick, **OH_HELL}))
    for bid, tricks in itertools.product(range(16), repeat=2):
        assert rules.deal_score(bid, tricks) == open_spiel_oh_hell(
            bid, tricks, off_bid_penalty, points_per_trick), (bid, tricks)


@pytest.mark.parametrize("scoring", ["oh_hell", "oh_hell_penalty"])
def test_oh_hell_scoring_needs_the_zero_bid_as_bonus_only(scoring: str) -> None:
    with pytest.raises(OptionError, match=f"option 'scoring': {scoring} scores an exact zero bid "
                                          "as OpenSpiel's oh_hell does.*set zero_bid to bonus_only"):
        blackout.resolve_options(4, {"scoring": scoring})


def test_worked_example_7_hook_forbids_the_bid_that_makes_the_total() -> None:
    options = {"deals": 5, "sequence": "down", "hook": True}
    state = blackout.new_game(4, 1, options, preset=Preset(dealer=3))
    assert state.deal.size == 5 and state.to_act == 0
    for bid in (2, 0, 1):
        state = GAME.apply(state, bid)
    assert state.to_act == 3
    assert GAME.legal_actions(state) == (0, 1, 3, 4, 5)
    with pytest.raises(IllegalActionError, match="seat 3 bid 2: the hook"):
        GAME.apply(state, 2)


def test_worked_example_8_last_default_deal_of_four_has_no_trump() -> None:
    state = blackout.new_game(4, 5)
    last = state.rules.deals[-1]
    assert len(state.rules.deals) == 13 and last.size == 13
    assert last.trump_card is None and last.trump is None
    dealt = [card for hand in last.dealt for card in hand]
    assert len(dealt) == len(set(dealt)) == 52


def test_default_deals_by_player_count() -> None:
    for players, deals in {3: 15, 4: 13, 5: 10, 6: 8, 7: 7}.items():
        state = blackout.new_game(players, 1)
        assert [d.size for d in state.rules.deals] == list(range(1, deals + 1))
        has_trump = [d.trump is not None for d in state.rules.deals]
        assert has_trump == [True] * (deals - 1) + [players * deals < 52]


def test_sequences_and_no_trump_last_always() -> None:
    down = blackout.new_game(3, 1, {"deals": 4, "sequence": "down"})
    assert [d.size for d in down.rules.deals] == [4, 3, 2, 1]
    up_down = blackout.new_game(3, 1, {"deals": 3, "sequence": "up_down", "no_trump_last": "always"})
    assert [d.size for d in up_down.rules.deals] == [1, 2, 3, 2, 1]
    assert [d.trump_card is None for d in up_down.rules.deals] == [False] * 4 + [True]


def test_dealer_passes_clockwise() -> None:
    deals = blackout.new_game(5, 9).rules.deals
    assert [(b.dealer - a.dealer) % 5 for a, b in itertools.pairwise(deals)] == [1] * 9


def first_play_state(seed: int, options: dict[str, object],
                     preset: Preset | None = None) -> State:
    state = blackout.new_game(4, seed, options, preset=preset)
    while state.kind == "bid":
        state = GAME.apply(state, 0)
    return state


def after_first_lead(hands: list[str], trump_card: str, **options: object) -> State:
    """Two-card hands, seat 3 dealing (so seat 0 leads); everyone bid 0 and seat 0 led its lowest."""
    preset = Preset(dealer=3, deals=(PresetDeal.parse(hands, trump_card),))
    state = first_play_state(1, {"deals": 2, "sequence": "down", **options}, preset)
    return GAME.apply(state, GAME.legal_actions(state)[0])


def follow_situation(must_trump: bool) -> tuple[State, Card]:
    """Clubs led; seat 1 is void in clubs and holds a trump (hearts) and a diamond."""
    state = after_first_lead(["2C 3C", "5H 9D", "4C 6C", "7C 8C"], "AH", must_trump=must_trump)
    assert state.to_act == 1 and str(state.trick[0][1]) == "2C" and state.deal.trump == 2
    return state, Card.parse("9D")


def test_must_follow_suit_message_names_seat_card_and_suit() -> None:
    state = after_first_lead(["2C 3C", "5C 9D", "4C 6C", "7C 8C"], "AH")
    with pytest.raises(IllegalActionError, match="^seat 1 played 9D: must follow clubs$"):
        GAME.apply(state, Card.parse("9D"))


def test_must_trump_forces_a_trump_when_void() -> None:
    state, other = follow_situation(must_trump=True)
    legal = GAME.legal_actions(state)
    assert legal and all(c.suit == state.deal.trump for c in legal)
    with pytest.raises(IllegalActionError, match="must trump"):
        GAME.apply(state, other)


def test_without_must_trump_a_void_seat_plays_anything() -> None:
    state, other = follow_situation(must_trump=False)
    assert GAME.legal_actions(state) == state.hand(state.to_act)
    GAME.apply(state, other)


def test_a_card_not_in_hand_is_illegal_and_garbage_is_invalid() -> None:
    state = first_play_state(3, {})
    not_mine = next(c for c in blackout.deal_all(state.rules)[0].dealt[(state.to_act + 1) % 4])
    with pytest.raises(IllegalActionError, match="not in its hand"):
        GAME.apply(state, not_mine)
    with pytest.raises(InvalidActionError):
        GAME.parse_action(state, "XX")
    with pytest.raises(InvalidActionError):
        GAME.apply(state, "QS")


def test_bid_out_of_range_and_non_integer() -> None:
    state = blackout.new_game(4, 1)
    with pytest.raises(IllegalActionError, match="bids are 0..1"):
        GAME.apply(state, 2)
    with pytest.raises(InvalidActionError):
        GAME.parse_action(state, "one")
    with pytest.raises(InvalidActionError):
        GAME.parse_action(state, True)


def test_tiebreak_most_exact_bids_splits_equal_totals() -> None:
    assert blackout.places_of([11, 11, 0], [1, 0, 0], "most_exact_bids") == [1, 2, 3]
    assert blackout.places_of([11, 11, 0], [1, 0, 0], "shared") == [1, 1, 3]
    assert blackout.places_of([5, 11, 5], [2, 0, 2], "most_exact_bids") == [2, 1, 2]


@pytest.mark.parametrize(("raw", "message"), [
    ({"deals": 14}, "option 'deals': 14 is out of range"),
    ({"hook": "maybe"}, "option 'hook': expected true or false"),
    ({"scoring": "harsh"},
     "option 'scoring': 'harsh' is not one of classic, penalty, oh_hell, oh_hell_penalty"),
    ({"colour": 1}, "blackout has no option 'colour'"),
    ({"bonus": -1}, "option 'bonus': -1 is out of range"),
])
def test_bad_options_are_named(raw: dict[str, object], message: str) -> None:
    with pytest.raises(OptionError, match=message):
        blackout.resolve_options(4, raw)


def test_options_from_strings_and_player_count() -> None:
    options = blackout.resolve_options(5, {"hook": "true", "deals": "3"})
    assert options["hook"] is True and options["deals"] == 3
    with pytest.raises(OptionError, match="3 to 7 players"):
        blackout.resolve_options(2, {})
