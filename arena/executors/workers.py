"""Local executors: games of a run played in pinned worker processes, results sent back as each ends.

Each worker is pinned to one CPU (its bots inherit the pin): a pipe round trip between processes on
one CPU is 15-20x faster than across CPUs on a small machine. Workers are the runner's own
``multiprocess.Process`` children, each answering on its own pipe, so a worker that dies cannot
leave a lock held that blocks the others.
"""


from __future__ import annotations

import contextlib
import ctypes
import gc
import os
import signal
import time
from collections.abc import Generator, Iterator, Sequence
from typing import Any, NamedTuple

from arena.bots.process import live_bots
from arena.errors import ResultsError
from arena.executors.batch import close_batch_bots, play_batch
from arena.records.writer import finished_of
from arena.settings import available_cpus
from arena.values.work import Finished, GameSpec, RunSettings

STOP_GRACE = 2.0
"""Seconds a stopping run waits for the games in progress to finish and be saved."""
WORKER_EXIT_GRACE = 1.0
"""Seconds workers get to close their bots and exit by themselves before they are terminated."""

CHUNK_SIZE = 4
"""Games handed to a worker at a time: each hand-off costs the runner ~0.1 ms (measured on a
2-core VM) on a CPU the workers need. Results do not wait for the chunk: each game is sent
back the moment it ends."""


class WorkerFailed(NamedTuple):
    """A worker's last message when play_batch raised (a bug): the traceback, as text."""

    pid: int
    traceback: str


def _stop_with_parent(parent: int) -> None:
    """Have the kernel send this worker SIGTERM when the runner dies, even by SIGKILL.

    Otherwise an orphaned worker waits forever for its next games, keeping its bots alive. Linux
    only, like the CPU pinning; elsewhere a no-op.
    """
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # the runner died before the request took effect
        os.kill(os.getpid(), signal.SIGTERM)


def leave_inherited_objects() -> None:
    """Keep the garbage collector of a process that plays games off the objects it already holds
    (``gc.freeze``: they move to a generation no collection walks).

    A full collection walks every tracked object; in a worker forked from the runner, that is the
    runner's whole heap, and walking it writes to every page (copy-on-write). Measured in a league
    worker: a first full collection of ~48,000 inherited objects took 90-180 ms on an idle 2-core
    machine and 1.4 s with 16 busy loops, and it comes when allocation triggers it: in the middle of
    a decision, whose deadline then passes while the arena is not running. It grows with the
    runner's heap and the machine's load. Objects frozen are still freed by reference counting;
    only cycles among them wait (in a worker, for its exit; elsewhere, for ``gc.unfreeze``).

    A worker is forked with the collector off (``start_workers``), so that no collection runs
    between the fork and this call (Python's documented recipe: disable in the parent, freeze in
    the child, enable): it is turned on here, after the freeze.
    """
    gc.freeze()
    gc.enable()


def _worker_main(cpu: int | None, chunks: Any, results: Any, stop: Any, parent: int) -> None:
    """A worker process: pinned to one CPU, plays the chunks of games it takes until told to stop.

    A chunk is ``(settings, tasks)``: the settings come with the games, so one worker serves
    batch after batch (a league's) with the bots it has running (``play_batch`` keeps those whose
    command is unchanged).

    Each finished game goes back on the worker's own pipe (``results``), written synchronously:
    no feeder thread and no lock shared with other workers, so a worker that dies cannot leave a
    lock held that blocks the others. Ctrl-C is the runner's to handle (ignored here); SIGTERM,
    from the runner or from the kernel when the runner dies, kills this worker's bots and exits.
    """
    leave_inherited_objects()  # first: before anything allocates enough to start a collection
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _kill_bots_and_exit)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)  # blocked by start_workers
    if cpu is not None:
        os.sched_setaffinity(0, {cpu})
    _stop_with_parent(parent)
    try:
        while not stop.is_set():
            chunk = chunks.get()
            if chunk is None:
                break
            settings, tasks = chunk
            for task in tasks:
                if stop.is_set():
                    break
                for line in play_batch([task], settings):
                    results.send(finished_of(line))
    except Exception:
        import traceback

        results.send(WorkerFailed(os.getpid(), traceback.format_exc()))
    finally:
        close_batch_bots()
        results.close()


