"""Where a run's games are played: local worker processes, or a Dask cluster (``--cluster``).

Every command that plays many games (``arena run``; matches and leagues too) goes through
``run_tasks_anywhere``, so the choice of executor is made in one place. ``distributed`` is an
optional extra, imported only when a cluster is asked for.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence

from arena.errors import ConfigError
from arena.runs.batch import Finished, RunSettings
from arena.runs.schedule import GameSpec
from arena.runs.workers import run_tasks

CLUSTER_ADDRESS = re.compile(r"(tcp|tls|ws|wss|ucx)://\[?[A-Za-z0-9_.:-]+\]?:\d{1,5}")
"""A Dask scheduler's address: a protocol Dask speaks, a host and a port."""


def check_cluster_address(address: str, where: str = "--cluster") -> str:
    """``address`` if it looks like a Dask scheduler's address, else ConfigError naming ``where``."""
    address = address.strip()
    if not CLUSTER_ADDRESS.fullmatch(address):
        raise ConfigError(f"{where}: {address!r} is not a Dask scheduler address "
                          "(expected e.g. tcp://127.0.0.1:8786)")
    return address


def run_tasks_anywhere(tasks: Sequence[GameSpec], settings: RunSettings, jobs: int,
                       cluster: str | None = None,
                       on_workers: Callable[[int], None] | None = None) -> Iterator[Finished]:
    """The games of ``tasks`` as they finish: on ``jobs`` local workers, or on the Dask cluster
    whose scheduler is at ``cluster`` (``on_workers`` then hears its worker count)."""
    if cluster is None:
        return run_tasks(tasks, settings, jobs)
    try:
        from arena.runs.cluster import run_tasks_on_cluster
    except ImportError as error:
        raise ConfigError(f"--cluster needs the 'distributed' package ({error.name or error} is "
                          "missing): pip install 'blackout-arena[cluster]'") from None
    return run_tasks_on_cluster(tasks, settings, cluster, on_workers)
