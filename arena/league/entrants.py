"""The league's entrants: each accepted version of a bot (the ``bots`` table), its conduct and its
suspension, read and written here alone.

A version is accepted into the pool as its entrant's active one (``add``), replaced by the next,
retired, made active again (``activate``); ``bots(states)`` lists them. Entrants are compared by
the keys of their names and versions (``arena.names``: ``OKONE`` and ``okone.`` are one name),
stored beside them (``name_key``, ``version_key``; schema 2) and checked in the transaction that
accepts a version. A league from before the keys may hold two entrants whose names have one key:
they stay two entrants, each taking new versions under its own spelling, and no third spelling is
accepted (so the keys are indexed, not unique).

A version's conduct is kept beside it (schema 5): how many games in a row it stalled (a start
failure, a time-out or a crash: ``STALLING_FAULTS``), whether it has finished a game, and its
suspension, written in the transaction that stores the game that decided it
(``arena.league.games``, through ``record_conduct``).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast

import orjson

from arena.errors import ConfigError
from arena.league.database import Database, marks
from arena.league.deadline import Deadline
from arena.league.owners import Owners
from arena.names import name_key
from arena.values.faults import FaultKind

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


INACTIVE_IDS = "SELECT id FROM bots WHERE state != 'active'"
"""The ids of the versions no longer in the pool (replaced or retired), as a subquery: what a
query over another table filters by (``arena.league.games``: the games the current table rates),
in the one statement, without reading this table itself."""


class Entrants:
    """The bot versions of an open league, and their conduct."""

    def __init__(self, database: Database, owners: Owners, deadline: Deadline) -> None:
        self.database = database
        self.db = database.db
        """The connection (``database``'s), for this module's queries."""
        self.owners = owners
        self.deadline = deadline

    def bots(self, states: Sequence[str] = ("active",)) -> list[Bot]:
        """The bot versions in ``states``, oldest submission first."""
        rows = self.db.execute(
            f"SELECT {BOT_COLUMNS} FROM bots WHERE state IN ({marks(states)}) ORDER BY id",
            tuple(states))
        return [_bot(row) for row in rows]

    def by_id(self) -> dict[int, Bot]:
        """Every version ever accepted, by id."""
        return {row[0]: _bot(row) for row in self.db.execute(f"SELECT {BOT_COLUMNS} FROM bots")}

    def add(self, name: str, version: str, directory: str, run: Sequence[str],
            language: str | None, author: str | None, owner: int | None = None,
            received: float | None = None, named_owner: str | None = None) -> Bot:
        """Accept a version: it becomes the active one of its name (the previous is replaced).

        ConfigError, nothing written, when the league closed before the submission was
        ``received`` (a Unix time; None: now; ``arena.league.deadline``), when ``name`` is
        another entrant's written differently or the entrant has ``version`` already
        (``taken_name``, ``taken_version``), when ``owner`` (a participant's id; None: the
        organiser) may not submit it (``owner_problem``), or when ``named_owner`` (the
        organiser's ``--owner``) is not the owner the name has (``Owners.given_problem``):
        checked in the transaction that writes, so no two writers can both pass it, and no close
        can come between the check and the write. A participant's first version of a new name
        makes the name theirs; ``named_owner`` becomes the owner of a name that has none."""
        with self.database.transaction():
            problem = (self.deadline.refusal(time.time() if received is None else received)
                       or taken_name(name, self.spellings(name))
                       or taken_version(name, version, self.same_version(name, version))
                       or self.owner_problem(name, owner)
                       or (None if named_owner is None
                           else self.owners.given_problem(name, named_owner)))
            if problem is not None:
                raise ConfigError(f"{self.database.directory}: {problem}")
            if owner is not None:
                self.owners.claim(name, owner)
            if named_owner is not None:
                self.owners.name_owner(name, named_owner)
            self.db.execute("UPDATE bots SET state = 'replaced' WHERE name = ? AND state = 'active'",
                            (name,))
            cursor = self.db.execute(
                "INSERT INTO bots (name, version, dir, run, language, author, submitted, state, "
                "name_key, version_key) VALUES (?, ?, ?, ?, ?, ?, ?, 'active', ?, ?)",
                (name, version, directory, orjson.dumps(list(run)).decode(), language, author,
                 time.time(), name_key(name), name_key(version)))
            bot_id = cursor.lastrowid
        return self.by_id()[int(bot_id or 0)]

    def owner_problem(self, name: str, participant: int | None) -> str | None:
        """Why ``participant`` (None: the organiser, who may submit any name) may not submit a
        version of ``name``: another participant owns it, or the organiser entered it; None when
        the name is theirs or new."""
        if participant is None:
            return None
        owner = self.owners.owner_of(name)
        if owner is not None:
            return None if owner == participant else \
                f"{name!r} belongs to another participant: choose another name"
        if self.spellings(name):
            return f"{name!r} was entered by the organiser: choose another name"
        return None

    def versions(self, name: str) -> list[str]:
        """Every version of ``name`` accepted so far."""
        return [row[0] for row in self.db.execute(
            "SELECT version FROM bots WHERE name = ?", (name,))]

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
        with self.database.transaction():
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
            raise ConfigError(f"{self.database.directory}: {what} (active: {active})")
        return cast(Sequence[Any], (exact or rows)[0])

    def activate(self, name: str, version: str) -> tuple[Bot, Bot | None]:
        """Make ``version`` of the entrant ``name`` (each compared as names are: ``arena.names``)
        its active one again: a rollback, or a retired entrant back in the pool. The version that
        was active is replaced; both keep their games. The version made active and the one it
        replaced (None: the entrant had none active); ConfigError naming the versions there are
        when it has no such version, or when that version is the active one already. ``v2`` is
        version ``2`` (as versions are shown) unless the entrant has a version ``v2``."""
        with self.database.transaction():
            rows = self.db.execute(f"SELECT {BOT_COLUMNS} FROM bots WHERE name_key = ? ORDER BY id",
                                   (name_key(name),)).fetchall()
            if not rows:
                entrants = ", ".join(sorted({row[0] for row in self.db.execute(
                    "SELECT name FROM bots")})) or "none"
                raise ConfigError(f"{self.database.directory}: no entrant named {name!r} (entrants: "
                                  f"{entrants})")
            chosen = [row for row in rows if name_key(row[2]) == name_key(version)] or \
                [row for row in rows if version[:1] in "vV" and name_key(row[2]) == name_key(version[1:])]
            if not chosen:
                versions = ", ".join(f"v{row[2]}" for row in rows)
                raise ConfigError(f"{self.database.directory}: {rows[0][1]} has no version {version!r} "
                                  f"(it has {versions})")
            target = _bot(chosen[0])
            active = [_bot(row) for row in rows if row[8] == "active" and row[1] == target.name]
            if active and active[0].id == target.id:
                raise ConfigError(f"{self.database.directory}: {target.name} v{target.version} is the "
                                  f"active version already")
            self.db.execute("UPDATE bots SET state = 'replaced' WHERE name = ? AND state = 'active'",
                            (target.name,))
            self.db.execute("UPDATE bots SET state = 'active' WHERE id = ?", (target.id,))
        return self.by_id()[target.id], active[0] if active else None

    def record_conduct(self, game_id: str, bot_ids: set[int],
                       faults: Sequence[tuple[int, str, str]], suspend_after: int,
                       now: float) -> list[int]:
        """Count the game ``game_id`` in each seated version's run of stalled games (a version
        with copies at the table counts once), suspending those whose run reaches
        ``suspend_after`` (0: never); the ids of those it suspended. Call inside the transaction
        that stores the game."""
        stalled = {bot: kind for bot, kind, _ in faults if kind in STALLING_FAULTS}
        self.db.executemany(
            "UPDATE bots SET stalled_games = 0, finished_a_game = 1 WHERE id = ?",
            [(bot,) for bot in bot_ids - stalled.keys()])
        self.db.executemany("UPDATE bots SET stalled_games = stalled_games + 1 WHERE id = ?",
                            [(bot,) for bot in stalled])
        if suspend_after <= 0 or not stalled:
            return []
        due = [row[0] for row in self.db.execute(
            f"SELECT id FROM bots WHERE id IN ({marks(stalled)}) AND suspended IS NULL "
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
        with self.database.transaction():
            row = self._active_row(name)
            bot = _bot(row)
            if bot.suspended is None:
                raise ConfigError(f"{self.database.directory}: {bot.name} v{bot.version} is not suspended")
            self.db.execute("UPDATE bots SET suspended = NULL, suspended_at = NULL, "
                            "stalled_games = 0 WHERE id = ?", (bot.id,))
        return self.by_id()[bot.id]

    def ids_named(self, name: str) -> dict[int, str]:
        """The ids of the versions of the entrant ``name`` (as written), each with its version."""
        return {int(row[0]): str(row[1]) for row in self.db.execute(
            "SELECT id, version FROM bots WHERE name = ?", (name,))}

    def directories(self, keys: Sequence[str]) -> list[str]:
        """The directories (inside the league) of every version of the entrants whose name keys
        are ``keys``, replaced and retired ones too, oldest first."""
        return [row[0] for row in self.db.execute(
            f"SELECT dir FROM bots WHERE name_key IN ({marks(keys)}) ORDER BY id", tuple(keys))]


def taken_name(name: str, spellings: Sequence[str]) -> str | None:
    """Why the league cannot take an entrant named ``name`` whose name it holds as
    ``spellings`` (``Entrants.spellings``): it is another entrant's, written differently; None when
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
    (``Entrants.same_version``), or None."""
    if same is None:
        return None
    written = "" if same == version else f" (as v{same})"
    return (f"{name} v{version} is already in the league{written} (give the new one another "
            f"version)")


def _bot(row: Sequence[Any]) -> Bot:
    return Bot(id=row[0], name=row[1], version=row[2], dir=row[3], run=tuple(orjson.loads(row[4])),
               language=row[5], author=row[6], submitted=row[7], state=row[8],
               stalled_games=row[9], has_finished_a_game=bool(row[10]), suspended=row[11],
               suspended_at=row[12])