STOP_SIGNALS = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}
"""Signals that stop a run: the runner turns them into KeyboardInterrupt, a worker has its own."""


def start_workers(workers: Sequence[Any]) -> None:
    """Start each worker process with ``STOP_SIGNALS`` blocked; it unblocks them once its own
    handlers are in place.

    A forked worker inherits the runner's handlers, which raise KeyboardInterrupt; a worker stopped
    (SIGTERM at the end of a run) or interrupted (Ctrl-C reaches the whole process group) before
    it had replaced them printed a KeyboardInterrupt traceback, in a run that had succeeded. Blocked,
    the signal waits until the worker's own handler can take it.

    The collector is off while they fork: a worker's first collection comes after it has frozen
    what it inherited (``leave_inherited_objects``, which turns it back on), never in the
    bootstrap before (seen under load with the compiled build: a collection at freeze count 0).
    """
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    collecting = gc.isenabled()
    gc.disable()
    try:
        for worker in workers:
            worker.start()
    finally:
        if collecting:
            gc.enable()
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _kill_bots_and_exit(signum: int, frame: object) -> None:
    """A worker's SIGTERM: kill every bot's process group at once and exit, waiting for nothing
    (the signal may arrive in the middle of closing a bot, and waiting again there would stall)."""
    for bot in live_bots():
        with contextlib.suppress(ProcessLookupError, PermissionError, TypeError):
            os.killpg(bot.pid, signal.SIGKILL)  # type: ignore[arg-type]
    os._exit(1)


def run_tasks(tasks: Sequence[GameSpec], settings: RunSettings, jobs: int) -> Iterator[Finished]:
    """The games of ``tasks`` as they finish (any order), ``jobs`` pinned workers in parallel.

    Raises ResultsError if a worker dies (killed from outside, out of memory): its games would
    never come back. Whatever happens, every worker and its bots are gone when this returns.
    """
    with LocalWorkers(jobs) as workers:
        yield from workers.play(tasks, settings)


