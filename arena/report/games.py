"""Game records read from results: games.jsonl files or results directories holding one.

A tournament's results directory, a match's and a league export all hold the same ``games.jsonl``:
one game record per line (docs/records.md), read, upgraded and checked by ``arena.records.reader``.
Unlike `arena.ratings.table.read_results`, which needs only each line's ``result``, these
readers keep the whole record. A league's own directory reads as its export would, through the
``LeagueGames`` the command hands in: the report sits below the league and opens no store.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.errors import ResultsError
from arena.records.reader import Line, ReadNotes, read_data_lines, read_lines, results_file

_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]")

LeagueGames = Callable[[Path], bytes | None]
"""Every game of the league in a directory as its export holds them (one line each, each ending
in a newline), or None when the directory holds no league: ``arena.league.status.league_games``,
which ``arena report`` and ``arena show`` hand to the readers here. Without one, a league's
directory is refused as a results file would be (``arena.records.reader.results_file``)."""


@dataclass(frozen=True)
class Game:
    """One game record and the key the report files it under (its id, made unique and file-safe)."""

    key: str
    record: dict[str, Any]
    line: bytes
    """The record as one JSON line in the current format (as read, when it was): the replay file
    copies it without serialising the record again."""

    @property
    def entrants(self) -> list[str]:
        """The entrants of the game's result, by seat (Blackout) or by team (Partnership)."""
        return list(self.record["result"]["entrants"])

    def entrant_of_seat(self, seat: int) -> int:
        """Index into ``entrants`` of the entrant playing ``seat``."""
        for team, seats in enumerate(self.record.get("teams", ())):
            if seat in seats:
                return team
        return seat


@dataclass(frozen=True)
class GamesRead:
    """The games read, in file order, and where half-written last lines were skipped."""

    games: list[Game]
    notes: ReadNotes


class GameReader:
    """The game records in ``paths``, one at a time (a long league export need not fit in memory).

    Iterating yields each Game in file order; ResultsError naming file and line for anything that
    is not a record. A half-written last line or a duplicate game is skipped and said in ``notes``
    (``arena.records.reader``'s rules). Games with the same id in different files get keys ``id``,
    ``id~2``, ... A league's directory reads as its export would, with ``league_games``
    (``LeagueGames``).
    """

    def __init__(self, paths: Sequence[str | os.PathLike[str]],
                 league_games: LeagueGames | None = None) -> None:
        self.paths = list(paths)
        self.notes = ReadNotes()
        self.league_games = league_games

    def __iter__(self) -> Iterator[Game]:
        keys: set[str] = set()
        count = 0
        for line in self._lines():
            record = line.data
            key = base = _UNSAFE.sub("_", str(record["id"]))
            copy = 1
            while key in keys:
                copy += 1
                key = f"{base}~{copy}"
            keys.add(key)
            count += 1
            yield Game(key, record, line.current)
        if not count:
            raise ResultsError(f"no games in {', '.join(str(p) for p in self.paths) or 'no files'}")


    def _lines(self) -> Iterator[Line]:
        files: list[str | os.PathLike[str]] = []
        for given in self.paths:
            league = None if self.league_games is None else self.league_games(Path(given))
            if league is None:
                files.append(given)
                continue
            yield from read_lines(files, self.notes)
            files = []
            yield from read_data_lines(Path(given), league, self.notes)
        yield from read_lines(files, self.notes)


def read_games(paths: Sequence[str | os.PathLike[str]],
               league_games: LeagueGames | None = None) -> GamesRead:
    """Every game record in ``paths`` at once (see `GameReader`)."""
    reader = GameReader(paths, league_games)
    games = list(reader)
    return GamesRead(games, reader.notes)


def find_game(path: str | os.PathLike[str], game_id: str | None,
              league_games: LeagueGames | None = None) -> dict[str, Any]:
    """The record of game ``game_id`` in the results at ``path`` (None: the one game it holds;
    a league's directory read with ``league_games``); ResultsError if it is not there."""
    read = read_games([path], league_games)
    if game_id is None:
        if len(read.games) == 1:
            return read.games[0].record
        known = [game.record["id"] for game in read.games[:3]]
        raise ResultsError(f"{results_file(Path(path))}: holds {len(read.games)} games: name one "
                           f"(ids look like {', '.join(known)})")
    for game in read.games:
        if game.record["id"] == game_id or game.key == game_id:
            return game.record
    known = [game.record["id"] for game in read.games[:3]]
    raise ResultsError(f"{results_file(Path(path))}: no game with id {game_id!r} "
                       f"(ids look like {', '.join(known)})")
