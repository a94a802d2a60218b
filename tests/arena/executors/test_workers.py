"""Local workers (arena.executors.workers): how they start and stop, with real processes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]

# The runner's handlers (SIGTERM -> KeyboardInterrupt) are installed, and every fork sends the
# child SIGTERM at once: each worker is stopped while it is starting, before its own handlers.
STOPPED_WHILE_STARTING = """
import os, signal, sys
from arena.bots.registry import install_signal_handlers
from arena.errors import ResultsError
from arena.executors.workers import run_tasks
from arena.work import BotCommand, GameSpec, RunSettings

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
from arena.work import BotCommand, GameSpec, RunSettings

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
