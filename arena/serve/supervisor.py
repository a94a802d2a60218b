"""The server keeps its league playing: ``arena league run`` in a child process, started again
whenever it ends (too few entrants yet, another run holding the league's run lock, a bot's
trouble), at once when an upload is accepted and otherwise after ``RETRY_SECONDS``. It says on
stderr why a run ended (once per reason), and when a run plays again after one ended so.

No second play loop: the run is the league's own, and its run lock keeps a ``league run`` started
elsewhere (with ``serve --no-play``, or not) from playing the same sets twice.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

from arena.league.playing import GAME_LINE
from arena.printable import printable
from arena.serve.children import ARENA, start_child
from arena.settings import MINUTES

RETRY_SECONDS = 10.0


class Supervisor:
    """The thread that keeps ``arena league run LEAGUE`` going."""

    def __init__(self, league: Path, jobs: int | None, cluster: str | None) -> None:
        self.league = league
        self.argv = [*ARENA, "league", "run", str(league), "--minutes", str(MINUTES.high)]
        if jobs is not None:
            self.argv += ["--jobs", str(jobs)]
        if cluster is not None:
            self.argv += ["--cluster", cluster]
        self._wake = threading.Condition()
        self._stopping = False
        self._child: subprocess.Popen[bytes] | None = None
        self._thread = threading.Thread(target=self._loop, name="arena-supervisor", daemon=True)

    def start(self) -> None:
        """Start playing."""
        self._thread.start()

    def wake(self) -> None:
        """A bot was accepted: a run that ended for want of entrants starts again now."""
        with self._wake:
            self._wake.notify()

    def stop(self) -> None:
        """Interrupt the run (it keeps every finished game) and end the thread."""
        with self._wake:
            self._stopping = True
            self._wake.notify_all()
            if self._child is not None and self._child.poll() is None:
                self._child.send_signal(2)  # SIGINT: the run's Ctrl-C
        self._thread.join(timeout=60)

    def _loop(self) -> None:
        said = ""

        def playing(line: str) -> bool:  # its first game since a run ended for a reason said
            nonlocal said
            if said and GAME_LINE.match(line):
                print("arena serve: league run playing again: its first game is done",
                      file=sys.stderr, flush=True)
                said = ""
                return True
            return False

        while True:
            with self._wake:
                if self._stopping:
                    return
                self._child = start_child(self.argv, None)
            last = _last_line(self._child, playing)
            code = self._child.wait()
            with self._wake:
                if self._stopping:
                    return
                # Why the run ended, once (not again every retry): too few entrants, a run elsewhere.
                if code != 0 and last != said:
                    print(f"arena serve: league run ended: {printable(last)}", file=sys.stderr,
                          flush=True)
                said = last if code != 0 else ""
                self._wake.wait(RETRY_SECONDS)


def _last_line(child: subprocess.Popen[bytes], on_line: Callable[[str], bool]) -> str:
    """The last line the child wrote on stderr (its progress line is rewritten with ``\\r``: only
    the end of what it wrote is kept), read until it closes it; each whole line is shown to
    ``on_line`` until it returns True."""
    assert child.stderr is not None
    tail = b""
    watching = True
    while chunk := os.read(child.stderr.fileno(), 65536):
        tail = (tail + chunk)[-4096:]
        if watching:
            *whole, _ = tail.replace(b"\r", b"\n").split(b"\n")
            watching = not any(on_line(line.decode("utf-8", "replace")) for line in whole)
    child.stderr.close()
    lines = [line for line in tail.replace(b"\r", b"\n").split(b"\n") if line.strip()]
    return lines[-1].decode("utf-8", "replace").strip() if lines else ""
