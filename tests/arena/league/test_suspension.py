"""A league no entrant can stall, through the real ``arena league`` commands and a real bot that
passes its submission's check and then hangs in every league game: it is suspended after the
league's number of games in a row, the league plays on at its pace without it, and the organiser
(``league reinstate``) or a new version lifts it."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import orjson
import pytest

from arena.league.store import DATABASE
from arena.settings import SUSPEND_AFTER

from helpers import C_BOT, MISBEHAVING, ROOT, arena, own_bot, submitted

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

REASON = f"{SUSPEND_AFTER.default} games in a row with a start failure, a time-out or a crash"


def games_of(league: Path, key: str) -> int:
    """Games stored that seat the version ``NAME@VERSION``."""
    name, version = key.split("@")
    with sqlite3.connect(f"file:{league / DATABASE}?mode=ro", uri=True, timeout=30) as db:
        return int(db.execute("SELECT COUNT(DISTINCT seats.game) FROM seats JOIN bots ON "
                              "bots.id = seats.bot WHERE bots.name = ? AND bots.version = ?",
                              (name, version)).fetchone()[0])


def status(league: Path) -> dict[str, dict[str, object]]:
    """``league status --format json``'s entrants, by ``NAME@VERSION``."""
    done = arena("league", "status", league, "--format", "json")
    assert done.returncode == 0, done.stderr
    return {f"{e['name']}@{e['version']}": e for e in orjson.loads(done.stdout)["entrants"]}


def test_a_stalling_entrant_is_suspended_the_league_plays_on_and_a_new_version_lifts_it(
        tmp_path: Path) -> None:
    league = tmp_path / "league"
    # Short allowances: each game the bot stalls costs one (a start or a move with its bank).
    done = arena("league", "init", league, "--players", "3", "--option", "deals=3",
                 "--start-ms", "3000", "--move-ms", "500", "--bank-ms", "1000")
    assert done.returncode == 0, done.stderr
    for bot in (ROOT / "bots/c/random.bot.yaml", ROOT / "bots/c/first.bot.yaml",
                own_bot(tmp_path, "other", C_BOT), own_bot(tmp_path, "hangs",
                                                          MISBEHAVING / "hangs_in_league.py")):
        submitted(league, bot)  # the hanging bot passes every step of its check
    # 200 games: without the suspension each game that seats it waits out an allowance, and
    # the run's two minutes end long before.
    done = arena("league", "run", league, "--games", "200", "--jobs", "2", "--minutes", "2")
    assert done.returncode == 0, done.stderr
    assert f"suspended hangs@1: {REASON} (the last: " in done.stdout, done.stdout
    assert games_of(league, "hangs@1") == SUSPEND_AFTER.default  # the batch stopped as it was suspended
    assert done.stdout.startswith("200 games played"), done.stdout
    entrants = status(league)
    assert entrants["hangs@1"]["state"] == "suspended"
    assert str(entrants["hangs@1"]["suspended"]["reason"]).startswith(REASON)  # type: ignore[index]
    assert {e["state"] for key, e in entrants.items() if key != "hangs@1"} == {"active"}
    text = arena("league", "status", league).stdout
    assert "hangs                  1  suspended" in text
    assert "  hangs@1 since " in text and REASON in text

    # The organiser lifts it: it is seated again, and suspended again after as many games.
    done = arena("league", "reinstate", league, "HANGS")  # any spelling of its name
    assert (done.returncode, done.stdout) == (0, "reinstated hangs v1: the matchmaker seats it "
                                                 "again\n")
    assert status(league)["hangs@1"]["state"] == "active"
    done = arena("league", "run", league, "--games", "30", "--jobs", "2", "--minutes", "2")
    assert done.returncode == 0 and "suspended hangs@1" in done.stdout, done.stderr
    assert games_of(league, "hangs@1") == 2 * SUSPEND_AFTER.default
    again = arena("league", "reinstate", league, "other")
    assert again.returncode == 2
    assert again.stderr == f"arena: error: {league}: other v1 is not suspended\n"

    # A new version is never suspended to begin with, and plays.
    (tmp_path / "v2").mkdir()
    submitted(league, own_bot(tmp_path / "v2", "hangs", C_BOT))
    assert status(league)["hangs@2"]["state"] == "active"
    done = arena("league", "run", league, "--games", "12", "--jobs", "2", "--minutes", "2")
    assert done.returncode == 0 and "suspended" not in done.stdout, done.stdout + done.stderr
    assert games_of(league, "hangs@2") > 0
    assert games_of(league, "hangs@1") == 2 * SUSPEND_AFTER.default  # its games stay

