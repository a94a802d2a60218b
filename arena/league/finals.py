"""The league's final: its plan and its games (the ``finals``, ``final_games`` and
``final_seats`` tables, schema 6), read and written here alone.

The final's games are kept apart from the ladder's (``arena.league.games``): the ladder's table,
``league status``'s counts and the matchmaker never read them, and the final's table reads
nothing else. A league has one final: its deal seed, the games asked for and the versions that
play it (fixed when it starts, so a resumed final plays the same field whatever happened to the
pool since), from which its schedule is made again on every resume (``arena.league.final``).
Each game commits on its own, as a ladder game does.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import orjson

from arena.league.database import Database
from arena.league.entrants import Bot, Entrants


@dataclass(frozen=True)
class Final:
    """A final as stored: its deal seed, the games asked for, the versions (ids) that play it,
    when it started and how many of its games are stored."""

    seed: int
    games: int
    bot_ids: tuple[int, ...]
    started: float
    played: int


class Finals:
    """The final of an open league."""

    def __init__(self, database: Database, entrants: Entrants) -> None:
        self.database = database
        self.db = database.db
        self.entrants = entrants

    def current(self) -> Final | None:
        """The league's final, or None before one has started."""
        row = self.db.execute("SELECT seed, games, bots, started FROM finals WHERE id = 1").fetchone()
        if row is None:
            return None
        played = int(self.db.execute("SELECT COUNT(*) FROM final_games").fetchone()[0])
        return Final(int(row[0]), int(row[1]), tuple(orjson.loads(row[2])), float(row[3]), played)

    def start(self, seed: int, games: int, bot_ids: Sequence[int]) -> Final:
        """Record the final's plan. The caller checks there is none yet: the table holds one
        row, so a second start fails (an integrity error) rather than replace the first."""
        with self.database.transaction():
            self.db.execute("INSERT INTO finals (id, seed, games, bots, started) VALUES "
                            "(1, ?, ?, ?, ?)", (seed, games, orjson.dumps(list(bot_ids)).decode(),
                                                time.time()))
        final = self.current()
        assert final is not None
        return final

    def played(self) -> set[str]:
        """The ids of the final's games stored."""
        return {str(row[0]) for row in self.db.execute("SELECT id FROM final_games")}

    def record(self, game_id: str, bot_ids: Sequence[int], line: bytes) -> bool:
        """Store one finished game of the final with its seats (bot ids by seat): one
        transaction; False when it was stored already."""
        with self.database.transaction():
            cursor = self.db.execute("INSERT OR IGNORE INTO final_games (id, finished, line) "
                                     "VALUES (?, ?, ?)", (game_id, time.time(), line))
            if cursor.rowcount == 0:
                return False
            self.db.executemany("INSERT INTO final_seats (game, seat, bot) VALUES (?, ?, ?)",
                                [(game_id, seat, bot) for seat, bot in enumerate(bot_ids)])
        return True

    def lines(self) -> Iterator[bytes]:
        """Every stored game's line of the final, in the order they finished."""
        for (line,) in self.db.execute("SELECT line FROM final_games ORDER BY rowid"):
            yield bytes(line)

    def line(self, game_id: str) -> bytes | None:
        """The stored line of the final's game ``game_id``, or None."""
        row = self.db.execute("SELECT line FROM final_games WHERE id = ?", (game_id,)).fetchone()
        return None if row is None else bytes(row[0])

    def versions(self) -> list[tuple[Bot, int]]:
        """The versions that play the final, each with its games stored, in the final's order."""
        final = self.current()
        if final is None:
            return []
        counts = dict(self.db.execute("SELECT bot, COUNT(DISTINCT game) FROM final_seats "
                                      "GROUP BY bot"))
        by_id = self.entrants.by_id()
        return [(by_id[bot], int(counts.get(bot, 0))) for bot in final.bot_ids]
