"""The Dask executor: the games of a run played on a Dask cluster, results sent back as games end.

``run_tasks_on_cluster`` is ``arena.runs.workers.run_tasks`` for a cluster: it ships the bots'
files to every worker (``BotFiles``, a worker plugin, so workers that join later get them too),
where they are built again, then submits the games a few at a time with ``client.submit`` (the task
is ``play_on_worker``, a thin wrapper round ``play_batch``), keeping only a few tasks per worker
thread in flight, and yields each batch's games as its task completes. A worker lost mid-task
loses only that task: the scheduler runs it again elsewhere, and the runner drops any game whose id
it has already yielded, so a game is never written twice. A lost scheduler ends the run with a
ClusterError that says how to resume.

Worker side: each worker thread pins itself to a CPU no other arena worker on the machine holds (a
lock file per CPU), as local workers are pinned, and keeps its bots alive between tasks
(``play_batch`` keeps one pool of bots per thread). Importing this module imports ``distributed``.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import queue
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import CancelledError
from pathlib import Path
from typing import IO, Any

from distributed import Client, KilledWorker, WorkerPlugin

from arena.errors import ArenaError, ClusterError
from arena.runs.batch import Finished, RunSettings, close_all_batch_bots, finished_of, play_batch
from arena.runs.bundle import Bundle, bundle_of, localised, unpack
from arena.runs.schedule import GameSpec

BATCH_SIZE = 4
"""Games per Dask task. Each task costs the scheduler and the runner about 1-2 ms of CPU each
(measured on a loaded 2-core machine, ``make bench``), taken from the CPUs the games need; four
games per task quarter that, results still come back every few games, and a worker lost mid-task
loses at most three finished games (played again elsewhere, never written twice)."""
IN_FLIGHT_PER_THREAD = 3
"""Tasks submitted per worker thread at a time: enough that a worker always has its next task,
few enough that thousands of games never sit in the scheduler at once."""
CONNECT_TIMEOUT = 10.0
"""Seconds to reach the scheduler at the start of a run."""
WORKERLESS_TIMEOUT = 120.0
"""Seconds a run waits with no worker at all before it gives up (it can be resumed)."""
CHECK_INTERVAL = 1.0
"""Seconds between looks at the cluster's workers (for progress and the workerless timeout)."""


class BotFiles(WorkerPlugin):
    """A worker plugin that unpacks a run's bot files on each worker and builds them there."""

    idempotent = True  # registering the same bundle again (a resumed run) does nothing new

    def __init__(self, bundle: Bundle, settings: RunSettings) -> None:
        self.bundle = bundle
        self.settings = settings
        self.name = f"blackout-arena-bots-{bundle.digest}"

    def setup(self, worker: Any) -> None:
        """Unpack and build (ConfigError if a build fails: the worker cannot play this run)."""
        try:
            _ROOTS[self.bundle.digest] = unpack(self.bundle, self.settings,
                                                Path(worker.local_directory))
        except ArenaError as error:
            _FAILED[self.bundle.digest] = str(error)
            raise

    def teardown(self, worker: Any) -> None:
        """Stop the bots this run left running on the worker."""
        close_all_batch_bots()


_ROOTS: dict[str, Path] = {}
"""On a worker: where each bundle (by digest) was unpacked."""
_FAILED: dict[str, str] = {}
"""On a worker: why a bundle could not be set up."""
_LOCALISED: dict[str, tuple[RunSettings, RunSettings]] = {}
_THREAD = threading.local()
_HELD_CPUS: list[IO[str]] = []
"""On a worker: the lock files of the CPUs its threads hold, open for the worker's life."""


