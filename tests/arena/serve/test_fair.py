"""A served league no participant can stall, starve or fill, against a real ``arena league
serve`` on a loopback port, over real HTTP, with real builds and real bots: a participant's bot
that hangs in league games is suspended and they are told why; one participant's slow builds take
turns with everyone else's; an upload's archive is deleted once it is decided; a participant's
storage is held to their quota.

Two servers for the module: one that only builds (its queue is what is looked at), one that
plays.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest

from arena.settings import SUSPEND_AFTER

from helpers import (
    C_BOT,
    MISBEHAVING,
    arena,
    new_league,
    own_bot,
    query,
    submitted,
    wait_for,
)

sys.path.insert(0, str(Path(__file__).parent))
from served import (
    decided,
    house_bot,
    invite,
    logged_in,
    packed,
    python_bot,
    start_server,
    stop_cleanly,
    upload,
)

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]


@pytest.fixture(scope="module")
def building(tmp_path_factory: pytest.TempPathFactory):
    """A league served without play, one build at a time, with a quota of 1 MB a participant."""
    tmp = tmp_path_factory.mktemp("serve-fair-building")
    league = new_league(tmp / "league", options={"deals": "1"})
    server = start_server(league, "--no-play", "--build-jobs", "1", "--max-stored-mb", "1")
    try:
        yield server, tmp
    finally:
        stop_cleanly(server)


@pytest.fixture(scope="module")
def playing(tmp_path_factory: pytest.TempPathFactory):
    """A league of three house bots that plays, with short allowances: each game a bot stalls
    costs one (a start, or a move with its bank)."""
    tmp = tmp_path_factory.mktemp("serve-fair-playing")
    league = tmp / "league"
    done = arena("league", "init", league, "--players", "3", "--option", "deals=1",
                 "--start-ms", "3000", "--move-ms", "500", "--bank-ms", "1000")
    assert done.returncode == 0, done.stderr
    for name in ("house-random", "house-first", "house-other"):
        submitted(league, house_bot(tmp, name))
    server = start_server(league, "--jobs", "1")
    try:
        yield server, tmp
    finally:
        stop_cleanly(server)


def archive_of(league: Path, upload_id: int) -> Path:
    """Where the server wrote upload ``upload_id``'s archive."""
    return league / str(query(league, "SELECT file FROM uploads WHERE id = ?", upload_id)[0][0])


def test_one_participants_slow_builds_take_turns_with_anothers_quick_one(building):
    server, tmp = building
    slowpoke, quick = invite(server.league, "slowpoke"), invite(server.league, "quick")
    gates = [tmp / f"gate{i}" for i in range(3)]
    slow = []
    for index, gate in enumerate(gates):  # each build waits until the test opens its gate
        (tmp / f"slow{index}").mkdir()
        bot = own_bot(tmp / f"slow{index}", "slow", C_BOT)
        (bot / "bot.yaml").write_text(f"name: slow\nrun: ./bot\nbuild: [sh, -c, 'while [ ! -e "
                                      f"{gate} ]; do sleep 0.05; done']\n")
        slow.append(packed(bot))
    try:
        with server.client(slowpoke) as slow_client, server.client(quick) as quick_client:
            first = upload(slow_client, slow[0]).json()["id"]
            wait_for(lambda: slow_client.get(f"/api/submissions/{first}").json()["status"]
                     == "building", 60, "the first slow upload to be building")
            later = [upload(slow_client, archive).json()["id"] for archive in slow[1:]]
            mine = upload(quick_client, packed(own_bot(tmp, "quick", C_BOT))).json()["id"]
            gates[0].touch()
            # Next is the quick one: slowpoke's second waits for it, though it came first (and
            # its build, once it starts, waits for its gate: it cannot finish first by chance).
            assert decided(quick_client, mine, 60)["status"] == "accepted"
            assert decided(slow_client, first)["status"] == "accepted"
            statuses = [slow_client.get(f"/api/submissions/{i}").json()["status"] for i in later]
            assert statuses in (["queued", "queued"], ["building", "queued"]), statuses
    finally:
        for gate in gates:
            gate.touch()


