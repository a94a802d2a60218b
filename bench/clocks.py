"""Fair clocks on a busy machine: timeouts under ``clock: wall`` against ``clock: cpu``, same run.

``BUSY`` busy loops (``python -c 'while ...: pass'``, started here, each ending by itself after
``BUSY_LIMIT`` seconds and killed when the benchmark ends) keep this machine's CPUs loaded while a
tournament of four C bots (``random_bot``, ``first_bot``, two of each) and the Python random bot
plays ``GAMES`` 4-player Blackout games under each clock, ``move_ms`` 20 and no bank, with
``jobs`` 2. The two clocks take turns in chunks, so the load hits both alike. Every bot answers in
well under a millisecond of CPU: every timeout is the machine's doing, not the bot's. The goal is
zero under ``cpu``. Also counted: the decisions the arena itself woke up late for (``stalls``).
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import orjson

from arena.executors.workers import run_tasks
from arena.settings import Clock, TimeControl
from arena.work import BotCommand, GameSpec, RunSettings

ROOT = Path(__file__).resolve().parents[1]
BUSY = 16
BUSY_LIMIT = 900  # seconds: a busy loop left behind by a crash ends by itself
GAMES = 500
CHUNKS = 4
OPTIONS: dict[str, object] = {}  # full games: 13 deals, 416 decisions
ENTRANTS = {
    "random-c1": (str(ROOT / "bots" / "c" / "random_bot"),),
    "random-c2": (str(ROOT / "bots" / "c" / "random_bot"),),
    "first-c1": (str(ROOT / "bots" / "c" / "first_bot"),),
    "first-c2": (str(ROOT / "bots" / "c" / "first_bot"),),
    "random-py": (sys.executable, "-S", str(ROOT / "bots" / "python" / "random_bot.py")),
}


def tasks(first: int, count: int) -> list[GameSpec]:
    """``count`` games from number ``first``, each leaving out one of the five entrants in turn."""
    names = list(ENTRANTS)
    specs = []
    for i in range(first, first + count):
        seats = tuple(names[(i + k) % 5] for k in range(4))
        specs.append(GameSpec(f"g{i}", "blackout", OPTIONS, seats, 1000 + i, round=1, table=i,
                              rotation=0))
    return specs


def play(clock: Clock, first: int, count: int) -> tuple[int, int, int]:
    """Timeouts, stalls and decisions of ``count`` games under ``clock``."""
    settings = RunSettings(bots={name: BotCommand(argv) for name, argv in ENTRANTS.items()},
                           time_control=TimeControl(move_ms=20, bank_ms=0, clock=clock))
    timeouts = stalls = decisions = 0
    for game in run_tasks(tasks(first, count), settings, 2):
        record = orjson.loads(game.line)
        timeouts += sum(fault["kind"] == "timeout" for fault in record["faults"])
        stalls += game.stalls
        decisions += sum(len(deal.get("bids", ())) + len(deal["plays"]) for deal in record["deals"])
    return timeouts, stalls, decisions


def run() -> list[str]:
    """Measure and return the report lines."""
    subprocess.run(["make", "--no-print-directory", "-C", str(ROOT / "bots" / "c")], check=True,
                   capture_output=True)
    loop = f"import time\nend = time.monotonic() + {BUSY_LIMIT}\nwhile time.monotonic() < end: pass"
    busy = [subprocess.Popen([sys.executable, "-S", "-c", loop]) for _ in range(BUSY)]
    totals = {clock: [0, 0, 0, 0.0] for clock in Clock}
    try:
        size = GAMES // CHUNKS
        for chunk in range(CHUNKS):
            for clock in (Clock.WALL, Clock.CPU) if chunk % 2 == 0 else (Clock.CPU, Clock.WALL):
                began = time.perf_counter()
                timeouts, stalls, decisions = play(clock, chunk * size, size)
                figures = totals[clock]
                figures[0] += timeouts
                figures[1] += stalls
                figures[2] += decisions
                figures[3] += time.perf_counter() - began
    finally:
        for process in busy:
            process.kill()
            process.wait()
    lines = [f"clocks: {BUSY} busy loops, 4 C bots + the Python random bot, move_ms 20, no bank, "
             f"jobs 2, {GAMES} full 4-player games under each clock (the same games)"]
    for clock in (Clock.WALL, Clock.CPU):
        timeouts, stalls, decisions, seconds = totals[clock]
        lines.append(f"  clock {clock.value:4}: {timeouts:4d} timeouts, {stalls:4d} arena stalls, "
                     f"{decisions} decisions, {seconds:.1f} s")
    verdict = "meets" if totals[Clock.CPU][0] == 0 else "MISSES"
    lines.append(f"  {verdict} the goal: zero timeouts under cpu")
    return lines


if __name__ == "__main__":
    print("\n".join(run()))