def play_on_worker(tasks: Sequence[GameSpec], settings: RunSettings, digest: str,
                   base: str) -> list[tuple[str, Finished]]:
    """The Dask task: play ``tasks`` with this worker thread's bots; ``(game id, game)`` pairs."""
    root = _ROOTS.get(digest)
    if root is None:
        raise ClusterError(_FAILED.get(digest, "the bots' files were not set up on this worker"))
    if not getattr(_THREAD, "pinned", False):
        _THREAD.pinned = True
        _pin_to_a_free_cpu()
    cached = _LOCALISED.get(digest)
    if cached is None or cached[0] != settings:
        cached = _LOCALISED[digest] = (settings, localised(settings, base, root))
    return [(line["id"], finished_of(line)) for line in play_batch(tasks, cached[1])]


def _pin_to_a_free_cpu() -> None:
    """Pin this thread (and the bots it starts) to a CPU no other worker thread here holds.

    A pipe round trip between a referee and its bots is 15-20x faster on one CPU than across
    CPUs. A lock file per CPU, held while the worker lives, shares the CPUs out among the workers
    of one machine; when there are more worker threads than CPUs, the rest stay unpinned.
    """
    folder = Path(tempfile.gettempdir()) / "blackout-arena-cpus"
    folder.mkdir(exist_ok=True)
    for cpu in sorted(os.sched_getaffinity(0)):
        lock = open(folder / f"cpu{cpu}.lock", "w")  # noqa: SIM115 (held open on purpose)
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            lock.close()
            continue
        _HELD_CPUS.append(lock)
        os.sched_setaffinity(0, {cpu})  # pid 0: this thread only
        return


def run_tasks_on_cluster(tasks: Sequence[GameSpec], settings: RunSettings, address: str,
                         on_workers: Callable[[int], None] | None = None) -> Iterator[Finished]:
    """The games of ``tasks`` as they finish (any order), played by the Dask cluster at ``address``.

    ``on_workers(count)`` hears how many workers the cluster has, at the start and when it
    changes. ClusterError if the scheduler cannot be reached or is lost, or if a game keeps
    killing its workers; the games already yielded are all the run has.
    """
    if not tasks:
        return
    bundle = bundle_of(settings)
    levels = _quiet_dask_logs()
    try:
        client = _connect(address)
    except BaseException:
        _restore_logs(levels)
        raise
    plugin = BotFiles(bundle, settings)
    running: dict[Any, Sequence[GameSpec]] = {}
    try:
        try:
            client.register_plugin(plugin)
        except ArenaError as error:
            raise ClusterError(f"setting up the bots on the workers of {address}: {error}") from None
        try:
            yield from _stream(client, address, tasks, settings, bundle, running, on_workers)
        except ArenaError:
            raise
        except Exception as error:
            # With the scheduler gone, any call on the client may fail, each its own way.
            if client.status != "running":
                raise _lost(address, error) from None
            raise
    finally:
        try:
            if running:
                client.cancel(list(running))
            client.unregister_worker_plugin(plugin.name)  # the workers stop this run's bots
        except Exception:
            pass
        with contextlib.suppress(Exception):
            client.close(timeout=5)
        _restore_logs(levels)


def _quiet_dask_logs() -> dict[str, int]:
    """Silence Dask's loggers below CRITICAL; their levels before, to restore.

    The client logs a lost connection with tracebacks, from several loggers that each have their
    own level; the run reports the loss itself, in one line.
    """
    names = ["distributed"] + [name for name in logging.root.manager.loggerDict
                               if name.startswith("distributed.")]
    levels = {}
    for name in names:
        logger = logging.getLogger(name)
        levels[name] = logger.level
        logger.setLevel(logging.CRITICAL)
    return levels


def _restore_logs(levels: dict[str, int]) -> None:
    for name, level in levels.items():
        logging.getLogger(name).setLevel(level)


