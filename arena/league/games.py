"""The league's games: the duplicate sets planned, each finished game's line with its seats and
faults (the ``sets``, ``games``, ``seats`` and ``faults`` tables), read and written here alone.

A set is planned open (``plan_sets``: a deal seed and the bot ids of each rotation), and closed
in the transaction that stores its last game (``record``), which also counts the game in each
seated version's conduct (``arena.league.entrants``). A finished game commits on its own, so
SIGKILL of a run loses at most the games in progress. Queries of games by entrant never read the
whole league (``recent``): tests/arena/league/test_games.py counts their cost.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import orjson

from arena.league.database import Database, marks
from arena.league.entrants import INACTIVE_IDS, Bot, Entrants
from arena.values.ids import league_game_id

RECENT_WINDOW = 1000
"""Games ``recent`` looks through, newest first, before it turns to an entrant's seats."""


@dataclass(frozen=True)
class PlannedSet:
    """A duplicate set: its id, deal seed, the bot ids of each rotation and the rotations played."""

    id: int
    seed: int
    rotations: tuple[tuple[int, ...], ...]
    played: frozenset[int]


class Games:
    """The sets and games of an open league."""

    def __init__(self, database: Database, entrants: Entrants) -> None:
        self.database = database
        self.db = database.db
        """The connection (``database``'s), for this module's queries."""
        self.entrants = entrants

    def plan_sets(self, seeds_and_rotations: Sequence[tuple[int, Sequence[Sequence[int]]]]
                  ) -> list[PlannedSet]:
        """Record new duplicate sets (deal seed, bot ids by rotation) as open; one transaction."""
        planned = []
        now = time.time()
        with self.database.transaction():
            for seed, rotations in seeds_and_rotations:
                cursor = self.db.execute(
                    "INSERT INTO sets (seed, rotations, planned, state) VALUES (?, ?, ?, 'open')",
                    (seed, orjson.dumps([list(r) for r in rotations]).decode(), now))
                planned.append(PlannedSet(int(cursor.lastrowid or 0), seed,
                                          tuple(tuple(r) for r in rotations), frozenset()))
        return planned

    def seat_orders_after(self, set_id: int) -> Iterator[tuple[int, tuple[int, ...]]]:
        """``(set id, seat order)`` of the sets planned after ``set_id`` (0: all): the bot ids of
        each set's first rotation, in planning order."""
        for row, rotations in self.db.execute(
                "SELECT id, rotations FROM sets WHERE id > ? ORDER BY id", (set_id,)):
            yield int(row), tuple(orjson.loads(rotations)[0])

    def open_sets(self) -> list[PlannedSet]:
        """The sets planned but not yet complete, oldest first, with the rotations already played."""
        sets = []
        for set_id, seed, rotations in self.db.execute(
                "SELECT id, seed, rotations FROM sets WHERE state = 'open' ORDER BY id").fetchall():
            played = frozenset(row[0] for row in self.db.execute(
                "SELECT rotation FROM games WHERE set_id = ?", (set_id,)))
            sets.append(PlannedSet(set_id, seed, tuple(tuple(r) for r in orjson.loads(rotations)),
                                   played))
        return sets

    def abandon_sets(self, set_ids: Sequence[int]) -> None:
        """Give up sets that can no longer be completed (a bot in them left the pool)."""
        with self.database.transaction():
            self.db.executemany("UPDATE sets SET state = 'abandoned' WHERE id = ?",
                                [(i,) for i in set_ids])

    def record(self, set_id: int, rotation: int, bot_ids: Sequence[int], line: bytes,
               faults: Sequence[tuple[int, str, str]], suspend_after: int = 0) -> list[Bot]:
        """Store one finished game (its line, seats and faults ``(bot id, kind, detail)``), closing
        its set when it was the last rotation, and each seated version's conduct: one
        transaction. A version that stalled (``STALLING_FAULTS``) in this game and the
        ``suspend_after - 1`` before it (0: never) is suspended. The versions this game
        suspended; none when it was already stored."""
        now = time.time()
        game_id = league_game_id(set_id, rotation)
        with self.database.transaction():
            cursor = self.db.execute(
                "INSERT OR IGNORE INTO games (id, set_id, rotation, finished, line) "
                "VALUES (?, ?, ?, ?, ?)", (game_id, set_id, rotation, now, line))
            if cursor.rowcount == 0:
                return []
            self.db.executemany("INSERT INTO seats (game, seat, bot) VALUES (?, ?, ?)",
                                [(game_id, seat, bot) for seat, bot in enumerate(bot_ids)])
            self.db.executemany(
                "INSERT INTO faults (game, bot, kind, detail, finished) VALUES (?, ?, ?, ?, ?)",
                [(game_id, bot, kind, detail, now) for bot, kind, detail in faults])
            self.db.execute("UPDATE sets SET state = 'done' WHERE id = ? AND json_array_length("
                            "rotations) <= (SELECT COUNT(*) FROM games WHERE set_id = ?)",
                            (set_id, set_id))
            suspended = self.entrants.record_conduct(game_id, set(bot_ids), faults, suspend_after,
                                                     now)
        by_id = self.entrants.by_id() if suspended else {}
        return [by_id[bot] for bot in suspended]

    def lines(self, active_only: bool = False) -> Iterator[bytes]:
        """Every game's result line in the order they finished; ``active_only``: the games whose
        seats are all active versions (the games the current table rates)."""
        for _, line in self.lines_after(0, active_only):
            yield line

    def lines_after(self, rowid: int, active_only: bool = False) -> Iterator[tuple[int, bytes]]:
        """``(rowid, line)`` of the games stored after ``rowid`` (0: all), in the order they
        finished; ``active_only`` as in ``lines``. A reader that keeps the last rowid it saw reads
        each game once."""
        query = "SELECT rowid, line FROM games WHERE rowid > ?"
        if active_only:
            query += (" AND NOT EXISTS (SELECT 1 FROM seats WHERE seats.game = games.id "
                      f"AND seats.bot IN ({INACTIVE_IDS}))")
        for row, line in self.db.execute(query + " ORDER BY rowid", (rowid,)):
            yield int(row), bytes(line)

    def line(self, game_id: str) -> bytes | None:
        """The stored line of the game ``game_id``, or None."""
        row = self.db.execute("SELECT line FROM games WHERE id = ?", (game_id,)).fetchone()
        return None if row is None else bytes(row[0])

    def recent(self, names: Sequence[str] = (), limit: int = 50,
               before: int | None = None) -> list[tuple[int, str, bytes]]:
        """``(rowid, id, line)`` of the latest games, newest first, that seat a version of every
        entrant in ``names`` (none: every game); ``before``: only those stored before that rowid
        (the next page).

        Never a read of every game: a name is resolved to its versions first (an unknown one, or
        one that never played: no games, at once); the latest ``RECENT_WINDOW`` games are looked
        through first (where an entrant of the current pool sits often), then the rest are found
        from the seats of the versions of the name that played least (the index of seats by bot),
        so a query costs at most the window and that entrant's own games."""
        below = min(before, 2 ** 63 - 1) if before is not None else 2 ** 63 - 1
        if not names:
            return [(int(r), str(i), bytes(line)) for r, i, line in self.db.execute(
                "SELECT rowid, id, line FROM games WHERE rowid < ? ORDER BY rowid DESC LIMIT ?",
                (below, limit))]
        versions = [list(self.entrants.ids_named(name)) for name in names]
        if not all(versions):
            return []
        seats = [self.db.execute(  # how often each played, counted up to the window's size
            f"SELECT COUNT(*) FROM (SELECT 1 FROM seats WHERE bot IN ({marks(ids)}) LIMIT ?)",
            (*ids, RECENT_WINDOW + 1)).fetchone()[0] for ids in versions]
        if min(seats) == 0:
            return []
        seated = "".join(f" AND EXISTS (SELECT 1 FROM seats AS s{n} WHERE s{n}.game = games.id "
                         f"AND +s{n}.bot IN ({marks(ids)}))" for n, ids in enumerate(versions))
        every = [bot for ids in versions for bot in ids]
        found: list[int] = []
        top = int(self.db.execute("SELECT COALESCE(MAX(rowid), 0) FROM games").fetchone()[0])
        floor = max(0, min(below, top + 1) - RECENT_WINDOW)
        if min(seats) > RECENT_WINDOW:  # frequent entrants: their games are likely among the latest
            found = [int(row[0]) for row in self.db.execute(
                f"SELECT rowid FROM games WHERE rowid < ? AND rowid >= ?{seated} "
                f"ORDER BY rowid DESC LIMIT ?", (below, floor, *every, limit))]
            if len(found) == limit:
                return self._games_at(found)
            below = floor
        driver = versions[seats.index(min(seats))]
        found += [int(row[0]) for row in self.db.execute(
            f"SELECT DISTINCT games.rowid FROM seats INDEXED BY seats_by_bot "
            f"JOIN games ON games.id = seats.game WHERE seats.bot IN ({marks(driver)}) "
            f"AND games.rowid < ?{seated} ORDER BY games.rowid DESC LIMIT ?",
            (*driver, below, *every, limit - len(found)))]
        return self._games_at(found)

    def _games_at(self, rowids: list[int]) -> list[tuple[int, str, bytes]]:
        rows = {int(r): (str(i), bytes(line)) for r, i, line in self.db.execute(
            f"SELECT rowid, id, line FROM games WHERE rowid IN ({marks(rowids)})", rowids)}
        return [(r, *rows[r]) for r in rowids]

    def finished_at(self, ids: list[str]) -> dict[str, float]:
        """When each of the games ``ids`` ended (Unix time, as stored), by id."""
        if not ids:
            return {}
        return {str(i): float(t) for i, t in self.db.execute(
            f"SELECT id, finished FROM games WHERE id IN ({marks(ids)})", ids)}

    def faults_of(self, name: str, limit: int = 20) -> list[tuple[str, str, str, str]]:
        """The latest faults of the entrant ``name``'s versions: ``(game id, version, kind,
        detail)``, newest first."""
        versions = self.entrants.ids_named(name)
        return [(str(g), versions[b], str(k), str(d)) for g, b, k, d in self.db.execute(
            f"SELECT game, bot, kind, detail FROM faults WHERE bot IN ({marks(versions)}) "
            f"ORDER BY rowid DESC LIMIT ?", (*versions, limit))]

    def counts(self) -> dict[int, int]:
        """Games played by each bot version, by id."""
        return dict(self.db.execute("SELECT bot, COUNT(DISTINCT game) FROM seats GROUP BY bot"))

    def set_counts(self) -> dict[int, int]:
        """Duplicate sets each bot version has played at least one game of, by id."""
        return dict(self.db.execute(
            "SELECT seats.bot, COUNT(DISTINCT games.set_id) FROM seats "
            "JOIN games ON games.id = seats.game GROUP BY seats.bot"))

    def total(self) -> int:
        """Games stored."""
        return int(self.db.execute("SELECT COUNT(*) FROM games").fetchone()[0])

    def recent_faults(self, per_bot: int = 3) -> dict[int, list[tuple[str, str, str]]]:
        """The latest faults of each bot version: ``(game id, kind, detail)``, newest first."""
        recent: dict[int, list[tuple[str, str, str]]] = {}
        for bot, game, kind, detail in self.db.execute(
                "SELECT bot, game, kind, detail FROM faults ORDER BY rowid DESC"):
            entries = recent.setdefault(bot, [])
            if len(entries) < per_bot:
                entries.append((game, kind, detail))
        return recent

    def fault_counts(self) -> dict[int, int]:
        """Faults of each bot version, by id."""
        return dict(self.db.execute("SELECT bot, COUNT(*) FROM faults GROUP BY bot"))

    def left_out(self) -> tuple[int, list[tuple[Bot, int]]]:
        """The games the current table leaves out (``lines(active_only=True)`` does): how many,
        and the versions no longer active that sat in them, each with its games, oldest first."""
        total = int(self.db.execute(f"SELECT COUNT(DISTINCT game) FROM seats "
                                    f"WHERE bot IN ({INACTIVE_IDS})").fetchone()[0])
        counts = dict(self.db.execute(f"SELECT bot, COUNT(DISTINCT game) FROM seats "
                                      f"WHERE bot IN ({INACTIVE_IDS}) GROUP BY bot"))
        bots = self.entrants.bots(("replaced", "retired"))
        return total, [(bot, counts[bot.id]) for bot in bots if bot.id in counts]
