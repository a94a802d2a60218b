"""The league's locks: ``flock`` on a file that names its holder's pid.

A lock is a file in the league directory (``run.lock``: one ``league run`` at a time;
``submit.lock``: one submission storing its bot, or tidying what an interrupted one left). The
kernel drops an ``flock`` with the process, however it ends (even SIGKILL), so a lock is never
stale; the pid written into the file after taking it is only there to be named in the message of
whoever finds it taken. The files are never deleted (deleting a locked file would let a second
process lock a new file of the same name).
"""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from arena.errors import ArenaError

POLL_SECONDS = 0.05
"""How often a waiting process tries the lock again."""


class LeagueBusy(ArenaError):
    """Another process holds a league's lock (for longer than the caller would wait)."""

    def __init__(self, message: str, holder: int | None) -> None:
        super().__init__(message)
        self.holder = holder
        """The pid written in the lock file by the process holding it (None: not written yet)."""


def holder_pid(path: Path) -> int | None:
    """The pid written in the lock file ``path`` (None: no file, or no pid in it yet)."""
    try:
        text = path.read_text().strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


@contextmanager
def league_lock(path: Path, *, what: str, advice: str, wait: float = 0.0,
                on_wait: Callable[[int | None], None] | None = None) -> Iterator[None]:
    """Hold the lock ``path`` for the ``with`` block, waiting up to ``wait`` seconds for it.

    ``on_wait(pid)`` is called once when the lock is taken by another process (``pid``, if it wrote
    one). LeagueBusy after ``wait`` seconds, its message ``PATH: held by pid N (WHAT): ADVICE``
    (``{pid}`` in ADVICE is the holder's pid).
    """
    with path.open("a+") as handle:
        deadline = time.monotonic() + wait
        said = False
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                pid = holder_pid(path)
                if time.monotonic() >= deadline:
                    held = f"held by pid {pid}" if pid is not None else "held by another process"
                    waited = f" for {wait:g} s" if wait > 0 else ""
                    raise LeagueBusy(f"{path}: {held} ({what}){waited}: "
                                     f"{advice.format(pid=pid or 'PID')}", pid) from None
                if not said and on_wait is not None:
                    said = True
                    on_wait(pid)
                time.sleep(POLL_SECONDS)
        handle.seek(0)
        handle.truncate()
        handle.write(f"{os.getpid()}\n")
        handle.flush()
        yield


def is_locked(path: Path) -> bool:
    """Whether another process holds an ``flock`` on ``path`` (False when there is no such file)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False
