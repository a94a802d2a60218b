"""The JSON API of a real ``arena league serve`` on a free loopback port, over real HTTP: uploads
accepted and rejected with reasons, tokens, ownership and log privacy, the upload limit, ten
concurrent uploads, the table and the games.

One server for the module (its league plays as soon as it has three entrants); the tests that
change what others see (the pending limit, the failed-login limit) come last.
"""

from __future__ import annotations

import contextlib
import html
import re
import socket
import sqlite3
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import orjson
import pytest

from arena.league.accounts import SESSION_IDLE, SESSION_MAX_AGE, SESSIONS_KEPT, token_hash
from arena.league.database import DATABASE
from arena.serve.connections import BODY_GRACE_SECONDS, HEADER_BYTES, HEADERS_SECONDS

from helpers import C_BOT, arena, new_league, own_bot, submitted, wait_for

sys.path.insert(0, str(Path(__file__).parent))
from served import (
    decided,
    form_token,
    house_bot,
    invite,
    logged_in,
    packed,
    python_bot,
    served_alone,
    start_server,
    stderr_until,
    stop_cleanly,
    upload,
)

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory):
    """A league of two organiser's C bots, participants ada and bob, served with a 1 MB limit."""
    tmp = tmp_path_factory.mktemp("serve")
    # Three deals a game: games fast enough to come at once, few enough for quick table fits.
    league = new_league(tmp / "league", options={"deals": "3"})
    submitted(league, house_bot(tmp, "house-random"))
    submitted(league, house_bot(tmp, "house-first"))
    tokens = {name: invite(league, name) for name in ("ada", "bob")}
    server = start_server(league, "--jobs", "1", "--build-jobs", "2", "--max-upload-mb", "1")
    try:
        yield server, tokens, tmp
    finally:
        stop_cleanly(server)


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


def test_the_server_says_why_play_paused_and_when_it_plays_again(served, ada_bot):
    """Two entrants cannot fill a table of three: the server says so once, and, since ada's bot
    made three, that its league plays again (the organiser watching its log saw only the pause)."""
    server, _, _ = served
    said = stderr_until(server, "arena serve: league run playing again")
    assert 0 <= said.find("at least 3 are needed") < said.index("league run playing again"), said
    assert said.count("arena serve: league run ended") == 1


def test_a_rejected_upload_says_why(served):
    server, tokens, tmp = served
    broken = own_bot(tmp, "broken", C_BOT)
    (broken / "bot.yaml").write_text("name: broken\nrun: ./no-such-program\n")
    talker = python_bot(tmp, "talker")
    (talker / "bot.py").write_text(f"print({'debug:' + '=' * 300!r}, flush=True)\n")
    with server.client(tokens["ada"]) as ada:
        result = decided(ada, upload(ada, packed(broken)).json()["id"])
        talked = decided(ada, upload(ada, packed(talker)).json()["id"])
        assert result["status"] == talked["status"] == "rejected"
        # Named as in ada's archive: neither the server's paths nor its name for the archive.
        assert str(result["reason"]).startswith(f"{broken.name}/bot.yaml: run: no such file "
                                                "'./no-such-program'"), result
        assert str(server.league) not in str(result["reason"]) and "uploads/" not in str(result)
        assert (result["bot"], result["version"]) == (None, None)  # never stored: no version
        assert (talked["bot"], talked["version"]) == ("talker", None)
        with contextlib.closing(logged_in(server.url, tokens["ada"])) as browser:
            mine = browser.get("/my").text
        assert "/entrants/broken" not in mine and "/entrants/talker" not in mine  # would be 404
        assert "talker v1" not in mine and "<td class=\"bot\">talker</td>" in mine
        assert "<pre class=\"steps\">FAIL  start and hello: " in mine  # the steps, as check-bot's
        assert "SKIP  quit: the bot did not start" in mine
        assert "uploads/" not in mine and str(server.league) not in mine
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


