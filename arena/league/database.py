"""A league's database, the connection every repository of the league shares: one SQLite file
(``league.db``) in WAL mode, so readers (``league table``, ``league status``) never wait for a run
that is writing, and a killed writer loses nothing committed.

Every change is one short transaction (``Database.transaction``): a submission accepted (its bot
version), a duplicate set planned, a finished game (its line, its seats, its faults, its set closed
when complete). A finished game commits on its own, so SIGKILL of a run loses at most the games in
progress. ``synchronous=NORMAL``: in WAL mode a commit survives a killed process (not a power cut;
the results file of ``arena run`` makes the same trade with its fsync once a second).

The schema's version is ``PRAGMA user_version``; ``MIGRATIONS[i]`` takes version ``i`` to ``i+1``.
A database written by a newer arena is refused rather than guessed at. A database that cannot be
opened or written is one line (``storage_error``), a file that is no league a ConfigError.

The schema is written here, whole, and each table is read and written by one repository alone
(``arena.league.store`` opens them together): the bot versions, their conduct and suspension
(``entrants``), the games with their seats, sets and faults (``games``), the owners of names
(``owners``: the participants who own names, schema 3, and the owners the organiser names with
``league submit --owner``, schema 7), the participants with their sessions and uploads
(``accounts``), the time submissions close (``deadline``; schema 6) and the final's games, kept
apart from the ladder's (``finals``; schema 6). The ``settings`` table is this module's:
written with the league, read by ``arena.league.config``, and changed by ``league config``
(``change_settings``), each change kept with its time in ``setting_changes`` (schema 8).
"""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Collection, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import orjson

from arena.errors import ConfigError, StorageError
from arena.names import name_key
from arena.records.reader import LEAGUE_DATABASE

DATABASE = LEAGUE_DATABASE
BOTS_DIR = "bots"
LOGS_DIR = "logs"
STAGING_DIR = "staging"
SUBMISSIONS_LOG = "submissions.jsonl"
BUSY_TIMEOUT = 10.0
"""Seconds a connection waits for another's write transaction (they are all short: one game, one
accepted bot), then StorageError, one line: a lock held longer is a process stuck, not busy."""
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
    """
    CREATE TABLE deadline (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        closes REAL NOT NULL,
        set_at REAL NOT NULL
    );
    CREATE TABLE finals (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        seed INTEGER NOT NULL,
        games INTEGER NOT NULL,
        bots TEXT NOT NULL,
        started REAL NOT NULL
    );
    CREATE TABLE final_games (
        id TEXT PRIMARY KEY,
        finished REAL NOT NULL,
        line BLOB NOT NULL
    );
    CREATE TABLE final_seats (
        game TEXT NOT NULL REFERENCES final_games (id),
        seat INTEGER NOT NULL,
        bot INTEGER NOT NULL REFERENCES bots (id),
        PRIMARY KEY (game, seat)
    );
    """,
    """
    CREATE TABLE named_owners (
        name_key TEXT PRIMARY KEY,
        owner TEXT NOT NULL
    );
    """,
    """
    CREATE TABLE setting_changes (
        id INTEGER PRIMARY KEY,
        changed REAL NOT NULL,
        key TEXT NOT NULL,
        old TEXT NOT NULL,
        new TEXT NOT NULL
    );
    """,
)
SCHEMA_VERSION = len(MIGRATIONS)


class Database:
    """An open league database (one connection; autocommit, explicit short transactions)."""

    def __init__(self, directory: Path, connection: sqlite3.Connection) -> None:
        self.directory = directory.absolute()
        """Absolute, once: every path derived from it (staging, bots, logs, the sandbox's mounts)
        stays right whatever the working directory of whoever reads it (a bwrap bind, a build)."""
        self.db = connection

    @classmethod
    def create(cls, directory: Path, settings: dict[str, Any]) -> Database:
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
        database = cls(directory, _connect(path))
        database.db.execute("PRAGMA journal_mode = WAL")
        try:
            with database.transaction():
                if database.db.execute("PRAGMA user_version").fetchone()[0] != 0:  # another init won
                    raise ConfigError(f"{directory}: already a league (it has {DATABASE})")
                database._migrate(0)
                database.db.executemany("INSERT INTO settings (key, value) VALUES (?, ?)",
                                        [(k, orjson.dumps(v).decode()) for k, v in settings.items()])
        except ConfigError:
            database.close()
            raise
        return database

    @classmethod
    def open(cls, directory: Path, *, across_threads: bool = False) -> Database:
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
        database = cls(directory, _connect(path, across_threads))
        try:
            version = database.db.execute("PRAGMA user_version").fetchone()[0]
        except sqlite3.DatabaseError as error:
            raise ConfigError(f"{path}: not a league database ({error})") from None
        if version > SCHEMA_VERSION:
            database.close()
            raise ConfigError(f"{path}: written by a newer arena (schema {version}; this one "
                              f"reads up to {SCHEMA_VERSION}): upgrade the arena")
        if version == 0:
            database.close()
            raise ConfigError(f"{path}: not a league database (no schema)")
        if version < SCHEMA_VERSION:
            with database.transaction():
                database._migrate(version)
        return database

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

    def settings(self) -> dict[str, Any]:
        """The league's settings (game, players, options, sandbox, seed, time control)."""
        return {k: orjson.loads(v) for k, v in self.db.execute("SELECT key, value FROM settings")}

    def change_settings(self, values: dict[str, Any],
                        changes: Collection[tuple[str, object, object]], at: float) -> None:
        """Store ``values`` (settings by their stored key, as ``settings`` reads them) and record
        ``changes`` (each setting's key, old and new value) at time ``at``: one transaction."""
        with self.transaction():
            self.db.executemany("INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)",
                                [(k, orjson.dumps(v).decode()) for k, v in values.items()])
            self.db.executemany(
                "INSERT INTO setting_changes (changed, key, old, new) VALUES (?, ?, ?, ?)",
                [(at, key, orjson.dumps(old).decode(), orjson.dumps(new).decode())
                 for key, old, new in changes])

    def setting_changes(self) -> list[tuple[float, str, Any, Any]]:
        """Every change of the league's settings, oldest first: its time, key, old and new value."""
        return [(at, key, orjson.loads(old), orjson.loads(new)) for at, key, old, new in
                self.db.execute("SELECT changed, key, old, new FROM setting_changes ORDER BY id")]


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


def marks(values: Collection[object]) -> str:
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
