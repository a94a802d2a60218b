"""The one reader of results files (``games.jsonl``): every command that reads results uses it.

``arena table``, ``arena report``, ``arena show``, a league's export and ``--resume`` all read lines
through ``result_lines``, so they agree on what a file holds:
- a last line without its newline is an interrupted write (the writer ends every line with one in
  the same write), so it is skipped, and said, even when it happens to parse;
- a line whose game id already appeared in the same file is a duplicate (two writers, or files
  joined by hand): the first is kept, the others skipped and counted;
- any other line that is not JSON is an error naming the file and the line (what a line must
  hold is the caller's to check).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from arena.errors import ResultsError
from arena.ratings.model import check_result

RESULTS_FILE = "games.jsonl"
"""A results directory's file of finished games, one JSON line each."""


@dataclass
class ReadNotes:
    """What a read skipped: unterminated last lines (``path:line``) and duplicate games."""

    unterminated: list[str] = field(default_factory=list)
    duplicates: dict[str, int] = field(default_factory=dict)
    """Skipped duplicate lines, by file."""

    def messages(self) -> list[str]:
        """One line for the user per thing skipped."""
        lines = [f"skipped a half-written last line (interrupted run?) at {where}"
                 for where in self.unterminated]
        lines += [f"skipped {count} duplicate line{'s' if count > 1 else ''} (a game id seen "
                  f"before) in {path}" for path, count in self.duplicates.items()]
        return lines


def results_file(path: Path) -> Path:
    """``path`` itself, or the games.jsonl in it when it is a directory; ResultsError if neither."""
    if path.is_dir():
        inside = path / RESULTS_FILE
        if not inside.exists():
            raise ResultsError(f"{path}: no {RESULTS_FILE} in this directory")
        if not inside.is_file():
            raise ResultsError(f"{inside}: not a file")
        return inside
    if not path.exists():
        raise ResultsError(f"{path}: no such file or directory")
    return path


def result_lines(paths: Sequence[str | os.PathLike[str]],
                 notes: ReadNotes) -> Iterator[tuple[Path, int, bytes, Any]]:
    """Each line of the results files in ``paths`` (games.jsonl files, or directories holding
    one) as (file, line number, the line, its JSON), in file order, by the rules above.

    A path given twice, a missing or unreadable one, or a line that is not JSON is a
    ResultsError naming the file (and line).
    """
    seen: dict[Path, str] = {}
    for given in paths:
        path = results_file(Path(given))
        real = path.resolve()
        if real in seen:
            raise ResultsError(f"{path}: given twice (also as {seen[real]})")
        seen[real] = str(path)
        yield from _lines(path, _read(path), notes)


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as error:
        raise ResultsError(f"{path}: cannot read: {error.strerror or error}") from None


def _lines(path: Path, data: bytes, notes: ReadNotes) -> Iterator[tuple[Path, int, bytes, Any]]:
    lines = data.split(b"\n")
    ids: set[object] = set()
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        if number == len(lines):  # text after the last newline: a write that did not finish
            notes.unterminated.append(f"{path}:{number}")
            continue
        try:
            obj = orjson.loads(line)
        except orjson.JSONDecodeError as error:
            raise ResultsError(f"{path}:{number}: not JSON ({error})") from None
        game_id = obj.get("id") if isinstance(obj, dict) else None
        if isinstance(game_id, str):
            if game_id in ids:
                notes.duplicates[str(path)] = notes.duplicates.get(str(path), 0) + 1
                continue
            ids.add(game_id)
        yield path, number, line, obj


def read_finished(path: Path, repair: bool = True,
                  notes: ReadNotes | None = None) -> dict[str, dict[str, Any]]:
    """The finished games saved in ``path`` (a games.jsonl that may not exist yet), by game id.

    With ``repair`` a half-written last line is cut off the file, so appends start clean (the game
    is played again). ResultsError naming the line for one that is not a game result.
    """
    if not path.exists():
        return {}
    if not path.is_file():
        raise ResultsError(f"{path}: not a file")
    data = _read(path)
    end = data.rfind(b"\n") + 1
    if end < len(data) and repair:
        try:
            with path.open("r+b") as handle:
                handle.truncate(end)
        except OSError as error:
            raise ResultsError(f"{path}: cannot repair its last line: {error.strerror}") from None
    finished: dict[str, dict[str, Any]] = {}
    for _, number, _, entry in _lines(path, data, notes if notes is not None else ReadNotes()):
        if not (isinstance(entry, dict) and isinstance(entry.get("id"), str)
                and isinstance(entry.get("result"), dict)):
            raise ResultsError(f"{path}:{number}: not a game result line (no 'id' or 'result')")
        try:  # here, where the line is known, not when the table is rated at the end
            check_result(entry["result"])
        except ResultsError as error:
            raise ResultsError(f"{path}:{number}: result: {error}") from None
        finished[entry["id"]] = entry
    return finished
