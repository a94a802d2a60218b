"""A league's owners: a participant's entrants never share a table when the field allows it, the
games' records say whose each seat is, and a league may hide the bots' names. Real league, real
bot processes."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from arena.league.config import LeagueSettings
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
