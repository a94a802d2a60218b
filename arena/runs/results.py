"""A run's results directory: claimed by one writer at a time, marked as the arena's, and written a
line per game.

Layout: ``games.jsonl`` (one line per finished game), ``logs/`` (each bot process's stderr), the
run's description (``tournament.yaml``, a copy of the file the results were played from, or a
match's ``match.json``), and ``.arena``, the marker that says the directory is the arena's.

Rules (``results_dir``):
- A directory that is not the arena's (no marker, not empty, and not an older results directory
  holding only the arena's own files) is refused unless ``force``: ``--out .`` must not overwrite
  or delete a user's files.
- One writer: the marker is locked (``flock``) for the whole run and names the process that holds
  it; a second run on the same directory, with or without ``--resume`` or ``--restart``, stops at
  once with one line naming it. The kernel drops the lock when the process ends, however it ends.
- ``restart`` removes only what the arena wrote: ``games.jsonl``, the description and the bots'
  ``*.stderr.log`` files in ``logs/``.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson

from arena.errors import ConfigError, ResultsError
from arena.records.reader import RESULTS_FILE
from arena.stderrindex import SUFFIX as INDEX_SUFFIX

__all__ = ["MARKER", "ResultsWriter", "results_dir"]

MARKER = ".arena"
"""The file that marks a directory as the arena's results, locked by the run writing it."""
LOGS = "logs"
LOG_SUFFIX = ".stderr.log"
DESCRIPTIONS = ("tournament.yaml", "match.json")
LEGACY = {RESULTS_FILE, LOGS, "report", *DESCRIPTIONS}
"""What results directories held before the marker: such a directory (with its games.jsonl) is
taken as the arena's and marked."""
FSYNC_INTERVAL = 1.0
"""Most seconds between fsyncs of the results file (a flush follows every game)."""


