"""Fair clocks on a busy machine: timeouts under ``wall``, ``cpu`` and ``fair``, same run.

``BUSY`` busy loops (``python -c 'while ...: pass'``, started here, each ending by itself after
``BUSY_LIMIT`` seconds and killed when the benchmark ends) keep this machine's CPUs loaded while a
tournament of four C bots (``random_bot``, ``first_bot``, two of each) and the Python random bot
plays ``GAMES`` 4-player Blackout games under each clock, ``move_ms`` 20 and no bank, with
``jobs`` 2. The clocks take turns in chunks, so the load hits them alike. Every bot answers in
well under a millisecond of CPU: every timeout is the machine's doing, not the bot's. The goal is
zero under ``cpu`` and ``fair``. Also counted: the decisions the arena itself woke up late for
(``stalls``).

In the same run, under the same load, a bot that sleeps ``SLEEP_MS`` before every decision (past
``move_ms``, using no CPU) plays ``SLEEPER_GAMES`` games beside three C bots under each clock: the
goal is a timeout in every one of them under ``fair`` (as under ``wall``), where ``cpu`` charges
a sleep nothing.

Last, without the load: the arena process's own CPU time per decision (the referee, the process
layer and the clock's readings; the bots' not counted) with four C bots pinned beside it, ``cpu``
against ``fair`` in alternating rounds, medians: the fair clock reads each reply's wait for a CPU
(the bot's and the arena's ``schedstat``) on top of the CPU clock. Goal: within 1.05x.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import orjson

from arena.bots.process import BotProcess
from arena.bots.shutdown import close_bots
from arena.executors.workers import run_tasks
from arena.referee.referee import play_game
from arena.settings import Clock, TimeControl
from arena.values.work import BotCommand, GameSpec, RunSettings

ROOT = Path(__file__).resolve().parents[1]
BUSY = 16
BUSY_LIMIT = 900  # seconds: a busy loop left behind by a crash ends by itself
GAMES = 500
CHUNKS = 4
OPTIONS: dict[str, object] = {}  # full games: 13 deals, 416 decisions
CLOCKS = (Clock.WALL, Clock.CPU, Clock.FAIR)
SLEEP_MS = 40
SLEEPER_GAMES = 20
COST_ROUNDS = 5
COST_GAMES = 40
SLEEPER = (sys.executable, "-S", str(ROOT / "tests" / "bots" / "misbehaving" / "thinks.py"),
           str(SLEEP_MS / 1000))
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


def sleeper(clock: Clock, first: int) -> tuple[int, int]:
    """Games the sleeping bot played under ``clock`` (with three C bots), and its timeouts."""
    bots = {"sleeper": BotCommand(SLEEPER), **{name: BotCommand(argv) for name, argv in
                                               ENTRANTS.items() if name.endswith(("c1", "c2"))}}
    settings = RunSettings(bots=bots, time_control=TimeControl(move_ms=20, bank_ms=0, clock=clock))
    names = list(bots)
    specs = [GameSpec(f"s{i}", "blackout", {"deals": 2}, (names[0], *names[1 + i % 2:][:3],
                                                          *names[1:1 + i % 2])[:4],
                      7000 + i, round=1, table=i, rotation=0)
             for i in range(first, first + SLEEPER_GAMES)]
    timeouts = 0
    for game in run_tasks(specs, settings, 2):
        record = orjson.loads(game.line)
        timeouts += any(f["kind"] == "timeout" and f["bot"] == "sleeper" for f in record["faults"])
    return len(specs), timeouts


def clock_cost() -> dict[Clock, float]:
    """The arena process's CPU seconds per decision under ``cpu`` and ``fair``: medians of
    ``COST_ROUNDS`` alternating rounds of ``COST_GAMES`` games of four C bots pinned beside it."""
    cpu = min(os.sched_getaffinity(0))
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {cpu})
    bots = [BotProcess(f"c{seat}", [ENTRANTS["random-c1"][0]], start_timeout=20.0)
            for seat in range(4)]
    rounds: dict[Clock, list[float]] = {Clock.CPU: [], Clock.FAIR: []}
    try:
        for bot in bots:
            bot.start()
        for index in range(COST_ROUNDS):
            for clock in (Clock.CPU, Clock.FAIR) if index % 2 == 0 else (Clock.FAIR, Clock.CPU):
                control = TimeControl(move_ms=1000, bank_ms=0, clock=clock)
                decisions = 0
                began = time.process_time()
                for seed in range(COST_GAMES):
                    record = play_game("blackout", bots, seed, time_control=control).record
                    decisions += sum(len(d["bids"]) + len(d["plays"]) for d in record["deals"])
                rounds[clock].append((time.process_time() - began) / decisions)
    finally:
        close_bots(bots, grace=0.5)
        os.sched_setaffinity(0, before)
    return {clock: statistics.median(values) for clock, values in rounds.items()}


def run() -> list[str]:
    """Measure and return the report lines."""
    subprocess.run(["make", "--no-print-directory", "-C", str(ROOT / "bots" / "c")], check=True,
                   capture_output=True)
    loop = f"import time\nend = time.monotonic() + {BUSY_LIMIT}\nwhile time.monotonic() < end: pass"
    busy = [subprocess.Popen([sys.executable, "-S", "-c", loop]) for _ in range(BUSY)]
    totals = {clock: [0, 0, 0, 0.0] for clock in CLOCKS}
    slept = {clock: [0, 0] for clock in CLOCKS}
    try:
        size = GAMES // CHUNKS
        for chunk in range(CHUNKS):
            order = CLOCKS if chunk % 2 == 0 else CLOCKS[::-1]
            for clock in order:
                began = time.perf_counter()
                timeouts, stalls, decisions = play(clock, chunk * size, size)
                figures = totals[clock]
                figures[0] += timeouts
                figures[1] += stalls
                figures[2] += decisions
                figures[3] += time.perf_counter() - began
            if chunk == 0:
                for clock in order:
                    games, timeouts = sleeper(clock, 0)
                    slept[clock][0] += games
                    slept[clock][1] += timeouts
    finally:
        for process in busy:
            process.kill()
            process.wait()
    cost = clock_cost()
    lines = [f"clocks: {BUSY} busy loops, 4 C bots + the Python random bot, move_ms 20, no bank, "
             f"jobs 2, {GAMES} full 4-player games under each clock (the same games)"]
    for clock in CLOCKS:
        timeouts, stalls, decisions, seconds = totals[clock]
        lines.append(f"  clock {clock.value:4}: {timeouts:4d} timeouts, {stalls:4d} arena stalls, "
                     f"{decisions} decisions, {seconds:.1f} s")
    lines.append(f"  a bot sleeping {SLEEP_MS} ms a decision (move_ms 20, no bank), same load:")
    for clock in CLOCKS:
        games, timeouts = slept[clock]
        lines.append(f"  clock {clock.value:4}: timed out in {timeouts} of its {games} games")
    lines.append(f"  the arena's CPU per decision, C bots pinned, no load: cpu "
                 f"{cost[Clock.CPU] * 1e6:.1f} us, fair {cost[Clock.FAIR] * 1e6:.1f} us "
                 f"({cost[Clock.FAIR] / cost[Clock.CPU]:.3f}x; medians of {COST_ROUNDS} rounds)")
    fair_ok = totals[Clock.FAIR][0] == 0 and totals[Clock.CPU][0] == 0
    sleeps_ok = slept[Clock.FAIR][1] == slept[Clock.FAIR][0]
    cost_ok = cost[Clock.FAIR] <= 1.05 * cost[Clock.CPU]
    lines.append(f"  {'meets' if fair_ok else 'MISSES'} the goal: zero timeouts under cpu and fair")
    lines.append(f"  {'meets' if sleeps_ok else 'MISSES'} the goal: every sleeping game a timeout "
                 f"under fair")
    lines.append(f"  {'meets' if cost_ok else 'MISSES'} the goal: fair within 1.05x of cpu per "
                 f"decision")
    return lines


if __name__ == "__main__":
    print("\n".join(run()))
