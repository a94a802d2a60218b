"""A league's deadline and its final, through the real ``arena league`` commands and real bots:
a closed league refuses submissions (on the command line, and in the transaction that accepts a
version), a final plays its active versions apart from the ladder's games, the same seed gives
the same games, ``table --final`` shows them, and a final interrupted by SIGINT resumes."""

from __future__ import annotations

import shutil
import signal
import time
from pathlib import Path

import orjson
import pytest

from arena.errors import ConfigError
from arena.league.playing import run_league
from arena.league.store import Store
from arena.records.reader import parse_line
from arena.records.schema import without_times

from helpers import ROOT, arena, new_league, own_bot, query, start_arena, submitted, wait_for

pytestmark = pytest.mark.timeout(240)
FIELD = {"random-c@1", "first-legal-c@1", "mine@1", "other@1"}


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 3-player Blackout league of short games (2 deals), four deterministic C bots and a few
    ladder games. Built once; each test gets a copy."""
    tmp_path = tmp_path_factory.mktemp("template")
    path = new_league(tmp_path / "league", options={"deals": "2"})
    for bot in (ROOT / "bots/c/random.bot.yaml", ROOT / "bots/c/first.bot.yaml",
                own_bot(tmp_path, "mine"), own_bot(tmp_path, "other")):
        submitted(path, bot)
    run_league(path, games=6, jobs=1)
    return path


def copy_of(template: Path, where: Path) -> Path:
    return Path(shutil.copytree(template, where))


@pytest.fixture
def league(template: Path, tmp_path: Path) -> Path:
    return copy_of(template, tmp_path / "league")


def closed(league: Path) -> Path:
    done = arena("league", "close", league)
    assert done.returncode == 0 and done.stdout.startswith(f"{league}: closed for submissions ")
    return league


def final_records(league: Path) -> list[dict[str, object]]:
    """The final's games by id, without their measured times."""
    rows = query(league, "SELECT line FROM final_games ORDER BY id")
    return [without_times(parse_line(row[0])) for row in rows]  # type: ignore[arg-type]


def test_a_closed_league_refuses_a_submission_in_one_line(league: Path, tmp_path: Path) -> None:
    versions = query(league, "SELECT COUNT(*) FROM bots")
    closed(league)
    done = arena("league", "submit", league, own_bot(tmp_path, "late"))
    assert done.returncode == 1, done.stderr
    assert done.stdout.startswith(f"rejected: {league}: the league is closed for submissions "
                                  f"(since ") and done.stdout.count("\n") == 1, done.stdout
    assert query(league, "SELECT COUNT(*) FROM bots") == versions
    status = orjson.loads(arena("league", "status", league, "--format", "json").stdout)
    assert status["closed"] is True and status["closes"].endswith("+00:00")
    assert "submissions: closed since " in arena("league", "status", league).stdout


def test_a_close_ahead_is_shown_and_a_bad_time_is_one_line(league: Path) -> None:
    done = arena("league", "close", league, "--at", "2999-01-31T18:00:00+00:00")
    assert done.stdout == f"{league}: closes for submissions at 2999-01-31T18:00:00+00:00\n"
    assert "submissions: open until 2999-01-31T18:00:00+00:00" in \
        arena("league", "status", league).stdout
    done = arena("league", "close", league, "--at", "tomorrow")
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "--at: 'tomorrow' is not an ISO 8601 time" in done.stderr


def test_a_version_received_after_the_close_is_refused_as_it_is_stored(league: Path) -> None:
    """The race: a submission checked before the close, stored after it. The transaction that
    stores it compares the close with when it was received: one received before is accepted
    (an upload waiting for its build), one received after is not, however it got there."""
    store = Store.open(league)
    try:
        closes = time.time()
        store.deadline.close(closes)
        with pytest.raises(ConfigError, match="the league is closed for submissions"):
            store.entrants.add("late", "1", "bots/late/1", ["./bot"], None, None,
                               received=closes + 0.001)
        early = store.entrants.add("early", "1", "bots/early/1", ["./bot"], None, None,
                                   received=closes - 1)
        assert early.state == "active"
    finally:
        store.close()


def test_a_final_of_an_open_league_is_refused_in_one_line(league: Path) -> None:
    done = arena("league", "final", league, "--games", "3")
    assert done.returncode == 2 and done.stderr.splitlines()[-1] == (
        f"arena: error: {league}: open for submissions (with no close set): a final ranks a "
        f"closed field; close it first: arena league close {league}")
    assert query(league, "SELECT COUNT(*) FROM finals") == [(0,)]


