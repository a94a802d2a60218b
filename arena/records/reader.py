"""The one reader of results files (``games.jsonl``): every command that reads results uses it.

``arena table``, ``arena report``, ``arena show``, ``--resume``, a match's estimate and the league's
store and export all read lines here, so they agree on what a file holds:
- a last line without its newline is an interrupted write (the writer ends every line with one in
  the same write), so it is skipped, and said, even when it happens to parse;
- a line whose game id already appeared in the same file is a duplicate (two writers, or files
  joined by hand): the first is kept, the others skipped and counted;
- any other line that is not JSON is an error naming the file and the line;
- an ``arena play --log`` file (one game, indented, without an id) is read as a one-game results
  file whose game has the id ``game``;
- each line is brought to the current format (``arena.records.upgrade``) and checked
  (``arena.records.check``: the whole record, or for ``arena table`` only its result), so what a
  reader gets is what docs/records.md describes, or a ResultsError naming file, line and field.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from arena.errors import ResultsError
from arena.records.check import line_problem, record_problem, result_problem
from arena.records.result import audit_input, rating_input
from arena.records.schema import FORMAT
from arena.records.upgrade import upgrade
from arena.records.writer import serialise

RESULTS_FILE = "games.jsonl"
"""A results directory's file of finished games, one JSON line each."""
MATCH_FILE = "match.json"
"""A match's results directory's description of the match (``arena.runs.match_play``)."""
LEAGUE_DATABASE = "league.db"
"""A league directory's database (``arena.league.database``): a directory holding one is a league, whose
games ``arena league export`` writes as a results file."""
EXPORT_DIR = "export"
"""The league's own folder for exports, beside its database (``arena league export``'s default
``--out`` is ``export/games.jsonl``)."""

Check = Callable[[object], str | None]
"""What is wrong with an upgraded line for its reader, or None (``arena.records.check``)."""


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


@dataclass(frozen=True)
class Line:
    """One line of a results file: where it is, its bytes as read, and its content, upgraded
    (``upgraded``: changed by the upgrade, a line of an older format)."""

    path: Path
    number: int
    raw: bytes
    data: dict[str, Any]
    upgraded: bool = False

    @property
    def current(self) -> bytes:
        """The line in the current format, without its newline: the bytes as read when they are
        (no copy), else the upgraded line serialised."""
        return serialise(self.data).rstrip(b"\n") if self.upgraded else self.raw


def results_file(path: Path) -> Path:
    """``path`` itself, or the games.jsonl in it when it is a directory; ResultsError if neither."""
    if path.is_dir():
        inside = path / RESULTS_FILE
        if not inside.exists() and (path / LEAGUE_DATABASE).is_file():
            raise ResultsError(f"{path}: a league, not a results directory: `arena league export "
                               f"{path}` writes its games to {path / EXPORT_DIR / RESULTS_FILE} "
                               f"(`arena league table {path}` rates its active entrants; "
                               f"`arena report` reads a league directly)")
        if not inside.exists():
            raise ResultsError(f"{path}: no {RESULTS_FILE} in this directory")
        if not inside.is_file():
            raise ResultsError(f"{inside}: not a file")
        return inside
    if not path.exists():
        raise ResultsError(f"{path}: no such file or directory")
    return path


def league_of_export(directory: Path) -> Path | None:
    """The league whose export folder ``directory`` is (``EXPORT_DIR`` beside its database), or
    None: what a report of exported games (``arena.report``) names them after."""
    if directory.name == EXPORT_DIR and (directory.parent / LEAGUE_DATABASE).is_file():
        return directory.parent
    return None


def read_lines(paths: Sequence[str | os.PathLike[str]], notes: ReadNotes,
               check: Check = record_problem) -> Iterator[Line]:
    """Each line of the results files in ``paths`` (games.jsonl files, or directories holding
    one), upgraded and checked by ``check``, in file order, by the rules above.

    A path given twice, a missing or unreadable one, a line that is not JSON or one ``check``
    finds wrong is a ResultsError naming the file (and line).
    """
    return _read_lines(paths, notes, check, orjson.loads)