def test_a_decided_uploads_archive_is_deleted(building):
    server, tmp = building
    token = invite(server.league, "tidy")
    broken = own_bot(tmp, "broken", C_BOT)
    (broken / "bot.yaml").write_text("name: broken\nrun: ./no-such-program\n")
    with server.client(token) as client:
        ids = [upload(client, packed(bot)).json()["id"] for bot in (own_bot(tmp, "tidy", C_BOT),
                                                                    broken)]
        assert [decided(client, i)["status"] for i in ids] == ["accepted", "rejected"]
    assert [archive_of(server.league, i).exists() for i in ids] == [False, False]
    assert (server.league / "bots" / "tidy" / "1" / "bot").is_file()  # the bot lives on


def test_an_upload_past_the_participants_quota_is_refused_with_the_reason(building):
    server, tmp = building
    token = invite(server.league, "hoarder")
    big = own_bot(tmp, "big", C_BOT)
    (big / "data.bin").write_bytes(os.urandom(700 * 1024))  # incompressible: 700 KB archived too
    with server.client(token) as client:
        first = upload(client, packed(big))
        assert first.status_code == 202, first.text
        before = sorted((server.league / "uploads").iterdir())
        # Refused whether the first is still waiting (its archive counts) or was accepted (its
        # stored version counts): 700 KB and 700 KB are more than 1 MB.
        over = upload(client, packed(big))
        assert over.status_code == 413 and list(over.json()) == ["error"], over.text
        assert re.fullmatch(r"over your storage quota of 1 MB: your bots' versions take [\d.]+ MB "
                            r"and your uploads waiting [\d.]+ MB, with this one \(0\.\d+ MB\) "
                            r"1\.\d+ MB: ask the organiser for room", over.json()["error"])
        assert sorted((server.league / "uploads").iterdir()) == before  # nothing of it kept
        assert decided(client, first.json()["id"])["status"] == "accepted"
        small = upload(client, packed(own_bot(tmp, "small", C_BOT)))  # what fits still does
        assert small.status_code == 202, small.text
        assert decided(client, small.json()["id"])["status"] == "accepted"
        again = upload(client, packed(big))
        assert again.status_code == 413
        assert "your bots' versions take 0.7" in again.json()["error"]


def test_a_participants_stalling_bot_is_suspended_they_are_told_why_and_a_new_version_lifts_it(
        playing):
    server, tmp = playing
    token = invite(server.league, "ada")
    hangs = own_bot(tmp, "hangs", MISBEHAVING / "hangs_in_league.py")
    reason = f"{SUSPEND_AFTER.default} games in a row with a start failure, a time-out or a crash"
    with server.client(token) as api, server.client() as anonymous:
        assert decided(api, upload(api, packed(hangs)).json()["id"])["status"] == "accepted"
        page = logged_in(server.url, token)
        try:
            wait_for(lambda: "is suspended" in page.get("/my").text, 120, "hangs to be suspended")
            mine = page.get("/my").text
            assert f"v1 is suspended: the matchmaker no longer seats it ({reason} (the last: " in mine
            assert reason in page.get("/entrants/hangs").text  # to its owner
            public = anonymous.get("/entrants/hangs").text
            assert "v1 is suspended" in public and reason not in public
            wait_for(lambda: '>hangs@1</a> <span class="suspended">suspended</span>' in
                     anonymous.get("/").text, 120, "the table to show it suspended")
            games = query(server.league, "SELECT COUNT(*) FROM games")[0][0]
            # The league plays on without it.
            wait_for(lambda: query(server.league, "SELECT COUNT(*) FROM games")[0][0] > games + 6,
                     120, "more games")
            seated = query(server.league, "SELECT COUNT(DISTINCT game) FROM seats JOIN bots ON "
                                          "bots.id = seats.bot WHERE bots.name = 'hangs'")[0][0]
            assert seated == SUSPEND_AFTER.default
            # A new version lifts it.
            fixed = python_bot(tmp / "v2", "hangs")
            assert decided(api, upload(api, packed(fixed)).json()["id"])["status"] == "accepted"
            assert "is suspended" not in page.get("/my").text
            wait_for(lambda: query(server.league, "SELECT COUNT(*) FROM seats JOIN bots ON "
                                   "bots.id = seats.bot WHERE bots.name = 'hangs' AND "
                                   "bots.version = '2'")[0][0] > 0, 120, "games of hangs v2")
        finally:
            page.close()