def test_submissions_are_numbered_per_participant(served, ada_bot):
    """A newcomer's first upload is its number 1 whatever others uploaded before: the numbers
    tell no one how many uploads the others made, and a number names the asker's own upload."""
    server, _, tmp = served
    token = invite(tmp / "league", "cy")
    with server.client(token) as cy:
        answer = upload(cy, packed(python_bot(tmp / "cy", "cybot")))
        assert answer.status_code == 202 and answer.json()["id"] == 1, answer.text
        assert decided(cy, 1)["bot"] == "cybot"
        assert cy.get("/api/submissions/2").status_code == 404
        assert 'data-status="accepted"><td class="num">1</td>' in logged_in_page(server, token)


def logged_in_page(server, token: str) -> str:
    """``/my`` as the participant of ``token`` sees it."""
    with contextlib.closing(logged_in(server.url, token)) as browser:
        return browser.get("/my").text


def test_a_bot_and_its_logs_are_its_owners_alone(served, ada_bot):
    server, tokens, tmp = served
    with server.client(tokens["bob"]) as bob, server.client(tokens["ada"]) as ada, \
            server.client() as anonymous:
        taken = python_bot(tmp / "bob", "adabot")
        result = decided(bob, upload(bob, packed(taken)).json()["id"])
        assert result["status"] == "rejected"
        assert "'adabot' belongs to another participant" in str(result["reason"])
        theirs = bob.get(f"/api/submissions/{ada_bot['id']}")  # bob's own of that number
        assert theirs.status_code == 404 or theirs.json() != ada_bot
        assert anonymous.get("/api/bots/adabot/logs").status_code == 401
        assert bob.get("/api/bots/adabot/logs").status_code == 403
        assert bob.get("/api/bots/house-random/logs").status_code == 403

        def logged() -> bool:
            logs = ada.get("/api/bots/adabot/logs").json()["logs"]
            return any("adabot says hello on stderr" in log["tail"] for log in logs)

        wait_for(logged, 120, "adabot's stderr in its logs, once it has played")


SAYS = Path(__file__).resolve().parents[2] / "bots" / "says_each_decision.py"


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
        assert b" act 1 plays " not in anonymous.get(f"/replays/{found[0]}.json").content
    seats = [seat for seat, name in enumerate(game["names"]) if name.startswith("adasays@")]
    ada, bob = logged_in(server.url, tokens["ada"]), logged_in(server.url, tokens["bob"])
    try:
        replay = ada.get(f"/replays/{found[0]}.json")
        assert replay.headers["content-type"] == "application/json"
        assert replay.json()["record"]["id"] == found[0]
        said = replay.json()["said"]["decisions"]
        assert {seat for _, seat, _ in said} == set(seats)
        assert all(text.startswith(f"seat {seat} act ") for _, seat, text in said)
        assert b" act 1 plays " not in bob.get(f"/replays/{found[0]}.json").content
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
    ids = [(token, a.json()["id"]) for token, a in answers]
    assert sorted(number for _, number in ids) == [1, 1, 1, 1, 1, 2, 2, 2, 2, 2]  # each its own
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
            names = {e["name"] for e in seen["api"]["entrants"]}
            # adabot rated too: it may have been accepted just now (when this test is the first
            # of the module's to ask for it), before it played a game
            return "adabot@1" in names and names == {e["name"] for e in seen["cli"]["entrants"]}

        wait_for(same_entrants, 120, "the served table to have adabot and the entrants of league table")
        table, cli = seen["api"], seen["cli"]
        assert set(table) - {"head_to_head"} == set(cli)
        assert [set(e) for e in table["entrants"]] == [set(e) for e in cli["entrants"]]
        assert "adabot@1" in {e["name"] for e in table["entrants"]}  # as league table names it
        # The pages are named by entrant, the table by version: the entrant's page finds its row.
        assert 'href="/entrants/adabot"' in anonymous.get("/").text
        assert re.search(r"<tr><th>Elo</th><td>\d+</td>", anonymous.get("/entrants/adabot").text)
        # The table counts the games it rates (league status counts every game played)
        assert all(isinstance(e["games_rated"], int) for e in table["entrants"])
        assert '<th class="wide">games rated</th>' in anonymous.get("/").text
        assert re.search(r"<tr><th>games rated</th><td>\d+</td>",
                         anonymous.get("/entrants/adabot").text)
        games = anonymous.get("/api/games", params={"entrant": "adabot", "limit": 2}).json()["games"]
        assert 1 <= len(games) <= 2
        assert all(any(e.startswith("adabot@") for e in g["entrants"]) for g in games)
        assert all(sorted(g["places"]) and len(g["places"]) == 3 for g in games)
        with sqlite3.connect(server.league / DATABASE) as db:  # what the list says of each game
            for g in games:
                line, ended = db.execute("SELECT line, finished FROM games WHERE id = ?",
                                         (g["id"],)).fetchone()
                assert g["scores"] == orjson.loads(line)["result"]["scores"]
                assert g["finished"] == time.strftime("%Y-%m-%d %H:%M", time.gmtime(ended))
        listed = anonymous.get("/games", params={"entrant": "adabot"}).text
        assert "<th>ended (UTC)</th>" in listed
        assert f'<td class="when">{games[0]["finished"]}</td>' in listed
        first = games[0]
        assert (f"{first['entrants'][0]} ({first['places'][0]}: {first['scores'][0]})"
                in html.unescape(listed))
        record = anonymous.get(f"/api/games/{games[0]['id']}")
        assert record.status_code == 200 and record.json()["id"] == games[0]["id"]
        with sqlite3.connect(server.league / DATABASE) as db:
            stored = db.execute("SELECT line FROM games WHERE id = ?", (games[0]["id"],)).fetchone()
        assert orjson.loads(stored[0])["deals"] == record.json()["deals"]
        for bad in ("s999999-r0", "..%2Fleague.db", "%2E%2E"):
            answer = anonymous.get(f"/api/games/{bad}")
            assert answer.status_code == 404 and list(answer.json()) == ["error"]
        assert anonymous.get("/api/games", params={"limit": 0}).status_code == 400


