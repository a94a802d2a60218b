"""``arena league config``: what may change during a league's life changes, checked as ``league
init`` checks it and recorded with its time; what may not is refused with the reason."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import orjson
import pytest

from arena.league.config import LeagueSettings
from arena.league.database import DATABASE
from arena.league.store import Store
from arena.settings import RatingModel

from helpers import arena


def settings_of(league: Path) -> LeagueSettings:
    store = Store.open(league)
    try:
        return LeagueSettings.of(store)
    finally:
        store.close()


def dump(league: Path) -> list[str]:
    connection = sqlite3.connect(league / DATABASE)
    try:
        return list(connection.iterdump())
    finally:
        connection.close()


@pytest.fixture
def league(tmp_path: Path) -> Path:
    done = arena("league", "init", tmp_path / "lg", "--game", "blackout", "--players", "3",
                 "-o", "deals=3", "--move-ms", "300")
    assert done.returncode == 0, done.stderr
    return tmp_path / "lg"


@pytest.mark.slow
def test_config_changes_what_may_change_and_status_lists_each_change(league: Path,
                                                                     tmp_path: Path) -> None:
    mono = tmp_path / "etc" / "mono"
    mono.mkdir(parents=True)
    shown = arena("league", "config", league)
    assert shown.returncode == 0, shown.stderr
    assert "fixed for its life: game blackout, players 3, options deals=3" in shown.stdout
    assert "--move-ms            300" in shown.stdout
    assert "settings changed: never" in shown.stdout
    done = arena("league", "config", league, "--interpreter", mono, "--move-ms", "500",
                 "--memory-mb", "512", "--build-seconds", "60")
    assert done.returncode == 0, done.stderr
    assert "changed time.move_ms (--move-ms): 300 -> 500" in done.stdout
    assert f"changed sandbox_interpreters (--interpreter): none -> {mono}" in done.stdout
    assert "a league run in progress plays its next batch under them" in done.stdout
    settings = settings_of(league)
    assert settings.play.time.move_ms == 500 and settings.play.limits.memory_mb == 512
    assert settings.play.interpreters == (str(mono),) and settings.build.seconds == 60
    assert settings.options["deals"] == 3 and settings.players == 3  # the rest as it was
    again = arena("league", "config", league, "--move-ms", "500")
    assert again.returncode == 0 and again.stdout.startswith("nothing changed")
    dropped = arena("league", "config", league, "--drop-interpreter", mono)
    assert dropped.returncode == 0, dropped.stderr
    assert settings_of(league).play.interpreters == ()

    status = arena("league", "status", league)
    changed = status.stdout.split("settings changed (each for the games and submissions after "
                                  "it):\n")[1].split("\n\n")[0].splitlines()
    assert [line.split("  ", 2)[-1] for line in changed] == [
        "time.move_ms: 300 -> 500", "limits.memory_mb: 2048 -> 512",
        f"sandbox_interpreters: none -> {mono}", "build.seconds: 300 -> 60",
        f"sandbox_interpreters: {mono} -> none"]
    data = orjson.loads(arena("league", "status", league, "--format", "json").stdout)
    assert [(c["key"], c["old"], c["new"]) for c in data["settings_changed"]][2:] == [
        ("sandbox_interpreters", [], [str(mono)]), ("build.seconds", 300, 60),
        ("sandbox_interpreters", [str(mono)], [])]
    assert all(isinstance(c["at"], float) for c in data["settings_changed"])
    as_json = orjson.loads(arena("league", "config", league, "--format", "json").stdout)
    assert as_json["settings"]["time.move_ms"] == 500 and len(as_json["changes"]) == 5
    assert as_json["fixed"]["players"] == 3


@pytest.mark.slow
def test_config_refuses_what_may_not_change_and_bad_values_as_init_does(league: Path,
                                                                        tmp_path: Path) -> None:
    before = dump(league)
    for option, value in (("--game", "ohhell"), ("--players", "4"), ("--option", "deals=5")):
        refused = arena("league", "config", league, option, value)
        assert refused.returncode == 2
        assert refused.stderr.splitlines()[-1] == (
            f"arena: error: {option}: fixed for the league's life: the games already played "
            f"under it would no longer be comparable with those to come (make a new league "
            f"with arena league init)")
    # The same check, the same words as league init's, and nothing changed
    home = arena("league", "config", league, "--move-ms", "200", "--interpreter", Path.home())
    init = arena("league", "init", tmp_path / "other", "--interpreter", Path.home())
    assert home.returncode == init.returncode == 2
    assert home.stderr.splitlines()[-1] == init.stderr.splitlines()[-1]
    assert "is a home directory: a sandbox never shows a home" in home.stderr
    out_of_range = arena("league", "config", league, "--move-ms", "0")
    assert out_of_range.returncode == 2 and "--move-ms" in out_of_range.stderr
    unknown = arena("league", "config", league, "--drop-interpreter", tmp_path)
    assert unknown.returncode == 2
    assert unknown.stderr.splitlines()[-1] == (f"arena: error: --drop-interpreter: {tmp_path} is "
                                               f"not one of the league's installations (none)")
    assert dump(league) == before


def test_a_league_keeps_its_rating_model_and_one_made_before_the_setting_keeps_deals() -> None:
    new = LeagueSettings.checked("blackout", 4, {})
    assert new.rating is RatingModel.MARGINS  # today's default
    assert LeagueSettings.from_stored(new.stored()).rating is RatingModel.MARGINS
    chosen = LeagueSettings.checked("blackout", 4, {}, rating="deals")
    assert LeagueSettings.from_stored(chosen.stored()).rating is RatingModel.DEALS
    # a league whose settings predate the rating setting was rated by deals, the default it
    # came with: a new default does not change the model of a league under way
    older = {key: value for key, value in new.stored().items() if key != "rating"}
    assert LeagueSettings.from_stored(older).rating is RatingModel.DEALS