class ResultsWriter:
    """Appends result lines to ``games.jsonl``: each written and flushed at once, fsync'ed often."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            self.handle = path.open("ab")
        except OSError as error:
            raise ResultsError(f"{path}: cannot write: {error.strerror or error}") from None
        self.last_sync = time.monotonic()

    def append(self, line: bytes) -> None:
        """Write one game's serialised line (``arena.records.writer.serialise``: its newline
        included, so one write: a kill leaves at most one partial line).

        ResultsError when it cannot be written (a full disk): the lines before it are saved, and
        a partial line is what ``--resume`` drops."""
        try:
            self.handle.write(line)
            self.handle.flush()
            now = time.monotonic()
            if now - self.last_sync >= FSYNC_INTERVAL:
                os.fsync(self.handle.fileno())
                self.last_sync = now
        except OSError as error:
            raise self._failed(error) from None

    def close(self) -> None:
        """Flush, fsync and close; ResultsError if what was written cannot be kept."""
        if self.handle.closed:
            return
        try:
            self.handle.flush()
            os.fsync(self.handle.fileno())
        except OSError as error:
            raise self._failed(error) from None
        finally:
            with contextlib.suppress(OSError):  # a failed flush is said above, not twice
                self.handle.close()

    def _failed(self, error: OSError) -> ResultsError:
        return ResultsError(f"{self.path}: cannot write: {error.strerror or error}; the games "
                            "written before are saved (--resume plays the rest)")


def is_arena_dir(out_dir: Path) -> bool:
    """Whether ``out_dir`` may be written by a run: missing, empty, marked, or an older results
    directory (its games.jsonl and nothing but the arena's own names)."""
    if not out_dir.exists() or (out_dir / MARKER).is_file():
        return True
    if not out_dir.is_dir():
        return False
    names = {entry.name for entry in out_dir.iterdir()}
    return not names or (RESULTS_FILE in names and names <= LEGACY)


@contextlib.contextmanager
def results_dir(out_dir: Path, *, description: str, content: bytes, resume: bool = False,
                restart: bool = False, force: bool = False,
                check: Callable[[Path], None] | None = None,
                source: Path | None = None) -> Iterator[Path]:
    """Claim ``out_dir`` for this run until the block ends; the path of its ``games.jsonl``.

    ``description`` (``tournament.yaml``, ``match.json``) is written with ``content``. A directory
    with results needs ``resume`` (then ``check(saved_description)`` raises ConfigError if the
    results are not this run's) or ``restart`` (start over). ConfigError, one line, for a directory
    that is not the arena's (without ``force``) or that another run is writing, and for one
    where the description would replace ``source``, the file the run is described by.
    """
    if resume and restart:
        raise ConfigError("--resume and --restart contradict each other: choose one")
    if not is_arena_dir(out_dir) and not force:
        what = "not a directory" if out_dir.exists() and not out_dir.is_dir() else \
            "a directory the arena did not make (it has other files)"
        raise ConfigError(f"{out_dir}: {what}: choose another --out, or --force to write "
                          f"results into it anyway (the arena never deletes files it did not write)")
    saved = out_dir / description
    if source is not None and saved.exists() and saved.samefile(source):
        raise ConfigError(f"{out_dir}: {source} itself would be replaced by the results' copy of "
                          f"it: choose another --out")
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        handle = (out_dir / MARKER).open("a+b")
    except OSError as error:
        raise ConfigError(f"{out_dir}: cannot write results there: {error.strerror or error}") from None
    with handle:
        _lock(out_dir, handle)
        try:
            games = out_dir / RESULTS_FILE
            if restart:
                _remove_arena_files(out_dir)
            has_results = games.is_file() and games.stat().st_size > 0
            if has_results and not resume:
                raise ConfigError(f"{games} already has results: --resume to continue that run, "
                                  f"--restart to discard them, or --out for another directory")
            if has_results and saved.is_file() and check is not None:
                check(saved)
            try:
                (out_dir / LOGS).mkdir(exist_ok=True)
                games.touch()  # the claimed directory has its results file from the start
                _write_description(saved, content)
            except OSError as error:
                raise ConfigError(f"{error.filename or out_dir}: cannot write results there: "
                                  f"{error.strerror or error}") from None
            yield games
        finally:
            with contextlib.suppress(OSError):
                fcntl.flock(handle, fcntl.LOCK_UN)


def _lock(out_dir: Path, handle: Any) -> None:
    """Take the directory's lock, or ConfigError naming the run that holds it; then say who we are."""
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.seek(0)
        try:
            holder = orjson.loads(handle.read() or b"{}")
        except orjson.JSONDecodeError:
            holder = {}
        who = f"pid {holder.get('pid', '?')}"
        if holder.get("command"):
            who += f" ({str(holder['command'])[:120]})"
        raise ConfigError(f"{out_dir}: another arena run is writing these results: {who}; wait "
                          f"for it to end, stop it, or use another --out") from None
    try:
        handle.seek(0)
        handle.truncate()
        handle.write(orjson.dumps({"arena": "results", "pid": os.getpid(),
                                   "command": " ".join(sys.argv), "since": time.time()}) + b"\n")
        handle.flush()
    except OSError as error:
        raise ConfigError(f"{out_dir / MARKER}: cannot write results there: "
                          f"{error.strerror or error}") from None


def _remove_arena_files(out_dir: Path) -> None:
    """``--restart``: remove the results, the description and the bots' logs; nothing else."""
    for name in (RESULTS_FILE, *DESCRIPTIONS):
        (out_dir / name).unlink(missing_ok=True)
    logs = out_dir / LOGS
    if logs.is_dir():
        for log in [*logs.glob(f"*{LOG_SUFFIX}"), *logs.glob(f"*{LOG_SUFFIX}{INDEX_SUFFIX}")]:
            log.unlink(missing_ok=True)
        with contextlib.suppress(OSError):  # not empty: the user's files stay
            logs.rmdir()


def _write_description(path: Path, content: bytes) -> None:
    """Write the run's description through a temporary file (an interrupted write leaves the old)."""
    partial = path.with_name(path.name + ".partial")
    try:
        partial.write_bytes(content)
    except OSError:
        partial.unlink(missing_ok=True)  # a full disk: leave no half copy behind
        raise
    os.replace(partial, path)
