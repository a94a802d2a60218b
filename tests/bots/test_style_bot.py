"""bench/bots/style_bot.py: the greedy bot in the styles of the styles ladder, run as a process."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
STYLE_BOT = ROOT / "bench" / "bots" / "style_bot.py"
GREEDY_BOT = ROOT / "bots" / "python" / "greedy_bot.py"

pytestmark = pytest.mark.timeout(60)

BID_VIEW = {"game": "blackout", "players": 4, "seat": 0, "dealer": 3, "options": {},
            "hand": ["AS", "KS", "QS", "AH", "2C", "3D"], "trump": "S", "trump_card": "2S",
            "hand_size": 6, "bids": [], "tricks_won": [0] * 4, "trick": [], "plays": []}
# seat 0 bid 1 and has its trick: greedy ducks with the highest card that loses, the dumper its lowest
MADE = [[0, "AS"], [1, "3S"], [2, "4S"], [3, "5S"]]
PLAY_VIEW = {"game": "blackout", "players": 4, "seat": 0, "dealer": 3, "options": {},
             "hand": ["2C", "9C", "KC"], "trump": "S", "trump_card": "2S", "hand_size": 4,
             "bids": [[0, 1], [1, 1], [2, 1], [3, 0]], "tricks_won": [1, 0, 0, 0],
             "trick": [[3, "TC"]], "plays": MADE + [[3, "TC"]]}


def answers(argv: list[str], *acts: tuple[str, dict, list]) -> list[object]:
    """The bot's actions for the given (kind, view, legal) act messages."""
    lines = [{"type": "game_start", "seed": 1}]
    lines += [{"type": "act", "id": i, "kind": kind, "view": view, "legal": legal}
              for i, (kind, view, legal) in enumerate(acts)]
    done = subprocess.run([sys.executable, *argv], input="".join(json.dumps(m) + "\n" for m in lines),
                          capture_output=True, text=True, timeout=60, check=True)
    return [json.loads(line)["action"] for line in done.stdout.splitlines()]


def test_cautious_and_bold_bid_one_under_and_one_over_greedy() -> None:
    bid = ("bid", BID_VIEW, list(range(7)))
    [greedy] = answers([str(GREEDY_BOT)], bid)
    assert isinstance(greedy, int) and 1 <= greedy <= 5
    assert answers([str(STYLE_BOT), "--style", "cautious"], bid) == [greedy - 1]
    assert answers([str(STYLE_BOT), "--style", "bold"], bid) == [greedy + 1]
    # where one more or one fewer is not legal, greedy's own bid
    assert answers([str(STYLE_BOT), "--style", "bold"], ("bid", BID_VIEW, [greedy])) == [greedy]


def test_the_dumper_plays_its_lowest_card_once_its_bid_is_made() -> None:
    play = ("play", PLAY_VIEW, ["2C", "9C", "KC"])
    assert answers([str(GREEDY_BOT)], play) == ["9C"]
    assert answers([str(STYLE_BOT), "--style", "dumper"], play) == ["2C"]


def test_an_unknown_style_is_one_line_and_a_failure() -> None:
    done = subprocess.run([sys.executable, str(STYLE_BOT), "--style", "shy"], capture_output=True,
                          text=True, timeout=60, check=False)
    assert done.returncode != 0
    assert done.stderr.strip().startswith("usage: style_bot.py --style cautious|bold|dumper")
    assert len(done.stderr.strip().splitlines()) == 1