def _connect(address: str) -> Any:
    client_type: Any = Client  # distributed has no type hints
    try:
        return client_type(address, timeout=CONNECT_TIMEOUT, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as error:
        raise ClusterError(f"cannot reach the Dask scheduler at {address}: "
                           f"{str(error).splitlines()[0] if str(error) else type(error).__name__}"
                           ) from None


def _stream(client: Any, address: str, tasks: Sequence[GameSpec], settings: RunSettings,
            bundle: Bundle, running: dict[Any, Sequence[GameSpec]],
            on_workers: Callable[[int], None] | None) -> Iterator[Finished]:
    """Submit batches, a bounded number at a time, and yield their games as each completes."""
    token = uuid.uuid4().hex[:8]
    batches = [tasks[first:first + BATCH_SIZE] for first in range(0, len(tasks), BATCH_SIZE)]
    waiting = iter(batches)
    seen: set[str] = set()
    workers, threads = _workers(client, address)
    if on_workers is not None:
        on_workers(workers)
    workerless_since = time.monotonic() if workers == 0 else None
    next_check = time.monotonic() + CHECK_INTERVAL
    # Each future puts itself here when it completes, errs or is cancelled (a lost scheduler
    # cancels them all), so the loop below wakes for every result and at least once a second.
    completed: queue.SimpleQueue[Any] = queue.SimpleQueue()

    def submit_up_to(limit: int) -> None:
        while len(running) < limit:
            batch = next(waiting, None)
            if batch is None:
                return
            future = client.submit(play_on_worker, batch, settings, bundle.digest, bundle.base,
                                   key=f"arena-{token}-{batch[0].id}", pure=False, retries=0)
            running[future] = batch
            future.add_done_callback(completed.put)

    submit_up_to(max(2, IN_FLIGHT_PER_THREAD * threads))
    while running:
        try:
            done = [completed.get(timeout=CHECK_INTERVAL)]
        except queue.Empty:
            done = []
        for future in done:
            batch = running.pop(future, None)
            if batch is None:  # already handled
                continue
            for game_id, game in _games_of(future, batch, address):
                if game_id not in seen:
                    seen.add(game_id)
                    yield game
            future.release()
        now = time.monotonic()
        if now >= next_check:
            next_check = now + CHECK_INTERVAL
            count, threads = _workers(client, address)
            if count != workers and on_workers is not None:
                on_workers(count)
            workers = count
            if workers:
                workerless_since = None
            elif workerless_since is None:
                workerless_since = now
            elif now - workerless_since > WORKERLESS_TIMEOUT:
                raise ClusterError(f"the Dask scheduler at {address} has had no workers for "
                                   f"{WORKERLESS_TIMEOUT:.0f} s (start some with: dask worker "
                                   f"{address} --nthreads 1); --resume plays the rest")
        submit_up_to(max(2, IN_FLIGHT_PER_THREAD * threads))


def _workers(client: Any, address: str) -> tuple[int, int]:
    """The cluster's workers and their threads, in total."""
    try:
        threads = client.nthreads()
    except (OSError, CancelledError, TimeoutError) as error:
        raise _lost(address, error) from None
    return len(threads), sum(threads.values())


def _games_of(future: Any, batch: Sequence[GameSpec], address: str) -> list[tuple[str, Finished]]:
    """A completed task's games; ClusterError if it failed or was cancelled."""
    if future.cancelled():
        raise _lost(address, None)
    try:
        games: list[tuple[str, Finished]] = future.result()
    except KilledWorker:
        raise ClusterError(f"workers died again and again while playing game {batch[0].id} "
                           f"(out of memory?); --resume plays the rest") from None
    except (CancelledError, OSError) as error:  # OSError: Dask's CommClosedError, the link is gone
        raise _lost(address, error) from None
    except ArenaError as error:
        raise ClusterError(f"a worker of {address}: {error}") from None
    return games


def _lost(address: str, error: BaseException | None) -> ClusterError:
    why = f" ({str(error).splitlines()[0]})" if error is not None and str(error) else ""
    return ClusterError(f"lost the Dask scheduler at {address}{why}; the games finished so far "
                        f"are saved: --resume plays the rest")
