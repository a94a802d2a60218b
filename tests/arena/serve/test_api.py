"""The JSON API of a real ``arena league serve`` on a free loopback port, over real HTTP: uploads
accepted and rejected with reasons, tokens, ownership and log privacy, the upload limit, ten
concurrent uploads, the table and the games.

One server for the module (its league plays as soon as it has three entrants); the tests that
change what others see (the pending limit, the failed-login limit) come last.
"""

from __future__ import annotations

import re
import sqlite3
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import orjson
import pytest

from arena.league.store import DATABASE

from helpers import C_BOT, FIRST_BOT, arena, new_league, own_bot, submitted, wait_for

sys.path.insert(0, str(Path(__file__).parent))
from served import (
    decided,
    invite,
    packed,
    python_bot,
    start_server,
    stop_server,
    upload,
)

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory):
    """A league of two organiser's C bots, participants ada and bob, served with a 1 MB limit."""
    tmp = tmp_path_factory.mktemp("serve")
    # Three deals a game: games fast enough to come at once, few enough for quick table fits.
    league = new_league(tmp / "league", options={"deals": "3"})
    submitted(league, own_bot(tmp, "house-random", C_BOT))
    submitted(league, own_bot(tmp, "house-first", FIRST_BOT))
    tokens = {name: invite(league, name) for name in ("ada", "bob")}
    server = start_server(league, "--jobs", "1", "--build-jobs", "2", "--max-upload-mb", "1")
    try:
        yield server, tokens, tmp
    finally:
        code = stop_server(server)
        said = server.process.stderr.read() if server.process.stderr else ""
        print(said)  # shown with a failure
        assert code in (0, 130), said


@pytest.fixture(scope="module")
def ada_bot(served) -> dict[str, object]:
    """ada's bot 'adabot' (a C random bot that also writes its stderr), uploaded and accepted."""
    server, tokens, tmp = served
    bot = python_bot(tmp / "ada", "adabot", stderr="adabot says hello on stderr")
    with server.client(tokens["ada"]) as ada:
        answer = upload(ada, packed(bot))
        assert answer.status_code == 202, answer.text
        assert set(answer.json()) == {"id", "status"} and answer.json()["status"] == "queued"
        return decided(ada, answer.json()["id"])


def test_an_upload_is_built_checked_and_accepted(ada_bot):
    assert ada_bot["status"] == "accepted", ada_bot
    assert (ada_bot["bot"], ada_bot["version"], ada_bot["reason"]) == ("adabot", "1", "")
    assert ada_bot["steps"] and all(str(s).startswith("PASS") for s in ada_bot["steps"])


def test_a_rejected_upload_says_why(served):
    server, tokens, tmp = served
    broken = own_bot(tmp, "broken", C_BOT)
    (broken / "bot.yaml").write_text("name: broken\nrun: ./no-such-program\n")
    with server.client(tokens["ada"]) as ada:
        result = decided(ada, upload(ada, packed(broken)).json()["id"])
        assert result["status"] == "rejected"
        assert "run: no such file './no-such-program'" in str(result["reason"])
        assert str(server.league) not in str(result["reason"])  # the server's paths stay its own
        text = ada.post("/api/submissions", files={"file": ("bot.txt", b"hello")})
        assert text.status_code == 400 and "not an archive" in text.json()["error"]
        none = ada.post("/api/submissions", data={"x": "y"}, files={"other": ("a.zip", b"")})
        assert none.status_code == 400 and "field 'file'" in none.json()["error"]


def test_only_a_valid_token_may_upload(served):
    server, tokens, tmp = served
    archive = packed(own_bot(tmp, "anon", C_BOT))
    with server.client() as anonymous:
        missing = upload(anonymous, archive)
        assert missing.status_code == 401 and missing.headers["www-authenticate"] == "Bearer"
        assert list(missing.json()) == ["error"]
    with server.client(tokens["ada"] + "x") as wrong:
        assert upload(wrong, archive).status_code == 401
    carol = invite(server.league, "carol")
    with server.client(carol) as client:
        assert client.get("/api/submissions/1").status_code == 404  # valid: a 404, not a 401
        assert arena("league", "revoke", server.league, "carol").returncode == 0
        assert upload(client, archive).status_code == 401