@pytest.mark.slow
def test_a_final_is_apart_from_the_ladder_and_its_seed_gives_the_same_games(
        template: Path, tmp_path: Path) -> None:
    first, second = (closed(copy_of(template, tmp_path / name)) for name in ("a", "b"))
    ladder = arena("league", "table", first, "--resamples", "0").stdout
    status = orjson.loads(arena("league", "status", first, "--format", "json").stdout)
    for league in (first, second):
        done = arena("league", "final", league, "--games", "12", "--seed", "7", "--jobs", "2")
        assert done.returncode == 0, done.stderr
        assert "of the final played" in done.stdout and "(deal seed 7)" in done.stdout
    records = final_records(first)
    # 4 entrants, 3-player tables: 4 tables of 3 rotations, every entrant in every seat.
    assert len(records) == 12 and records == final_records(second)
    seats = [tuple(record["names"]) for record in records]  # type: ignore[arg-type]
    assert {name for table in seats for name in table} == FIELD
    for name in FIELD:
        assert sorted(table.index(name) for table in seats if name in table) == [0, 0, 0, 1, 1, 1,
                                                                                 2, 2, 2]
    # The ladder's games, table and counts are as they were.
    assert query(first, "SELECT COUNT(*) FROM games") == [(6,)]
    assert arena("league", "table", first, "--resamples", "0").stdout == ladder
    after = orjson.loads(arena("league", "status", first, "--format", "json").stdout)
    assert [e["games_played"] for e in after["entrants"]] == \
        [e["games_played"] for e in status["entrants"]]
    assert after["final"]["games_stored"] == 12 and after["final"]["seed"] == 7
    # The final's table: its versions, its rows, its plan; JSON too.
    table = arena("league", "table", first, "--final", "--resamples", "100")
    assert table.returncode == 0, table.stderr
    assert "final: 12 of 12 games played (12 asked), deal seed 7" in table.stdout
    assert "versions that played: " in table.stdout
    assert all(f"{name} (9 games)" in table.stdout for name in FIELD), table.stdout
    data = orjson.loads(arena("league", "table", first, "--final", "--format", "json").stdout)
    assert {row["name"] for row in data["entrants"]} == FIELD
    assert all(row["lower"] is not None for row in data["entrants"])
    assert {v["key"]: v["games"] for v in data["versions"]} == dict.fromkeys(FIELD, 9)
    assert data["final"]["seed"] == 7
    # The organiser's table carries the collusion audit of the final's games (docs/audit.md):
    # every two of the four met, each its own owner.
    assert {(pair["beneficiary"], pair["helper"]) for pair in data["audit"]} == {
        (a, b) for a in FIELD for b in FIELD if a != b}
    assert "collusion audit of the final's games (docs/audit.md): " in table.stdout
    # One final a league: another is refused, --resume of a finished one plays nothing.
    again = arena("league", "final", first, "--games", "12")
    assert again.returncode == 2 and "a final has started (12 games stored, seed 7): --resume " \
        "continues it" in again.stderr
    done = arena("league", "final", first, "--resume")
    assert done.returncode == 0 and done.stdout.startswith("0 games of the final played")


@pytest.mark.slow
def test_an_interrupted_final_resumes_to_the_games_of_an_uninterrupted_one(
        template: Path, tmp_path: Path) -> None:
    whole, cut = (closed(copy_of(template, tmp_path / name)) for name in ("whole", "cut"))
    games = 120
    final = start_arena("league", "final", cut, "--games", str(games), "--seed", "3", "--jobs", "1")
    try:
        wait_for(lambda: query(cut, "SELECT COUNT(*) FROM final_games")[0][0] >= 3)
        final.send_signal(signal.SIGINT)
        _, err = final.communicate(timeout=60)
    finally:
        if final.poll() is None:
            final.kill()
    assert final.returncode == 130, err
    assert f"arena league final {cut} --resume continues" in err
    stored = query(cut, "SELECT COUNT(*) FROM final_games")[0][0]
    assert 3 <= int(str(stored)) < games
    done = arena("league", "final", cut, "--resume", "--jobs", "2")
    assert done.returncode == 0, done.stderr
    assert f"({stored} stored already)" in done.stderr
    done = arena("league", "final", whole, "--games", str(games), "--seed", "3", "--jobs", "2")
    assert done.returncode == 0, done.stderr
    assert final_records(cut) == final_records(whole)
    assert len(final_records(whole)) == games
