"""The greedy starter bot's bidding and calling, as the samplers' model of how a seat bids.

``strategy.sampling`` weighs the deals it draws by how well each seat's bid fits the hand the deal
gives it, and finishes an auction with every other seat bidding as this model does. These are the
functions of ``bots/python/greedy_bot.py`` (which stays a standalone starter bot, standard library
only) over card names: tests/strategy/test_bidding.py holds the two to the same bids.
"""

from __future__ import annotations

from math import comb
from typing import Any

RANKS = "23456789TJQKA"
SUITS = "CDHS"
RANK = {r: i for i, r in enumerate(RANKS)}


def _fewer_than(have: int, pool: int, hand: int, below: int) -> float:
    """P(``hand`` cards drawn from ``pool`` hold fewer than ``below`` of ``have`` given cards)."""
    total = comb(pool, hand)
    if total == 0:
        return 0.0
    hits = range(min(below, have + 1))
    return sum(comb(have, k) * comb(pool - have, hand - k) for k in hits) / total


def estimate_tricks(hand: list[str], trump: str | None, trump_card: str | None, opponents: int,
                    opponent_share: float, leads_first: bool = True) -> float:
    """Expected tricks for ``hand`` before any card is played (greedy_bot.estimate_tricks)."""
    size = len(hand)
    pool = 52 - size - (1 if trump_card else 0)
    by_suit = {s: sorted((RANK[c[0]] for c in hand if c[1] == s), reverse=True) for s in SUITS}
    trumps = len(by_suit[trump]) if trump else 0
    trumps_out = 13 - trumps - (1 if trump_card else 0) if trump else 0
    opp_has_trump = 1 - _fewer_than(trumps_out, pool, size, 1)
    ruffs = 0
    if trump and size >= 4:
        short = [len(by_suit[s]) for s in SUITS if s != trump and len(by_suit[s]) <= 1]
        ruffs = sum(2 - length for length in short)
        if size >= 6:
            ruffs += max(0, trumps - size // 4 - 1)
    total = 0.0
    for suit, ranks in by_suit.items():
        known = set(ranks)
        if trump_card and trump_card[1] == suit:
            known.add(RANK[trump_card[0]])
        rest = 13 - len(known)
        for position, r in enumerate(ranks):
            higher = sum(1 for x in range(r + 1, 13) if x not in known)
            guards = len(ranks) - position - 1
            clear = (1 - opponent_share) ** higher
            promoted = 0.6**higher if guards >= higher else 0.0
            value = clear + (1 - clear) * promoted
            if trump and suit != trump:
                out_early = _fewer_than(rest, pool, size, position + 1)
                value *= (1 - out_early * opp_has_trump) ** opponents
                if size <= 2 and not leads_first:
                    value *= 0.3 if size == 1 else 0.7
            elif suit == trump and value < 0.6 and ruffs > 0 and trumps > 1:
                value, ruffs = 0.6, ruffs - 1
            total += value
    return min(total, float(size))


def closest(target: float, options: list[int]) -> int:
    """The option nearest to ``target`` (the lower one on a tie)."""
    return min(options, key=lambda x: (abs(x - target), x))


def bid_estimate(view: dict[str, Any], hand: list[str], seat: int) -> float:
    """Blackout: the tricks the greedy bot would bid for ``hand`` in ``seat``, before rounding."""
    players: int = view["players"]
    size = len(hand)
    pool = 52 - size - (1 if view.get("trump_card") else 0)
    share = min(1.0, (players - 1) * size / pool) if pool else 1.0
    leads_first = seat == (view["dealer"] + 1) % players
    estimate = estimate_tricks(hand, view.get("trump"), view.get("trump_card"), players - 1,
                               share, leads_first)
    # Low cards win late tricks once the other hands run out of a suit: measured in self-play.
    estimate += 0.4 * max(0.0, size / players - 1) * (players * size / 52)
    return min(estimate, float(size))


def call_estimate(hand: list[str]) -> float:
    """Partnership Blackout: the tricks the greedy bot reckons ``hand`` takes (spades trump)."""
    return estimate_tricks(hand, "S", None, 2, 2 / 3)


def choose_bid(view: dict[str, Any], legal: list[int]) -> int:
    """Blackout: the hand's estimated tricks, the nearest bid the rules allow."""
    return closest(bid_estimate(view, view["hand"], view["seat"]), legal)


def team_call(calls: list[Any], seats: list[int]) -> tuple[str | None, int, bool]:
    """A team's call so far: (None | "number" | "pass" | "zero", its number, is it final)."""
    state, number, heard = None, 0, 0
    for seat, call in calls:
        if seat not in seats:
            continue
        heard += 1
        if call in ("pass", "zero"):
            return call, 0, True
        state, number = "number", min(12, number + call)
    return state, number, heard >= 2


def is_nil_hand(hand: list[str]) -> bool:
    """A hand weak enough to call zero: no card above a jack, at most three spades, none above 9."""
    spades = [RANK[c[0]] for c in hand if c[1] == "S"]
    return (all(RANK[c[0]] <= RANK["J"] for c in hand) and len(spades) <= 3
            and all(r <= RANK["9"] for r in spades))


def choose_call(view: dict[str, Any], legal: list[Any]) -> Any:
    """Partnership Blackout: call the tricks this hand should take, or zero/pass in rare cases."""
    seat, hand = view["seat"], view["hand"]
    ours = next(team for team in view["teams"] if seat in team)
    theirs = next(team for team in view["teams"] if seat not in team)
    calls = view.get("calls") or []
    numbers = [c for c in legal if isinstance(c, int)]
    partner_kind, partner_number, _ = team_call(calls, ours)
    their_kind, their_number, their_final = team_call(calls, theirs)
    mine = max(1, min(12, int(call_estimate(hand) + 0.2)))
    if partner_kind is None and their_kind != "number" and "zero" in legal and is_nil_hand(hand):
        return "zero"
    if (partner_kind == "number" and their_kind == "number" and their_final and "pass" in legal
            and min(12, partner_number + mine) < their_number):
        return "pass"
    if numbers:
        return closest(mine, numbers)
    return legal[0]


def choose_auction(kind: str, view: dict[str, Any], legal: list[Any]) -> Any:
    """The greedy bot's bid (``kind`` "bid") or call; always an element of ``legal``."""
    action = choose_bid(view, legal) if kind == "bid" else choose_call(view, legal)
    return action if action in legal else legal[0]
