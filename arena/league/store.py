"""A league's database: one SQLite file (``league.db``) in WAL mode, so readers (``league table``,
``league status``) never wait for a run that is writing, and a killed writer loses nothing committed.

Every change is one short transaction: a submission accepted (its bot version), a duplicate set
planned, a finished game (its line, its seats, its faults, its set closed when complete). A
finished game commits on its own, so SIGKILL of a run loses at most the games in progress.
``synchronous=NORMAL``: in WAL mode a commit survives a killed process (not a power cut; the
results file of ``arena run`` makes the same trade with its fsync once a second).

The schema's version is ``PRAGMA user_version``; ``MIGRATIONS[i]`` takes version ``i`` to ``i+1``.
A database written by a newer arena is refused rather than guessed at.

Entrants are compared by the keys of their names and versions (``arena.names``: ``OKONE`` and
``okone.`` are one name), stored beside them (``name_key``, ``version_key``; schema 2) and
checked in the transaction that accepts a version. A league from before the keys may hold two
entrants whose names have one key: they stay two entrants, each taking new versions under its
own spelling, and no third spelling is accepted (so the keys are indexed, not unique).

A version's conduct is kept beside it (schema 5): how many games in a row it stalled (a start
failure, a time-out or a crash: ``STALLING_FAULTS``), whether it has finished a game, and its
suspension, written in the transaction that stores the game that decided it (``record_game``).
"""

from __future__ import annotations

import shutil
import sqlite3
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import orjson

from arena.errors import ConfigError, StorageError
from arena.names import name_key
from arena.records.reader import LEAGUE_DATABASE
from arena.values.faults import FaultKind
from arena.values.ids import league_game_id

DATABASE = LEAGUE_DATABASE
BOTS_DIR = "bots"
LOGS_DIR = "logs"
STAGING_DIR = "staging"
SUBMISSIONS_LOG = "submissions.jsonl"
BUSY_TIMEOUT = 10.0
"""Seconds a connection waits for another's write transaction (they are all short: one game, one
accepted bot), then StorageError, one line: a lock held longer is a process stuck, not busy."""
RECENT_WINDOW = 1000
"""Games ``recent_games`` looks through, newest first, before it turns to an entrant's seats."""
WAL_PAGES = 10_000
"""WAL pages (4 KB) between automatic checkpoints: a WAL of up to ~40 MB."""

MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE bots (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL,
        version TEXT NOT NULL,
        dir TEXT NOT NULL,
        run TEXT NOT NULL,
        language TEXT,
        author TEXT,
        submitted REAL NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('active', 'replaced', 'retired')),
        UNIQUE (name, version)
    );
    CREATE UNIQUE INDEX one_active_version ON bots (name) WHERE state = 'active';
    CREATE TABLE sets (
        id INTEGER PRIMARY KEY,
        seed INTEGER NOT NULL,
        rotations TEXT NOT NULL,
        planned REAL NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('open', 'done', 'abandoned'))
    );
    CREATE TABLE games (
        id TEXT PRIMARY KEY,
        set_id INTEGER NOT NULL REFERENCES sets (id),
        rotation INTEGER NOT NULL,
        finished REAL NOT NULL,
        line BLOB NOT NULL,
        UNIQUE (set_id, rotation)
    );
    CREATE TABLE seats (
        game TEXT NOT NULL REFERENCES games (id),
        seat INTEGER NOT NULL,
        bot INTEGER NOT NULL REFERENCES bots (id),
        PRIMARY KEY (game, seat)
    );
    CREATE INDEX seats_by_bot ON seats (bot);
    CREATE TABLE faults (
        game TEXT NOT NULL REFERENCES games (id),
        bot INTEGER NOT NULL REFERENCES bots (id),
        kind TEXT NOT NULL,
        detail TEXT NOT NULL,
        finished REAL NOT NULL
    );
    CREATE INDEX faults_by_bot ON faults (bot, finished);
    """,
    """
    ALTER TABLE bots ADD COLUMN name_key TEXT NOT NULL DEFAULT '';
    ALTER TABLE bots ADD COLUMN version_key TEXT NOT NULL DEFAULT '';
    UPDATE bots SET name_key = arena_name_key(name), version_key = arena_name_key(version);
    CREATE INDEX bots_by_name_key ON bots (name_key, version_key);
    """,
    """
    CREATE TABLE participants (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL,
        name_key TEXT NOT NULL UNIQUE,
        token_hash TEXT UNIQUE,
        invited REAL NOT NULL,
        revoked REAL
    );
    CREATE TABLE owners (
        name_key TEXT PRIMARY KEY,
        participant INTEGER NOT NULL REFERENCES participants (id)
    );
    CREATE TABLE sessions (
        id_hash TEXT PRIMARY KEY,
        participant INTEGER NOT NULL REFERENCES participants (id),
        created REAL NOT NULL
    );
    CREATE TABLE uploads (
        id INTEGER PRIMARY KEY,
        participant INTEGER NOT NULL REFERENCES participants (id),
        file TEXT NOT NULL,
        status TEXT NOT NULL
            CHECK (status IN ('queued', 'building', 'checking', 'accepted', 'rejected')),
        reason TEXT NOT NULL DEFAULT '',
        steps TEXT NOT NULL DEFAULT '[]',
        bot TEXT,
        version TEXT,
        created REAL NOT NULL,
        updated REAL NOT NULL
    );
    CREATE INDEX uploads_by_status ON uploads (status, id);
    CREATE INDEX uploads_by_participant ON uploads (participant, id);
    """,
    """
    ALTER TABLE sessions ADD COLUMN seen REAL NOT NULL DEFAULT 0;
    UPDATE sessions SET seen = created;
    CREATE INDEX sessions_by_participant ON sessions (participant, created);
    """,
    """
    ALTER TABLE bots ADD COLUMN stalled_games INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE bots ADD COLUMN finished_a_game INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE bots ADD COLUMN suspended TEXT;
    ALTER TABLE bots ADD COLUMN suspended_at REAL;
    UPDATE bots SET finished_a_game = 1 WHERE id IN (SELECT bot FROM seats);
    ALTER TABLE uploads ADD COLUMN started REAL;
    """,
)
SCHEMA_VERSION = len(MIGRATIONS)

BOT_COLUMNS = ("id, name, version, dir, run, language, author, submitted, state, stalled_games, "
               "finished_a_game, suspended, suspended_at")
"""The columns ``Bot`` is read from, in its fields' order."""

STALLING_FAULTS = (FaultKind.TIMEOUT.value, FaultKind.CRASH.value)
"""The fault kinds that hold up the league's games: a process that does not start (a crash:
``could not be started``), times out or dies costs its game the whole allowance or a restart.
An illegal or malformed reply costs nothing but the faulting seat's result."""


@dataclass(frozen=True)
class Bot:
    """One submitted version of a bot, as stored."""

    id: int
    name: str
    version: str
    dir: str
    run: tuple[str, ...]
    language: str | None
    author: str | None
    submitted: float
    state: str
    stalled_games: int = 0
    """Its games in a row, up to the last stored, in which it stalled (``STALLING_FAULTS``)."""
    has_finished_a_game: bool = True
    """Whether it has played a game to its end without stalling."""
    suspended: str | None = None
    """Why the matchmaker no longer seats it (None: it is not suspended)."""
    suspended_at: float | None = None

    @property
    def key(self) -> str:
        """The name this version plays under in game records: ``NAME@VERSION``."""
        return f"{self.name}@{self.version}"

    @property
    def is_playing(self) -> bool:
        """Whether the matchmaker seats it: the active version of its entrant, not suspended."""
        return self.state == "active" and self.suspended is None


@dataclass(frozen=True)
class PlannedSet:
    """A duplicate set: its id, deal seed, the bot ids of each rotation and the rotations played."""

    id: int
    seed: int
    rotations: tuple[tuple[int, ...], ...]
    played: frozenset[int]


