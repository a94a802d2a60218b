"""A league's owners: a participant's entrants, and those the organiser enters for one owner
(``league submit --owner``), never share a table when the field allows it, in the ladder and in
the final; the games' records say whose each seat is; the tables and the status show the owners;
a league may hide the bots' names. Real league, real bot processes."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import orjson
import pytest

from arena.league.config import LeagueSettings
from arena.league.database import DATABASE, SCHEMA_VERSION
from arena.league.store import Store
from arena.league.submit import submit
from arena.settings import NamesShown
from arena.spec import PlaySettings

from helpers import arena, build_c_bots, new_league, own_bot, query


@pytest.mark.slow
def test_a_participants_entrants_never_share_a_table(tmp_path: Path) -> None:
    build_c_bots()
    league = new_league(tmp_path / "league", players=3)
    store = Store.open(league)
    try:
        ada = store.accounts.invite("ada")[0].id
        bo = store.accounts.invite("bo")[0].id
    finally:
        store.close()
    for name, owner in (("a1", ada), ("a2", ada), ("b1", bo), ("org", None)):
        assert submit(league, own_bot(tmp_path, name), owner=owner).accepted
    done = arena("league", "run", league, "--games", "12", "--jobs", "1")
    assert done.returncode == 0, done.stderr
    lines = [orjson.loads(row[0]) for row in query(league, "SELECT line FROM games")]
    assert len(lines) == 12
    owner = {"a1@1": "ada", "a2@1": "ada", "b1@1": "bo", "org@1": "org@1"}
    for line in lines:
        assert line["owners"] == [owner[name] for name in line["names"]]
        assert len(set(line["owners"])) == 3  # never a1 and a2 together


def test_a_league_keeps_its_names_setting(tmp_path: Path) -> None:
    settings = LeagueSettings.checked("blackout", 3, {}, PlaySettings(names=NamesShown.HIDDEN))
    assert LeagueSettings.from_stored(settings.stored()).play.names is NamesShown.HIDDEN
    older = {k: v for k, v in settings.stored().items() if k != "names"}  # before the setting
    assert LeagueSettings.from_stored(older).play.names is NamesShown.SHOWN


# -- the organiser's --owner (league submit --owner; schema 7) ------------------------------------

def _owners_of(league: Path) -> dict[str, str]:
    store = Store.open(league)
    try:
        return store.owner_names()
    finally:
        store.close()


def test_an_owner_named_by_the_organiser_stays_with_its_name(tmp_path: Path) -> None:
    league = new_league(tmp_path / "league")
    bot = own_bot(tmp_path, "duo")
    assert submit(league, bot, named_owner="team-a").owner == "team-a"
    # Another owner for the name is refused, as it writes too; the same one (any spelling) or
    # none keeps it.
    other = submit(league, bot, named_owner="team-b")
    assert not other.accepted
    assert "'duo' is team-a's: --owner team-b would change its owner" in other.reason
    assert submit(league, bot, named_owner="TEAM-A").accepted
    assert submit(league, bot).owner == "team-a"
    assert _owners_of(league) == {"duo": "team-a"}
    # An entrant the organiser entered without one gets its first owner with a later version.
    solo = own_bot(tmp_path, "solo")
    assert submit(league, solo).owner is None
    assert submit(league, solo, named_owner="bo").owner == "bo"
    assert query(league, "SELECT name_key, owner FROM named_owners ORDER BY name_key") == [
        ("duo", "team-a"), ("solo", "bo")]


def test_an_owner_named_so_is_the_participant_of_that_name(tmp_path: Path) -> None:
    league = new_league(tmp_path / "league")
    store = Store.open(league)
    try:
        ada = store.accounts.invite("Ada")[0].id
    finally:
        store.close()
    hers = own_bot(tmp_path, "hers")
    assert submit(league, hers, owner=ada).owner == "Ada"
    entered = submit(league, own_bot(tmp_path, "forher"), named_owner="ada")
    assert entered.owner == "Ada" and entered.owner_is_participant
    # A participant's name keeps its owner: the organiser may not give it another.
    refused = submit(league, hers, named_owner="bo")
    assert not refused.accepted and "'hers' is Ada's: --owner bo" in refused.reason
    # An owner named before the participant is invited is that participant once invited; it
    # gives them no right over the entrant (only an upload makes a name a participant's).
    submit(league, own_bot(tmp_path, "forcy"), named_owner="cy")
    store = Store.open(league)
    try:
        store.accounts.invite("CY")
        assert store.owner_names() == {"hers": "Ada", "forher": "Ada", "forcy": "CY"}
        assert store.owners.owner_of("forher") is None and store.owners.owner_of("forcy") is None
    finally:
        store.close()


@pytest.mark.parametrize(("owner", "problem"), [
    ("two words", "--owner: 'two words': use letters, digits"),
    ("Organiser", "--owner: 'Organiser': the tables show the organiser's own entrants as"),
])
def test_a_bad_owner_is_one_line(tmp_path: Path, owner: str, problem: str) -> None:
    league = new_league(tmp_path / "league")
    done = arena("league", "submit", league, own_bot(tmp_path, "mine"), "--owner", owner)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith(f"arena: error: {problem}") and done.stderr.count("\n") == 1
    assert query(league, "SELECT COUNT(*) FROM bots") == [(0,)]


def test_no_participant_may_be_called_organiser(tmp_path: Path) -> None:
    done = arena("league", "invite", new_league(tmp_path / "league"), "ORGANISER")
    assert done.returncode == 2 and "the tables show the organiser's own entrants as" in done.stderr


def test_a_league_from_before_named_owners_reads_as_before(tmp_path: Path) -> None:
    """A schema-6 league (no ``named_owners``) opens migrated: its participants' names are its
    owners as they were, and --owner works in it."""
    league = new_league(tmp_path / "league")
    store = Store.open(league)
    try:
        ada = store.accounts.invite("ada")[0].id
    finally:
        store.close()
    assert submit(league, own_bot(tmp_path, "hers"), owner=ada).accepted
    assert submit(league, own_bot(tmp_path, "org")).accepted
    db = sqlite3.connect(league / DATABASE)
    db.execute("DROP TABLE named_owners")
    db.execute("DROP TABLE setting_changes")  # schema 8's
    db.execute("PRAGMA user_version = 6")
    db.commit()
    db.close()
    assert _owners_of(league) == {"hers": "ada"}
    assert query(league, "PRAGMA user_version") == [(SCHEMA_VERSION,)]
    assert submit(league, own_bot(tmp_path, "theirs"), named_owner="bo").owner == "bo"
    assert _owners_of(league) == {"hers": "ada", "theirs": "bo"}


@pytest.mark.slow
def test_owners_are_shown_beside_the_authors_and_kept_apart_in_play_and_final(
        tmp_path: Path) -> None:
    """league submit --owner through the CLI: shown by submit, status (text and JSON) and the
    table (text and JSON); a real league run and a final never seat one owner's two entrants
    together (the field allows it: three owners for three seats)."""
    build_c_bots()
    league = new_league(tmp_path / "league", options={"deals": "2"})
    for name, owner in (("a1", "team-a"), ("a2", "team-a"), ("b1", "bo"), ("org", None)):
        done = arena("league", "submit", league, own_bot(tmp_path, name),
                     *(() if owner is None else ("--owner", owner)))
        assert done.returncode == 0, done.stderr
        assert done.stdout == f"accepted {name} v1{'' if owner is None else ', owner ' + owner}\n"
    status = orjson.loads(arena("league", "status", league, "--format", "json").stdout)
    assert {e["name"]: (e["owner"], e["submitted_by"]) for e in status["entrants"]} == {
        "a1": ("team-a", "organiser"), "a2": ("team-a", "organiser"),
        "b1": ("bo", "organiser"), "org": ("organiser", "organiser")}
    text = arena("league", "status", league).stdout
    header = next(line for line in text.splitlines() if line.startswith("entrant"))
    assert header.split()[:6] == ["entrant", "version", "state", "language", "author", "owner"]
    assert any(line.split()[:3] == ["a2", "1", "active"] and "team-a" in line
               for line in text.splitlines())
    assert "a1-src: accepted a1 v1, owner team-a (by organiser)" in text
    done = arena("league", "run", league, "--games", "6", "--jobs", "1")
    assert done.returncode == 0, done.stderr
    owner = {"a1@1": "team-a", "a2@1": "team-a", "b1@1": "bo", "org@1": "org@1"}
    lines = [orjson.loads(row[0]) for row in query(league, "SELECT line FROM games")]
    assert len(lines) == 6
    for line in lines:
        assert line["owners"] == [owner[name] for name in line["names"]]
        assert len(set(line["owners"])) == 3  # never a1 and a2 together
    table = arena("league", "table", league, "--resamples", "0").stdout
    rows = {line.split()[1]: line.split()[2] for line in table.splitlines()
            if line.split()[1:2] and line.split()[1] in owner}
    assert rows == {"a1@1": "team-a", "a2@1": "team-a", "b1@1": "bo", "org@1": "organiser"}
    data = orjson.loads(arena("league", "table", league, "--format", "json",
                              "--resamples", "0").stdout)
    assert {row["name"]: row["owner"] for row in data["entrants"]} == {
        "a1@1": "team-a", "a2@1": "team-a", "b1@1": "bo", "org@1": "organiser"}
    # The final: the round-robin of different owners ({a1, b1, org} and {a2, b1, org}).
    assert arena("league", "close", league).returncode == 0
    done = arena("league", "final", league, "--games", "6", "--jobs", "1")
    assert done.returncode == 0, done.stderr
    finals = [orjson.loads(row[0]) for row in query(league, "SELECT line FROM final_games")]
    assert len(finals) >= 6  # whole rounds: every entrant in every seat
    assert all(len(set(line["owners"])) == 3 for line in finals)
    data = orjson.loads(arena("league", "table", league, "--final", "--format", "json").stdout)
    assert {v["key"]: v["owner"] for v in data["versions"]} == {
        "a1@1": "team-a", "a2@1": "team-a", "b1@1": "bo", "org@1": "organiser"}