def test_forms_cannot_be_forged_with_a_tossed_cookie_or_from_another_origin(served):
    server, tokens, _ = served
    elsewhere = "http://127.0.0.1:1"  # another port of this host: same site, another origin
    with server.client() as browser:
        browser.headers["Origin"] = server.url
        page = browser.get("/login")
        assert "script-src 'self'" in page.headers["content-security-policy"]
        assert "unsafe-inline" not in page.headers["content-security-policy"]
        cookie = page.headers["set-cookie"].lower()
        assert "httponly" in cookie and "samesite=strict" in cookie
        presession = browser.cookies["arena_csrf"]
        token = form_token(browser, "/login")
        assert token != presession  # bound to the cookie, not equal to it
        # Cookie tossing: another site sets arena_csrf=x and posts csrf=x.
        tossed = httpx.post(server.url + "/login", data={"token": tokens["ada"], "csrf": "x"},
                            headers={"Origin": server.url, "Cookie": "arena_csrf=x"})
        assert tossed.status_code == 403 and "arena_session" not in tossed.cookies
        # A pair the attacker fetched for itself, tossed and posted from its own page.
        foreign = browser.post("/login", data={"token": tokens["ada"], "csrf": token},
                               headers={"Origin": elsewhere})
        assert foreign.status_code == 403 and "not from this server" in foreign.text
        unsaid = browser.post("/login", data={"token": tokens["ada"], "csrf": token},
                              headers={"Origin": "null"})
        assert unsaid.status_code == 403 and "arena_session" not in browser.cookies
        logged = browser.post("/login", data={"token": tokens["ada"], "csrf": token},
                              headers={"Origin": "null", "Sec-Fetch-Site": "same-origin"})
        assert logged.status_code == 303 and "arena_session" in browser.cookies
        assert browser.cookies["arena_csrf"] != presession  # a new pre-session at login
        assert browser.get("/my").status_code == 200
        upload_token = form_token(browser, "/upload")
        assert upload_token != token  # bound to the new session
        for csrf, origin in ((token, server.url), ("x", server.url), (upload_token, elsewhere)):
            forged = browser.post("/upload", files={"file": ("a.tar.gz", b"x")},
                                  data={"csrf": csrf}, headers={"Origin": origin})
            assert forged.status_code == 403, (csrf, origin)
        sent = browser.post("/upload", files={"file": ("a.txt", b"x")}, data={"csrf": upload_token})
        assert sent.status_code == 400 and "not an archive" in sent.text  # past the form's checks
        with contextlib.closing(logged_in(server.url, tokens["bob"])) as bob:  # tokens of its own
            assert form_token(bob, "/upload") != upload_token
            theirs = bob.post("/upload", files={"file": ("a.tar.gz", b"x")},
                              data={"csrf": upload_token})
            assert theirs.status_code == 403
        missing = browser.get("/entrants/nobody")
        assert missing.status_code == 404 and "Traceback" not in missing.text
        assert missing.headers["content-type"].startswith("text/html")
        out = browser.post("/logout", data={"csrf": upload_token}, headers={"Origin": elsewhere})
        assert out.status_code == 403 and browser.get("/my").status_code == 200


