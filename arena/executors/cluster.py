"""The Dask executor: the games of a run played on a Dask cluster, each sent back as it ends.

``run_tasks_on_cluster`` is ``arena.executors.workers.run_tasks`` for a cluster: it ships the bots'
files to every worker (``BotFiles``, a worker plugin, so workers that join later get them too),
where they are built again, then submits the games in tasks (``play_on_worker``, a thin wrapper
round ``play_batch``) with ``client.submit``, keeping only a few tasks per worker thread in flight.
Each game is sent to the runner the moment it ends, as a Dask event (``Worker.log_event`` on the
worker, ``Client.subscribe_topic`` on the runner; games that end within ``LINGER`` of each other
share one); the task's end only confirms that all its games were sent. So a task's size does not
delay any result, and tasks are sized to amortise Dask's cost per task (``task_size``): large
while the run is long, small at its end so that every worker finishes together. A worker lost
mid-task loses only its game in progress (and games not yet sent): the scheduler runs the task
again elsewhere, and the runner drops any game whose id it has already yielded, so a game is
never written twice. A lost scheduler ends the run with a ClusterError that says how to resume.

Worker side: each worker thread pins itself to a CPU no other arena worker on the machine holds (a
lock file per CPU), as local workers are pinned, and keeps its bots alive between tasks
(``play_batch`` keeps one pool of bots per thread). Importing this module imports ``distributed``.
"""

from __future__ import annotations

import collections
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

from distributed import Client, KilledWorker, WorkerPlugin, get_worker

from arena.errors import ArenaError, ClusterError
from arena.executors.batch import close_all_batch_bots, play_batch
from arena.executors.bundle import Bundle, bundle_of, localised, unpack
from arena.records.writer import finished_of
from arena.values.work import Finished, GameSpec, RunSettings

TASK_SECONDS = 1.0
"""Worker time a task aims at. Each task costs the scheduler, the runner and the worker a few ms of
CPU in all (measured on a loaded 2-core machine, ``make bench``), taken from the CPUs the games
need: a task of a second keeps that well under 1%. Results do not wait for the task (each game is
sent back as it ends); a worker lost mid-task makes the cluster play the task's finished games
again (they are not written twice), so tasks stay short in time."""
FIRST_TASK_GAMES = 2
"""Games per task before the first results say how long a game takes."""
MAX_TASK_GAMES = 256
"""Games per task at most, however short the games."""
TAIL_SHARE = 3
"""A task takes at most 1/(TAIL_SHARE x worker threads) of the games not yet submitted (down to an
eighth of its usual size), so tasks shrink towards the end of a run and the workers finish within
a small task of each other."""
LINGER = 0.05
"""Seconds a finished game may wait on its worker to travel with the games that end after it.
Each event costs the scheduler and the runner about half a millisecond of CPU (measured on a
loaded 2-core machine), whatever its size: games shorter than this share events; a longer game
always goes the moment it ends."""
MAX_RESENDS = 3
"""Times a game whose result never arrived (its task ended without it) is submitted again."""
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


def play_on_worker(tasks: Sequence[GameSpec], settings: RunSettings, digest: str, base: str,
                   topic: str) -> list[str]:
    """The Dask task: play ``tasks`` with this worker thread's bots, sending each game to the
    runner as it ends (an event on ``topic``); the ids of the games played (which the runner
    does not fetch: the task's end is all it needs to know)."""
    root = _ROOTS.get(digest)
    if root is None:
        raise ClusterError(_FAILED.get(digest, "the bots' files were not set up on this worker"))
    if not getattr(_THREAD, "pinned", False):
        _THREAD.pinned = True
        _pin_to_a_free_cpu()
    cached = _LOCALISED.get(digest)
    if cached is None or cached[0] != settings:
        cached = _LOCALISED[digest] = (settings, localised(settings, base, root))
    outbox = _Outbox(get_worker(), topic)
    played = []
    try:
        for task in tasks:
            for line in play_batch([task], cached[1]):
                game = finished_of(line)
                outbox.add(list(game))
                played.append(task.id)
    finally:
        outbox.send()  # before the task ends, so the runner has every game when it hears the end
    return played


