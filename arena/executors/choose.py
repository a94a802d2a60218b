"""Where a run's games are played: local worker processes, or a Dask cluster (``--cluster``).

Every command that plays many games (``arena run``; matches and leagues too) goes through
``run_tasks_anywhere``, so the choice of executor is made in one place. ``distributed`` is an
optional extra, imported only when a cluster is asked for.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

from arena.errors import ConfigError
from arena.executors.workers import LocalWorkers, run_tasks
from arena.work import Finished, GameSpec, RunSettings


def run_tasks_anywhere(tasks: Sequence[GameSpec], settings: RunSettings, jobs: int,
                       cluster: str | None = None,
                       on_workers: Callable[[int], None] | None = None,
                       workers: LocalWorkers | None = None) -> Iterator[Finished]:
    """The games of ``tasks`` as they finish: on ``jobs`` local workers (``workers``, kept from
    one call to the next by the caller, when given), or on the Dask cluster whose scheduler is at
    ``cluster`` (``on_workers`` then hears its worker count)."""
    if cluster is None:
        return workers.play(tasks, settings) if workers is not None else run_tasks(tasks, settings, jobs)
    try:
        from arena.executors.cluster import run_tasks_on_cluster
    except ImportError as error:
        raise ConfigError(f"--cluster needs the 'distributed' package ({error.name or error} is "
                          "missing): pip install 'blackout-arena[cluster]'") from None
    return run_tasks_on_cluster(tasks, settings, cluster, on_workers)
