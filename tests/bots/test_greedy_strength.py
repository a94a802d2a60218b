"""The greedy starter bot beats the random one clearly, through the arena with real processes.

The same bot processes play every game (``play_game`` called again and again, as a tournament
keeps them alive), so the many games cost a few milliseconds each. Both bots seed their choices
from ``game_start``, so the games, and the counts below, are the same on every run; the margins
are nonetheless set as a statistical test against the random baseline, with room to spare.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from math import comb
from pathlib import Path

import pytest

from arena.bots.process import BotProcess
from arena.bots.shutdown import close_bots
from arena.referee.referee import play_game
from arena.settings import TimeControl

pytestmark = [pytest.mark.slow, pytest.mark.timeout(240)]

PYTHON_BOTS = Path(__file__).resolve().parents[2] / "bots" / "python"
TIME = TimeControl(start_ms=20_000, move_ms=5_000, bank_ms=30_000)  # bounds a hang only
BLACKOUT_GAMES = 50  # greedy wins 48 (of 100: 96): chance wins 48 of 50 with p ~ 1e-26
PARTNERSHIP_GAMES = 20  # greedy's team wins all 20, in games to 50 points as to 100
PARTNERSHIP_TARGET = 50  # points that end a partnership game: 100 takes twice as many deals


def upper_tail(wins: int, games: int, p: float) -> float:
    """P(X >= wins) for X ~ Binomial(games, p): how likely chance alone wins this often."""
    return sum(comb(games, k) * p**k * (1 - p) ** (games - k) for k in range(wins, games + 1))


@pytest.fixture
def bots() -> Iterator[dict[str, list[BotProcess]]]:
    """Two greedy and three random bot processes, started once for all the games."""
    started = {
        kind: [BotProcess(f"{kind}{n}", [sys.executable, "-S", str(PYTHON_BOTS / f"{kind}_bot.py")])
               for n in range(copies)]
        for kind, copies in (("greedy", 2), ("random", 3))
    }
    everyone = [bot for group in started.values() for bot in group]
    try:
        for bot in everyone:
            bot.start()
        yield started
    finally:
        close_bots(everyone)


def test_greedy_wins_most_four_player_blackout_games_against_three_random_bots(bots):
    greedy, randoms = bots["greedy"][0], bots["random"]
    wins = place_sum = 0
    for game in range(BLACKOUT_GAMES):
        seat = game % 4  # greedy sits in every seat in turn
        seats = [*randoms[:seat], greedy, *randoms[seat:]]
        record = play_game("blackout", seats, 50_000 + game, time_control=TIME).record
        assert record["faults"] == []
        place = record["places"][seat]
        wins += place == 1
        place_sum += place
    # A random seat wins a quarter of the games (a shared first place counts as a win) and its
    # mean place is 2.5. Greedy must win most games, far beyond what chance allows.
    assert wins > BLACKOUT_GAMES // 2, f"greedy won {wins} of {BLACKOUT_GAMES}"
    assert upper_tail(wins, BLACKOUT_GAMES, 0.25) < 1e-9
    assert place_sum / BLACKOUT_GAMES < 1.5, f"greedy's mean place {place_sum / BLACKOUT_GAMES}"


def test_greedy_team_wins_most_partnership_games_against_a_random_team(bots):
    greedy, randoms = bots["greedy"], bots["random"]
    wins = 0
    for game in range(PARTNERSHIP_GAMES):
        team = game % 2  # greedy plays seats 0 and 2, then 1 and 3
        seats = ([greedy[0], randoms[0], greedy[1], randoms[1]] if team == 0
                 else [randoms[0], greedy[0], randoms[1], greedy[1]])
        record = play_game("partnership-blackout", seats, 60_000 + game, {"target": PARTNERSHIP_TARGET},
                           time_control=TIME).record
        assert record["faults"] == []
        wins += record["places"][team] == 1 and record["places"][1 - team] == 2
    # Evenly matched teams win half the games each.
    assert wins >= 0.8 * PARTNERSHIP_GAMES, f"greedy's team won {wins} of {PARTNERSHIP_GAMES}"
    assert upper_tail(wins, PARTNERSHIP_GAMES, 0.5) < 1e-3  # 18 of 20 or more