class Store:
    """An open league database (one connection; autocommit, explicit short transactions)."""

    def __init__(self, directory: Path, connection: sqlite3.Connection) -> None:
        self.directory = directory.absolute()
        """Absolute, once: every path derived from it (staging, bots, logs, the sandbox's mounts)
        stays right whatever the working directory of whoever reads it (a bwrap bind, a build)."""
        self.db = connection

    # -- opening -------------------------------------------------------------------------------

    @classmethod
    def create(cls, directory: Path, settings: dict[str, Any]) -> Store:
        """Create the league directory and its database; ConfigError if one is already there.

        An empty ``league.db`` (0 bytes: a crash before its first write, a ``touch``) holds no
        league, so the league is created in it, as ``open`` says to.
        """
        path = directory / DATABASE
        if path.exists() and not _is_empty(path):
            raise ConfigError(f"{directory}: already a league (it has {DATABASE})")
        if directory.exists() and not directory.is_dir():
            raise ConfigError(f"{directory}: exists and is not a directory")
        directory.mkdir(parents=True, exist_ok=True)
        # Its owner's alone: it holds every bot's stderr, and the hashes of tokens and sessions. A
        # sandboxed bot or build reads its own directory through its mount, not through this one.
        directory.chmod(0o700)
        for sub in (BOTS_DIR, LOGS_DIR, STAGING_DIR):
            (directory / sub).mkdir(exist_ok=True)
        store = cls(directory, _connect(path))
        store.db.execute("PRAGMA journal_mode = WAL")
        try:
            with store.transaction():
                if store.db.execute("PRAGMA user_version").fetchone()[0] != 0:  # another init won
                    raise ConfigError(f"{directory}: already a league (it has {DATABASE})")
                store._migrate(0)
                store.db.executemany("INSERT INTO settings (key, value) VALUES (?, ?)",
                                     [(k, orjson.dumps(v).decode()) for k, v in settings.items()])
        except ConfigError:
            store.close()
            raise
        return store

    @classmethod
    def open(cls, directory: Path, *, across_threads: bool = False) -> Store:
        """Open an existing league; ConfigError if it is not one or was written by a newer arena.

        ``across_threads``: the connection may be used by one thread after another (never two at
        once), as a web request's is: opened in one worker thread, used in the next."""
        path = directory / DATABASE
        if not path.is_file():
            raise ConfigError(f"{directory}: not a league (no {DATABASE}; create one with "
                              f"arena league init)")
        if _is_empty(path):
            raise ConfigError(f"{directory}: not a league ({DATABASE} is empty; create one with "
                              f"arena league init)")
        store = cls(directory, _connect(path, across_threads))
        try:
            version = store.db.execute("PRAGMA user_version").fetchone()[0]
        except sqlite3.DatabaseError as error:
            raise ConfigError(f"{path}: not a league database ({error})") from None
        if version > SCHEMA_VERSION:
            store.close()
            raise ConfigError(f"{path}: written by a newer arena (schema {version}; this one "
                              f"reads up to {SCHEMA_VERSION}): upgrade the arena")
        if version == 0:
            store.close()
            raise ConfigError(f"{path}: not a league database (no schema)")
        if version < SCHEMA_VERSION:
            with store.transaction():
                store._migrate(version)
        return store

    def _migrate(self, version: int) -> None:
        for script in MIGRATIONS[version:]:
            for statement in script.split(";"):
                if statement.strip():
                    self.db.execute(statement)
        self.db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def close(self) -> None:
        """Close the connection."""
        self.db.close()

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """One write transaction, taken at once (BEGIN IMMEDIATE), committed or rolled back.

        StorageError, one line, when the write lock is not had within ``BUSY_TIMEOUT`` or the
        database cannot be written (a full disk): the transaction is rolled back, nothing lost."""
        try:
            self.db.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as error:
            raise self._unwritable(error) from None
        try:
            yield
            self.db.execute("COMMIT")
        except BaseException as error:
            if self.db.in_transaction:
                with suppress(sqlite3.Error):
                    self.db.execute("ROLLBACK")
            if isinstance(error, sqlite3.OperationalError):
                raise self._unwritable(error) from None
            raise

    def _unwritable(self, error: sqlite3.OperationalError) -> StorageError:
        return storage_error(self.directory / DATABASE, error, "nothing was changed")

    # -- settings and bots ---------------------------------------------------------------------

    def settings(self) -> dict[str, Any]:
        """The league's settings (game, players, options, sandbox, seed, time control)."""
        return {k: orjson.loads(v) for k, v in self.db.execute("SELECT key, value FROM settings")}

    def bots(self, states: Sequence[str] = ("active",)) -> list[Bot]:
        """The bot versions in ``states``, oldest submission first."""
        marks = ", ".join("?" * len(states))
        rows = self.db.execute(f"SELECT {BOT_COLUMNS} FROM bots WHERE state IN ({marks}) ORDER BY id",
                               tuple(states))
        return [_bot(row) for row in rows]

    def bots_by_id(self) -> dict[int, Bot]:
        """Every version ever accepted, by id."""
        return {row[0]: _bot(row) for row in self.db.execute(f"SELECT {BOT_COLUMNS} FROM bots")}

    def add_bot(self, name: str, version: str, directory: str, run: Sequence[str],
                language: str | None, author: str | None, owner: int | None = None) -> Bot:
        """Accept a version: it becomes the active one of its name (the previous is replaced).

        ConfigError, nothing written, when ``name`` is another entrant's written differently or
        the entrant has ``version`` already (``taken_name``, ``taken_version``), or when
        ``owner`` (a participant's id; None: the organiser) may not submit it (``owner_problem``):
        checked in the transaction that writes, so no two writers can both pass it. A
        participant's first version of a new name makes the name theirs."""
        with self.transaction():
            problem = (taken_name(name, self.spellings(name))
                       or taken_version(name, version, self.same_version(name, version))
                       or self.owner_problem(name, owner))
            if problem is not None:
                raise ConfigError(f"{self.directory}: {problem}")
            if owner is not None:
                self.db.execute("INSERT OR IGNORE INTO owners (name_key, participant) "
                                "VALUES (?, ?)", (name_key(name), owner))
            self.db.execute("UPDATE bots SET state = 'replaced' WHERE name = ? AND state = 'active'",
                            (name,))
            cursor = self.db.execute(
                "INSERT INTO bots (name, version, dir, run, language, author, submitted, state, "
                "name_key, version_key) VALUES (?, ?, ?, ?, ?, ?, ?, 'active', ?, ?)",
                (name, version, directory, orjson.dumps(list(run)).decode(), language, author,
                 time.time(), name_key(name), name_key(version)))
            bot_id = cursor.lastrowid
        return self.bots_by_id()[int(bot_id or 0)]

    def owner_problem(self, name: str, participant: int | None) -> str | None:
        """Why ``participant`` (None: the organiser, who may submit any name) may not submit a
        version of ``name``: another participant owns it, or the organiser entered it; None when
        the name is theirs or new."""
        if participant is None:
            return None
        row = self.db.execute("SELECT participant FROM owners WHERE name_key = ?",
                              (name_key(name),)).fetchone()
        if row is not None:
            return None if row[0] == participant else \
                f"{name!r} belongs to another participant: choose another name"
        if self.spellings(name):
            return f"{name!r} was entered by the organiser: choose another name"
        return None

    def owners(self) -> dict[str, str]:
        """Each owned entrant's name key and its owner's name."""
        return dict(self.db.execute("SELECT owners.name_key, participants.name FROM owners "
                                    "JOIN participants ON participants.id = owners.participant"))

    def versions(self, name: str) -> list[str]:
        """Every version of ``name`` accepted so far."""
        return [row[0] for row in self.db.execute("SELECT version FROM bots WHERE name = ?", (name,))]

    def spellings(self, name: str) -> list[str]:
        """The names of the entrants that are the same name as ``name`` (``arena.names``), first
        submitted first: none for a new name; more than one only in a league from before names
        were compared so."""
        return [row[0] for row in self.db.execute(
            "SELECT name FROM bots WHERE name_key = ? GROUP BY name ORDER BY MIN(id)",
            (name_key(name),))]

    def same_version(self, name: str, version: str) -> str | None:
        """The version of the entrant ``name`` that is the same version as ``version``
        (``arena.names``: ``V1`` is ``v1``), as it was written; None if it has none."""
        row = self.db.execute("SELECT version FROM bots WHERE name = ? AND version_key = ? "
                              "ORDER BY id LIMIT 1", (name, name_key(version))).fetchone()
        return None if row is None else str(row[0])

    def retire(self, name: str) -> Bot:
        """Take the active version of ``name`` (written as submitted, or as another spelling of
        one active entrant's name) out of the pool; ConfigError if there is none, or several."""
        with self.transaction():
            row = self._active_row(name)
            self.db.execute("UPDATE bots SET state = 'retired' WHERE id = ?", (row[0],))
        return _bot(row)

    def _active_row(self, name: str) -> Sequence[Any]:
        """The row of the active version of ``name`` (as ``retire`` finds it); ConfigError if
        there is none, or several."""
        rows = self.db.execute(f"SELECT {BOT_COLUMNS} FROM bots WHERE name_key = ? "
                               "AND state = 'active' ORDER BY id", (name_key(name),)).fetchall()
        exact = [row for row in rows if row[1] == name]
        if len(exact) != 1 and len(rows) != 1:
            active = ", ".join(bot.name for bot in self.bots()) or "none"
            what = (f"no active bot named {name!r}" if not rows else
                    f"{name!r} is the name of {len(rows)} active bots written differently "
                    f"(from before names were compared so): give one exactly")
            raise ConfigError(f"{self.directory}: {what} (active: {active})")
        return cast(Sequence[Any], (exact or rows)[0])

    def activate(self, name: str, version: str) -> tuple[Bot, Bot | None]:
        """Make ``version`` of the entrant ``name`` (each compared as names are: ``arena.names``)
        its active one again: a rollback, or a retired entrant back in the pool. The version that
        was active is replaced; both keep their games. The version made active and the one it
        replaced (None: the entrant had none active); ConfigError naming the versions there are
        when it has no such version, or when that version is the active one already. ``v2`` is
        version ``2`` (as versions are shown) unless the entrant has a version ``v2``."""
        with self.transaction():
            rows = self.db.execute(f"SELECT {BOT_COLUMNS} FROM bots WHERE name_key = ? ORDER BY id",
                                   (name_key(name),)).fetchall()
            if not rows:
                entrants = ", ".join(sorted({row[0] for row in self.db.execute(
                    "SELECT name FROM bots")})) or "none"
                raise ConfigError(f"{self.directory}: no entrant named {name!r} (entrants: "
                                  f"{entrants})")
            chosen = [row for row in rows if name_key(row[2]) == name_key(version)] or \
                [row for row in rows if version[:1] in "vV" and name_key(row[2]) == name_key(version[1:])]
            if not chosen:
                versions = ", ".join(f"v{row[2]}" for row in rows)
                raise ConfigError(f"{self.directory}: {rows[0][1]} has no version {version!r} "
                                  f"(it has {versions})")
            target = _bot(chosen[0])
            active = [_bot(row) for row in rows if row[8] == "active" and row[1] == target.name]
            if active and active[0].id == target.id:
                raise ConfigError(f"{self.directory}: {target.name} v{target.version} is the "
                                  f"active version already")
            self.db.execute("UPDATE bots SET state = 'replaced' WHERE name = ? AND state = 'active'",
                            (target.name,))
            self.db.execute("UPDATE bots SET state = 'active' WHERE id = ?", (target.id,))
        return self.bots_by_id()[target.id], active[0] if active else None

    # -- sets and games ------------------------------------------------------------------------

    def plan_sets(self, seeds_and_rotations: Sequence[tuple[int, Sequence[Sequence[int]]]]
                  ) -> list[PlannedSet]:
        """Record new duplicate sets (deal seed, bot ids by rotation) as open; one transaction."""
        planned = []
        now = time.time()
        with self.transaction():
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
        with self.transaction():
            self.db.executemany("UPDATE sets SET state = 'abandoned' WHERE id = ?",
                                [(i,) for i in set_ids])

    def record_game(self, set_id: int, rotation: int, bot_ids: Sequence[int], line: bytes,
                    faults: Sequence[tuple[int, str, str]], suspend_after: int = 0) -> list[Bot]:
        """Store one finished game (its line, seats and faults ``(bot id, kind, detail)``), closing
        its set when it was the last rotation, and each seated version's conduct: one
        transaction. A version that stalled (``STALLING_FAULTS``) in this game and the
        ``suspend_after - 1`` before it (0: never) is suspended. The versions this game
        suspended; none when it was already stored."""
        now = time.time()
        game_id = league_game_id(set_id, rotation)
        with self.transaction():
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
            suspended = self._conduct(game_id, set(bot_ids), faults, suspend_after, now)
        return [self.bots_by_id()[bot] for bot in suspended]

    def _conduct(self, game_id: str, bot_ids: set[int], faults: Sequence[tuple[int, str, str]],
                 suspend_after: int, now: float) -> list[int]:
        """Count this game in each seated version's run of stalled games (a version with copies
        at the table counts once), suspending those whose run reaches ``suspend_after``."""
        stalled = {bot: kind for bot, kind, _ in faults if kind in STALLING_FAULTS}
        self.db.executemany(
            "UPDATE bots SET stalled_games = 0, finished_a_game = 1 WHERE id = ?",
            [(bot,) for bot in bot_ids - stalled.keys()])
        self.db.executemany("UPDATE bots SET stalled_games = stalled_games + 1 WHERE id = ?",
                            [(bot,) for bot in stalled])
        if suspend_after <= 0 or not stalled:
            return []
        marks = ", ".join("?" * len(stalled))
        due = [row[0] for row in self.db.execute(
            f"SELECT id FROM bots WHERE id IN ({marks}) AND suspended IS NULL "
            f"AND stalled_games >= ?", (*stalled, suspend_after))]
        self.db.executemany(
            "UPDATE bots SET suspended = ?, suspended_at = ? WHERE id = ?",
            [(f"{suspend_after} games in a row with a start failure, a time-out or a crash "
              f"(the last: {stalled[bot]} in {game_id})", now, bot) for bot in due])
        return due

    def reinstate(self, name: str) -> Bot:
        """Lift the suspension of the active version of ``name`` (written as submitted, or as
        another spelling of one active entrant's name): the matchmaker seats it again, and its
        run of stalled games starts again from none. ConfigError if it has no active version,
        several, or one that is not suspended."""
        with self.transaction():
            row = self._active_row(name)
            bot = _bot(row)
            if bot.suspended is None:
                raise ConfigError(f"{self.directory}: {bot.name} v{bot.version} is not suspended")
            self.db.execute("UPDATE bots SET suspended = NULL, suspended_at = NULL, "
                            "stalled_games = 0 WHERE id = ?", (bot.id,))
        return self.bots_by_id()[bot.id]

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
            query += (" AND NOT EXISTS (SELECT 1 FROM seats JOIN bots ON bots.id = seats.bot "
                      "WHERE seats.game = games.id AND bots.state != 'active')")
        for row, line in self.db.execute(query + " ORDER BY rowid", (rowid,)):
            yield int(row), bytes(line)

    def game_line(self, game_id: str) -> bytes | None:
        """The stored line of the game ``game_id``, or None."""
        row = self.db.execute("SELECT line FROM games WHERE id = ?", (game_id,)).fetchone()
        return None if row is None else bytes(row[0])

    def recent_games(self, names: Sequence[str] = (), limit: int = 50,
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
        versions = [[int(row[0]) for row in self.db.execute("SELECT id FROM bots WHERE name = ?",
                                                            (name,))] for name in names]
        if not all(versions):
            return []
        seats = [self.db.execute(  # how often each played, counted up to the window's size
            f"SELECT COUNT(*) FROM (SELECT 1 FROM seats WHERE bot IN ({_marks(ids)}) LIMIT ?)",
            (*ids, RECENT_WINDOW + 1)).fetchone()[0] for ids in versions]
        if min(seats) == 0:
            return []
        seated = "".join(f" AND EXISTS (SELECT 1 FROM seats AS s{n} WHERE s{n}.game = games.id "
                         f"AND +s{n}.bot IN ({_marks(ids)}))" for n, ids in enumerate(versions))
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
            f"JOIN games ON games.id = seats.game WHERE seats.bot IN ({_marks(driver)}) "
            f"AND games.rowid < ?{seated} ORDER BY games.rowid DESC LIMIT ?",
            (*driver, below, *every, limit - len(found)))]
        return self._games_at(found)

    def _games_at(self, rowids: list[int]) -> list[tuple[int, str, bytes]]:
        rows = {int(r): (str(i), bytes(line)) for r, i, line in self.db.execute(
            f"SELECT rowid, id, line FROM games WHERE rowid IN ({_marks(rowids)})", rowids)}
        return [(r, *rows[r]) for r in rowids]

    def faults_of(self, name: str, limit: int = 20) -> list[tuple[str, str, str, str]]:
        """The latest faults of the entrant ``name``'s versions: ``(game id, version, kind,
        detail)``, newest first."""
        return [(str(g), str(v), str(k), str(d)) for g, v, k, d in self.db.execute(
            "SELECT faults.game, bots.version, faults.kind, faults.detail FROM faults "
            "JOIN bots ON bots.id = faults.bot WHERE bots.name = ? "
            "ORDER BY faults.rowid DESC LIMIT ?", (name, limit))]

    def game_counts(self) -> dict[int, int]:
        """Games played by each bot version, by id."""
        return dict(self.db.execute("SELECT bot, COUNT(DISTINCT game) FROM seats GROUP BY bot"))

    def set_counts(self) -> dict[int, int]:
        """Duplicate sets each bot version has played at least one game of, by id."""
        return dict(self.db.execute(
            "SELECT seats.bot, COUNT(DISTINCT games.set_id) FROM seats "
            "JOIN games ON games.id = seats.game GROUP BY seats.bot"))

    def game_total(self) -> int:
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

    def games_left_out(self) -> tuple[int, list[tuple[Bot, int]]]:
        """The games the current table leaves out (``lines(active_only=True)`` does): how many,
        and the versions no longer active that sat in them, each with its games, oldest first."""
        inactive = ("SELECT seats.game FROM seats JOIN bots ON bots.id = seats.bot "
                    "WHERE bots.state != 'active'")
        total = int(self.db.execute(f"SELECT COUNT(DISTINCT game) FROM ({inactive})").fetchone()[0])
        counts = dict(self.db.execute(
            "SELECT bots.id, COUNT(DISTINCT seats.game) FROM seats JOIN bots ON bots.id = seats.bot "
            "WHERE bots.state != 'active' GROUP BY bots.id"))
        bots = self.bots(("replaced", "retired"))
        return total, [(bot, counts[bot.id]) for bot in bots if bot.id in counts]


