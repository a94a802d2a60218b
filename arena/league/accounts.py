"""A league's participants, their tokens and sessions, and the queue of their uploaded bots.

A participant is invited by the organiser (``arena league invite``), which prints a token once;
the league keeps only its SHA-256 (a token is 256 random bits, so a plain hash cannot be reversed
or guessed, and a stolen database gives no token). A token is looked up by its hash, so the time a
lookup takes depends on the hash, never on how much of a guessed token was right; the hash found
is compared again with ``hmac.compare_digest``. Revoking a participant drops their token and
their sessions at once; their bots stay in the league.

A session (a browser logged in) lives at most ``SESSION_MAX_AGE``, and ``SESSION_IDLE`` unused; a
participant has at most ``SESSIONS_KEPT`` (a new one ends their oldest), and every expired row is
removed when anyone logs in, or when it is presented again.

An upload is a participant's archive waiting to go through the submit pipeline
(``arena.league.submit``): its row says where it is (``UploadStatus``) and why it was rejected.
Every row is committed before the upload is answered, so a server killed at any point loses no
accepted upload; a restart queues again the ones that were being built or checked.

The tables (``participants``, ``sessions``, ``uploads``: ``arena.league.database``, schema 3; a
session's last use, schema 4; an upload's start, schema 5) are read and written here alone.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

import orjson

from arena.errors import ConfigError
from arena.league.database import Database
from arena.names import NAME, NAME_RULE, ORGANISER_OWNER, is_reserved, name_key

TOKEN_BYTES = 32
"""Random bytes in a token or a session id (256 bits)."""
SESSION_MAX_AGE = 7 * 24 * 3600.0
"""Seconds a session lives at most, however much it is used."""
SESSION_IDLE = 24 * 3600.0
"""Seconds a session lives unused."""
SEEN_EVERY = 60.0
"""Seconds between two notes of a session's use (its idle time is known to this much)."""
SESSIONS_KEPT = 10
"""Sessions a participant may have at once (browsers logged in): a new one ends the oldest."""


class UploadStatus(StrEnum):
    """Where an upload is: waiting, in the pipeline, or done with."""

    QUEUED = "queued"
    BUILDING = "building"
    CHECKING = "checking"
    ACCEPTED = "accepted"
    REJECTED = "rejected"

    @property
    def is_pending(self) -> bool:
        """Whether the upload is still to be decided."""
        return self in (UploadStatus.QUEUED, UploadStatus.BUILDING, UploadStatus.CHECKING)


@dataclass(frozen=True)
class Participant:
    """A participant: their id and name as the organiser wrote it."""

    id: int
    name: str


@dataclass(frozen=True)
class Upload:
    """One uploaded archive and what became of it."""

    id: int
    participant: int
    file: str
    """The archive's path inside the league (``uploads/ID.SUFFIX``): the league's own name."""
    status: UploadStatus
    reason: str
    steps: tuple[str, ...]
    """The check-bot steps as ``league submit`` prints them (``PASS  step: detail``)."""
    bot: str | None
    version: str | None
    created: float
    updated: float
    number: int
    """Its number among its participant's uploads (1 for the first): what the participant sees
    and asks by (``/my``, the API), so that no participant learns how many others uploaded."""


_SELECT_UPLOADS = (
    "SELECT id, participant, file, status, reason, steps, bot, version, created, updated, "
    "(SELECT COUNT(*) FROM uploads AS earlier WHERE earlier.participant = uploads.participant "
    "AND earlier.id <= uploads.id) FROM uploads")
"""The columns ``_upload`` reads, in its order, with each upload's number for its participant."""


