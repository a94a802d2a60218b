"""The one loop that plays games and records each as it ends: tournaments, matches and the league.

``play_and_record`` hands the games to an executor (local workers or a Dask cluster,
``arena.executors.choose``) and calls ``record`` for each finished game the moment it arrives, in
the runner's process: the one writer of the run's results. Whatever ends the loop early
(``record`` asking to stop, Ctrl-C, an error), the games in progress are stopped and their bots
closed before it returns or raises; the executor itself is the caller's to close (a league keeps
its local workers, and their bots, from batch to batch).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from arena.executors.choose import Executor
from arena.work import Finished, GameSpec, RunSettings


@dataclass
class LoopCount:
    """What one loop did: games played and their faults, seconds."""

    played: int = 0
    faults: int = 0
    seconds: float = 0.0


def play_and_record(tasks: Sequence[GameSpec], settings: RunSettings,
                    record: Callable[[Finished], bool], executor: Executor) -> LoopCount:
    """Play ``tasks`` on ``executor``; ``record(game)`` stores each finished game and returns True
    to stop early (a match decided). The executor stays the caller's to close."""
    tally = LoopCount()
    start = time.monotonic()
    arrivals = executor.play(tasks, settings)
    try:
        for game in arrivals:
            tally.played += 1
            tally.faults += game.faults
            if record(game):
                break
    finally:
        arrivals.close()  # stops the games in progress, also after an early stop
        tally.seconds = time.monotonic() - start
    return tally
