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