def test_every_answer_is_private_to_this_origin_and_kept_out_of_caches(served):
    server, tokens, _ = served
    with contextlib.closing(logged_in(server.url, tokens["ada"])) as browser, \
            server.client(tokens["ada"]) as api:
        for answer in (browser.get("/my"), browser.get("/"), browser.get("/entrants/nobody"),
                       api.get("/api/bots/house-random/logs"), api.get("/api/submissions/1"),
                       browser.get("/games")):
            assert answer.headers["cache-control"] == "no-store", answer.url
            assert answer.headers["cross-origin-resource-policy"] == "same-origin", answer.url
        static = browser.get("/static/viewer.js")
        assert static.headers["cross-origin-resource-policy"] == "same-origin"
        assert static.headers["cache-control"] == "no-cache"
        assert browser.get("/replays/s000001-r0.js").status_code == 404  # no game as a script


def test_forwarded_headers_are_not_believed_from_a_client(served):
    server, _, _ = served
    with server.client() as client:
        behind = client.get("/login", headers={"X-Forwarded-Proto": "https"})
        assert "secure" not in behind.headers["set-cookie"].lower()


def test_behind_a_trusted_proxy_its_forwarded_headers_are_believed(tmp_path: Path):
    with served_alone(tmp_path, "--forwarded-allow-ips", "127.0.0.1") as (server, token):
        with server.client("not-a-token") as proxied:
            page = proxied.get("/login", headers={"X-Forwarded-Proto": "https"})
            # Secure, and __Host-: no sibling subdomain or plain-http port may set or overwrite it
            assert page.headers["set-cookie"].startswith("__Host-arena_csrf=")
            assert "secure" in page.headers["set-cookie"].lower()
            # the limit counts the client the proxy names, not the proxy
            codes = [proxied.get("/api/submissions/1", headers={"X-Forwarded-For": "10.0.0.1"})
                     .status_code for _ in range(11)]
            assert codes == [401] * 10 + [429]
            other = proxied.get("/api/submissions/1", headers={"X-Forwarded-For": "10.0.0.2"})
            assert other.status_code == 401
        with server.client() as browser:  # the browser saw https://...: its Origin says so
            headers = {"X-Forwarded-Proto": "https", "Origin": "https://" + server.url.split("//")[1]}
            page = browser.get("/login", headers=headers)
            csrf = re.search(r'name="csrf" value="([^"]+)"', page.text)
            assert csrf is not None
            # (a client keeps a Secure cookie for https: sent here by hand, as the proxy would)
            headers["Cookie"] = f"__Host-arena_csrf={page.cookies['__Host-arena_csrf']}"
            unprefixed = headers["Cookie"].removeprefix("__Host-")  # as any port could set it
            assert browser.post("/login", data={"token": token, "csrf": csrf.group(1)},
                                headers={**headers, "Cookie": unprefixed}).status_code == 403
            logged = browser.post("/login", data={"token": token, "csrf": csrf.group(1)},
                                  headers=headers)
            assert logged.status_code == 303
            assert {cookie.split("=")[0] for cookie in logged.headers.get_list("set-cookie")} == \
                {"__Host-arena_session", "__Host-arena_csrf"}
            assert all("secure" in cookie.lower() for cookie in logged.headers.get_list("set-cookie"))
            headers["Origin"] = server.url  # http://: not what the browser saw
            assert browser.post("/login", data={"token": token, "csrf": csrf.group(1)},
                                headers=headers).status_code == 403


