"""Running a tournament: games in parallel workers, results appended as each game ends, resume.

The unit of work is ``play_batch(specs, settings) -> lines``: a plain function from game specs to
result lines (one JSON-able dict per game). It keeps the bot processes of the process it runs in
alive between calls, so any executor that calls it repeatedly in long-lived workers (the
``multiprocess`` pool here; a Dask cluster later) gets persistent bots without knowing about them.

Each worker is pinned to one CPU (its bots inherit the pin): a pipe round trip between processes on
one CPU is 15-20x faster than across CPUs on this kind of machine (shared/PERFORMANCE.md).

Results (``arena.results``): ``games.jsonl`` gets one line per finished game, serialised by the
worker and written and flushed by the runner as soon as it arrives, fsync'ed at most once a second
and at the end. A resumed run drops a half-written last line, skips every game whose id is
already there, and plays the rest.
"""

from __future__ import annotations

import ctypes
import os
import signal
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import orjson

from arena.errors import BotStartError, ConfigError, ResultsError, RunInterrupted
from arena.faults import Fault, FaultKind
from arena.process import BotProcess, Limits, close_bots, live_bots
from arena.progress import Progress
from arena.referee import FaultPolicy, TimeControl, play_game, result_of
from arena.results import ResultsWriter, prepare_out_dir, read_finished
from arena.schedule import GameSpec, schedule
from arena.table import results_table
from arena.tournament import build_bots, load_tournament


@dataclass(frozen=True)
class BotCommand:
    """How to start one bot: its argv and working directory."""

    argv: tuple[str, ...]
    workdir: str | None = None


@dataclass(frozen=True)
class RunSettings:
    """Everything a worker needs besides the games: bot commands, limits, policy, log directory."""

    bots: dict[str, BotCommand]
    time_control: TimeControl = TimeControl()
    limits: Limits = Limits()
    policy: FaultPolicy = FaultPolicy.FORFEIT
    log_dir: str | None = None


class Finished(NamedTuple):
    """A finished game as the runner needs it: the serialised result line, its ``result``, faults.

    Workers serialise the line themselves: a record is tens of KB of nested lists, and
    multiprocess pickles with dill, which is slow on those, while bytes cross the pipe almost for
    free.
    """

    line: bytes
    result: dict[str, Any]
    faults: int


def finished_of(line: dict[str, Any]) -> Finished:
    """The runner's view of one result line."""
    return Finished(orjson.dumps(line) + b"\n", line["result"], len(line.get("faults", ())))


# --- The unit of work ----------------------------------------------------------------------------


class _BotPool:
    """This process's bot processes, by (bot name, copy), started on first use and kept alive."""

    def __init__(self, settings: RunSettings) -> None:
        self.settings = settings
        self.bots: dict[tuple[str, int], BotProcess] = {}

    def seat_bots(self, seats: Sequence[str]) -> list[BotProcess]:
        """One running (or failed-to-start) process per seat; repeated names get separate copies."""
        copies: dict[str, int] = {}
        chosen = []
        for name in seats:
            copy = copies.get(name, 0)
            copies[name] = copy + 1
            bot = self.bots.get((name, copy))
            if bot is None:
                bot = self.bots[(name, copy)] = self._new(name, copy)
                _start(bot)
            chosen.append(bot)
        return chosen

    def _new(self, name: str, copy: int) -> BotProcess:
        command = self.settings.bots[name]
        log = None
        if self.settings.log_dir is not None:
            suffix = "" if copy == 0 else f"-copy{copy + 1}"
            log = Path(self.settings.log_dir) / f"{name}{suffix}-{os.getpid()}.stderr.log"
        return BotProcess(name, command.argv, cwd=command.workdir, limits=self.settings.limits,
                          log_path=log, start_timeout=self.settings.time_control.start_ms / 1000)

    def close(self) -> None:
        """Stop every bot of this pool (quit to all, one shared grace, then kill)."""
        close_bots(self.bots.values())
        self.bots.clear()


def _start(bot: BotProcess) -> None:
    """Start or restart a bot; a failure leaves it stopped with the reason as its last fault."""
    try:
        bot.restart()
    except BotStartError as error:
        bot.last_fault = Fault(FaultKind.CRASH, bot.name, f"could not be started: {error}")


_POOL: _BotPool | None = None


