"""Analysis speed and precision (``python -m bench analyse``): decisions analysed per second at the
default samples, the time of one seat of a 4-player Blackout game, and how the standard error of a
decision's loss falls with the samples.

The games are 4-player Blackout with the default deals (1..13 cards), every seat played in
process by the greedy starter bot (bots/python/greedy_bot.py), recorded by the engine; one seat's
decisions are analysed as ``arena analyse`` does (``arena.analysis.game.analyse_game``), in this one
process. Timings are medians of ``REPEATS`` runs.
"""

from __future__ import annotations

import importlib.util
import statistics
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import engine
from arena.analysis.evaluate import evaluate
from arena.analysis.game import analyse_game, decision_points
from arena.settings import SAMPLES

ROOT = Path(__file__).resolve().parents[1]
REPEATS = 3
SEED = 1
SAMPLE_COUNTS = (8, 16, 32, 64, 128)
GOAL_SECONDS = 30.0


def _greedy() -> ModuleType:
    spec = importlib.util.spec_from_file_location("greedy_bot", ROOT / "bots/python/greedy_bot.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["greedy_bot"] = module
    spec.loader.exec_module(module)
    return module


def greedy_game(seed: int) -> dict[str, Any]:
    """The record of a 4-player Blackout game, every seat the greedy bot."""
    greedy = _greedy()
    game = engine.game("blackout")
    state = game.new_game(4, seed, {})
    while not state.is_over:
        legal = engine.actions_to_json(game.legal_actions(state))
        action = greedy.decide(state.kind, game.view(state, state.to_act), legal)
        state = game.apply(state, game.parse_action(state, action))
    return {**game.record(state, ["greedy"] * 4), "id": f"bench-{seed}", "faults": []}


def seat_seconds(record: dict[str, Any], samples: int) -> tuple[float, float, int]:
    """(Wall seconds and CPU seconds to analyse seat 0's decisions, how many decisions), each the
    median of REPEATS runs. On a machine others load, the CPU time is what an idle one would take."""
    walls, cpus = [], []
    count = 0
    for _ in range(REPEATS):
        start, cpu = time.perf_counter(), time.process_time()
        count = len(analyse_game(record, [0], samples))
        walls.append(time.perf_counter() - start)
        cpus.append(time.process_time() - cpu)
    return statistics.median(walls), statistics.median(cpus), count


def stderr_by_samples(record: dict[str, Any]) -> dict[int, float]:
    """At each count of samples, the median over seat 0's decisions with a choice of the median
    standard error of an action's expected score (actions whose samples all agree left out)."""
    points = [p for p in decision_points(record, [0]) if len(p[5]) > 1]
    found: dict[int, float] = {}
    for samples in SAMPLE_COUNTS:
        errors = []
        for _, number, _, kind, view, legal, _ in points:
            evaluation = evaluate(view, kind, legal, samples, number)
            spread = [value.stderr for value in evaluation.values if value.stderr > 0]
            if spread:
                errors.append(statistics.median(spread))
        found[samples] = statistics.median(errors) if errors else 0.0
    return found


def run() -> Iterator[str]:
    """The bench's lines."""
    record = greedy_game(SEED)
    wall, cpu, count = seat_seconds(record, SAMPLES.default)
    verdict = "met" if cpu < GOAL_SECONDS else "NOT met"
    yield (f"one seat of a 4-player Blackout game (greedy bots, 13 deals), {count} decisions at "
           f"the default {SAMPLES.default} samples: {cpu:.1f} CPU-s ({count / cpu:.1f} decisions "
           f"per CPU-s), {wall:.1f} s wall here (goal under {GOAL_SECONDS:.0f} s: {verdict}; "
           f"medians of {REPEATS})")
    errors = stderr_by_samples(record)
    base = errors[SAMPLE_COUNTS[0]]
    yield "standard error of an action's expected score (median over seat 0's decisions):"
    for samples, error in errors.items():
        yield (f"  {samples:4d} samples: {error:.2f} points ({error / base:.2f} of {SAMPLE_COUNTS[0]}'s;"
               f" 1/sqrt would give {(SAMPLE_COUNTS[0] / samples) ** 0.5:.2f})")
