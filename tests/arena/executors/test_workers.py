"""Local workers (arena.executors.workers): how they start and stop, with real processes."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena.executors.workers import LocalWorkers
from arena.settings import Limits
from arena.values.work import BotCommand, Finished, GameSpec, RunSettings

REPO = Path(__file__).resolve().parents[3]

# The runner's handlers (SIGTERM -> KeyboardInterrupt) are installed, and every fork sends the
# child SIGTERM at once: each worker is stopped while it is starting, before its own handlers.
STOPPED_WHILE_STARTING = """
import os, signal, sys
from arena.bots.registry import install_signal_handlers
from arena.errors import ResultsError
from arena.executors.workers import run_tasks
from arena.values.work import BotCommand, GameSpec, RunSettings

install_signal_handlers()
os.register_at_fork(after_in_child=lambda: os.kill(os.getpid(), signal.SIGTERM))
bot = BotCommand(argv=(sys.argv[1],), workdir=os.getcwd())
tasks = [GameSpec(id="g", game="blackout", options={"deals": 1}, seats=("a", "a", "a"), seed=1,
                  round=1, table=0, rotation=0)]
try:
    for _ in run_tasks(tasks, RunSettings(bots={"a": bot}), jobs=2):
        pass
except ResultsError as error:
    print("stopped:", error)
"""


def test_a_worker_stopped_while_starting_exits_quietly() -> None:
    # 1 run in 3 of a successful league run printed "KeyboardInterrupt" from a worker that the
    # run's end stopped before it had installed its own handlers
    proc = subprocess.run([sys.executable, "-c", STOPPED_WHILE_STARTING, "bots/c/random_bot"],
                          cwd=REPO, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "KeyboardInterrupt" not in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
    assert "stopped: a worker process" in proc.stdout  # the run itself says what happened


# The runner holds a large heap; a gc callback (inherited by the forked workers) notes, at each
# collection in a worker, how many objects are frozen: a worker's collections must never walk what
# it inherited (a first full collection of a runner's heap held a decision for over a second on a
# loaded machine).
COLLECTIONS_IN_WORKERS = """
import gc, os, sys
from arena.executors.workers import run_tasks
from arena.values.work import BotCommand, GameSpec, RunSettings

runner = os.getpid()
heap = [[n] for n in range(200_000)]  # lists: always tracked by the collector

def note(phase, info):
    if phase == "start" and os.getpid() != runner:
        with open(sys.argv[2], "a") as out:
            out.write(f"{info['generation']} {gc.get_freeze_count()}\\n")

gc.callbacks.append(note)
bot = BotCommand(argv=(sys.argv[1],), workdir=os.getcwd())
tasks = [GameSpec(id=f"g{i}", game="blackout", options={}, seats=("a", "a", "a", "a"), seed=i,
                  round=1, table=i, rotation=0) for i in range(4)]
played = sum(1 for _ in run_tasks(tasks, RunSettings(bots={"a": bot}), jobs=2))
print("played", played)
"""


def test_a_workers_collections_leave_the_runners_objects_alone(tmp_path: Path) -> None:
    notes = tmp_path / "collections.txt"
    proc = subprocess.run([sys.executable, "-c", COLLECTIONS_IN_WORKERS, "bots/c/random_bot",
                           str(notes)], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "played 4" in proc.stdout
    frozen = [int(line.split()[1]) for line in notes.read_text().splitlines()]
    assert frozen  # the games allocate enough to collect
    assert min(frozen) >= 200_000  # the runner's heap was frozen before any collection


# --- workers kept from one play to the next (a league's batches) ------------------------------

MISBEHAVING = REPO / "tests" / "bots" / "misbehaving"
C_RANDOM = BotCommand(argv=(str(REPO / "bots" / "c" / "random_bot"),))
C_FIRST = BotCommand(argv=(str(REPO / "bots" / "c" / "first_bot"),))


def specs(first: int, count: int, seats: tuple[str, ...] = ("n", "c", "c")) -> list[GameSpec]:
    return [GameSpec(id=f"g{i}", game="blackout", options={"deals": 2}, seats=seats, seed=i,
                     round=1, table=i, rotation=0) for i in range(first, first + count)]


def noted(directory: Path) -> BotCommand:
    """The bot that appends its pid to ``directory/starts.txt`` as it starts."""
    return BotCommand(argv=(sys.executable, "-S", str(MISBEHAVING / "notes_its_pid.py")),
                      workdir=str(directory))


def starts(directory: Path) -> list[int]:
    path = directory / "starts.txt"
    return [int(pid) for pid in path.read_text().split()] if path.exists() else []


def ids(games: list[Finished]) -> list[str]:
    return sorted(game.id for game in games)


@pytest.mark.slow
def test_workers_keep_their_bots_between_plays_and_a_play_stopped_early_leaves_no_stray_game(
        tmp_path: Path) -> None:
    settings = RunSettings(bots={"n": noted(tmp_path), "c": C_RANDOM})
    with LocalWorkers(2) as workers:
        assert ids(list(workers.play(specs(0, 8), settings))) == ids_of(specs(0, 8))
        assert ids(list(workers.play(specs(8, 8), settings))) == ids_of(specs(8, 8))
        kept = starts(tmp_path)
        assert 1 <= len(kept) <= 2, kept  # once per worker, for both plays
        stopped = workers.play(specs(16, 8), settings)
        next(stopped)
        stopped.close()  # its caller stopped early: its workers and bots are stopped
        assert gone_soon(kept)
        # a new play starts new workers, and only its own games come back
        assert ids(list(workers.play(specs(24, 8), settings))) == ids_of(specs(24, 8))
        assert len(starts(tmp_path)) > len(kept)
    assert gone_soon(starts(tmp_path))


def test_a_run_of_one_job_keeps_bots_whose_command_is_unchanged(tmp_path: Path) -> None:
    settings = RunSettings(bots={"n": noted(tmp_path), "c": C_RANDOM})
    with LocalWorkers(1) as here:
        assert len(list(here.play(specs(0, 2), settings))) == 2
        assert len(starts(tmp_path)) == 1
        # the next batch names other bots as well: the bots it shares stay alive
        more = RunSettings(bots={"n": noted(tmp_path), "c": C_RANDOM, "f": C_FIRST})
        assert len(list(here.play(specs(2, 2, ("n", "c", "f")), more))) == 2
        assert len(starts(tmp_path)) == 1
        # other limits: every bot starts again under them
        tighter = dataclasses.replace(more, limits=Limits(memory_mb=1024))
        assert len(list(here.play(specs(4, 2, ("n", "c", "f")), tighter))) == 2
        assert len(starts(tmp_path)) == 2
    assert gone_soon(starts(tmp_path))


def ids_of(tasks: list[GameSpec]) -> list[str]:
    return sorted(task.id for task in tasks)


def gone_soon(pids: list[int], timeout: float = 10.0) -> bool:
    """Whether every one of ``pids`` has exited within ``timeout`` seconds: a worker terminated
    after its grace kills its bots' groups without waiting for them."""
    deadline = time.monotonic() + timeout
    while any(pid_alive(pid) for pid in pids):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:  # reaped meanwhile
        return False
    return stat.rsplit(") ", 1)[1][:1] != "Z"  # a zombie has exited