def token_hash(token: str) -> str:
    """The hash a token (or a session id) is stored and looked up by."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


class Accounts:
    """The participants, sessions and uploads of an open league."""

    def __init__(self, database: Database) -> None:
        self.database = database
        self.db = database.db
        """The connection (``database``'s), for this module's queries."""

    # -- participants ---------------------------------------------------------------------------

    def invite(self, name: str) -> tuple[Participant, str]:
        """Create the participant ``name`` (or give a revoked one a new token): the participant
        and their token, which is not stored. ConfigError for a bad name or one already invited."""
        if not NAME.fullmatch(name):
            raise ConfigError(f"{name!r}: not a participant name: {NAME_RULE}")
        if is_reserved(name):
            raise ConfigError(f"{name!r}: not a participant name: the tables show the "
                              f"organiser's own entrants as {ORGANISER_OWNER!r}")
        token = secrets.token_urlsafe(TOKEN_BYTES)
        with self.database.transaction():
            row = self.db.execute("SELECT id, name, revoked FROM participants "
                                        "WHERE name_key = ?", (name_key(name),)).fetchone()
            if row is not None and row[2] is None:
                raise ConfigError(f"{self.database.directory}: {row[1]!r} is already a participant "
                                  f"(arena league revoke first to give them a new token)")
            if row is not None:
                self.db.execute("UPDATE participants SET token_hash = ?, revoked = NULL "
                                      "WHERE id = ?", (token_hash(token), row[0]))
                return Participant(row[0], row[1]), token
            cursor = self.db.execute(
                "INSERT INTO participants (name, name_key, token_hash, invited) "
                "VALUES (?, ?, ?, ?)", (name, name_key(name), token_hash(token), time.time()))
        return Participant(int(cursor.lastrowid or 0), name), token

    def revoke(self, name: str) -> Participant:
        """Take ``name``'s token and sessions away; ConfigError if there is no such participant."""
        with self.database.transaction():
            row = self.db.execute("SELECT id, name FROM participants WHERE name_key = ? "
                                        "AND revoked IS NULL", (name_key(name),)).fetchone()
            if row is None:
                raise ConfigError(f"{self.database.directory}: no participant named {name!r} "
                                  f"(participants: {', '.join(self.names()) or 'none'})")
            self.db.execute("UPDATE participants SET token_hash = NULL, revoked = ? "
                                  "WHERE id = ?", (time.time(), row[0]))
            self.db.execute("DELETE FROM sessions WHERE participant = ?", (row[0],))
        return Participant(row[0], row[1])

    def names(self) -> list[str]:
        """The participants whose tokens work, first invited first."""
        return [row[0] for row in self.db.execute(
            "SELECT name FROM participants WHERE revoked IS NULL ORDER BY id")]

    def names_by_key(self) -> dict[str, str]:
        """Every participant ever invited (revoked or not), by the key of their name."""
        return {row[0]: row[1] for row in self.db.execute(
            "SELECT name_key, name FROM participants")}

    def name_of(self, participant: int) -> str:
        """The name of the participant ``participant`` (revoked or not)."""
        row = self.db.execute("SELECT name FROM participants WHERE id = ?",
                              (participant,)).fetchone()
        return str(row[0])

    def by_token(self, token: str) -> Participant | None:
        """The participant whose token ``token`` is (not revoked), or None."""
        wanted = token_hash(token)
        row = self.db.execute("SELECT id, name, token_hash FROM participants "
                                    "WHERE token_hash = ? AND revoked IS NULL",
                                    (wanted,)).fetchone()
        if row is None or not hmac.compare_digest(row[2], wanted):
            return None
        return Participant(row[0], row[1])

    # -- sessions -------------------------------------------------------------------------------

    def open_session(self, participant: int) -> str:
        """A new session id for ``participant`` (a cookie's value; only its hash is stored).
        Every expired session goes, and ``participant``'s oldest beyond ``SESSIONS_KEPT``."""
        session = secrets.token_urlsafe(TOKEN_BYTES)
        now = time.time()
        with self.database.transaction():
            self.db.execute("DELETE FROM sessions WHERE created <= ? OR seen <= ?",
                                  (now - SESSION_MAX_AGE, now - SESSION_IDLE))
            self.db.execute("INSERT INTO sessions (id_hash, participant, created, seen) "
                                  "VALUES (?, ?, ?, ?)",
                                  (token_hash(session), participant, now, now))
            self.db.execute(
                "DELETE FROM sessions WHERE participant = ? AND id_hash NOT IN (SELECT id_hash "
                "FROM sessions WHERE participant = ? ORDER BY created DESC, rowid DESC LIMIT ?)",
                (participant, participant, SESSIONS_KEPT))
        return session

    def by_session(self, session: str) -> Participant | None:
        """The participant of session ``session`` while it lives: younger than
        ``SESSION_MAX_AGE``, used within ``SESSION_IDLE``, its participant not revoked. Its use
        is noted (at most once every ``SEEN_EVERY`` seconds: a page view is not a write); an
        expired session is removed."""
        wanted = token_hash(session)
        row = self.db.execute(
            "SELECT participants.id, participants.name, sessions.id_hash, sessions.created, "
            "sessions.seen FROM sessions "
            "JOIN participants ON participants.id = sessions.participant "
            "WHERE sessions.id_hash = ? AND participants.revoked IS NULL", (wanted,)).fetchone()
        if row is None or not hmac.compare_digest(row[2], wanted):
            return None
        now = time.time()
        if row[3] <= now - SESSION_MAX_AGE or row[4] <= now - SESSION_IDLE:
            self.close_session(session)
            return None
        if row[4] <= now - SEEN_EVERY:
            with self.database.transaction():
                self.db.execute("UPDATE sessions SET seen = ? WHERE id_hash = ?",
                                      (now, wanted))
        return Participant(row[0], row[1])

    def sessions_of(self, participant: int) -> int:
        """How many sessions ``participant`` has stored (live or not yet removed)."""
        return int(self.db.execute("SELECT COUNT(*) FROM sessions WHERE participant = ?",
                                         (participant,)).fetchone()[0])

    def close_session(self, session: str) -> None:
        """End session ``session`` (log out)."""
        with self.database.transaction():
            self.db.execute("DELETE FROM sessions WHERE id_hash = ?", (token_hash(session),))

    # -- uploads --------------------------------------------------------------------------------

    def pending(self, participant: int) -> int:
        """How many of ``participant``'s uploads are not yet decided."""
        return int(self.db.execute(
            "SELECT COUNT(*) FROM uploads WHERE participant = ? AND status IN (?, ?, ?)",
            (participant, *(s.value for s in UploadStatus if s.is_pending))).fetchone()[0])

    def queue_upload(self, participant: int, file: str, max_pending: int,
                     room: int | None = None) -> Upload:
        """Queue the archive written at ``file`` (a path inside the league) as ``participant``'s
        upload. Nothing written, and TooManyPending when they have ``max_pending`` not yet
        decided, OverQuota when their pending archives with this one take more than ``room``
        bytes (None: no limit): checked in the transaction that writes, so that uploads sent at
        once cannot all pass."""
        now = time.time()
        with self.database.transaction():
            if self.pending(participant) >= max_pending:
                raise TooManyPending(max_pending)
            if room is not None:
                waiting = sum(_file_bytes(self.database.directory / name)
                              for name in self.pending_files(participant))
                if waiting + _file_bytes(self.database.directory / file) > room:
                    raise OverQuota(waiting)
            cursor = self.db.execute(
                "INSERT INTO uploads (participant, file, status, created, updated) "
                "VALUES (?, ?, 'queued', ?, ?)", (participant, file, now, now))
        queued = self.upload(int(cursor.lastrowid or 0))
        assert queued is not None  # committed just now; uploads are never deleted
        return queued

    def upload(self, upload_id: int) -> Upload | None:
        """The upload ``upload_id``, or None."""
        row = self.db.execute(f"{_SELECT_UPLOADS} WHERE id = ?", (upload_id,)).fetchone()
        return None if row is None else _upload(row)

    def numbered(self, participant: int, number: int) -> Upload | None:
        """``participant``'s upload number ``number`` (``Upload.number``), or None."""
        if number < 1:
            return None
        row = self.db.execute(f"{_SELECT_UPLOADS} WHERE participant = ? ORDER BY id LIMIT 1 "
                              "OFFSET ?", (participant, number - 1)).fetchone()
        return None if row is None else _upload(row)

    def uploads_of(self, participant: int, limit: int = 50) -> list[Upload]:
        """``participant``'s latest uploads, newest first."""
        return [_upload(row) for row in self.db.execute(
            f"{_SELECT_UPLOADS} WHERE participant = ? ORDER BY id DESC LIMIT ?",
            (participant, limit))]

    def take_next(self) -> Upload | None:
        """The next upload to build, marked as building (so no other builder takes it), or None.

        Round-robin over the participants: the oldest queued upload of the participant whose last
        build started longest ago (one who never had a build first), so that a participant with
        several slow uploads queued holds one builder at a time, never everyone else's turn. In
        the one transaction that marks it."""
        with self.database.transaction():
            row = self.db.execute(
                "SELECT MIN(queued.id) FROM uploads AS queued WHERE queued.status = 'queued' "
                "GROUP BY queued.participant ORDER BY (SELECT MAX(started) FROM uploads "
                "WHERE uploads.participant = queued.participant) IS NOT NULL, (SELECT "
                "MAX(started) FROM uploads WHERE uploads.participant = queued.participant), "
                "MIN(queued.id) LIMIT 1").fetchone()
            if row is None:
                return None
            self._set(row[0], UploadStatus.BUILDING)
            self.db.execute("UPDATE uploads SET started = ? WHERE id = ?",
                                  (time.time(), row[0]))
        return self.upload(row[0])

    def uploaders(self) -> dict[tuple[str, str], str]:
        """The participant who uploaded each accepted version, by ``(name, version)`` as stored
        (a version not in it was submitted by the organiser's ``league submit``)."""
        return {(row[0], row[1]): row[2] for row in self.db.execute(
            "SELECT uploads.bot, uploads.version, participants.name FROM uploads "
            "JOIN participants ON participants.id = uploads.participant "
            "WHERE uploads.status = 'accepted'")}

    def pending_files(self, participant: int) -> list[str]:
        """The archives (paths inside the league) of ``participant``'s uploads not yet decided."""
        return [row[0] for row in self.db.execute(
            "SELECT file FROM uploads WHERE participant = ? AND status IN (?, ?, ?)",
            (participant, *(s.value for s in UploadStatus if s.is_pending)))]

    def undecided_files(self) -> set[str]:
        """The archives of every upload not yet decided: what ``uploads/`` must keep."""
        return {row[0] for row in self.db.execute(
            "SELECT file FROM uploads WHERE status IN (?, ?, ?)",
            tuple(s.value for s in UploadStatus if s.is_pending))}

    def requeue_unfinished(self) -> int:
        """Queue again the uploads that were being built or checked (by a server that was
        killed); how many."""
        with self.database.transaction():
            cursor = self.db.execute(
                "UPDATE uploads SET status = 'queued', steps = '[]', updated = ? "
                "WHERE status IN ('building', 'checking')", (time.time(),))
        return cursor.rowcount

    def mark(self, upload_id: int, status: UploadStatus, *, reason: str = "",
             steps: tuple[str, ...] = (), bot: str | None = None,
             version: str | None = None) -> None:
        """Record where upload ``upload_id`` is now, and what is known of it."""
        with self.database.transaction():
            self._set(upload_id, status, reason, steps, bot, version)

    def decide(self, upload_id: int, status: UploadStatus, *, reason: str = "",
               steps: tuple[str, ...] = (), bot: str | None = None,
               version: str | None = None) -> None:
        """Record that upload ``upload_id`` was accepted or rejected (``mark``), then delete its
        archive: an accepted bot lives in ``bots/``, a rejected one is gone (its reason and steps
        stay). An archive left by a process killed between the two is removed at the server's
        next start (``remove_decided_archives``)."""
        assert not status.is_pending, status
        self.mark(upload_id, status, reason=reason, steps=steps, bot=bot, version=version)
        upload = self.upload(upload_id)
        if upload is not None:
            (self.database.directory / upload.file).unlink(missing_ok=True)

    def remove_decided_archives(self, folder: str) -> int:
        """Delete every file in the league's ``folder`` (where uploads are written) that is not
        the archive of an upload still to be decided: those decided while no server could delete
        them, and any written before their upload's row was committed (a server killed between);
        how many. Only while no upload can be queued or decided: a server's, before it serves."""
        keep = self.undecided_files()
        removed = 0
        for path in (self.database.directory / folder).iterdir():
            if f"{folder}/{path.name}" not in keep and path.is_file():
                path.unlink(missing_ok=True)
                removed += 1
        return removed

    def _set(self, upload_id: int, status: UploadStatus, reason: str = "",
             steps: tuple[str, ...] = (), bot: str | None = None,
             version: str | None = None) -> None:
        self.db.execute(
            "UPDATE uploads SET status = ?, reason = ?, steps = ?, bot = COALESCE(?, bot), "
            "version = COALESCE(?, version), updated = ? WHERE id = ?",
            (status.value, reason, orjson.dumps(list(steps)).decode(), bot, version, time.time(),
             upload_id))


class TooManyPending(Exception):
    """A participant has as many uploads waiting as they may."""

    def __init__(self, most: int) -> None:
        super().__init__(f"{most} uploads waiting")
        self.most = most


class OverQuota(Exception):
    """An upload would take a participant's storage past their quota."""

    def __init__(self, waiting: int) -> None:
        super().__init__(f"{waiting} bytes waiting")
        self.waiting = waiting
        """Bytes the participant's other uploads not yet decided take."""


def _file_bytes(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _upload(row: tuple[object, ...]) -> Upload:
    steps = orjson.loads(str(row[5]))
    return Upload(id=int(str(row[0])), participant=int(str(row[1])), file=str(row[2]),
                  status=UploadStatus(str(row[3])), reason=str(row[4]), steps=tuple(steps),
                  bot=None if row[6] is None else str(row[6]),
                  version=None if row[7] is None else str(row[7]),
                  created=float(str(row[8])), updated=float(str(row[9])),
                  number=int(str(row[10])))
