"""Blackout rules: the worked examples of docs/rules.md and the error messages."""

import pytest

from engine import blackout
from engine.cards import Card
from engine.errors import IllegalActionError, InvalidActionError, OptionError


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


def seed_with_dealer(players: int, dealer: int, options: dict[str, object]) -> int:
    return next(s for s in range(1000)
                if blackout.new_game(players, s, options).deal.dealer == dealer)


def test_worked_example_5_hook_forbids_the_bid_that_makes_the_total() -> None:
    options = {"deals": 5, "sequence": "down", "hook": True}
    state = blackout.new_game(4, seed_with_dealer(4, 3, options), options)
    assert state.deal.size == 5 and state.to_act == 0
    for bid in (2, 0, 1):
        state = blackout.apply(state, bid)
    assert state.to_act == 3
    assert blackout.legal_actions(state) == (0, 1, 3, 4, 5)
    with pytest.raises(IllegalActionError, match="seat 3 bid 2: the hook"):
        blackout.apply(state, 2)


def test_worked_example_6_last_default_deal_of_four_has_no_trump() -> None:
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
    assert [(b.dealer - a.dealer) % 5 for a, b in zip(deals, deals[1:], strict=False)] == [1] * 9


def first_play_state(seed: int, options: dict[str, object]) -> blackout.State:
    state = blackout.new_game(4, seed, options)
    while state.kind == "bid":
        state = blackout.apply(state, 0)
    return state


def find_follow_situation(must_trump: bool) -> tuple[blackout.State, Card]:
    """A state where the seat to act is void in the suit led and holds both a trump and another card."""
    options = {"deals": 8, "sequence": "down", "must_trump": must_trump}
    for seed in range(2000):
        state = first_play_state(seed, options)
        state = blackout.apply(state, blackout.legal_actions(state)[0])
        hand = state.hand(state.to_act)
        led = state.trick[0][1].suit
        trump = state.deal.trump
        others = [c for c in hand if c.suit not in (led, trump)]
        if trump is not None and led != trump and all(c.suit != led for c in hand) \
                and any(c.suit == trump for c in hand) and others:
            return state, others[0]
    raise AssertionError("no such deal found")


def test_must_follow_suit_message_names_seat_card_and_suit() -> None:
    for seed in range(200):
        state = first_play_state(seed, {"deals": 6, "sequence": "down"})
        state = blackout.apply(state, blackout.legal_actions(state)[0])
        led = state.trick[0][1].suit
        hand = state.hand(state.to_act)
        off = [c for c in hand if c.suit != led]
        if off and any(c.suit == led for c in hand):
            suit = ("clubs", "diamonds", "hearts", "spades")[led]
            with pytest.raises(IllegalActionError,
                               match=f"^seat {state.to_act} played {off[0]}: must follow {suit}$"):
                blackout.apply(state, off[0])
            return
    raise AssertionError("no deal to test found")


def test_must_trump_forces_a_trump_when_void() -> None:
    state, other = find_follow_situation(must_trump=True)
    legal = blackout.legal_actions(state)
    assert legal and all(c.suit == state.deal.trump for c in legal)
    with pytest.raises(IllegalActionError, match="must trump"):
        blackout.apply(state, other)


def test_without_must_trump_a_void_seat_plays_anything() -> None:
    state, other = find_follow_situation(must_trump=False)
    assert blackout.legal_actions(state) == state.hand(state.to_act)
    blackout.apply(state, other)


def test_a_card_not_in_hand_is_illegal_and_garbage_is_invalid() -> None:
    state = first_play_state(3, {})
    not_mine = next(c for c in blackout.deal_all(state.rules)[0].dealt[(state.to_act + 1) % 4])
    with pytest.raises(IllegalActionError, match="not in its hand"):
        blackout.apply(state, not_mine)
    with pytest.raises(InvalidActionError):
        blackout.parse_action(state, "XX")
    with pytest.raises(InvalidActionError):
        blackout.apply(state, "QS")


def test_bid_out_of_range_and_non_integer() -> None:
    state = blackout.new_game(4, 1)
    with pytest.raises(IllegalActionError, match="bids are 0..1"):
        blackout.apply(state, 2)
    with pytest.raises(InvalidActionError):
        blackout.parse_action(state, "one")
    with pytest.raises(InvalidActionError):
        blackout.parse_action(state, True)


def test_tiebreak_most_exact_bids_splits_equal_totals() -> None:
    assert blackout.places_of([11, 11, 0], [1, 0, 0], "most_exact_bids") == [1, 2, 3]
    assert blackout.places_of([11, 11, 0], [1, 0, 0], "shared") == [1, 1, 3]
    assert blackout.places_of([5, 11, 5], [2, 0, 2], "most_exact_bids") == [2, 1, 2]


@pytest.mark.parametrize("raw, message", [
    ({"deals": 14}, "option 'deals': 14 is out of range"),
    ({"hook": "maybe"}, "option 'hook': expected true or false"),
    ({"scoring": "harsh"}, "option 'scoring': 'harsh' is not one of classic, penalty"),
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
