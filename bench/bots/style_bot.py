"""The greedy starter bot in another style, for the styles ladder (``bench/fields/styles.yaml``,
issue 42): bots that differ in how they bid and play, not in how often they blunder.

Run: python3 bench/bots/style_bot.py --style cautious|bold|dumper

- ``cautious``: bids one trick fewer than greedy would, where the rules allow it (else greedy's bid);
  its play then aims at the lower bid (greedy's play chases whatever the seat bid).
- ``bold``: bids one trick more than greedy would, where the rules allow it.
- ``dumper``: bids as greedy does and plays as greedy does until its bid is made; from then on it
  plays its lowest card (the lowest side card, trumps last) to every trick, leading or following,
  instead of greedy's careful ducking (the highest card that cannot win).

Everything else (Partnership Blackout, the message loop, ``hello``) is greedy's, unchanged: the
module patches greedy_bot's decision functions and runs its ``main``.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bots" / "python"))

import greedy_bot

STYLES = ("cautious", "bold", "dumper")
greedy_bid = greedy_bot.choose_bid
greedy_play = greedy_bot.choose_play


def shifted_bid(step: int):
    """A bid function: greedy's bid plus ``step``, or greedy's when that bid is not legal."""

    def bid(view: dict, legal: list) -> int:
        honest = greedy_bid(view, legal)
        return honest + step if honest + step in legal else honest

    return bid


def dumping_play(view: dict, legal: list) -> str:
    """Greedy's play until the bid is made (Blackout), then the lowest legal card."""
    if view.get("game") == "partnership-blackout":
        return greedy_play(view, legal)
    seat = view["seat"]
    bid = next((b for s, b in reversed(view.get("bids") or []) if s == seat), 0)
    if view["tricks_won"][seat] < bid:
        return greedy_play(view, legal)
    trump = view.get("trump")
    return min(legal, key=lambda card: greedy_bot.danger(card, trump))


def parse_style(argv: list) -> str:
    """The ``--style S`` of the command line; exits with one line when it is missing or unknown."""
    if len(argv) == 2 and argv[0] == "--style" and argv[1] in STYLES:
        return argv[1]
    sys.exit(f"usage: style_bot.py --style {'|'.join(STYLES)}, got {' '.join(argv) or 'nothing'}")


def main() -> None:
    style = parse_style(sys.argv[1:])
    if style == "cautious":
        greedy_bot.choose_bid = shifted_bid(-1)
    elif style == "bold":
        greedy_bot.choose_bid = shifted_bid(+1)
    else:
        greedy_bot.choose_play = dumping_play
    sys.argv[1:] = []  # greedy's own parser: no noise
    greedy_bot.main()


if __name__ == "__main__":
    main()
