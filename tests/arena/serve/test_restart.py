"""A served league survives its server: SIGKILL loses no stored game and no accepted upload, a
restart queues again what was being built, and the server's children die with it."""

from __future__ import annotations

import os
import signal
import sqlite3
import sys
from pathlib import Path

import pytest

from arena.league.store import DATABASE

from helpers import C_BOT, FIRST_BOT, arena, new_league, own_bot, submitted, wait_for

sys.path.insert(0, str(Path(__file__).parent))
from served import decided, house_bot, invite, packed, processes_naming, start_server, stop_cleanly, upload

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]


def _games(league: Path) -> int:
    with sqlite3.connect(league / DATABASE) as db:
        return int(db.execute("SELECT COUNT(*) FROM games").fetchone()[0])


def test_a_sigkill_loses_nothing_and_a_restart_carries_on(tmp_path: Path):
    league = new_league(tmp_path / "league", options={"deals": "1"})
    submitted(league, house_bot(tmp_path, "house-random"))
    submitted(league, house_bot(tmp_path, "house-first"))
    token = invite(league, "ada")
    slow = own_bot(tmp_path, "slow", C_BOT)
    gate = tmp_path / "gate"  # the slow build waits until the test opens it: building meanwhile
    (slow / "bot.yaml").write_text(f"name: slow\nrun: ./bot\nbuild: [sh, -c, 'while [ ! -e "
                                   f"{gate} ]; do sleep 0.05; done']\n")
    server = start_server(league, "--jobs", "1")
    try:
        with server.client(token) as ada:
            first = decided(ada, upload(ada, packed(own_bot(tmp_path, "one", C_BOT))).json()["id"])
            assert first["status"] == "accepted"
            wait_for(lambda: _games(league) > 0, 120, "the league to play")
            building = upload(ada, packed(slow)).json()["id"]
            queued = upload(ada, packed(own_bot(tmp_path, "two", C_BOT))).json()["id"]
            wait_for(lambda: ada.get(f"/api/submissions/{building}").json()["status"] == "building",
                     60, "the slow upload to be building")
            # A second server started by mistake stops at the lock, and leaves the first one's
            # build alone (it does not queue it again for a builder of the first to take twice).
            second = arena("league", "serve", league, "--port", "0")
            assert second.returncode == 2 and "serve.lock: held by pid" in second.stderr
            assert ada.get(f"/api/submissions/{building}").json()["status"] == "building"
        played = _games(league)
        server.process.send_signal(signal.SIGKILL)
        server.process.wait(timeout=30)
        wait_for(lambda: processes_naming(str(league)) == [], 60,
                 "the league run and the build to end with the server")
        assert _games(league) >= played
    finally:
        if server.process.poll() is None:
            server.process.kill()
    with sqlite3.connect(league / DATABASE) as db:
        archives = {i: league / f for i, f in db.execute("SELECT id, file FROM uploads")}
    assert not archives[first["id"]].exists()  # deleted once decided
    # What a server killed between deciding an upload and deleting its archive leaves, and one
    # killed between writing an archive and queueing it: the restart removes both, keeping the
    # archives of the uploads still to be decided.
    left = [archives[first["id"]], league / "uploads" / "unqueued.tar.gz"]
    for path in left:
        path.write_bytes(b"left behind")
    gate.touch()  # the slow build, queued again, now finishes
    assert league.stat().st_mode & 0o777 == 0o700  # the league's own: it holds the stderr
    league.chmod(0o755)
    again = start_server(league, "--jobs", "1")
    try:
        assert [path.exists() for path in left] == [False, False]
        with again.client(token) as ada:
            assert decided(ada, building)["status"] == "accepted"
            assert decided(ada, queued)["status"] == "accepted"
            assert ada.get(f"/api/submissions/{first['id']}").json()["status"] == "accepted"
        assert list((league / "uploads").iterdir()) == []
        wait_for(lambda: _games(league) > played, 120, "the league to play on")
    finally:
        said = stop_cleanly(again)
    assert f"warning: {league} can be read by other users of this machine (mode 755)" in said
    wait_for(lambda: processes_naming(str(league)) == [], 60, "every child to end with the server")
    done = arena("league", "status", league)
    assert all(f"{name} " in done.stdout for name in ("one", "slow", "two"))


def test_a_public_server_needs_a_sandbox(tmp_path: Path):
    league = new_league(tmp_path / "league")
    done = arena("league", "serve", league, "--host", "0.0.0.0", "--port", "0")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "--unsafe-no-sandbox" in done.stderr


def test_a_proxy_that_is_no_address_is_one_clear_line(tmp_path: Path):
    done = arena("league", "serve", new_league(tmp_path / "league"), "--port", "0",
                 "--forwarded-allow-ips", "127.0.0.1, proxy")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == ("arena: error: --forwarded-allow-ips: 'proxy' is not an address or a "
                           "network (such as 127.0.0.1 or 10.0.0.0/8)\n")


def test_without_the_serve_extra_it_says_how_to_install_it(tmp_path: Path):
    league = new_league(tmp_path / "league")
    missing = tmp_path / "without" / "fastapi"
    missing.mkdir(parents=True)  # a fastapi that is not there, first on the path
    (missing / "__init__.py").write_text(
        "raise ModuleNotFoundError(\"No module named 'fastapi'\", name='fastapi')\n")
    done = arena("league", "serve", league, "--port", "0",
                 env={**os.environ, "PYTHONPATH": str(tmp_path / "without")})
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == ("arena: error: league serve needs the serve extra (fastapi is "
                           "missing): pip install 'blackout-arena[serve]'\n")


def test_with_no_play_a_league_run_elsewhere_plays_and_the_server_shows_its_games(tmp_path: Path):
    league = new_league(tmp_path / "league", options={"deals": "1"})
    for name, program in (("a", C_BOT), ("b", C_BOT), ("c", FIRST_BOT)):
        submitted(league, own_bot(tmp_path, name, program))
    server = start_server(league, "--no-play")
    try:
        assert processes_naming(f"league\0run\0{league}") == []
        done = arena("league", "run", league, "--games", "3", "--jobs", "1")
        assert done.returncode == 0, done.stderr  # the server holds no run lock
        with server.client() as anonymous:
            assert len(anonymous.get("/api/games").json()["games"]) == 3
    finally:
        stop_cleanly(server)
