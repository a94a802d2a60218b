"""The league's database: a league of every schema version opens, migrated to the very schema a new
league is created with, every row kept; one written by a newer arena is refused; each table is read
and written by one repository alone."""

from __future__ import annotations

import ast
import re
import sqlite3
from pathlib import Path

import pytest

from arena.errors import ConfigError
from arena.league.database import DATABASE, MIGRATIONS, SCHEMA_VERSION, Database
from arena.names import name_key


def _schema(path: Path) -> list[tuple[str, str, str]]:
    with sqlite3.connect(path) as db:
        rows = db.execute("SELECT type, name, sql FROM sqlite_master ORDER BY type, name").fetchall()
    db.close()
    return rows


def _rows(path: Path) -> dict[str, int]:
    with sqlite3.connect(path) as db:
        tables = [row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        counts = {table: db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0] for table in tables}
    db.close()
    return counts


def _league_of_schema(directory: Path, version: int) -> Path:
    """A league as an arena of schema ``version`` left it: a bot, a set with a game, its seats and
    a fault, and (from schema 3) a participant with an owned name, a session and an upload."""
    directory.mkdir()
    db = sqlite3.connect(directory / DATABASE, isolation_level=None)
    db.create_function("arena_name_key", 1, name_key, deterministic=True)  # for schema 2's
    db.execute("PRAGMA journal_mode = WAL")
    for script in MIGRATIONS[:version]:
        db.executescript(script)
    db.execute("INSERT INTO settings VALUES ('game', '\"blackout\"')")
    db.execute("INSERT INTO bots (name, version, dir, run, language, author, submitted, state) "
               "VALUES ('Mine', 'V1', 'bots/Mine/V1', '[\"./bot\"]', 'c', NULL, 1.0, 'active')")
    if version >= 2:  # the keys, as the arena writes them with a version
        db.execute("UPDATE bots SET name_key = 'mine', version_key = 'v1'")
    db.execute("INSERT INTO sets (seed, rotations, planned, state) VALUES (7, '[[1]]', 2.0, 'open')")
    db.execute("INSERT INTO games VALUES ('L1-s0', 1, 0, 3.0, X'7b7d')")
    db.execute("INSERT INTO seats VALUES ('L1-s0', 0, 1)")
    db.execute("INSERT INTO faults VALUES ('L1-s0', 1, 'timeout', 'slow', 3.0)")
    if version >= 3:
        db.execute("INSERT INTO participants (name, name_key, token_hash, invited) "
                   "VALUES ('ada', 'ada', 'hash', 1.0)")
        db.execute("INSERT INTO owners VALUES ('mine', 1)")
        db.execute("INSERT INTO sessions (id_hash, participant, created) VALUES ('id', 1, 4.0)")
        db.execute("INSERT INTO uploads (participant, file, status, created, updated) "
                   "VALUES (1, 'uploads/a.tar', 'queued', 5.0, 5.0)")
    if version >= 5:  # a version that has played: as the arena counts it from schema 5
        db.execute("UPDATE bots SET finished_a_game = 1")
    if version >= 6:
        db.execute("INSERT INTO deadline VALUES (1, 6.0, 5.5)")
        db.execute("INSERT INTO finals VALUES (1, 9, 3, '[1]', 7.0)")
        db.execute("INSERT INTO final_games VALUES ('r1-t0000-s0', 8.0, X'7b7d')")
        db.execute("INSERT INTO final_seats VALUES ('r1-t0000-s0', 0, 1)")
    db.execute(f"PRAGMA user_version = {version}")
    db.close()
    return directory


@pytest.mark.parametrize("version", range(1, SCHEMA_VERSION))
def test_a_league_of_every_schema_version_opens_migrated_with_its_rows(tmp_path: Path,
                                                                        version: int) -> None:
    Database.create(tmp_path / "new", {"game": "blackout"}).close()
    old = _league_of_schema(tmp_path / "old", version)
    before = _rows(old / DATABASE)
    Database.open(old).close()
    assert _schema(old / DATABASE) == _schema(tmp_path / "new" / DATABASE)
    with sqlite3.connect(old / DATABASE) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert db.execute("SELECT name_key, version_key, finished_a_game FROM bots").fetchall() == [
            ("mine", "v1", 1)]
    db.close()
    after = _rows(old / DATABASE)
    assert {table: after[table] for table in before} == before


def test_a_league_of_a_newer_schema_is_refused(tmp_path: Path) -> None:
    newer = _league_of_schema(tmp_path / "newer", SCHEMA_VERSION)
    with sqlite3.connect(newer / DATABASE) as db:
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    db.close()
    with pytest.raises(ConfigError, match=f"written by a newer arena .schema {SCHEMA_VERSION + 1}"):
        Database.open(newer)


OWNERS = {"arena.league.database": {"settings", "setting_changes"},
          "arena.league.entrants": {"bots"},
          "arena.league.games": {"sets", "games", "seats", "faults"},
          "arena.league.owners": {"owners", "named_owners"},
          "arena.league.accounts": {"participants", "sessions", "uploads"},
          "arena.league.deadline": {"deadline"},
          "arena.league.finals": {"finals", "final_games", "final_seats"}}
"""The one module that reads and writes each table: its repository."""

SQL_TABLE = re.compile(r"\b(?:FROM|INTO|UPDATE|JOIN)\s+([a-z_]+)\b")
ARENA = Path(__file__).resolve().parents[3] / "arena"


def _tables_named() -> dict[str, set[str]]:
    """Each module of the arena and the tables its SQL reads or writes (the schema's own
    statements, ``MIGRATIONS``, left out)."""
    found: dict[str, set[str]] = {}
    for path in sorted(ARENA.rglob("*.py")):
        module = ".".join(path.relative_to(ARENA.parent).with_suffix("").parts)
        tree = ast.parse(path.read_text())
        schema = {id(node) for statement in tree.body if isinstance(statement, ast.AnnAssign)
                  and ast.unparse(statement.target) == "MIGRATIONS" for node in ast.walk(statement)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                    and id(node) not in schema:
                found.setdefault(module, set()).update(SQL_TABLE.findall(node.value))
    return {module: tables for module, tables in found.items() if tables}


def test_each_table_is_read_and_written_by_its_repository_alone(tmp_path: Path) -> None:
    Database.create(tmp_path / "league", {}).close()
    with sqlite3.connect(tmp_path / "league" / DATABASE) as db:
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    db.close()
    assert set().union(*OWNERS.values()) == tables, "give every table one owner"
    named = _tables_named()
    strangers = {module: sorted(found) for module, found in named.items()
                 if found - OWNERS.get(module, set())}
    assert strangers == {}, "go through the table's repository"
