"""Real games for the analysis's tests: the greedy starter bot at noise 0, 0.1 and 0.3 and the
random bot, short 3-player Blackout games played by real bot processes (24 games, 18 each)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from arena.runs.runner import run_tournament

ROOT = Path(__file__).resolve().parents[3]
GREEDY = f"{sys.executable} -S {ROOT}/bots/python/greedy_bot.py"

NOISE = f"""
name: noise-levels
game: blackout
players: 3
options: {{deals: 5}}
rounds: 2
seed: 7
time: {{move_ms: 5000, bank_ms: 20000, start_ms: 20000}}
bots:
  - name: noise-0
    cmd: {GREEDY}
  - name: noise-0.1
    cmd: {GREEDY} --noise 0.1
  - name: noise-0.3
    cmd: {GREEDY} --noise 0.3
  - name: random
    cmd: {sys.executable} -S {ROOT}/bots/python/random_bot.py
"""


@pytest.fixture(scope="session")
def noise_results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A results directory of 24 games of 5 deals, each bot in 18 of them."""
    tmp = tmp_path_factory.mktemp("analysis")
    file = tmp / "noise.yaml"
    file.write_text(NOISE)
    out = tmp / "noise"
    run_tournament(file, out=out, jobs=1, resamples=0, progress_stream=None)
    return out