class _Outbox:
    """A task's finished games on their way to the runner, as events on ``topic``.

    A game goes at once if the last event left ``LINGER`` ago or more; otherwise it waits (at
    most until ``LINGER`` after the last event) and travels with the games that end meanwhile.
    """

    def __init__(self, worker: Any, topic: str) -> None:
        self.worker = worker
        self.topic = topic
        self.games: list[list[Any]] = []
        self.sent_at = 0.0
        self.timer_set = False
        self.lock = threading.Lock()  # the game thread adds; the worker's event loop may send

    def add(self, game: list[Any]) -> None:
        """Send ``game`` now, or within ``LINGER`` with the next ones."""
        with self.lock:
            self.games.append(game)
            wait = self.sent_at + LINGER - time.monotonic()
            if wait <= 0:
                self._send()
            elif not self.timer_set:
                self.timer_set = True
                loop = self.worker.loop  # call_later is for the loop's own thread only
                loop.add_callback(loop.call_later, wait, self._on_timer)

    def send(self) -> None:
        """Send the waiting games now."""
        with self.lock:
            self._send()

    def _on_timer(self) -> None:
        with self.lock:
            self.timer_set = False
            self._send()

    def _send(self) -> None:
        if self.games:
            # A list of lists (no dicts: the scheduler adds a "worker" key to those); it arrives
            # as a tuple of tuples.
            self.worker.log_event(self.topic, self.games)
            self.games = []
            self.sent_at = time.monotonic()


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
    """Submit tasks, a bounded number at a time, and yield each game as its event arrives."""
    token = uuid.uuid4().hex[:8]
    waiting = collections.deque(tasks)
    seen: set[str] = set()
    resent: dict[str, int] = {}
    # Game events and finished tasks arrive here, in that order for any one task (both travel the
    # same streams, worker to scheduler to client); so does a task that errs or is cancelled (a
    # lost scheduler cancels them all). The loop below wakes for each, and at least once a second.
    arrivals: queue.SimpleQueue[tuple[str, Any]] = queue.SimpleQueue()
    # The client's own topic: the scheduler keeps the last events of every topic (1,000 by
    # default, about 10 KB each here) and forgets a client's an hour after the client leaves.
    topic = client.id
    client.subscribe_topic(topic, lambda event: arrivals.put(("games", event[1])))
    workers, threads = _workers(client, address)
    if on_workers is not None:
        on_workers(workers)
    workerless_since = time.monotonic() if workers == 0 else None
    next_check = time.monotonic() + CHECK_INTERVAL
    start = time.monotonic()
    submitted = 0

    def submit_up_to(limit: int) -> None:
        nonlocal submitted
        while len(running) < limit and waiting:
            size = task_size(len(waiting), threads, len(seen), time.monotonic() - start)
            batch = [waiting.popleft() for _ in range(min(size, len(waiting)))]
            submitted += 1
            future = client.submit(play_on_worker, batch, settings, bundle.digest, bundle.base,
                                   topic, key=f"arena-{token}-{submitted}-{batch[0].id}",
                                   pure=False, retries=0)
            running[future] = batch
            future.add_done_callback(lambda done: arrivals.put(("task", done)))

    submit_up_to(max(2, IN_FLIGHT_PER_THREAD * threads))
    while running:
        try:
            kind, item = arrivals.get(timeout=CHECK_INTERVAL)
        except queue.Empty:
            kind, item = "", None
        if kind == "games" and isinstance(item, (tuple, list)):  # a list if never serialised
            for game in item:
                finished = Finished(*game)
                if finished.id not in seen:  # a task played again after its worker died resends it
                    seen.add(finished.id)
                    yield finished
        elif kind == "task":
            batch = running.pop(item, None)
            if batch is not None:
                # The first game not seen is the one its workers died in.
                _check_task(item, [spec for spec in batch if spec.id not in seen] or batch,
                            address)
                item.release()
                lost = [spec for spec in batch if spec.id not in seen]
                for spec in lost:
                    resent[spec.id] = resent.get(spec.id, 0) + 1
                    if resent[spec.id] > MAX_RESENDS:
                        raise ClusterError(f"game {spec.id} was played {MAX_RESENDS + 1} times "
                                           f"but its result never reached the runner from "
                                           f"{address}; --resume plays the rest")
                waiting.extendleft(reversed(lost))
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


def task_size(unsubmitted: int, threads: int, finished: int, seconds: float) -> int:
    """Games for the next task: about ``TASK_SECONDS`` of a worker thread's time at the rate the
    run has shown so far (``finished`` games in ``seconds``), at most ``MAX_TASK_GAMES``; near
    the end no more than a ``1/(TAIL_SHARE x threads)`` share of the ``unsubmitted`` games."""
    threads = max(threads, 1)
    if finished == 0 or seconds <= 0:
        by_time = FIRST_TASK_GAMES
    else:
        by_time = int(TASK_SECONDS * finished / (seconds * threads))
    by_time = min(by_time, MAX_TASK_GAMES)
    # Near the end, tasks shrink (to an eighth of their time at least: smaller ones would cost
    # more in Dask's overheads than they save in waiting for the last task).
    return max(1, min(by_time, max(by_time // 8, unsubmitted // (TAIL_SHARE * threads))))


def _workers(client: Any, address: str) -> tuple[int, int]:
    """The cluster's workers and their threads, in total."""
    try:
        threads = client.nthreads()
    except (OSError, CancelledError, TimeoutError) as error:
        raise _lost(address, error) from None
    return len(threads), sum(threads.values())


def _check_task(future: Any, batch: Sequence[GameSpec], address: str) -> None:
    """ClusterError if a finished task failed or was cancelled."""
    if future.status == "finished":
        return  # its games came as events: its result (their ids) need not travel too
    if future.cancelled():
        raise _lost(address, None)
    try:
        future.result()
    except KilledWorker:
        raise ClusterError(f"workers died again and again while playing game {batch[0].id} "
                           f"(out of memory?); --resume plays the rest") from None
    except (CancelledError, OSError) as error:  # OSError: Dask's CommClosedError, the link is gone
        raise _lost(address, error) from None
    except ArenaError as error:
        raise ClusterError(f"a worker of {address}: {error}") from None


def _lost(address: str, error: BaseException | None) -> ClusterError:
    why = f" ({str(error).splitlines()[0]})" if error is not None and str(error) else ""
    return ClusterError(f"lost the Dask scheduler at {address}{why}; the games finished so far "
                        f"are saved: --resume plays the rest")
