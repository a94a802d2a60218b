"""Real games for the analysis's tests: the greedy starter bot at noise 0, 0.1 and 0.3 and the
random bot, short 3-player Blackout games played by real bot processes (24 games, 18 each)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from helpers import played_tournament

ROOT = Path(__file__).resolve().parents[3]
GREEDY = f"{sys.executable} -S {ROOT}/bots/python/greedy_bot.py"

NOISE = {"noise-0": GREEDY, "noise-0.1": f"{GREEDY} --noise 0.1",
         "noise-0.3": f"{GREEDY} --noise 0.3",
         "random": f"{sys.executable} -S {ROOT}/bots/python/random_bot.py"}


@pytest.fixture(scope="session")
def noise_results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A results directory of 24 games of 5 deals, each bot in 18 of them."""
    return played_tournament(tmp_path_factory.mktemp("analysis"), "noise-levels", NOISE,
                             players=3, options={"deals": 5}, rounds=2, seed=7)