def test_a_huge_or_malformed_number_is_a_400_or_a_404_never_a_500(served):
    server, tokens, _ = served
    huge = "9" * 23
    with server.client(tokens["ada"]) as ada, server.client() as anonymous:
        for bad in (huge, "9223372036854775808", "-1", "0", "1e3", "abc", "%00"):
            answer = ada.get(f"/api/submissions/{bad}")
            assert answer.status_code == 404 and list(answer.json()) == ["error"], bad
        for bad in (huge, "-5", "abc", "1.5"):
            assert anonymous.get("/games", params={"before": bad}).status_code == 400, bad
        assert anonymous.get("/games", params={"before": 2**63 - 1}).status_code == 200
        assert anonymous.get("/api/games", params={"limit": huge}).status_code == 400
        for path in (f"/games/s{'9' * 4000}-r1", f"/api/games/s{huge}-r1", f"/replays/s{huge}-r1.json",
                     f"/entrants/{'x' * 4000}", f"/api/bots/{'x' * 4000}/logs"):
            code = (ada if path.startswith("/api/bots") else anonymous).get(path).status_code
            assert code in (403, 404), path


def test_bot_text_on_every_page_is_printable(served):
    server, tokens, tmp = served
    # (YAML takes no raw C1 character: the manifest has C0 and bidi ones, stderr has C1 too)
    bot = python_bot(tmp / "ada-esc", "escbot", author="Ada\x1b[2J\x1b]0;owned\x07 \u202eevil",
                     language="py\u2066thon", stderr="\x1b[31mred\u202e\x9b")
    with server.client(tokens["ada"]) as ada:
        assert decided(ada, upload(ada, packed(bot)).json()["id"])["status"] == "accepted"
        wait_for(lambda: ada.get("/api/games", params={"entrant": "escbot"}).json()["games"]
                 and ada.get("/api/bots/escbot/logs").json()["logs"], 120,
                 "a game of escbot, and its log")
    with contextlib.closing(logged_in(server.url, tokens["ada"])) as browser:
        for page in ("/", "/entrants/escbot", "/my", "/my/logs/escbot", "/games",
                     "/head-to-head?a=escbot&b=house-random"):
            text = browser.get(page).text
            raw = [c for c in ("\x1b", "\x07", "\x9b", "\u202e", "\u2066") if c in text]
            assert not raw, (page, raw)
        entrant = browser.get("/entrants/escbot").text
        assert "Ada\\x1b[2J\\x1b]0;owned\\x07 \\u202eevil" in entrant and "py\\u2066thon" in entrant
        assert "\\x1b[31mred\\u202e\\x9b" in browser.get("/my/logs/escbot").text


def test_sessions_expire_are_capped_and_end_with_revoke(served):
    server, _, _ = served
    token = invite(server.league, "sessions")
    browsers = [logged_in(server.url, token) for _ in range(SESSIONS_KEPT + 2)]
    try:
        with sqlite3.connect(server.league / DATABASE) as db:
            rows = db.execute("SELECT COUNT(*) FROM sessions JOIN participants ON "
                              "participants.id = sessions.participant WHERE name = 'sessions'")
            assert rows.fetchone()[0] == SESSIONS_KEPT
        assert [b.get("/my").status_code for b in browsers] == [401] * 2 + [200] * SESSIONS_KEPT
        idle, old = browsers[-1], browsers[-2]
        with sqlite3.connect(server.league / DATABASE) as db:  # one unused for a day and more
            db.execute("UPDATE sessions SET seen = seen - ? WHERE id_hash = ?",
                       (SESSION_IDLE + 1, token_hash(idle.cookies["arena_session"])))
            db.execute("UPDATE sessions SET created = created - ? WHERE id_hash = ?",
                       (SESSION_MAX_AGE + 1, token_hash(old.cookies["arena_session"])))
        assert idle.get("/my").status_code == 401 and old.get("/my").status_code == 401
        assert browsers[-3].get("/my").status_code == 200
        assert arena("league", "revoke", server.league, "sessions").returncode == 0
        assert browsers[-3].get("/my").status_code == 401
        with sqlite3.connect(server.league / DATABASE) as db:
            rows = db.execute("SELECT COUNT(*) FROM sessions JOIN participants ON "
                              "participants.id = sessions.participant WHERE name = 'sessions'")
            assert rows.fetchone()[0] == 0
    finally:
        for browser in browsers:
            browser.close()


