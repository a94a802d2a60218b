"""An overbidder for the luck-adjusted ratings' tests: the greedy bot, bidding one trick more than
greedy would whenever the rules allow it (its play then chases the higher bid).

Run: python3 tests/bots/overbid_bot.py

A bid is the seat's own decision, not a chance event: a rating that took the bid for luck (a value
estimate of the deal that read the bid) could credit an overbidder for the higher contract it chose.
The adjusted rating reads only the dealt cards, so this bot must rate no better there than raw.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bots" / "python"))

import greedy_bot

honest_bid = greedy_bot.choose_bid


def overbid(view: dict, legal: list) -> int:
    """Greedy's bid plus one, or greedy's when one more is not legal."""
    bid = honest_bid(view, legal)
    return bid + 1 if bid + 1 in legal else bid


greedy_bot.choose_bid = overbid

if __name__ == "__main__":
    greedy_bot.main()
