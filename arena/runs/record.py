"""The one loop that plays games and records each as it ends: tournaments, matches and the league.

``play_and_record`` hands the games to an executor (local workers or a Dask cluster,
``arena.executors.choose``) and calls ``record`` for each finished game the moment it arrives, in
the runner's process: the one writer of the run's results. Whatever ends the loop (all games
played, ``record`` asking to stop, Ctrl-C, an error), the executor is stopped and its bots closed
before it returns or raises; only local workers the caller keeps (``LocalWorkers``) outlive a
loop that played all its games.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass

from arena.executors.choose import run_tasks_anywhere
from arena.executors.workers import LocalWorkers
from arena.work import Finished, GameSpec, RunSettings


@dataclass
class LoopCount:
    """What one loop did: games played and their faults, seconds."""

    played: int = 0
    faults: int = 0
    seconds: float = 0.0


def play_and_record(tasks: Sequence[GameSpec], settings: RunSettings, record: Callable[[Finished], bool],
                    *, jobs: int, cluster: str | None = None,
                    on_workers: Callable[[int], None] | None = None,
                    workers: LocalWorkers | None = None) -> LoopCount:
    """Play ``tasks``; ``record(game)`` stores each finished game and returns True to stop early
    (a match decided). On ``jobs`` local workers (``workers``, kept between calls by the caller,
    when given: a league's batches), or on the Dask cluster at ``cluster``."""
    tally = LoopCount()
    start = time.monotonic()
    arrivals: Generator[Finished, None, None] = run_tasks_anywhere(  # type: ignore[assignment]
        tasks, settings, jobs, cluster, on_workers, workers)  # a generator either way
    try:
        for game in arrivals:
            tally.played += 1
            tally.faults += game.faults
            if record(game):
                break
    finally:
        arrivals.close()  # stops the workers and their bots, also after an early stop
        tally.seconds = time.monotonic() - start
    return tally
