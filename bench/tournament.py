"""Tournament throughput: games per second with 1 and 2 pinned workers, on the C starter bot.

The same 4-player Blackout schedule is played with ``jobs`` 1 and 2 through ``arena.executors.workers``
(persistent bots, one pinned CPU per worker); the figure is the ratio of the two rates, measured
alternately and reported as the median, so that machine noise hits both alike.
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path

from arena.executors.workers import run_tasks
from arena.values.work import BotCommand, GameSpec, RunSettings

ROOT = Path(__file__).resolve().parents[1]
GAMES = 800
REPEATS = 3


def tasks(count: int) -> list[GameSpec]:
    """``count`` 4-player Blackout games among four copies of the C bot."""
    seats = ("c1", "c2", "c3", "c4")
    return [GameSpec(f"g{i}", "blackout", {}, seats, i, round=1, table=i, rotation=0)
            for i in range(count)]


def rate(jobs: int) -> float:
    """Games per second over one schedule with ``jobs`` workers (bot start-up included)."""
    bot = BotCommand((str(ROOT / "bots" / "c" / "random_bot"),))
    settings = RunSettings(bots={name: bot for name in ("c1", "c2", "c3", "c4")})
    start = time.perf_counter()
    done = sum(1 for _ in run_tasks(tasks(GAMES), settings, jobs))
    return done / (time.perf_counter() - start)


def run() -> list[str]:
    """Measure and return the report lines."""
    one, two = [], []
    for _ in range(REPEATS):
        one.append(rate(1))
        two.append(rate(2))
    ratio = statistics.median(b / a for a, b in zip(one, two, strict=True))
    verdict = "meets" if ratio >= 1.7 else "MISSES"
    return [
        f"tournament, C random bots, {GAMES} 4-player Blackout games: "
        f"jobs=1 {statistics.median(one):,.0f} games/s, jobs=2 {statistics.median(two):,.0f} games/s",
        f"scaling jobs=2 / jobs=1: {ratio:.2f}x ({verdict} the goal >= 1.7x)",
    ]


if __name__ == "__main__":
    print("\n".join(run()))
