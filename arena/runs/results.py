"""A run's results directory: ``games.jsonl`` written a line per game, resumed, kept consistent.

Layout: ``games.jsonl`` (one line per finished game), ``logs/`` (each bot process's stderr) and
``tournament.yaml`` (a copy of the file the results were played from).
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path
from typing import Any

import orjson

from arena.errors import ConfigError, ResultsError
from arena.plans.extension import check_extension

FSYNC_INTERVAL = 1.0
"""Most seconds between fsyncs of the results file (a flush follows every game)."""


def read_finished(path: Path, repair: bool = True) -> dict[str, dict[str, Any]]:
    """The result lines already in ``path``, by game id; a half-written last line is dropped.

    With ``repair`` the file is truncated after its last complete line, so appends start clean.
    ResultsError for a line in the middle that is not a result (the file is not ours, or damaged).
    """
    if not path.exists():
        return {}
    data = path.read_bytes()
    end = data.rfind(b"\n") + 1
    if end < len(data) and repair:
        with path.open("r+b") as handle:
            handle.truncate(end)
    finished: dict[str, dict[str, Any]] = {}
    for number, line in enumerate(data[:end].splitlines(), start=1):
        if not line.strip():
            continue
        try:
            entry = orjson.loads(line)
            finished[entry["id"]] = entry
        except (orjson.JSONDecodeError, KeyError, TypeError):
            raise ResultsError(f"{path}:{number}: not a game result line") from None
    return finished


class ResultsWriter:
    """Appends result lines to ``games.jsonl``: each written and flushed at once, fsync'ed often."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.handle = path.open("ab")
        self.last_sync = time.monotonic()

    def append(self, line: bytes) -> None:
        """Write one game's serialised line (one write: a kill leaves at most one partial line)."""
        self.handle.write(line)
        self.handle.flush()
        now = time.monotonic()
        if now - self.last_sync >= FSYNC_INTERVAL:
            os.fsync(self.handle.fileno())
            self.last_sync = now

    def close(self) -> None:
        """Flush, fsync and close."""
        if not self.handle.closed:
            self.handle.flush()
            os.fsync(self.handle.fileno())
            self.handle.close()


def prepare_out_dir(out_dir: Path, source: Path, resume: bool, restart: bool) -> None:
    """Create the output directory and keep a copy of the tournament file in it.

    A directory with results needs ``resume`` (the same tournament, or one with more rounds or
    bots appended: ``arena.plans.extension``) or ``restart`` (start over).
    """
    games = out_dir / "games.jsonl"
    copy = out_dir / "tournament.yaml"
    if restart and out_dir.exists():
        for stale in (games, copy):
            stale.unlink(missing_ok=True)
        shutil.rmtree(out_dir / "logs", ignore_errors=True)
    if games.exists() and games.stat().st_size > 0 and not resume:
        raise ConfigError(f"{games} already has results: --resume to continue that run, "
                          f"--restart to discard them, or --out for another directory")
    has_results = games.exists() and games.stat().st_size > 0
    if has_results and copy.exists():
        check_extension(copy, source)  # more rounds or bots extend the run; other changes: error
    (out_dir / "logs").mkdir(parents=True, exist_ok=True)
    # the copy describes the results: a run with none yet, or one extended, takes the new file
    shutil.copyfile(source, copy)
