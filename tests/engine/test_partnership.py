"""Partnership Blackout rules: the worked examples of docs/rules.md, the auction, spade leads."""

import pytest

from engine import partnership as p
from engine.chance import Preset, PresetDeal
from engine.errors import IllegalActionError, InvalidActionError, OptionError
from engine.trickgame import Contract, State

GAME = p.GAME


def game_with_dealer(dealer: int, options: dict[str, object] | None = None) -> State:
    return p.new_game(4, 1, options, preset=Preset(dealer=dealer))


def call_all(state: State, calls: list[tuple[int, object]]) -> State:
    for seat, call in calls:
        assert state.to_act == seat, f"seat {state.to_act} to call, not {seat}"
        state = GAME.apply(state, call)
    return state


def score(contract: Contract, tricks_by_seat: list[int], **options: object) -> int:
    return p.Rules(1, p.resolve_options(4, options)).contract_score(contract, tricks_by_seat)


def test_worked_example_1_numbers_add_up() -> None:
    state = call_all(game_with_dealer(3), [(0, 4), (1, 3), (2, 5), (3, 2)])
    assert state.phase.contract == (0, "number", 9)
    assert state.kind == "play" and state.to_act == 0
    assert score((0, "number", 9), [6, 1, 4, 2]) == 11


def test_worked_example_2_pass_skips_the_partner() -> None:
    state = call_all(game_with_dealer(3), [(0, 6), (1, "pass"), (2, 5)])
    assert state.phase.contract == (0, "number", 11)
    assert [seat for seat, _ in state.phase.calls] == [0, 1, 2]
    assert score((0, "number", 11), [7, 0, 6, 0]) == 40
    assert score((0, "number", 11), [5, 1, 5, 2]) == -10


def test_worked_example_3_zero_contract() -> None:
    state = call_all(game_with_dealer(3), [(0, "zero"), (1, "pass")])
    assert state.phase.contract == (0, "zero", 0)
    assert score((0, "zero", 0), [0, 7, 0, 6]) == 40
    assert score((0, "zero", 0), [0, 7, 1, 5]) == -10


def test_worked_example_4_pass_cancels_the_partners_number() -> None:
    state = call_all(game_with_dealer(3), [(0, 7), (1, 5), (2, "pass"), (3, 1)])
    assert state.phase.contract == (1, "number", 6)
    assert score((1, "number", 6), [4, 3, 3, 3]) == 10


def test_worked_example_5_equal_capped_numbers_go_to_the_first_callers_team() -> None:
    state = call_all(game_with_dealer(3), [(0, 8), (1, 6), (2, 5), (3, 7)])
    assert state.phase.contract == (0, "number", 12)


def test_worked_example_6_pass_against_pass_is_a_void_deal() -> None:
    state = game_with_dealer(3)
    after = call_all(state, [(0, "pass"), (1, "pass")])
    void = after.history[-1]
    assert void.contract is None and void.plays == () and void.scores == (0, 0)
    assert after.deal.number == 2 and after.deal.dealer == 0 and after.kind == "call"
    assert GAME.totals(after) == [0, 0]


def test_zero_against_zero_goes_to_the_first_callers_team() -> None:
    state = call_all(game_with_dealer(0), [(1, "zero"), (2, "zero")])
    assert state.phase.contract == (1, "zero", 0)


def test_per_trick_contract_points() -> None:
    assert score((0, "number", 5), [3, 0, 4, 0], contract_points="per_trick") == 52
    assert score((0, "number", 5), [2, 0, 1, 0], contract_points="per_trick") == -50
    assert score((0, "number", 5), [13, 0, 0, 0], contract_points="per_trick") == 40


def test_call_errors() -> None:
    state = game_with_dealer(3)
    with pytest.raises(IllegalActionError, match="seat 0 called 13: a number call is 1..12"):
        GAME.apply(state, 13)
    with pytest.raises(InvalidActionError):
        GAME.parse_action(state, "double")


LEADER_WITH_SPADES = Preset(dealer=3, deals=(PresetDeal.parse([
    "2S 3S 4S 2H 3H 4H 5H 6H 7H 8H 9H TH JH",
    "5S 6S 7S QH KH AH 2D 3D 4D 5D 6D 7D 8D",
    "8S 9S TS 9D TD JD QD KD AD 2C 3C 4C 5C",
    "JS QS KS AS 6C 7C 8C 9C TC JC QC KC AC",
]),))


def play_to_lead(options: dict[str, object]) -> State:
    """The first lead, by seat 0, from a hand of three spades and ten hearts."""
    state = call_all(p.new_game(4, 1, options, preset=LEADER_WITH_SPADES),
                     [(0, 1), (1, 1), (2, 1), (3, 1)])
    assert state.kind == "play" and state.to_act == 0
    return state


def test_spade_lead_only_if_only_spades() -> None:
    state = play_to_lead({})
    assert all(c.suit != 3 for c in GAME.legal_actions(state))
    spade = next(c for c in state.hand(state.to_act) if c.suit == 3)
    with pytest.raises(IllegalActionError, match="may not lead a spade"):
        GAME.apply(state, spade)


def test_spade_lead_any() -> None:
    state = play_to_lead({"spade_lead": "any"})
    assert GAME.legal_actions(state) == state.hand(state.to_act)


def test_spade_lead_after_broken() -> None:
    state = play_to_lead({"spade_lead": "after_broken"})
    assert all(c.suit != 3 for c in GAME.legal_actions(state))
    with pytest.raises(IllegalActionError, match="spades are not broken"):
        GAME.apply(state, next(c for c in state.hand(state.to_act) if c.suit == 3))


@pytest.mark.slow
def test_game_ends_at_target_and_plays_on_when_equal() -> None:
    import random
    for seed in range(40):
        state = p.new_game(4, seed, {"target": 30, "max_deals": 60})
        rng = random.Random(seed)
        while state.to_act is not None:
            state = GAME.apply(state, rng.choice(GAME.legal_actions(state)))
        totals = GAME.totals(state)
        history = state.history
        ended_on_target = max(totals) >= 30 and totals[0] != totals[1]
        assert ended_on_target or len(history) == 60
        for deal in history[:-1]:
            earlier = deal.totals
            assert max(earlier) < 30 or earlier[0] == earlier[1]


def test_options_are_validated() -> None:
    with pytest.raises(OptionError, match="exactly 4 players"):
        p.resolve_options(5, {})
    with pytest.raises(OptionError, match="option 'spade_lead'"):
        p.resolve_options(4, {"spade_lead": "never"})
    with pytest.raises(OptionError, match="option 'target': 0 is out of range"):
        p.resolve_options(4, {"target": 0})
