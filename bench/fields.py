"""Large fields: peak live bot processes and their memory, capped (``max_live_bots``) against
uncapped (every bot a worker meets stays alive, the behaviour before the cap).

Each field plays one round of a sampled 4-player Blackout schedule (``max_tables`` = the number
of bots, one deal a game) through ``arena.executors.workers`` with 2 workers, in the order ``arena
run`` uses. A thread samples the runner's grandchildren (the bots) every 20 ms from /proc: their
count and summed resident memory. Reported: the peaks, bot starts, and games per second (capped
over uncapped, the cost of restarts), medians of REPEATS runs alternating the two settings.
``python -m bench fields``.
"""

from __future__ import annotations

import contextlib
import os
import statistics
import sys
import threading
import time
from pathlib import Path

from arena.executors.workers import run_tasks
from arena.plans.order import locality_order
from arena.plans.schedule import sample_tables
from arena.settings import MAX_LIVE_BOTS
from arena.values.work import BotCommand, GameSpec, RunSettings
from engine.blackout import resolve_options

ROOT = Path(__file__).resolve().parents[1]
C_BOT = (str(ROOT / "bots" / "c" / "random_bot"),)
PY_BOT = (sys.executable, "-I", str(ROOT / "bots" / "python" / "random_bot.py"))
FIELDS = (("C random bot", C_BOT, 60), ("C random bot", C_BOT, 200),
          ("Python random bot", PY_BOT, 60))
JOBS = 2
REPEATS = 3
PAGE = os.sysconf("SC_PAGE_SIZE")


def field_tasks(bots: int) -> list[GameSpec]:
    """One round of the sampled schedule of ``bots`` bots at 4-player tables, one deal a game."""
    names = [f"b{i:03d}" for i in range(bots)]
    options = resolve_options(4, {"deals": 1})
    tasks = []
    for index, rotations in enumerate(sample_tables(names, 4, bots, seed=1)):
        for rotation, seats in enumerate(rotations):
            tasks.append(GameSpec(f"r1-t{index:04d}-s{rotation}", "blackout", options, seats,
                                  seed=index, round=1, table=index, rotation=rotation))
    return tasks


class _Sampler(threading.Thread):
    """Peak count and resident memory of this process's grandchildren (workers' bots)."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.stop = threading.Event()
        self.peak_count = 0
        self.peak_bytes = 0

    def run(self) -> None:
        me = os.getpid()
        while not self.stop.wait(0.02):
            parents: dict[int, int] = {}
            for entry in os.listdir("/proc"):
                if entry.isdigit():
                    try:
                        stat = Path(f"/proc/{entry}/stat").read_text()
                    except OSError:
                        continue
                    parents[int(entry)] = int(stat.rsplit(")", 1)[1].split()[1])
            workers = {pid for pid, parent in parents.items() if parent == me}
            bots = [pid for pid, parent in parents.items() if parent in workers]
            total = 0
            for pid in bots:
                with contextlib.suppress(OSError, IndexError, ValueError):
                    total += int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * PAGE
            self.peak_count = max(self.peak_count, len(bots))
            self.peak_bytes = max(self.peak_bytes, total)


def measure(argv: tuple[str, ...], bots: int, cap: int | None) -> tuple[int, int, float]:
    """(peak bot processes, peak resident bytes of bots, games per second) for one run."""
    tasks = locality_order(field_tasks(bots), cap)
    settings = RunSettings(bots={f"b{i:03d}": BotCommand(argv) for i in range(bots)},
                           max_live_bots=cap)
    sampler = _Sampler()
    sampler.start()
    start = time.perf_counter()
    done = sum(1 for _ in run_tasks(tasks, settings, JOBS))
    seconds = time.perf_counter() - start
    sampler.stop.set()
    sampler.join()
    return sampler.peak_count, sampler.peak_bytes, done / seconds


def run() -> list[str]:
    """Measure and return the report lines."""
    lines = []
    for label, argv, bots in FIELDS:
        runs: dict[int | None, list[tuple[int, int, float]]] = {None: [], MAX_LIVE_BOTS: []}
        for _ in range(REPEATS):
            for cap in runs:
                runs[cap].append(measure(argv, bots, cap))
        figures = {}
        for cap, measured in runs.items():
            figures[cap] = (statistics.median(m[0] for m in measured),
                            statistics.median(m[1] for m in measured) / 2**20,
                            statistics.median(m[2] for m in measured))
        speed = statistics.median(c[2] / u[2] for c, u in zip(runs[MAX_LIVE_BOTS], runs[None],
                                                                strict=True))
        (un_count, un_mb, _), (cap_count, cap_mb, _) = figures[None], figures[MAX_LIVE_BOTS]
        lines.append(
            f"{bots} x {label}, {bots * 4} games, {JOBS} workers: peak bot processes "
            f"{un_count:.0f} uncapped -> {cap_count:.0f} with max_live_bots={MAX_LIVE_BOTS}; "
            f"peak bot memory {un_mb:,.0f} MB -> {cap_mb:,.0f} MB; games/s capped / uncapped "
            f"{speed:.2f}x")
    return lines


if __name__ == "__main__":
    print("\n".join(run()))
