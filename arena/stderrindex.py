"""Which decision each byte of a bot's stderr log was written under: the log's side index.

A bot controls every byte of its log (``arena.bots.stderr_sink``), so a marker in the log itself could
be forged by a line that looks like one. The arena keeps the marks in a file of its own beside the
log instead, ``<log>.idx``, which the bot never writes: one JSON array a line,

- ``[OFFSET, GAME, SEAT, DECISION]``: the log's bytes from ``OFFSET`` on were read while the bot
  was deciding ``DECISION`` (the game-wide number, from 1, as a fault's ``decision``) in seat
  ``SEAT`` of game ``GAME`` (its id; null for ``arena play``'s one game);
- ``[OFFSET]``: the bytes from ``OFFSET`` on belong to no decision (the arena's own notes, what
  the bot wrote while starting or between games, and everything after the index reached its cap);
- ``[OFFSET, GAME, SEAT, DECISION, "cut"]``: the log reached its cap at ``DECISION`` of ``GAME``:
  what the bot wrote from there on was discarded (the bytes from ``OFFSET`` on are the arena's
  note saying so, no decision's). Readers before it took it for ``[OFFSET]``.

A league keeps its bots' stderr per game (``arena.settings.GameLogs``): ``logs/NAME@VERSION/GAME.stderr.log``,
each game's file capped, and a budget per bot version over its files, the oldest dropped first
(``make_room``), each dropped file's name kept in ``dropped.txt`` beside them so that a replay
says its stderr was dropped rather than showing nothing.

Each mark holds until the next; offsets only grow (a restarted bot appends to both files). Marks
are written only when the bot writes, so a bot that writes nothing costs nothing and leaves no
index. The log stays exactly what the bot wrote (and the arena's notes): read by a person with
``less``, by the report through ``DecisionLogs``.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Iterable
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import orjson

SUFFIX = ".idx"
"""The index of ``X.stderr.log`` is ``X.stderr.log.idx``."""
DECISION_BYTES = 4096
"""Most bytes of one decision's stderr a page shows (the first ones; the log has the rest)."""
PAGE_BYTES = 256 * 1024
"""Most bytes of stderr one game's replay shows, over all its decisions."""

LOG_SUFFIX = ".stderr.log"
DROPPED = "dropped.txt"
"""Beside a bot's per-game logs: the names (without ``LOG_SUFFIX``) of those dropped, one a line."""
DROPPED_CAP = 1 << 20
"""Most bytes ``DROPPED`` grows to (some 50,000 games' names); past it nothing more is noted."""
CUT = "cut"

Key = tuple[str | None, int, int]
"""A decision as the index names it: the game id, the seat, the game-wide decision number."""


def make_room(directory: str, keep: str, room: int, budget: int, most: int) -> None:
    """Drop the oldest logs (with their indexes) in ``directory`` until one more of ``room``
    bytes (``keep``, a file name, never dropped) fits in ``budget`` bytes and ``most`` logs;
    each dropped one's name noted in ``DROPPED``. Logs another process drops meanwhile are
    skipped (``arena.settings.GameLogs``)."""
    sizes: dict[str, int] = {}
    ages: dict[str, float] = {}
    try:
        with os.scandir(directory) as found:
            for item in found:
                name = item.name
                base = name[:-len(SUFFIX)] if name.endswith(SUFFIX) else name
                if not base.endswith(LOG_SUFFIX) or base == keep:
                    continue
                info = item.stat()
                sizes[base] = sizes.get(base, 0) + info.st_size
                if base == name:
                    ages[base] = info.st_mtime
    except OSError:
        return
    total = sum(sizes.values())
    oldest = sorted(sizes, key=lambda base: ages.get(base, 0.0))
    dropped = []
    while oldest and (total + room > budget or len(oldest) + 1 > most):
        base = oldest.pop(0)
        for path in (base, base + SUFFIX):
            with contextlib.suppress(OSError):
                os.unlink(os.path.join(directory, path))
        total -= sizes[base]
        dropped.append(base[:-len(LOG_SUFFIX)])
    if dropped:
        path = os.path.join(directory, DROPPED)
        with contextlib.suppress(OSError):
            if not os.path.exists(path) or os.path.getsize(path) < DROPPED_CAP:
                with open(path, "a", encoding="utf-8") as handle:
                    handle.write("".join(f"{name}\n" for name in dropped))


def dropped_games(directory: Path) -> set[str]:
    """The games whose logs were dropped from ``directory`` (a bot version's, ``make_room``),
    by game id (a copy's ``-copyN`` left off)."""
    try:
        names = (directory / DROPPED).read_text(encoding="utf-8", errors="replace").split()
    except OSError:
        return set()
    return {COPY.sub("", name) for name in names}


COPY = re.compile(r"-copy\d+$")


def index_path(log_path: str | os.PathLike[str]) -> str:
    """The index file of the log at ``log_path``."""
    return os.fspath(log_path) + SUFFIX


def entry(offset: int, key: Key | None, cut: bool = False) -> bytes:
    """One line of the index: from ``offset`` on, the bytes are ``key``'s (None: no decision's);
    ``cut``: the log was cut at ``key``'s decision, and the bytes that follow are no decision's."""
    if key is None:
        return b"[%d]\n" % offset
    mark = [offset, key[0], key[1], key[2], *([CUT] if cut else [])]
    return orjson.dumps(mark, option=orjson.OPT_APPEND_NEWLINE)