def test_a_bot_and_its_logs_are_its_owners_alone(served, ada_bot):
    server, tokens, tmp = served
    with server.client(tokens["bob"]) as bob, server.client(tokens["ada"]) as ada, \
            server.client() as anonymous:
        taken = python_bot(tmp / "bob", "adabot")
        result = decided(bob, upload(bob, packed(taken)).json()["id"])
        assert result["status"] == "rejected"
        assert "'adabot' belongs to another participant" in str(result["reason"])
        assert bob.get(f"/api/submissions/{ada_bot['id']}").status_code == 404
        assert anonymous.get("/api/bots/adabot/logs").status_code == 401
        assert bob.get("/api/bots/adabot/logs").status_code == 403
        assert bob.get("/api/bots/house-random/logs").status_code == 403

        def logged() -> bool:
            logs = ada.get("/api/bots/adabot/logs").json()["logs"]
            return any("adabot says hello on stderr" in log["tail"] for log in logs)

        wait_for(logged, 120, "adabot's stderr in its logs, once it has played")


SAYS = Path(__file__).resolve().parents[2] / "bots" / "says_each_decision.py"


def logged_in(url: str, token: str) -> httpx.Client:
    """A browser's session: the login form posted with its CSRF token (the caller closes it)."""
    client = httpx.Client(base_url=url, timeout=60)
    form = client.get("/login").text
    csrf = re.search(r'name="csrf" value="([^"]+)"', form)
    assert csrf is not None
    assert client.post("/login", data={"token": token, "csrf": csrf.group(1)}).status_code < 400
    return client


def test_a_replay_shows_each_decisions_stderr_to_its_bots_owner_alone(served, ada_bot):
    server, tokens, tmp = served
    directory = python_bot(tmp / "ada-says", "adasays")
    (directory / "bot.py").write_text(SAYS.read_text())
    with server.client(tokens["ada"]) as ada_api, server.client() as anonymous:
        assert decided(ada_api, upload(ada_api, packed(directory)).json()["id"])["status"] == \
            "accepted"
        found: list[str] = []

        def played() -> bool:
            games = anonymous.get("/api/games", params={"entrant": "adasays", "limit": 1}).json()
            found[:] = [g["id"] for g in games["games"]]
            return bool(found)

        wait_for(played, 120, "a game of adasays")
        game = orjson.loads(anonymous.get(f"/api/games/{found[0]}").content)
        assert b" act 1 plays " not in anonymous.get(f"/replays/{found[0]}.js").content
    seats = [seat for seat, name in enumerate(game["names"]) if name.startswith("adasays@")]
    ada, bob = logged_in(server.url, tokens["ada"]), logged_in(server.url, tokens["bob"])
    try:
        script = ada.get(f"/replays/{found[0]}.js").content
        said = orjson.loads(b"[" + script[len(b"arenaGame("):-3] + b"]")[3]["decisions"]
        assert {seat for _, seat, _ in said} == set(seats)
        assert all(text.startswith(f"seat {seat} act ") for _, seat, text in said)
        assert b" act 1 plays " not in bob.get(f"/replays/{found[0]}.js").content
    finally:
        ada.close()
        bob.close()


def test_an_upload_over_the_limit_is_refused_and_not_kept(served):
    server, tokens, _ = served
    before = sorted((server.league / "uploads").iterdir())
    big = b"\0" * (2 * 1024 * 1024)
    with server.client(tokens["ada"]) as ada:
        declared = upload(ada, big)
        assert declared.status_code == 413 and "1 MB" in declared.json()["error"]

        def chunks():  # no Content-Length: the body is counted as it comes
            boundary = b"--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.tar\"\r\n\r\n"
            yield boundary
            for _ in range(32):
                yield b"\0" * 65536
            yield b"\r\n--b--\r\n"

        streamed = ada.post("/api/submissions", content=chunks(),
                            headers={"Content-Type": "multipart/form-data; boundary=b"})
        assert streamed.status_code == 413
    assert sorted((server.league / "uploads").iterdir()) == before


def test_ten_concurrent_uploads_by_five_participants_are_all_decided(served):
    server, _, tmp = served
    tokens = {f"p{i}": invite(server.league, f"p{i}") for i in range(5)}
    jobs = [(token, packed(own_bot(tmp, f"{name}-bot{k}", C_BOT)))
            for name, token in tokens.items() for k in range(2)]

    def send(job: tuple[str, bytes]) -> tuple[str, httpx.Response]:
        with server.client(job[0]) as client:
            return job[0], upload(client, job[1])

    with ThreadPoolExecutor(10) as pool:
        answers = list(pool.map(send, jobs))
    assert [a.status_code for _, a in answers] == [202] * 10
    ids = [a.json()["id"] for _, a in answers]
    assert len(set(ids)) == 10
    for token, answer in answers:
        with server.client(token) as client:
            assert decided(client, answer.json()["id"])["status"] == "accepted"


