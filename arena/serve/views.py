"""What the pages and the API show, read from the league's library: the table (as ``league table
--format json`` makes it, kept fresh in the background), games, entrants, logs.

No view computes what a library function already does: the table is ``league_table``'s JSON,
a game is its stored line (``arena.records``), a version is the store's. Every view that shows a
game, or a fault of one, shows it as ``arena.records.visible`` lets the viewer see it
(``viewer_of``): a bot's stderr to its owner alone.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import sqlite3
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from arena.errors import ArenaError, ResultsError
from arena.formats import TableFormat
from arena.league.config import LeagueSettings
from arena.league.database import LOGS_DIR
from arena.league.entrants import Bot
from arena.league.final_table import final_audit, final_standing
from arena.league.standings import active_results
from arena.league.status import league_table
from arena.league.store import Store
from arena.names import name_key
from arena.printable import printable
from arena.ratings.model import rate
from arena.records.reader import parse_line
from arena.records.visible import ANYONE, Viewer, visible_detail, visible_line, visible_record
from arena.report.replay_stderr import StderrShown
from arena.settings import RESAMPLES
from arena.stderrindex import COPY, LOG_SUFFIX, DecisionLogs, dropped_games

GAME_ID = re.compile(r"s\d{6,}-r\d{1,3}")
"""A league game's id (``arena.values.ids.league_game_id``): the only game path a request names."""
ROW_ID = re.compile(r"[1-9]\d{0,18}")
"""A row's number as a request names it (an upload's id, a page's ``before``): SQLite's integers
hold 63 bits, so a longer or larger number names no row (never an overflow)."""
ROW_ID_MAX = 2**63 - 1
LOG_TAIL = 64 * 1024
"""Bytes of the end of each stderr log the owner is shown."""
MY_LOGS = 20
"""The stderr logs of an entrant its owner is shown: the newest (a league keeps one per game)."""


class TableCache:
    """``league table --format json`` of the league, computed in a background thread: first when
    the server starts (``start``), then again when a request finds it older than
    ``max(MIN_AGE, 2 x its cost)`` seconds and games were stored since. A request never waits
    for a fit (one of 10,000 games with 1000 resamples takes half a minute on a busy machine),
    and the fits keep at most a third of a CPU busy, at a lower priority than the games (nice
    ``NICE``: a league that plays on every CPU plays on at nearly its pace). The ratings over
    games (``progress``, a fit per checkpoint) are computed again only once the games have grown
    by ``PROGRESS_GROWTH``: at 10,000 games they cost more than the table itself."""

    MIN_AGE = 2.0
    NICE = 10
    PROGRESS_GROWTH = 0.1

    def __init__(self, league: Path, resamples: int = RESAMPLES.default) -> None:
        self.league = league
        self.resamples = resamples
        self._lock = threading.Lock()
        self._table: dict[str, Any] | None = None
        self._state: tuple[int, tuple[int, ...]] | None = None
        self._at = 0.0
        self._cost = 0.0
        self._refreshing = False
        self._progress: tuple[list[int], dict[str, list[float | None]]] = ([], {})
        self._progress_state: tuple[int, tuple[int, ...]] | None = None

    def progress(self, name: str) -> tuple[list[int], list[float | None]] | None:
        """``name``'s rating after each of up to ``CHECKPOINTS`` shares of the active games (each
        a fit of the games so far, no resampling), as of the last refresh; None if not rated."""
        marks, series = self._progress
        return (marks, series[name]) if name in series else None

    def start(self) -> None:
        """Compute the first table in the background."""
        self._begin()

    @property
    def is_ready(self) -> bool:
        """Whether the first table has been computed."""
        return self._state is not None

    def table(self) -> dict[str, Any] | None:
        """The latest table (None while no game rates anyone, or before the first is ready),
        starting a new fit in the background when it is due."""
        if self._state is not None and self._is_due():
            self._begin()
        return self._table

    def _begin(self) -> None:
        with self._lock:
            start = not self._refreshing
            self._refreshing = True
        if start:
            threading.Thread(target=self._refresh, name="arena-table", daemon=True).start()

    def _is_due(self) -> bool:
        return time.monotonic() - self._at >= max(self.MIN_AGE, 2 * self._cost)

    def _refresh(self) -> None:
        with contextlib.suppress(OSError, AttributeError):  # Linux: this thread alone
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), self.NICE)
        try:
            self._refit()
        except (ArenaError, ValueError, OSError, sqlite3.Error) as error:  # shown stale, and said
            print(f"arena serve: the table was not refreshed: {printable(str(error))}",
                  file=sys.stderr, flush=True)
            self._at = time.monotonic()
            if self._state is None:
                self._state = (-1, ())  # no table (the error said why); the next look tries again
        finally:
            with self._lock:
                self._refreshing = False

    def _refit(self) -> None:
        began = time.monotonic()
        store = Store.open(self.league)
        try:
            state = (store.games.total(), tuple(bot.id for bot in store.entrants.bots()))
        finally:
            store.close()
        if state != self._state:
            try:
                text = league_table(self.league, fmt=TableFormat.JSON, resamples=self.resamples,
                                    crosstable=True)
                table: dict[str, Any] | None = orjson.loads(text)
            except ResultsError:
                table = None
            self._table, self._state = table, state
            last = self._progress_state
            if (last is None or last[1] != state[1]
                    or state[0] - last[0] >= self.PROGRESS_GROWTH * max(last[0], 1)):
                self._progress, self._progress_state = _progress(self.league), state
        self._at = time.monotonic()
        self._cost = self._at - began


