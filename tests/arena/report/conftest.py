"""Real results for the report's tests: small tournaments played by real bot processes.

A Blackout tournament of three starter bots and one bot that crashes on its third decision (so
every game it plays has a fault), and a short Partnership Blackout one; each written once per test
session into a temporary results directory by `arena.runs.run.run_tournament`.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from arena.runs.run import run_tournament

from helpers import build_c_bots

ROOT = Path(__file__).resolve().parents[3]

BLACKOUT = f"""
name: report-test
game: blackout
players: 4
options: {{deals: 4}}
rounds: 2
seed: 11
time: {{move_ms: 5000, bank_ms: 20000, start_ms: 20000}}
bots:
  - name: greedy
    cmd: {sys.executable} -S {ROOT}/bots/python/greedy_bot.py
  - name: random-py
    cmd: {sys.executable} -S {ROOT}/bots/python/random_bot.py
  - name: random-c
    cmd: {ROOT}/bots/c/random_bot
  - name: crasher
    cmd: {sys.executable} -S {ROOT}/tests/bots/misbehaving/crash_mid_game.py 3
"""

PARTNERSHIP = f"""
name: report-test-partnership
game: partnership-blackout
options: {{target: 30, max_deals: 2}}
rounds: 1
seed: 5
time: {{move_ms: 5000, bank_ms: 20000, start_ms: 20000}}
bots:
  - name: greedy
    cmd: {sys.executable} -S {ROOT}/bots/python/greedy_bot.py
  - name: random-c
    cmd: {ROOT}/bots/c/random_bot
"""


def _play(tmp: Path, name: str, text: str) -> Path:
    build_c_bots()
    file = tmp / f"{name}.yaml"
    file.write_text(text)
    out = tmp / name
    run_tournament(file, out=out, jobs=1, resamples=0, progress_stream=None)
    return out


@pytest.fixture(scope="session")
def blackout_results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A results directory of 8 short Blackout games, 4 of them with a crash fault."""
    return _play(tmp_path_factory.mktemp("results"), "blackout", BLACKOUT)


@pytest.fixture(scope="session")
def partnership_results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A results directory of 2 short Partnership Blackout games."""
    return _play(tmp_path_factory.mktemp("results"), "partnership", PARTNERSHIP)
