"""Participants, tokens, sessions, ownership and the upload queue, in a real league database."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import pytest

from arena.errors import ConfigError
from arena.league.accounts import (
    SESSION_IDLE,
    SESSION_MAX_AGE,
    SESSIONS_KEPT,
    OverQuota,
    TooManyPending,
    UploadStatus,
    token_hash,
)
from arena.league.database import DATABASE, SCHEMA_VERSION
from arena.league.store import Store

from helpers import new_league


@pytest.fixture
def store(tmp_path: Path):
    opened = Store.open(new_league(tmp_path / "league"))
    yield opened
    opened.close()


def _add(store: Store, name: str, version: str, owner: int | None) -> None:
    store.entrants.add(name, version, f"bots/{name}/{version}", ["./bot"], None, None, owner)


def test_invite_keeps_only_the_hash_of_the_token(store: Store):
    participant, token = store.accounts.invite("ada")
    assert store.accounts.by_token(token) == participant
    store.database.db.execute("PRAGMA wal_checkpoint(FULL)")
    stored = (store.directory / DATABASE).read_bytes()
    assert token.encode() not in stored and token_hash(token).encode() in stored
    assert store.accounts.by_token(token + "x") is None
    assert store.accounts.by_token("") is None


def test_a_participant_is_invited_once_and_named_by_the_rules_of_names(store: Store):
    accounts = store.accounts
    accounts.invite("ada")
    with pytest.raises(ConfigError, match="already a participant"):
        accounts.invite("ADA")
    with pytest.raises(ConfigError, match="not a participant name"):
        accounts.invite("<script>")


def test_revoke_ends_the_token_and_the_sessions_and_a_new_invite_gives_a_new_token(store: Store):
    accounts = store.accounts
    participant, token = accounts.invite("ada")
    session = accounts.open_session(participant.id)
    assert accounts.by_session(session) == participant
    accounts.revoke("ada")
    assert accounts.by_token(token) is None and accounts.by_session(session) is None
    assert accounts.sessions_of(participant.id) == 0
    again, new_token = accounts.invite("ada")
    assert again.id == participant.id and new_token != token
    assert accounts.by_token(new_token) == participant and accounts.by_token(token) is None
    with pytest.raises(ConfigError, match="no participant named 'bob'"):
        accounts.revoke("bob")


def _age(store: Store, session: str, created: float, seen: float) -> None:
    """Make ``session`` as old as ``created`` seconds, last used ``seen`` seconds ago."""
    now = time.time()
    store.database.db.execute("UPDATE sessions SET created = ?, seen = ? WHERE id_hash = ?",
                     (now - created, now - seen, token_hash(session)))


def test_a_session_expires_when_unused_and_when_old_however_used(store: Store):
    accounts = store.accounts
    participant, _ = accounts.invite("ada")
    idle, old, fresh = (accounts.open_session(participant.id) for _ in range(3))
    _age(store, idle, 60, SESSION_IDLE + 1)
    _age(store, old, SESSION_MAX_AGE + 1, 0)
    _age(store, fresh, SESSION_MAX_AGE - 60, SESSION_IDLE - 60)
    assert accounts.by_session(idle) is None and accounts.by_session(old) is None
    assert accounts.by_session(fresh) == participant
    assert accounts.sessions_of(participant.id) == 1  # the expired rows are gone


def test_a_session_in_use_lives_on_and_every_expired_one_goes_at_the_next_login(store: Store):
    accounts = store.accounts
    ada, _ = accounts.invite("ada")
    bob, _ = accounts.invite("bob")
    used = accounts.open_session(ada.id)
    _age(store, used, SESSION_IDLE, SESSION_IDLE - 60)
    assert accounts.by_session(used) == ada  # its use noted: idle from now on
    seen = store.database.db.execute("SELECT seen FROM sessions WHERE id_hash = ?",
                            (token_hash(used),)).fetchone()[0]
    assert seen > time.time() - 60
    abandoned = accounts.open_session(ada.id)
    _age(store, abandoned, SESSION_IDLE + 2, SESSION_IDLE + 1)
    accounts.open_session(bob.id)  # anyone's login removes every expired row
    assert accounts.sessions_of(ada.id) == 1 and accounts.by_session(used) == ada


def test_a_participant_keeps_only_their_latest_sessions(store: Store):
    accounts = store.accounts
    participant, _ = accounts.invite("ada")
    sessions = [accounts.open_session(participant.id) for _ in range(SESSIONS_KEPT + 5)]
    assert accounts.sessions_of(participant.id) == SESSIONS_KEPT
    assert all(accounts.by_session(s) is None for s in sessions[:5])
    assert all(accounts.by_session(s) == participant for s in sessions[5:])


def test_a_name_belongs_to_the_participant_who_entered_it_first(store: Store):
    accounts = store.accounts
    ada, _ = accounts.invite("ada")
    bob, _ = accounts.invite("bob")
    _add(store, "mine", "1", ada.id)
    _add(store, "mine", "2", ada.id)
    with pytest.raises(ConfigError, match="belongs to another participant"):
        _add(store, "mine", "3", bob.id)
    _add(store, "house", "1", None)  # the organiser's
    with pytest.raises(ConfigError, match="entered by the organiser"):
        _add(store, "house", "2", ada.id)
    _add(store, "mine", "4", None)  # the organiser may still submit any name
    assert store.owners.owns(ada.id, "mine") and not store.owners.owns(bob.id, "mine")
    assert store.entrants.versions("mine") == ["1", "2", "4"]


def test_the_queue_hands_out_each_upload_once_and_requeues_the_unfinished(store: Store):
    accounts = store.accounts
    ada, _ = accounts.invite("ada")
    first = accounts.queue_upload(ada.id, "uploads/a.tar.gz", 2)
    second = accounts.queue_upload(ada.id, "uploads/b.tar.gz", 2)
    with pytest.raises(TooManyPending):  # two pending already
        accounts.queue_upload(ada.id, "uploads/c.tar.gz", 2)
    taken = accounts.take_next()
    assert taken is not None and taken.id == first.id and taken.status is UploadStatus.BUILDING
    accounts.mark(first.id, UploadStatus.REJECTED, reason="no bot.yaml", steps=("FAIL  x: y",))
    taken = accounts.take_next()
    assert taken is not None and taken.id == second.id
    assert accounts.take_next() is None
    assert accounts.requeue_unfinished() == 1
    assert [u.status for u in accounts.uploads_of(ada.id)] == [UploadStatus.QUEUED,
                                                              UploadStatus.REJECTED]
    assert accounts.upload(first.id).steps == ("FAIL  x: y",)


def test_the_queue_takes_each_participant_in_turn(store: Store):
    accounts = store.accounts
    ada, _ = accounts.invite("ada")
    bob, _ = accounts.invite("bob")
    carol, _ = accounts.invite("carol")
    slow = [accounts.queue_upload(ada.id, f"uploads/slow{i}.tar.gz", 3).id for i in range(3)]
    assert accounts.take_next().id == slow[0]  # type: ignore[union-attr]
    quick = accounts.queue_upload(bob.id, "uploads/quick.tar.gz", 3).id
    late = accounts.queue_upload(carol.id, "uploads/late.tar.gz", 3).id
    # bob and carol never had a build: each goes before ada's second, in the order they came
    order = [accounts.take_next() for _ in range(5)]
    assert [u.id if u else None for u in order] == [quick, late, slow[1], slow[2], None]
    for upload in (*slow, quick, late):
        accounts.mark(upload, UploadStatus.ACCEPTED)
    more = [accounts.queue_upload(ada.id, "uploads/more.tar.gz", 3).id,
            accounts.queue_upload(bob.id, "uploads/again.tar.gz", 3).id]
    # bob's last build started before ada's: his goes first though it came last
    assert [accounts.take_next().id for _ in range(2)] == more[::-1]  # type: ignore[union-attr]


def test_uploads_waiting_are_held_to_the_room_left(store: Store):
    accounts = store.accounts
    ada, _ = accounts.invite("ada")
    (store.directory / "uploads").mkdir()
    for name, size in (("a.tar", 600), ("b.tar", 500)):
        (store.directory / "uploads" / name).write_bytes(b"x" * size)
    accounts.queue_upload(ada.id, "uploads/a.tar", 3, room=1000)
    with pytest.raises(OverQuota) as refused:
        accounts.queue_upload(ada.id, "uploads/b.tar", 3, room=1000)
    assert refused.value.waiting == 600
    assert accounts.pending(ada.id) == 1
    accounts.queue_upload(ada.id, "uploads/b.tar", 3, room=1100)


def test_a_league_of_schema_2_gains_the_tables(tmp_path: Path):
    league = new_league(tmp_path / "league")
    tables = ("uploads", "sessions", "owners", "participants",  # schema 3's
              "final_seats", "final_games", "finals", "deadline",  # schema 6's
              "named_owners",  # schema 7's
              "setting_changes")  # schema 8's
    columns = ("stalled_games", "finished_a_game", "suspended", "suspended_at")  # schema 4's
    with sqlite3.connect(league / DATABASE) as db:
        for table in tables:
            db.execute(f"DROP TABLE {table}")
        for column in columns:
            db.execute(f"ALTER TABLE bots DROP COLUMN {column}")
        db.execute("PRAGMA user_version = 2")
    store = Store.open(league)
    try:
        participant, token = store.accounts.invite("ada")
        assert store.accounts.by_token(token) == participant  # the new tables hold and serve
    finally:
        store.close()
    db = sqlite3.connect(league / DATABASE)
    try:
        found = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        bots = {row[1] for row in db.execute("PRAGMA table_info(bots)")}
        version = db.execute("PRAGMA user_version").fetchone()[0]
    finally:
        db.close()
    assert set(tables) <= found and set(columns) <= bots
    assert version == SCHEMA_VERSION