def taken_name(name: str, spellings: Sequence[str]) -> str | None:
    """Why the league cannot take an entrant named ``name`` whose name it holds as
    ``spellings`` (``Store.spellings``): it is another entrant's, written differently; None when
    it is new or written as an entrant's own."""
    if not spellings or name in spellings:
        return None
    others = " and ".join(repr(other) for other in spellings)
    entrant = "entrant" if len(spellings) == 1 else "entrants"
    return (f"{name!r} is the name of the {entrant} {others}, written differently (names "
            f"compare without case, width or trailing dots): submit it as {spellings[0]!r} for "
            f"a new version of that entrant, or choose another name")


def taken_version(name: str, version: str, same: str | None) -> str | None:
    """Why the entrant ``name`` cannot take ``version`` when it has ``same``
    (``Store.same_version``), or None."""
    if same is None:
        return None
    written = "" if same == version else f" (as v{same})"
    return (f"{name} v{version} is already in the league{written} (give the new one another "
            f"version)")



def _is_empty(path: Path) -> bool:
    """Whether the database at ``path`` is an empty file with no write-ahead log: no league."""
    wal = path.with_name(f"{path.name}-wal")
    return path.stat().st_size == 0 and (not wal.exists() or wal.stat().st_size == 0)


def storage_error(path: Path, error: sqlite3.OperationalError, consequence: str) -> StorageError:
    """One line for a database that cannot be opened or written: a lock held past the wait, a
    full disk (SQLite says only "disk I/O error" when it cannot even create its WAL index)."""
    if "locked" in str(error) or "busy" in str(error):
        return StorageError(f"{path}: another process has held the league's write lock for "
                            f"{BUSY_TIMEOUT:.0f} s (a stuck league command?); {consequence}: "
                            f"try again")
    try:
        full = shutil.disk_usage(path.parent).free == 0
    except OSError:
        full = False
    why = f"{error} (no space left on its disk)" if full else str(error)
    return StorageError(f"{path}: cannot write: {why}; {consequence}")