def _closed(connection: socket.socket) -> bool:
    """Whether the server has closed ``connection`` (non-blocking: what it sent is read away)."""
    try:
        while connection.recv(65536):
            pass
    except BlockingIOError:
        return False
    except OSError:  # reset
        return True
    return True


def test_idle_slow_and_oversized_connections_are_closed_and_others_are_served(served):
    server, tokens, _ = served
    address = (urlsplit(server.url).hostname or "", urlsplit(server.url).port or 80)
    held = [socket.create_connection(address) for _ in range(400)]  # each sends nothing
    slow_headers = socket.create_connection(address)
    slow_headers.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")
    slow_body = socket.create_connection(address)
    slow_body.sendall(b"POST /api/submissions HTTP/1.1\r\nHost: x\r\n"
                      b"Authorization: Bearer " + tokens["ada"].encode() + b"\r\n"
                      b"Content-Type: multipart/form-data; boundary=b\r\n"
                      b"Content-Length: 100000\r\n\r\n--b\r\n")
    oversized = socket.create_connection(address)
    oversized.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * HEADER_BYTES)  # no end
    trickled = [slow_headers, slow_body]
    everything = [*held, *trickled, oversized]
    try:
        assert oversized.recv(12) == b"HTTP/1.1 400"
        for connection in everything:
            connection.setblocking(False)
        with server.client() as client:  # the server answers others meanwhile
            assert client.get("/api/games", params={"limit": 1}).status_code == 200

        def all_closed() -> bool:
            for connection in trickled:  # a byte now and then: never idle
                with contextlib.suppress(OSError):
                    connection.send(b"X")
            return all(_closed(connection) for connection in everything)

        wait_for(all_closed, HEADERS_SECONDS + BODY_GRACE_SECONDS + 60,
                 "the server to close the idle and slow connections")
        with server.client() as client:
            assert client.get("/api/games", params={"limit": 1}).status_code == 200
    finally:
        for connection in everything:
            connection.close()


def test_a_participant_has_at_most_three_uploads_waiting(served):
    server, _, tmp = served
    token = invite(server.league, "patient")
    slow = own_bot(tmp, "slow", C_BOT)
    (slow / "bot.yaml").write_text("name: slow\nrun: ./bot\nbuild: sleep 20\n")
    with server.client(token) as client:
        codes = [upload(client, packed(slow)).status_code for _ in range(4)]
    assert codes == [202, 202, 202, 429]


def test_failed_logins_are_limited_per_address_and_a_valid_token_is_never_refused(
        tmp_path: Path) -> None:
    # A server of its own (serving only): the limit it reaches would refuse the module's other
    # tests from this address with 429 where they check a 401.
    with served_alone(tmp_path) as (server, token):
        with server.client("not-a-token") as wrong:
            # X-Forwarded-For from a client (no --forwarded-allow-ips) is not believed: a new
            # address in it each time is still this one
            codes = [wrong.get("/api/submissions/1",
                               headers={"X-Forwarded-For": f"10.1.0.{n}"}).status_code
                     for n in range(11)]
        assert codes == [401] * 10 + [429]  # a fresh server: ten failures, then refused
        with server.client(token) as ada:  # a valid token from that address still works
            assert ada.get("/api/games", params={"limit": 1}).status_code == 200
            assert ada.get("/api/submissions/1").status_code == 404  # valid: not 401, not 429
        with contextlib.closing(logged_in(server.url, token)) as browser:  # and logs in
            assert browser.get("/my").status_code == 200
            refused = browser.post("/login",
                                   data={"token": "wrong", "csrf": form_token(browser, "/login")})
            assert refused.status_code == 429