CHECKPOINTS = 12


def _progress(league: Path) -> tuple[list[int], dict[str, list[float | None]]]:
    store = Store.open(league)
    try:
        results = active_results(store)
        model = LeagueSettings.of(store).rating
    finally:
        store.close()
    total = len(results)
    marks = sorted({max(1, round(total * k / CHECKPOINTS)) for k in range(1, CHECKPOINTS + 1)})
    series: dict[str, list[float | None]] = {}
    for index, mark in enumerate(marks):
        try:
            fit = rate(results[:mark], resamples=0, model=model)
        except (ArenaError, ValueError):  # nothing comparable yet
            continue
        for row in fit.standings:
            series.setdefault(row.name, [None] * len(marks))[index] = row.rating
    return (marks if total else []), series


def row_id(text: str) -> int | None:
    """The row number ``text`` names, or None when it names none (not a number, or past 63 bits)."""
    if not ROW_ID.fullmatch(text):
        return None
    number = int(text)
    return number if number <= ROW_ID_MAX else None


@dataclass(frozen=True)
class GameRow:
    """A game in a list: its id, when it ended and, by entrant, the place and score it took."""

    id: str
    entrants: list[str]
    places: list[int]
    faults: int
    scores: list[int]
    finished: str
    """When it ended, in UTC to the minute (``2026-12-07 05:27``)."""


def game_rows(store: Store, names: tuple[str, ...] = (), limit: int = 50,
              before: int | None = None) -> tuple[list[GameRow], int | None]:
    """The latest games seating every entrant in ``names``, and the rowid to page on from; a list
    is the same for every viewer: what anyone may see of each game."""
    found = store.games.recent(names, limit, before)
    finished = store.games.finished_at([game_id for _, game_id, _ in found])
    rows = []
    for _, game_id, line in found:
        record = visible_record(parse_line(line), ANYONE)
        result = record["result"]
        ended = time.strftime("%Y-%m-%d %H:%M", time.gmtime(finished.get(game_id, 0.0)))
        rows.append(GameRow(game_id, [str(e) for e in result["entrants"]],
                            [int(r) for r in result["ranks"]], len(record.get("faults", [])),
                            [int(s) for s in result["scores"]], ended))
    after = found[-1][0] if len(found) == limit else None
    return rows, after


def game_json(row: GameRow) -> dict[str, Any]:
    """A game row as the API gives it."""
    return {"id": row.id, "entrants": row.entrants, "places": row.places, "scores": row.scores,
            "faults": row.faults, "finished": row.finished}


def viewer_of(store: Store, participant: int | None) -> Viewer:
    """``participant`` (None: an anonymous visitor) as a viewer of records: the ``NAME@VERSION``
    keys of every version of the entrants they own."""
    if participant is None:
        return ANYONE
    mine = set(store.owners.keys_of(participant))
    return Viewer(frozenset(bot.key for bot in store.entrants.by_id().values()
                            if name_key(bot.name) in mine))


def game_line(store: Store, game_id: str, viewer: Viewer) -> bytes | None:
    """The stored line of ``game_id`` as ``viewer`` may see it (``visible_line``): only their own
    bots' stderr kept in its faults."""
    if not GAME_ID.fullmatch(game_id):
        return None
    line = store.games.line(game_id)
    return None if line is None else visible_line(line, viewer)


def fault_rows(store: Store, name: str, limit: int = 20) -> list[tuple[str, str, str, str]]:
    """The latest faults of the entrant ``name``'s versions as anyone may see them: ``(game id,
    version, kind, detail)``, newest first (``Games.faults_of``, each detail by the rule of
    ``arena.records.visible``: the same for every viewer, it holds no private field)."""
    return [(game, version, kind, visible_detail(detail))
            for game, version, kind, detail in store.games.faults_of(name, limit)]


