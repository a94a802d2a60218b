"""A deal played out from its dealt hands (strategy.playout), as the luck-adjusted rating's value."""

from __future__ import annotations

from engine import game
from strategy.playout import deal_scores

BLACKOUT = game("blackout")


def test_a_deal_is_bid_and_played_as_the_greedy_bot_would() -> None:
    options = BLACKOUT.resolve_options(4)
    # seat 0 leads (dealer 3) the ace of trumps: it bids 1 and takes it, the others bid 0 and
    # make it; seat 1 holds the king of trumps instead, and bids 1 too: one of the two misses
    assert playout_scores(options, [["AS"], ["3H"], ["4H"], ["5H"]]) == [11, 11, 11, 11]
    assert playout_scores(options, [["AS"], ["KS"], ["4H"], ["5H"]]) == [11, 0, 11, 11]


def playout_scores(options: dict[str, object], hands: list[list[str]]) -> list[int]:
    return deal_scores(BLACKOUT, options, 3, hands, "2S")