def _read_lines(paths: Sequence[str | os.PathLike[str]], notes: ReadNotes, check: Check,
                parse: Callable[[bytes], Any]) -> Iterator[Line]:
    seen: dict[Path, str] = {}
    for given in paths:
        path = results_file(Path(given))
        real = path.resolve()
        if real in seen:
            raise ResultsError(f"{path}: given twice (also as {seen[real]})")
        seen[real] = str(path)
        yield from _lines(path, _one_game_file(path, _read(path)), notes, check, parse)


def read_data_lines(path: Path, data: bytes, notes: ReadNotes,
                    check: Check = record_problem) -> Iterator[Line]:
    """The lines of ``data`` (results lines that did not come from a file: a league's games),
    read by the rules above as if ``path`` held them; errors name ``path`` and the line."""
    return _lines(path, data, notes, check)


def read_rating_inputs(paths: Sequence[str | os.PathLike[str]], notes: ReadNotes,
                       owners: dict[str, str] | None = None, chance: bool = False,
                       ) -> Iterator[tuple[Path, int, dict[str, Any]]]:
    """``(file, line number, rating input)`` of each line in ``paths``: what ``arena table``
    reads. A line needs only its result (``rating_input``); a bare result object (one that is
    not a line: ``entrants`` and ``scores`` at the top, docs/ratings.md) is taken as it is. Lines
    are parsed as far as the ratings read them (``arena.records.rating_line``). ``owners``, when
    given, gets each bot's owner as the lines record it (``names`` and ``owners``, by seat; a
    later line's over an earlier's). ``chance``: the deals' chance events too (dealer, trump,
    hands: the ``adjusted`` model's ``deal_chance``), which cost most of a line's reading."""
    from arena.records.rating_line import rating_parts

    def parts(raw: bytes) -> Any:
        return rating_parts(raw, chance)

    for line in _read_lines(paths, notes, _result_or_bare, parts):
        data = line.data
        if owners is not None and isinstance(data.get("owners"), list) \
                and isinstance(data.get("names"), list):
            owners.update((str(name), str(owner)) for name, owner
                          in zip(data["names"], data["owners"], strict=False))
        yield line.path, line.number, data if "result" not in data else rating_input(data)


def read_audit_inputs(paths: Sequence[str | os.PathLike[str]],
                      notes: ReadNotes) -> Iterator[dict[str, Any]]:
    """The audit input (``audit_input``: the rating input, the seats' names and owners) of each
    line in ``paths``, read as ``read_rating_inputs`` reads them; a bare result object as it is.
    A line whose names or owners are wrong is a ResultsError naming the file and line."""
    from arena.records.rating_line import rating_parts

    for line in _read_lines(paths, notes, _result_or_bare, rating_parts):
        if "result" not in line.data:
            yield line.data
            continue
        try:
            yield audit_input(line.data)
        except ResultsError as error:
            raise ResultsError(f"{line.path}:{line.number}: {error}") from None