def play_batch(tasks: Sequence[GameSpec], settings: RunSettings) -> list[dict[str, Any]]:
    """Play ``tasks`` in order with this process's bots; one result line per game.

    Bots stay alive between calls in the same process; a bot that faulted is restarted before its
    next game. Never raises for anything a bot does.
    """
    global _POOL
    if _POOL is None or _POOL.settings != settings:
        if _POOL is not None:
            _POOL.close()
        _POOL = _BotPool(settings)
    lines = []
    for task in tasks:
        bots = _POOL.seat_bots(task.seats)
        outcome = play_game(task.game, bots, task.seed, task.options, names=list(task.seats),
                            time_control=settings.time_control, policy=settings.policy)
        for seat in outcome.faulted_seats:
            _start(bots[seat])
        record = outcome.record
        lines.append({"id": task.id, **record,
                      "result": result_of(record, task.entrants, settings.policy)})
    return lines


def close_batch_bots() -> None:
    """Stop the bots ``play_batch`` keeps in this process."""
    global _POOL
    if _POOL is not None:
        _POOL.close()
        _POOL = None


# --- Executors --------------------------------------------------------------------------------------


STOP_GRACE = 2.0
"""Seconds a stopping run waits for the games in progress to finish and be saved."""
WORKER_EXIT_GRACE = 1.0
"""Seconds workers get to close their bots and exit by themselves before they are terminated."""