class LocalWorkers:
    """``jobs`` pinned workers (or, for one job, this process) kept from one ``play`` to the next,
    with their bots: a league's batches are played like one long tournament, not by new workers
    starting every bot again for every 16 games.

    Every ``play`` hands back all its games before the next may begin; one that ends any other
    way (Ctrl-C, a dead worker, its caller stopping early) stops the workers and their bots, and
    the next ``play`` starts new ones, so no game of one ``play`` ever arrives in another.
    ``close()`` (or leaving the ``with``) stops them for good.
    """

    def __init__(self, jobs: int) -> None:
        self.jobs = jobs
        self._workers: list[Any] = []
        self._readers: dict[Any, Any] = {}
        """The pipe of each worker still sending, to its worker (dropped at its EOF)."""
        self._pipes: list[Any] = []
        """Every worker's pipe, closed with the workers."""
        self._chunks: Any = None
        self._stop: Any = None
        self._pinned: set[int] | None = None
        """The runner's CPUs before it pinned itself to play the games of one job itself."""

    def __enter__(self) -> LocalWorkers:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def play(self, tasks: Sequence[GameSpec],
             settings: RunSettings) -> Generator[Finished, None, None]:
        """The games of ``tasks`` as they finish (any order)."""
        if not tasks:
            return
        complete = False
        try:
            if self.jobs <= 1:
                yield from self._play_here(tasks, settings)
            else:
                yield from self._play_on_workers(tasks, settings)
            complete = True
        finally:
            if not complete:
                self.close()

    def _play_here(self, tasks: Sequence[GameSpec], settings: RunSettings) -> Iterator[Finished]:
        if self._pinned is None:
            self._pinned = os.sched_getaffinity(0)
            os.sched_setaffinity(0, {available_cpus()[-1]})
            leave_inherited_objects()  # the runner's own heap, while it plays the games itself
        for task in tasks:
            for line in play_batch([task], settings):
                yield finished_of(line)

    def _play_on_workers(self, tasks: Sequence[GameSpec], settings: RunSettings) -> Iterator[Finished]:
        if not self._workers:
            self._start()
        for first in range(0, len(tasks), CHUNK_SIZE):
            self._chunks.put((settings, list(tasks[first:first + CHUNK_SIZE])))
        received = 0
        try:
            while received < len(tasks):
                for game in _arrivals(self._readers, timeout=0.2):
                    received += 1
                    yield game
                _check_workers(self._workers, received)
                if not self._readers and received < len(tasks):
                    raise ResultsError(f"the workers finished but only {received} games came "
                                       f"back: --resume plays the rest")
        except KeyboardInterrupt:
            # No new games start; those in progress get a short grace to finish and be saved.
            self._stop.set()
            for _ in self._workers:
                self._chunks.put(None)  # a worker waiting for games exits
            deadline = time.monotonic() + STOP_GRACE
            while self._readers and (left := deadline - time.monotonic()) > 0:
                yield from _arrivals(self._readers, timeout=min(left, 0.25))  # until all are out
            raise

    def _start(self) -> None:
        import multiprocess

        cpus = available_cpus()
        self._chunks = multiprocess.Queue()
        self._stop = multiprocess.Event()
        pipes = [multiprocess.Pipe(duplex=False) for _ in range(self.jobs)]
        # Workers are forked before anything is put on a queue, so before any feeder thread exists.
        self._workers = [multiprocess.Process(target=_worker_main, daemon=True,
                                              args=(cpus[i % len(cpus)] if cpus else None,
                                                    self._chunks, sender, self._stop, os.getpid()))
                         for i, (_, sender) in enumerate(pipes)]
        start_workers(self._workers)
        for (reader, sender), worker in zip(pipes, self._workers, strict=True):
            sender.close()  # the worker's copy is the only one: its exit is EOF here
            self._readers[reader] = worker
            self._pipes.append(reader)

    def close(self) -> None:
        """Stop the workers and their bots (or, for one job, this process's bots)."""
        if self._pinned is not None:
            close_batch_bots()
            gc.unfreeze()
            os.sched_setaffinity(0, self._pinned)
            self._pinned = None
        if not self._workers:
            return
        workers, self._workers = self._workers, []
        self._stop.set()  # workers start no new game, close their bots and exit
        for _ in workers:
            self._chunks.put(None)  # one waiting for games wakes up and exits
        deadline = time.monotonic() + WORKER_EXIT_GRACE
        for worker in workers:
            worker.join(timeout=max(0.0, deadline - time.monotonic()))
        for worker in workers:
            if worker.is_alive():
                worker.terminate()  # SIGTERM: the worker kills its bots and exits
        for worker in workers:
            worker.join(timeout=5)
            if worker.is_alive():
                worker.kill()
                worker.join()
        for reader in self._pipes:
            reader.close()
        self._pipes.clear()
        self._readers.clear()
        self._chunks.cancel_join_thread()  # games never taken must not keep the runner from exiting


def _arrivals(readers: dict[Any, Any], timeout: float) -> list[Finished]:
    """The finished games waiting on the workers' pipes (within ``timeout``); a pipe at EOF (its
    worker has exited) is dropped from ``readers``. RuntimeError if a worker reports a bug."""
    from multiprocess.connection import wait

    games = []
    for reader in wait(list(readers), timeout=timeout):
        try:
            item = reader.recv()
        except (EOFError, OSError):
            del readers[reader]
            continue
        if isinstance(item, WorkerFailed):
            raise RuntimeError(f"worker {item.pid} failed:\n{item.traceback}")
        games.append(item)
    return games


def _check_workers(workers: Sequence[Any], received: int) -> None:
    """ResultsError if a worker died: the games it had taken would never come back."""
    for worker in workers:
        if worker.exitcode not in (None, 0):
            how = (f"killed by signal {-worker.exitcode}" if worker.exitcode < 0
                   else f"exit status {worker.exitcode}")
            raise ResultsError(f"a worker process (pid {worker.pid}) died unexpectedly ({how}; "
                               f"out of memory?); {received} games are saved: --resume plays "
                               f"the rest")


