"""Real results for the report's tests: small tournaments played by real bot processes.

A Blackout tournament of three starter bots and one bot that crashes on its third decision (so
every game it plays has a fault), and a short Partnership Blackout one; each written once per test
session into a temporary results directory by `arena.runs.runner.run_tournament`.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from helpers import build_c_bots, played_tournament

ROOT = Path(__file__).resolve().parents[3]

BLACKOUT = {
    "greedy": f"{sys.executable} -S {ROOT}/bots/python/greedy_bot.py",
    "random-py": f"{sys.executable} -S {ROOT}/bots/python/random_bot.py",
    "random-c": f"{ROOT}/bots/c/random_bot",
    "crasher": f"{sys.executable} -S {ROOT}/tests/bots/misbehaving/crash_mid_game.py 3",
}

PARTNERSHIP = {"greedy": BLACKOUT["greedy"], "random-c": BLACKOUT["random-c"]}


@pytest.fixture(scope="session")
def blackout_results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A results directory of 8 short Blackout games, 4 of them with a crash fault."""
    build_c_bots()
    return played_tournament(tmp_path_factory.mktemp("results"), "report-test", BLACKOUT,
                             players=4, options={"deals": 4}, rounds=2, seed=11)


@pytest.fixture(scope="session")
def partnership_results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A results directory of 2 short Partnership Blackout games."""
    build_c_bots()
    return played_tournament(tmp_path_factory.mktemp("results"), "report-test-partnership",
                             PARTNERSHIP, game="partnership-blackout",
                             options={"target": 30, "max_deals": 2}, rounds=1, seed=5)