CHUNK_SIZE = 4
"""Games handed to a worker at a time: each hand-off costs the runner ~0.1 ms (shared/
PERFORMANCE.md) on a CPU the workers need. Results do not wait for the chunk: each game is sent
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


def _worker_main(cpu: int | None, settings: RunSettings, chunks: Any, results: Any, stop: Any,
                 parent: int) -> None:
    """A worker process: pinned to one CPU, plays the chunks of games it takes until told to stop.

    Each finished game goes back on the worker's own pipe (``results``), written synchronously:
    no feeder thread and no lock shared with other workers, so a worker that dies cannot leave a
    lock held that blocks the others. Ctrl-C is the runner's to handle (ignored here); SIGTERM,
    from the runner or from the kernel when the runner dies, kills this worker's bots and exits.
    """
    if cpu is not None:
        os.sched_setaffinity(0, {cpu})
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _kill_bots_and_exit)
    _stop_with_parent(parent)
    try:
        while not stop.is_set():
            chunk = chunks.get()
            if chunk is None:
                break
            for task in chunk:
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


def _kill_bots_and_exit(signum: int, frame: object) -> None:
    """A worker's SIGTERM: kill every bot's process group at once and exit, waiting for nothing
    (the signal may arrive in the middle of closing a bot, and waiting again there would stall)."""
    for bot in live_bots():
        try:
            os.killpg(bot.pid, signal.SIGKILL)  # type: ignore[arg-type]
        except (ProcessLookupError, PermissionError, TypeError):
            pass
    os._exit(1)


def available_cpus() -> list[int]:
    """The CPUs this process may run on, in order."""
    return sorted(os.sched_getaffinity(0))


def run_tasks(tasks: Sequence[GameSpec], settings: RunSettings, jobs: int) -> Iterator[Finished]:
    """The games of ``tasks`` as they finish (any order), ``jobs`` pinned workers in parallel.

    Raises ResultsError if a worker dies (killed from outside, out of memory): its games would
    never come back. Whatever happens, every worker and its bots are gone when this returns.
    """
    if not tasks:
        return
    cpus = available_cpus()
    if jobs <= 1:
        previous = os.sched_getaffinity(0)
        os.sched_setaffinity(0, {cpus[-1]})
        try:
            for task in tasks:
                for line in play_batch([task], settings):
                    yield finished_of(line)
        finally:
            close_batch_bots()
            os.sched_setaffinity(0, previous)
        return

    import multiprocess

    chunks = multiprocess.Queue()
    stop = multiprocess.Event()
    pipes = [multiprocess.Pipe(duplex=False) for _ in range(jobs)]
    # Workers are forked before anything is put on a queue, so before any feeder thread exists.
    workers = [multiprocess.Process(target=_worker_main, daemon=True,
                                    args=(cpus[i % len(cpus)] if cpus else None, settings,
                                          chunks, sender, stop, os.getpid()))
               for i, (_, sender) in enumerate(pipes)]
    for worker in workers:
        worker.start()
    readers = {}
    for (reader, sender), worker in zip(pipes, workers, strict=True):
        sender.close()  # the worker's copy is the only one: its exit is EOF here
        readers[reader] = worker
    try:
        for first in range(0, len(tasks), CHUNK_SIZE):
            chunks.put(list(tasks[first:first + CHUNK_SIZE]))
        for _ in workers:
            chunks.put(None)
        received = 0
        try:
            while received < len(tasks):
                for game in _arrivals(readers, timeout=0.2):
                    received += 1
                    yield game
                _check_workers(workers, received)
                if not readers and received < len(tasks):
                    raise ResultsError(f"the workers finished but only {received} games came "
                                       f"back: --resume plays the rest")
        except KeyboardInterrupt:
            # No new games start; those in progress get a short grace to finish and be saved.
            stop.set()
            deadline = time.monotonic() + STOP_GRACE
            while readers and (left := deadline - time.monotonic()) > 0:
                yield from _arrivals(readers, timeout=min(left, 0.25))  # until every worker is out
            raise
    finally:
        stop.set()  # workers start no new game, close their bots and exit; stragglers get SIGTERM
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
        for reader in pipes:
            reader[0].close()
        chunks.cancel_join_thread()  # games never taken must not keep the runner from exiting


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


# --- A whole run -----------------------------------------------------------------------------------


@dataclass
class RunReport:
    """What a run did: games played now, games found from before, faults, the output directory."""

    out_dir: Path
    total: int
    resumed: int = 0
    played: int = 0
    faults: int = 0
    seconds: float = 0.0
    results: list[dict[str, Any]] = field(default_factory=list)


def run(tasks: Sequence[GameSpec], settings: RunSettings, out_dir: Path, jobs: int,
        on_game: Callable[[Finished, int, int], None] | None = None) -> RunReport:
    """Play every task not already in ``out_dir/games.jsonl``, appending each result as it ends.

    ``on_game(finished, done, total)`` is called after each game is written (for progress).
    """
    path = out_dir / "games.jsonl"
    finished = read_finished(path)
    known = {task.id for task in tasks}
    strangers = sorted(set(finished) - known)
    if strangers:
        raise ResultsError(f"{path}: game {strangers[0]!r} is not in this tournament's schedule")
    todo = [task for task in tasks if task.id not in finished]
    report = RunReport(out_dir, len(tasks), resumed=len(finished))
    report.results = [line["result"] for line in finished.values()]
    report.faults = sum(len(line.get("faults", ())) for line in finished.values())
    start = time.monotonic()
    writer = ResultsWriter(path)
    try:
        for game in run_tasks(todo, settings, jobs):
            writer.append(game.line)
            report.results.append(game.result)
            report.played += 1
            report.faults += game.faults
            if on_game is not None:
                on_game(game, report.resumed + report.played, report.total)
    finally:
        writer.close()
        report.seconds = time.monotonic() - start
    return report


def preflight(settings: RunSettings) -> None:
    """Start and stop each bot once, so that a bot that cannot even say hello stops the run
    before any game (BotStartError, one line), instead of faulting in every game."""
    for name, command in settings.bots.items():
        bot = BotProcess(name, command.argv, cwd=command.workdir, limits=settings.limits,
                         start_timeout=settings.time_control.start_ms / 1000)
        try:
            bot.start()
        finally:
            bot.close()


def run_tournament(file: Path, *, out: Path | None = None, jobs: int | None = None,
                   resume: bool = False, restart: bool = False, resamples: int = 1000,
                   progress_stream: Any = None) -> str:
    """Load, check, schedule and run a tournament file; the closing text (summary and table)."""
    if resume and restart:
        raise ConfigError("--resume and --restart contradict each other: choose one")
    tournament = load_tournament(file)
    out_dir = out if out is not None else Path("results") / tournament.name
    specs = schedule(tournament)
    build_bots(tournament)
    settings = RunSettings(
        bots={bot.name: BotCommand(bot.argv, bot.workdir) for bot in tournament.bots},
        time_control=tournament.time, limits=tournament.limits, policy=tournament.fault_policy,
        log_dir=str(out_dir / "logs"))
    prepare_out_dir(out_dir, tournament.path, resume, restart)
    tasks = specs
    finished = read_finished(out_dir / "games.jsonl", repair=False)
    if len(finished) < len(tasks):
        preflight(settings)
    workers = jobs or tournament.jobs or len(available_cpus())
    progress = Progress(len(tasks), already=len(finished), stream=progress_stream,
                        faults=sum(len(line.get("faults", ())) for line in finished.values()))
    try:
        report = run(tasks, settings, out_dir, workers,
                     on_game=lambda game, done, total: progress.update(game.faults, done, total))
    except KeyboardInterrupt:
        progress.finish()
        saved = len(read_finished(out_dir / "games.jsonl", repair=False))
        raise RunInterrupted(f"interrupted: {saved} of {len(tasks)} games are saved in "
                             f"{out_dir / 'games.jsonl'}; continue with: arena run {file} "
                             f"--resume" + (f" --out {out}" if out is not None else "")) from None
    progress.finish()
    results = report.results
    head = (f"{tournament.name}: {report.total} games ({report.played} played now, "
            f"{report.resumed} from before) in {report.seconds:.1f} s, {report.faults} faults; "
            f"results in {out_dir}/")
    return head + "\n\n" + results_table(results, resamples=resamples)
