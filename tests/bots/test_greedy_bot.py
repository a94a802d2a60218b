"""The greedy starter bot's decisions, as pure functions of hand-made and generated views."""

from __future__ import annotations

import importlib.util
import random
from pathlib import Path
from types import ModuleType

import pytest

BOT_PATH = Path(__file__).resolve().parents[2] / "bots" / "python" / "greedy_bot.py"
RANKS = "23456789TJQKA"
DECK = [r + s for s in "CDHS" for r in RANKS]

pytestmark = pytest.mark.timeout(60)


def _load_bot() -> ModuleType:
    spec = importlib.util.spec_from_file_location("greedy_bot", BOT_PATH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


greedy = _load_bot()


def blackout_view(hand: list[str], *, seat: int = 0, players: int = 4, dealer: int | None = None,
                  trump_card: str | None = "2S", bids: list | None = None,
                  plays: list | None = None, trick: list | None = None,
                  tricks_won: list[int] | None = None, hand_size: int | None = None,
                  options: dict | None = None) -> dict:
    """A Blackout view in the protocol's shape (docs/protocol.md, "The view")."""
    trick = trick or []
    plays = (plays or []) + trick
    dealer = (seat - 1) % players if dealer is None else dealer
    return {
        "game": "blackout", "players": players, "seat": seat, "options": options or {},
        "deal": 3, "deals": 13, "hand_size": hand_size or len(hand), "dealer": dealer,
        "hand": hand, "trump_card": trump_card, "trump": trump_card[1] if trump_card else None,
        "bids": bids or [], "plays": plays, "trick": trick,
        "leader": trick[0][0] if trick else seat,
        "tricks_won": tricks_won or [0] * players, "totals": [0] * players,
    }


def partnership_view(hand: list[str], *, seat: int = 0, dealer: int = 3, calls: list | None = None,
                     contract: dict | None = None, trick: list | None = None,
                     plays: list | None = None, tricks_won: list[int] | None = None) -> dict:
    """A Partnership Blackout view in the protocol's shape."""
    trick = trick or []
    return {
        "game": "partnership-blackout", "players": 4, "seat": seat, "options": {},
        "teams": [[0, 2], [1, 3]], "deal": 1, "dealer": dealer, "hand": hand,
        "trump_card": None, "trump": "S", "calls": calls or [], "contract": contract,
        "plays": (plays or []) + trick, "trick": trick, "leader": trick[0][0] if trick else seat,
        "tricks_won": tricks_won or [0, 0, 0, 0], "totals": [0, 0],
    }


# --- Blackout bidding ---------------------------------------------------------------------------


def test_bids_its_sure_trump_tricks() -> None:
    view = blackout_view(["AS", "KS", "QS"], trump_card="2S")
    assert greedy.choose_bid(view, [0, 1, 2, 3]) == 3


def test_bids_zero_with_a_hopeless_hand() -> None:
    view = blackout_view(["2C", "3D", "4H"], trump_card="AS")
    assert greedy.choose_bid(view, [0, 1, 2, 3]) == 0


def test_bid_grows_with_high_cards() -> None:
    weak = blackout_view(["2C", "3D", "4H", "5C", "6D"], trump_card="2S")
    strong = blackout_view(["AS", "KS", "AH", "AD", "AC"], trump_card="2S")
    legal = list(range(6))
    assert greedy.choose_bid(strong, legal) >= greedy.choose_bid(weak, legal) + 3


def test_bid_respects_the_hook() -> None:
    # Dealer (seat 3) may not bid 3 here: the nearest allowed bid to its 3 sure tricks is 2.
    view = blackout_view(["AS", "KS", "QS"], seat=3, dealer=3, bids=[[0, 0], [1, 0], [2, 0]])
    assert greedy.choose_bid(view, [0, 1, 2]) == 2


# --- Blackout play ------------------------------------------------------------------------------


def test_ducks_once_its_bid_is_made() -> None:
    # Seat 1 bid 1 and took the first trick; seat 0 took the second and leads the third.
    plays = [[1, "AD"], [2, "4D"], [3, "5D"], [0, "3D"], [1, "2C"], [2, "3C"], [3, "4C"], [0, "KC"]]
    view = blackout_view(["AH", "9H", "7C"], seat=1, bids=[[1, 1]], tricks_won=[1, 1, 0, 0],
                         plays=plays, trick=[[0, "TH"]], hand_size=5)
    assert greedy.choose_play(view, ["AH", "9H"]) == "9H"


def test_ducking_discards_its_most_dangerous_losing_card() -> None:
    # Void in hearts: the trump would win, so it throws the king of clubs.
    view = blackout_view(["AS", "KC", "2D"], seat=1, bids=[[1, 0]], trick=[[0, "TH"]])
    assert greedy.choose_play(view, ["AS", "KC", "2D"]) == "KC"


def test_ducking_when_every_card_wins_as_last_player_dumps_the_highest() -> None:
    view = blackout_view(["AH", "QH"], seat=3, bids=[[3, 0]], hand_size=2,
                         trick=[[0, "2H"], [1, "3H"], [2, "4H"]])
    assert greedy.choose_play(view, ["AH", "QH"]) == "AH"


def test_wins_the_trick_cheaply_when_it_needs_tricks() -> None:
    view = blackout_view(["AH", "QH", "2C"], seat=3, bids=[[3, 1]],
                         trick=[[0, "TH"], [1, "3H"], [2, "4H"]])
    assert greedy.choose_play(view, ["AH", "QH"]) == "QH"


def test_ruffs_when_void_and_needing_tricks() -> None:
    view = blackout_view(["3S", "KC", "2D"], seat=3, bids=[[3, 1]],
                         trick=[[0, "TH"], [1, "3H"], [2, "AH"]])
    assert greedy.choose_play(view, ["3S", "KC", "2D"]) == "3S"


def test_throws_its_cheapest_card_when_it_cannot_win() -> None:
    view = blackout_view(["KC", "2D", "9D"], seat=3, bids=[[3, 1]],
                         trick=[[0, "TH"], [1, "3H"], [2, "AH"]])
    assert greedy.choose_play(view, ["KC", "2D", "9D"]) == "2D"


def test_leads_a_sure_winner_when_it_needs_tricks() -> None:
    view = blackout_view(["AS", "7C", "2D"], bids=[[0, 1]], trump_card="2S")
    assert greedy.choose_play(view, ["AS", "7C", "2D"]) == "AS"


def test_leads_low_once_its_bid_is_made() -> None:
    view = blackout_view(["AS", "KC", "2D"], bids=[[0, 0]], trump_card="2S")
    assert greedy.choose_play(view, ["AS", "KC", "2D"]) == "2D"


def test_no_trump_deal() -> None:
    view = blackout_view(["AH", "2H"], seat=3, trump_card=None, bids=[[3, 1]], hand_size=2,
                         trick=[[0, "KH"], [1, "3H"], [2, "4H"]])
    assert greedy.choose_play(view, ["AH", "2H"]) == "AH"


def test_remembers_who_showed_out() -> None:
    # Seat 2 discarded on a heart lead, so it is void in hearts.
    voids = greedy.known_voids(blackout_view(
        ["AD"], seat=0, hand_size=2,
        plays=[[1, "2H"], [2, "5C"], [3, "3H"], [0, "4H"]]))
    assert voids[2] == {"H"} and voids[3] == set()


# --- Partnership Blackout -----------------------------------------------------------------------

STRONG = ["AS", "KS", "QS", "JS", "AH", "AD", "AC", "KH", "KD", "KC", "QH", "QD", "QC"]
WEAK = ["2S", "3S", "2H", "3H", "4H", "5H", "2D", "3D", "4D", "5D", "2C", "3C", "4C"]
CALLS = [*range(1, 13), "pass", "zero"]


def test_calls_high_with_a_strong_hand() -> None:
    assert greedy.choose_call(partnership_view(STRONG), CALLS) >= 9


def test_calls_zero_with_a_very_weak_hand_as_first_caller() -> None:
    assert greedy.choose_call(partnership_view(WEAK), CALLS) == "zero"


def test_never_cancels_its_partners_number_with_zero() -> None:
    view = partnership_view(WEAK, seat=2, calls=[[0, 4], [1, 3]])
    assert isinstance(greedy.choose_call(view, CALLS), int)


def test_passes_when_the_auction_is_lost() -> None:
    # Dealer 1: seats 2, 3, 0 have called; the other team's 12 beats anything seat 1 can add.
    view = partnership_view(WEAK, seat=1, dealer=1, calls=[[2, 6], [3, 1], [0, 6]])
    assert greedy.choose_call(view, CALLS) == "pass"


def test_calls_a_number_only_from_legal() -> None:
    view = partnership_view(STRONG)
    assert greedy.choose_call(view, [1, 2, 3, "pass"]) == 3


def test_does_not_overtake_a_partner_who_holds_the_trick() -> None:
    view = partnership_view(["KH", "4H", "2C"], seat=2, contract={"team": 0, "kind": "number",
                                                                    "tricks": 7},
                            trick=[[0, "AH"], [1, "3H"]])
    assert greedy.choose_play(view, ["KH", "4H"]) == "4H"


def test_beats_an_opponent_for_its_team() -> None:
    view = partnership_view(["KH", "4H", "2C"], seat=3, contract={"team": 1, "kind": "number",
                                                                    "tricks": 7},
                            trick=[[0, "QH"], [1, "3H"], [2, "5H"]])
    assert greedy.choose_play(view, ["KH", "4H"]) == "KH"


def test_ducks_against_the_other_teams_zero() -> None:
    view = partnership_view(["KH", "4H", "2C"], seat=3, contract={"team": 0, "kind": "zero",
                                                                    "tricks": 0},
                            trick=[[0, "QH"], [1, "3H"], [2, "5H"]])
    assert greedy.choose_play(view, ["KH", "4H"]) == "4H"


def test_ducks_under_its_own_zero() -> None:
    view = partnership_view(["KH", "4H", "2C"], seat=1, contract={"team": 1, "kind": "zero",
                                                                    "tricks": 0},
                            trick=[[0, "5H"]])
    assert greedy.choose_play(view, ["KH", "4H"]) == "4H"


# --- Generated positions: the choice is always legal ---------------------------------------------


def _follow(hand: list[str], trick: list) -> list[str]:
    if not trick:
        return list(hand)
    led = trick[0][1][1]
    same = [c for c in hand if c[1] == led]
    return same or list(hand)


@pytest.mark.parametrize("seed", range(20))
def test_generated_partnership_deals_get_legal_answers(seed: int) -> None:
    rng = random.Random(seed)
    deck = DECK[:]
    rng.shuffle(deck)
    hands = [deck[i * 13 : (i + 1) * 13] for i in range(4)]
    dealer = rng.randrange(4)
    calls: list = []
    for i in range(4):
        seat = (dealer + 1 + i) % 4
        if any(s == (seat + 2) % 4 and c in ("pass", "zero") for s, c in calls):
            continue  # the partner's pass or zero skips this seat
        view = partnership_view(hands[seat], seat=seat, dealer=dealer, calls=list(calls))
        call = greedy.decide("call", view, CALLS)
        assert call in CALLS
        calls.append([seat, call])
    team = rng.randrange(2)
    contract = rng.choice([{"team": team, "kind": "number", "tricks": rng.randint(1, 12)},
                           {"team": team, "kind": "zero", "tricks": 0}])
    won = [0] * 4
    leader = (dealer + 1) % 4
    plays: list = []
    for _ in range(13):
        trick: list = []
        for i in range(4):
            seat = (leader + i) % 4
            view = partnership_view(hands[seat], seat=seat, dealer=dealer, calls=calls,
                                    contract=contract, plays=list(plays), trick=list(trick),
                                    tricks_won=list(won))
            legal = _follow(hands[seat], trick)
            card = greedy.decide("play", view, legal)
            assert card in legal
            hands[seat].remove(card)
            trick.append([seat, card])
        plays += trick
        leader = greedy.trick_winner(trick, "S")[0]
        won[leader] += 1
    assert sum(won) == 13


@pytest.mark.parametrize("seed", range(40))
def test_generated_blackout_positions_get_a_legal_answer(seed: int) -> None:
    rng = random.Random(seed)
    players = rng.randint(3, 7)
    size = rng.randint(1, 52 // players)
    deck = DECK[:]
    rng.shuffle(deck)
    hands = [deck[i * size : (i + 1) * size] for i in range(players)]
    left = deck[players * size :]
    trump_card = left[0] if left else None
    dealer = rng.randrange(players)
    bids = [[(dealer + 1 + i) % players, rng.randint(0, size)] for i in range(players)]
    for seat in range(players):
        view = blackout_view(hands[seat], seat=seat, players=players, dealer=dealer,
                             trump_card=trump_card, bids=bids[: (seat - dealer - 1) % players])
        legal = list(range(size + 1))
        assert greedy.decide("bid", view, legal) in legal
    # Play out the whole deal with the greedy bot in every seat, checking each answer.
    won = [0] * players
    leader = (dealer + 1) % players
    plays: list = []
    for _ in range(size):
        trick: list = []
        for i in range(players):
            seat = (leader + i) % players
            view = blackout_view(hands[seat], seat=seat, players=players, dealer=dealer,
                                 trump_card=trump_card, bids=bids, plays=list(plays),
                                 trick=list(trick), tricks_won=list(won), hand_size=size)
            legal = _follow(hands[seat], trick)
            card = greedy.decide("play", view, legal)
            assert card in legal
            hands[seat].remove(card)
            trick.append([seat, card])
        plays += trick
        leader = greedy.trick_winner(trick, trump_card[1] if trump_card else None)[0]
        won[leader] += 1
    assert sum(won) == size


def test_unknown_kind_gets_the_first_legal_action() -> None:
    assert greedy.decide("auction", {}, ["x", "y"]) == "x"