def _marks(values: Sequence[Any]) -> str:
    """``?, ?, ?``: a placeholder for each of ``values``."""
    return ", ".join("?" * len(values))


def _connect(path: Path, across_threads: bool = False) -> sqlite3.Connection:
    try:
        connection = sqlite3.connect(path, timeout=BUSY_TIMEOUT, isolation_level=None,
                                     check_same_thread=not across_threads)
        connection.execute("PRAGMA synchronous = NORMAL")
        # Checkpoints copy the WAL into the database (with fsyncs): every 1000 pages by default,
        # which is every ~250 games of ~10 KB and doubles the cost of storing one (bench/league.py).
        connection.execute(f"PRAGMA wal_autocheckpoint = {WAL_PAGES}")
        connection.execute("PRAGMA foreign_keys = ON")
        # For the migration to schema 2, which keys the names already stored (arena.names).
        connection.create_function("arena_name_key", 1, name_key, deterministic=True)
    except sqlite3.OperationalError as error:
        raise storage_error(path, error, "the league was not opened") from None
    return connection


def _bot(row: Sequence[Any]) -> Bot:
    return Bot(id=row[0], name=row[1], version=row[2], dir=row[3], run=tuple(orjson.loads(row[4])),
               language=row[5], author=row[6], submitted=row[7], state=row[8],
               stalled_games=row[9], has_finished_a_game=bool(row[10]), suspended=row[11],
               suspended_at=row[12])