def decision_stderr(store: Store, line: bytes, viewer: Viewer) -> dict[str, Any] | None:
    """What ``viewer``'s own bots in the game of the stored ``line`` wrote to stderr while
    deciding each move, for the replay (``StderrShown.of``); None when they wrote nothing (or
    the game has none of theirs): another's stderr is never shown."""
    record = parse_line(line)
    names = record.get("names", [])
    seats = {seat for seat, name in enumerate(names) if viewer.may_see_stderr(name)}
    if not seats:
        return None
    logs = []
    dropped: set[str] = set()
    game_id = str(record.get("id"))
    logs_dir = store.directory / LOGS_DIR
    for key in {names[seat] for seat in seats}:
        pattern = re.compile(re.escape(key) + r"(-copy\d+)?-\d+\.stderr\.log")
        logs += [log for log in DecisionLogs.logs_in(logs_dir, f"{key}-*.stderr.log")
                 if pattern.fullmatch(log.name) and log.parent == logs_dir]
        own = logs_dir / key  # the game's own logs (``arena.settings.GameLogs``)
        logs += [log for log in DecisionLogs.logs_in(own, f"{game_id}*{LOG_SUFFIX}")
                 if COPY.sub("", log.name[:-len(LOG_SUFFIX)]) == game_id]
        dropped |= dropped_games(own) & {game_id}
    said = StderrShown(DecisionLogs(logs), None, frozenset(dropped)).of(game_id, seats, record)
    if said is None:
        return None
    return said if said["decisions"] or said["note"] else None


def versions_of(store: Store, name: str) -> list[Bot]:
    """Every version of the entrant ``name`` (newest first)."""
    bots = [bot for bot in store.entrants.bots(("active", "replaced", "retired")) if bot.name == name]
    return sorted(bots, key=lambda bot: -bot.submitted)


@dataclass(frozen=True)
class Log:
    """The end of one stderr log of a bot."""

    file: str
    version: str
    size: int
    tail: str


def _log_tail(path: Path, size: int) -> str:
    """The last ``LOG_TAIL`` bytes of the log at ``path`` (``size`` bytes), from the first line
    that begins in them: a line cut at its start would read as something the bot never wrote. A
    tail within one line is shown from the cut, as there is no line start to begin at."""
    start = max(0, size - LOG_TAIL)
    with path.open("rb") as handle:
        handle.seek(max(0, start - 1))  # the byte before: is the tail's first byte a line start?
        data = handle.read(size - start + (1 if start else 0))
    if start:
        cut = data.find(b"\n")
        data = data[cut + 1:] if 0 <= cut < len(data) - 1 else data[1:]
    return data.decode("utf-8", "replace")


def logs_of(store: Store, name: str) -> list[Log]:
    """The stderr logs of the entrant ``name``'s versions (the league's ``logs/``: files named by
    ``NAME@VERSION``, and each game's in its folder ``NAME@VERSION/``), the ``MY_LOGS`` newest,
    each cut to its last ``LOG_TAIL`` bytes; newest first."""
    logs_dir = store.directory / LOGS_DIR
    found = []
    for bot in versions_of(store, name):
        pattern = re.compile(re.escape(bot.key) + r"(-copy\d+)?-\d+\.stderr\.log")
        try:
            entries = [p for p in logs_dir.iterdir() if pattern.fullmatch(p.name)]
        except OSError:
            entries = []
        with contextlib.suppress(OSError):  # its logs per game (``arena.settings.GameLogs``)
            entries += [p for p in (logs_dir / bot.key).iterdir() if p.name.endswith(LOG_SUFFIX)]
        for path in entries:
            try:
                info = path.stat()
            except OSError:  # dropped meanwhile for the bot's budget
                continue
            found.append((info.st_mtime, path, bot.version, info.st_size))
    newest = sorted(found, key=lambda item: -item[0])[:MY_LOGS]
    return [Log(path.name, version, size, _log_tail(path, size))
            for _, path, version, size in newest]


def final_data(store: Store) -> dict[str, Any] | None:
    """The final's table as ``league table --final --format json`` gives it (``FinalStanding``),
    or None before a final has started; fitted once per game stored (``_final_fitted``)."""
    final = store.finals.current()
    if final is None:
        return None
    return _final_fitted(store.directory, final.started, final.played)


@functools.lru_cache(maxsize=4)
def _final_fitted(league: Path, started: float, played: int) -> dict[str, Any] | None:
    """The final's table of ``league`` when it had ``played`` games stored: a final changes
    only by its games, so one fit serves every request until the next game. Once every game
    of the final is stored, its collusion audit runs (once, cached like the fit) and the pairs
    it flags are shown (docs/serve.md: the final's flags are public, the rest of the audit is
    the organiser's)."""
    store = Store.open(league)
    try:
        standing = final_standing(store)
        decided = standing is not None and standing.final.played >= standing.scheduled
        pairs = final_audit(store) if decided else None  # decided: its audit's flags are shown
    finally:
        store.close()
    if standing is None:
        return None
    data = standing.data()
    if pairs is not None:  # the flags only: never the figures of a pair not flagged
        data["audit"] = {"measured": len(pairs), "flagged": [p for p in pairs if p["flagged"]]}
    return data