def test_the_table_and_the_games(served, ada_bot):
    server, _, _ = served
    with server.client() as anonymous:
        wait_for(lambda: anonymous.get("/api/table").status_code == 200, 120, "a table")
        seen: dict[str, dict[str, object]] = {}

        def same_entrants() -> bool:  # the league plays on: the served table follows within seconds
            seen["api"] = anonymous.get("/api/table").json()
            seen["cli"] = orjson.loads(arena("league", "table", server.league, "--format",
                                             "json").stdout)
            return ({e["name"] for e in seen["api"]["entrants"]}
                    == {e["name"] for e in seen["cli"]["entrants"]})

        wait_for(same_entrants, 120, "the served table to have the entrants of league table")
        table, cli = seen["api"], seen["cli"]
        assert set(table) - {"head_to_head"} == set(cli)
        assert [set(e) for e in table["entrants"]] == [set(e) for e in cli["entrants"]]
        assert "adabot@1" in {e["name"] for e in table["entrants"]}  # as league table names it
        # The pages are named by entrant, the table by version: the entrant's page finds its row.
        assert 'href="/entrants/adabot"' in anonymous.get("/").text
        assert re.search(r"<tr><th>Elo</th><td>\d+</td>", anonymous.get("/entrants/adabot").text)
        games = anonymous.get("/api/games", params={"entrant": "adabot", "limit": 2}).json()["games"]
        assert 1 <= len(games) <= 2
        assert all(any(e.startswith("adabot@") for e in g["entrants"]) for g in games)
        assert all(sorted(g["places"]) and len(g["places"]) == 3 for g in games)
        record = anonymous.get(f"/api/games/{games[0]['id']}")
        assert record.status_code == 200 and record.json()["id"] == games[0]["id"]
        with sqlite3.connect(server.league / DATABASE) as db:
            stored = db.execute("SELECT line FROM games WHERE id = ?", (games[0]["id"],)).fetchone()
        assert orjson.loads(stored[0])["deals"] == record.json()["deals"]
        for bad in ("s999999-r0", "..%2Fleague.db", "%2E%2E"):
            answer = anonymous.get(f"/api/games/{bad}")
            assert answer.status_code == 404 and list(answer.json()) == ["error"]
        assert anonymous.get("/api/games", params={"limit": 0}).status_code == 422


def test_forms_need_their_csrf_token_and_every_answer_carries_the_policy(served):
    server, tokens, _ = served
    with server.client() as browser:
        page = browser.get("/login")
        assert "script-src 'self'" in page.headers["content-security-policy"]
        assert "unsafe-inline" not in page.headers["content-security-policy"]
        cookie = page.headers["set-cookie"].lower()
        assert "httponly" in cookie and "samesite=strict" in cookie
        csrf = browser.cookies["arena_csrf"]
        assert f'name="csrf" value="{csrf}"' in page.text
        forged = browser.post("/login", data={"token": tokens["ada"], "csrf": "guessed"})
        assert forged.status_code == 403 and "arena_session" not in browser.cookies
        logged = browser.post("/login", data={"token": tokens["ada"], "csrf": csrf})
        assert logged.status_code == 303 and "arena_session" in browser.cookies
        assert browser.get("/my").status_code == 200
        upload_form = browser.post("/upload", files={"file": ("a.tar.gz", b"x")},
                                   data={"csrf": "guessed"})
        assert upload_form.status_code == 403
        missing = browser.get("/entrants/nobody")
        assert missing.status_code == 404 and "Traceback" not in missing.text
        assert missing.headers["content-type"].startswith("text/html")
    with server.client() as proxied:  # behind a TLS proxy on this machine, its cookies are Secure
        behind = proxied.get("/login", headers={"X-Forwarded-Proto": "https"})
        assert "secure" in behind.headers["set-cookie"].lower()
    with server.client() as plain:
        assert "secure" not in plain.get("/login").headers["set-cookie"].lower()


def test_a_participant_has_at_most_three_uploads_waiting(served):
    server, _, tmp = served
    token = invite(server.league, "patient")
    slow = own_bot(tmp, "slow", C_BOT)
    (slow / "bot.yaml").write_text("name: slow\nrun: ./bot\nbuild: sleep 20\n")
    with server.client(token) as client:
        codes = [upload(client, packed(slow)).status_code for _ in range(4)]
    assert codes == [202, 202, 202, 429]


def test_failed_logins_are_limited_per_address(served):
    server, tokens, _ = served
    with server.client("not-a-token") as wrong:
        codes = [wrong.get("/api/submissions/1").status_code for _ in range(11)]
    first = codes.index(429)  # the failures of the tests before count too
    assert set(codes[:first]) == {401} and set(codes[first:]) == {429}
    with server.client(tokens["ada"]) as ada:  # a valid token from that address too, for a while
        assert ada.get("/api/submissions/1").status_code == 429