@dataclass(frozen=True)
class Segment:
    """Bytes ``start`` to ``end`` of the log ``log`` were written under one decision."""

    log: Path
    start: int
    end: int


def read_index(log: Path) -> list[tuple[Key, Segment]]:
    """The decisions' segments of the log ``log`` by its index (none without one). A line that
    is not a mark (a half-written last line) ends the index there: what follows is no decision's."""
    return read_marks(log)[0]


def read_marks(log: Path) -> tuple[list[tuple[Key, Segment]], list[Key]]:
    """``read_index``'s segments, and the decisions at which the log was cut (its cap reached)."""
    try:
        data = Path(index_path(log)).read_bytes()
        size = log.stat().st_size
    except OSError:
        return [], []
    marks: list[tuple[int, Key | None]] = []
    cuts: list[Key] = []
    for line in data.split(b"\n"):
        try:
            mark = orjson.loads(line)
        except orjson.JSONDecodeError:
            break
        if not isinstance(mark, list) or not mark or type(mark[0]) is not int:
            break
        if len(mark) == 4 and (mark[1] is None or type(mark[1]) is str) and \
                type(mark[2]) is int and type(mark[3]) is int:
            marks.append((mark[0], (mark[1], mark[2], mark[3])))
        else:
            marks.append((mark[0], None))
            if len(mark) == 5 and mark[4] == CUT and (mark[1] is None or type(mark[1]) is str) \
                    and type(mark[2]) is int and type(mark[3]) is int:
                cuts.append((mark[1], mark[2], mark[3]))
    found = []
    for number, (start, key) in enumerate(marks):
        end = marks[number + 1][0] if number + 1 < len(marks) else size
        end = min(end, size)
        if key is not None and end > start:
            found.append((key, Segment(log, start, end)))
    return found, cuts


class DecisionLogs:
    """The stderr of every decision in the logs of one directory, by game: ``texts(game_id)``.

    Only the indexes are read up front; a game's text is read from its logs when asked for,
    each decision cut to ``DECISION_BYTES`` and a game to ``PAGE_BYTES``, decoded with
    undecodable bytes replaced. It is the bot's text, unescaped: whoever shows it escapes it.
    """

    def __init__(self, logs: Iterable[Path]) -> None:
        self.by_game: dict[str | None, list[tuple[Key, Segment]]] = {}
        self.cuts: dict[str | None, list[tuple[int, int]]] = {}
        """The decisions (seat, decision) at which a log of each game was cut, by game."""
        for log in sorted({log.resolve() for log in logs}):  # a directory given twice: once
            segments, cuts = read_marks(log)
            for key, segment in segments:
                self.by_game.setdefault(key[0], []).append((key, segment))
            for game, seat, decision in cuts:
                self.cuts.setdefault(game, []).append((seat, decision))

    @staticmethod
    def logs_in(directory: Path, pattern: str = "*") -> list[Path]:
        """The logs in ``directory`` and its folders (a league's per-game logs) with an index
        (their names matching ``pattern``); none when it cannot be read."""
        try:
            return [Path(str(p)[:-len(SUFFIX)]) for p in directory.rglob(pattern + SUFFIX)]
        except OSError:
            return []

    def __bool__(self) -> bool:
        return bool(self.by_game) or bool(self.cuts)

    def texts(self, game_id: str | None) -> list[list[object]]:
        """``[[decision, seat, text], ...]`` of game ``game_id``, in decision order: what each
        seat's bot wrote to stderr while deciding (a decision without stderr is left out)."""
        segments = sorted(self.by_game.get(game_id, ()), key=lambda pair: (pair[0][2], pair[1].start))
        shown: dict[tuple[int, int], list[str]] = {}
        room = PAGE_BYTES
        left: dict[tuple[int, int], int] = {}
        with ExitStack() as stack:
            handles: dict[Path, BinaryIO | OSError] = {}
            for (_, seat, decision), segment in segments:
                at = (decision, seat)
                size = segment.end - segment.start
                allowed = min(size, room, left.setdefault(at, DECISION_BYTES))
                parts = shown.setdefault(at, [])
                if allowed > 0:
                    if segment.log not in handles:  # each log opened once per game
                        try:
                            handles[segment.log] = stack.enter_context(segment.log.open("rb"))
                        except OSError as error:
                            handles[segment.log] = error
                    parts.append(_read(handles[segment.log], segment, allowed))
                    room -= allowed
                    left[at] -= allowed
                if allowed < size:
                    why = "this decision's" if room > 0 else "this page's"
                    parts.append(f"\n[arena] {size - allowed} more bytes not shown ({why} cap): "
                                 f"see {segment.log.name}, bytes {segment.start + allowed} to "
                                 f"{segment.end}\n")
        return [[decision, seat, "".join(parts)] for (decision, seat), parts in shown.items()]


def _read(handle: BinaryIO | OSError, segment: Segment, size: int) -> str:
    try:
        if isinstance(handle, OSError):
            raise handle
        handle.seek(segment.start)
        return handle.read(size).decode("utf-8", "replace")
    except OSError as error:
        return f"[arena] cannot read {segment.log.name}: {error.strerror or error}"