def read_finished(path: Path, repair: bool = True,
                  notes: ReadNotes | None = None) -> dict[str, dict[str, Any]]:
    """The finished games saved in ``path`` (a games.jsonl that may not exist yet), by game id,
    each upgraded and checked (``line_problem``: all but the deals, which a run carries on
    without reading): what ``--resume`` carries on from.

    With ``repair`` a half-written last line is cut off the file, so appends start clean (the game
    is played again). ResultsError naming the line for one that is not a game's line.
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
    lines = _lines(path, data, notes if notes is not None else ReadNotes(), line_problem)
    return {line.data["id"]: line.data for line in lines}


def parse_line(raw: bytes) -> dict[str, Any]:
    """A line the arena wrote itself (a worker's, or one a league stored), upgraded: for the
    runner's and the league's own reading, which need no check."""
    return upgrade(orjson.loads(raw))


def parse_rating_input(raw: bytes) -> dict[str, Any]:
    """A rating input as ``arena.records.writer.serialise_rating_input`` wrote it."""
    parsed: dict[str, Any] = orjson.loads(raw)
    return parsed


def current_line(raw: bytes) -> bytes:
    """A line the arena wrote (a league's stored line) in the current format, without its
    newline: as it is when it is (the writer puts ``format`` first), else upgraded."""
    raw = raw.rstrip(b"\n")
    if raw.startswith(_CURRENT):
        return raw
    return serialise(parse_line(raw)).rstrip(b"\n")


_CURRENT = b'{"format":%d,' % FORMAT
"""How every line of the current format begins."""


def _result_or_bare(line: object) -> str | None:
    if isinstance(line, dict) and "result" not in line and "entrants" in line:
        return result_problem({"result": line})
    return result_problem(line)


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as error:
        raise ResultsError(f"{path}: cannot read: {error.strerror or error}") from None


PLAY_LOG_ID = "game"
"""The id a game of an ``arena play --log`` file reads with: it was played alone, with no run
around it to number it."""


def is_play_log_id(game_id: object) -> bool:
    """Whether ``game_id`` is ``PLAY_LOG_ID``: a game played alone, which text names by its game
    (``blackout``), not by this id (``game game: blackout`` said nothing twice)."""
    return game_id == PLAY_LOG_ID


def decision_in_deal(record: Mapping[str, Any], number: int) -> tuple[int, int] | None:
    """The game-wide decision ``number`` of ``record`` (from 1, bids, calls and plays counted
    together, as a record's faults and the stderr index number them) as a person reads it:
    ``(deal, decision within that deal, from 1)``. None for 0 (before the first decision) and for
    a number past the record's decisions."""
    if number < 1:
        return None
    for deal in record.get("deals") or ():
        count = len(deal.get("bids", deal.get("calls")) or ()) + len(deal.get("plays") or ())
        if number <= count:
            return int(deal["deal"]), number
        number -= count
    return None


def decision_words(record: Mapping[str, Any], number: int) -> str:
    """``deal 3, decision 2``: the game-wide decision ``number`` as a person reads it (see
    ``decision_in_deal``); ``before the first decision`` for 0, and ``decision N of the game``
    for a number the record's deals do not reach."""
    where = decision_in_deal(record, number)
    if where is not None:
        return f"deal {where[0]}, decision {where[1]}"
    return "before the first decision" if number < 1 else f"decision {number} of the game"


def _one_game_file(path: Path, data: bytes) -> bytes:
    """``data`` as results lines: an ``arena play --log`` file (one record, indented over many
    lines, without an ``id``) becomes one line with the id ``PLAY_LOG_ID``; anything else is
    left as it is. A compact record without an id, alone in its file, is given it too."""
    start = data.lstrip()
    if not start.startswith(b"{"):
        return data
    first = start.split(b"\n", 1)[0].strip()
    if first != b"{" and data.count(b"\n") > 1:
        return data  # a results file: one object a line
    try:
        record = orjson.loads(data)
    except orjson.JSONDecodeError:
        return data  # not one object: read line by line, to name the line at fault
    if not isinstance(record, dict) or "id" in record or "deals" not in record:
        return data
    result = record.get("result")
    if isinstance(result, dict) and "set" not in result:  # alone: its own duplicate set
        record = {**record, "result": {**result, "set": PLAY_LOG_ID}}
    return orjson.dumps({"id": PLAY_LOG_ID, **record}) + b"\n"


def _lines(path: Path, data: bytes, notes: ReadNotes, check: Check,
           parse: Callable[[bytes], Any] = orjson.loads) -> Iterator[Line]:
    lines = data.split(b"\n")
    ids: set[object] = set()
    for number, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        if number == len(lines):  # text after the last newline: a write that did not finish
            notes.unterminated.append(f"{path}:{number}")
            continue
        try:
            obj = parse(raw)
        except orjson.JSONDecodeError as error:
            raise ResultsError(f"{path}:{number}: not JSON ({error})") from None
        game_id = obj.get("id") if isinstance(obj, dict) else None
        if isinstance(game_id, str):
            if game_id in ids:
                notes.duplicates[str(path)] = notes.duplicates.get(str(path), 0) + 1
                continue
            ids.add(game_id)
        try:
            line = upgrade(obj) if isinstance(obj, dict) and not _is_bare(obj) else obj
        except ResultsError as error:
            raise ResultsError(f"{path}:{number}: {error}") from None
        problem = check(line)
        if problem:
            raise ResultsError(f"{path}:{number}: {problem}")
        yield Line(path, number, raw, line, line is not obj)


def _is_bare(obj: dict[str, Any]) -> bool:
    """A bare result object: not a line, never upgraded."""
    return "result" not in obj and "entrants" in obj

