"""The sandbox's cost: a sandboxed bot's start and per-decision time against an unsandboxed one.

Both are measured in the same run, alternately, pinned to one CPU (as ``bench.arena`` is), and
reported as medians over ``REPEATS``:

- start: ``BotProcess.start()`` to the ``hello`` reply plus ``close()`` (median of ``STARTS``),
  for the C starter bot
  (prlimit, bwrap's namespaces and mounts, setpriv as root) and the Python one (the same,
  plus an interpreter whose imports go through the sandbox's bind mounts). Goal: under 20 ms
  extra.
- per decision: full default 4-player Blackout games through ``play_game`` with four persistent
  ``bots/c/first_bot`` processes, all sandboxed or none, divided by the decisions. Goal: within
  1.1x.

``python -m bench sandbox`` runs only this.
"""

from __future__ import annotations

import os
import statistics
from pathlib import Path
from time import perf_counter

from arena.botfiles.view import layout_of
from arena.bots.process import BotProcess
from arena.bots.sandbox import bwrap_problem, process_limit_problem
from arena.bots.shutdown import close_bots
from arena.referee.referee import play_game
from arena.settings import TimeControl
from arena.values.sandbox_settings import Sandbox

ROOT = Path(__file__).resolve().parents[1]
REPEATS = 5
STARTS = 40
GAMES = 2
DECISIONS_PER_GAME = 416  # default 4-player Blackout: 13 bids and 91 plays per seat
TIME = TimeControl(start_ms=30_000, move_ms=10_000, bank_ms=30_000)


def start_seconds(argv: list[str], sandbox: Sandbox | None) -> float:
    """Seconds of one start-and-close cycle of one bot."""
    begin = perf_counter()
    bot = BotProcess("bench", argv, cwd=ROOT, sandbox=sandbox, start_timeout=TIME.start_ms / 1000)
    bot.start()
    bot.close()
    return perf_counter() - begin


def decision_seconds(sandbox: Sandbox | None) -> float:
    """Seconds per decision over ``GAMES`` full games with four persistent C bots."""
    bots = [BotProcess(f"c{seat}", [str(ROOT / "bots" / "c" / "first_bot")], sandbox=sandbox)
            for seat in range(4)]
    try:
        for bot in bots:
            bot.start()
        begin = perf_counter()
        for game in range(GAMES):
            play_game("blackout", bots, game, {}, time_control=TIME)
        return (perf_counter() - begin) / (GAMES * DECISIONS_PER_GAME)
    finally:
        close_bots(bots)


def run() -> list[str]:
    """Measure and return the report lines."""
    problem = bwrap_problem()
    if problem is not None:
        return [f"skipped: {problem}"]
    if not (ROOT / "bots" / "c" / "first_bot").exists():
        return ["skipped: the C bots are not built (make bots)"]
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    box = Sandbox()
    # The Python bot by its real interpreter in both runs: through a pyenv shim the bare start
    # would pay for the shim (a bash script, ~200 ms), which the sandbox resolves away.
    python = layout_of(box, ["python3"], str(ROOT)).argv[0]
    bots = {"C": [str(ROOT / "bots" / "c" / "random_bot")],
            "Python": [python, "bots/python/random_bot.py"]}
    for argv in bots.values():  # warm caches (pyenv's shim lookup, page cache) outside the clock
        start_seconds(argv, box)
    lines = []
    for label, argv in bots.items():
        bare, boxed = [], []
        for _ in range(STARTS):  # one of each in turn: the shared machine's load drifts
            bare.append(start_seconds(argv, None))
            boxed.append(start_seconds(argv, box))
        b, s = statistics.median(bare), statistics.median(boxed)
        lines.append(f"start, {label} bot: {b * 1000:.1f} ms bare, {s * 1000:.1f} ms sandboxed: "
                     f"+{(s - b) * 1000:.1f} ms, {s / b:.2f}x (goal: under +20 ms)")
    bare, boxed = [], []
    for _ in range(REPEATS):
        bare.append(decision_seconds(None))
        boxed.append(decision_seconds(box))
    b, s = statistics.median(bare), statistics.median(boxed)
    lines.append(f"per decision, 4 C bots: {b * 1e6:.1f} us bare, {s * 1e6:.1f} us sandboxed: "
                 f"{s / b:.2f}x (goal: within 1.1x)")
    limit = process_limit_problem()
    if limit is not None:
        lines.append(f"note: {limit}")
    return lines


if __name__ == "__main__":
    for line in run():
        print(line)
