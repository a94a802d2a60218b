"""Where a run's games are played: local worker processes, or a Dask cluster (``--cluster``).

An ``Executor`` plays games and hands each back as it ends; ``executor_for`` makes the one a
command asks for, so every command that plays many games (``arena run``, matches, leagues)
chooses in one place, and plays through it in a session (``arena.runs.session``). The
executor is the session's to close: a league keeps its local workers, and their bots, from batch
to batch. ``distributed`` is an optional extra, imported only when a cluster is asked for.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Sequence
from typing import Protocol

from arena.errors import ConfigError
from arena.executors.workers import LocalWorkers
from arena.values.work import Finished, GameSpec, RunSettings


class Executor(Protocol):
    """Plays games: ``play`` hands back each finished game of ``tasks`` as it ends (any order);
    stopping it early (closing the generator) stops the games in progress."""

    def play(self, tasks: Sequence[GameSpec],
             settings: RunSettings) -> Generator[Finished, None, None]: ...

    def close(self) -> None: ...


class DaskCluster:
    """The Dask cluster whose scheduler is at ``address`` (``arena.executors.cluster``), as an
    ``Executor``; ``on_workers`` hears its worker count at the start and when it changes."""

    def __init__(self, address: str, on_workers: Callable[[int], None] | None = None) -> None:
        self.address = address
        self.on_workers = on_workers

    def play(self, tasks: Sequence[GameSpec],
             settings: RunSettings) -> Generator[Finished, None, None]:
        """The games of ``tasks`` as the cluster finishes them."""
        from arena.executors.cluster import run_tasks_on_cluster  # checked in executor_for

        yield from run_tasks_on_cluster(tasks, settings, self.address, self.on_workers)

    def close(self) -> None:
        """Nothing to stop: each ``play`` connects and lets go of the cluster itself."""


def executor_for(jobs: int, cluster: str | None = None,
                 on_workers: Callable[[int], None] | None = None) -> Executor:
    """``jobs`` local workers, or the Dask cluster at ``cluster``; ConfigError when a cluster is
    asked for and ``distributed`` is not installed."""
    if cluster is None:
        return LocalWorkers(jobs)
    try:
        import arena.executors.cluster  # noqa: F401 (only to say what is missing, once)
    except ImportError as error:
        raise ConfigError(f"--cluster needs the 'distributed' package ({error.name or error} is "
                          "missing): pip install 'blackout-arena[cluster]'") from None
    return DaskCluster(cluster, on_workers)
