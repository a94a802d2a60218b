"""The served pages in headless Chromium (Debian's, driven by Selenium as the report's tests do):
a participant's whole flow, every bot-controlled string shown as text, never run, and a hostile
site (a second server on another loopback port: the same site as the arena, another origin)
that tosses cookies into the participant's browser to forge their forms, and includes their
replay to read their stderr, in vain.

Skipped, with the reason, when Chromium, chromedriver or selenium is missing.
"""

from __future__ import annotations

import base64
import sqlite3
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from arena.league.database import DATABASE

from browser import console_errors, missing, page_wait
from helpers import C_BOT, new_league, own_bot, submitted

sys.path.insert(0, str(Path(__file__).parent))
from served import decided, house_bot, invite, packed, python_bot, start_server, stop_cleanly, upload

pytestmark = [pytest.mark.slow, pytest.mark.skipif(missing() is not None, reason=str(missing())),
              pytest.mark.timeout(300)]

PAYLOADS = {
    "language": "<script>xss=2</script>",
    "author": "\"'><svg onload=xss=3><b>bold</b>",
    "stderr": "<script>xss=4</script><img src=x onerror=xss=5>",
    "hello": "</pre><img src=x onerror=xss=6>",
    "reply": "<img src=x onerror=xss=7>",
}
RAN = "return [typeof window.xss, document.querySelectorAll('img[onerror], svg[onload], b, " \
      "script:not([src])').length]"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory):
    tmp = tmp_path_factory.mktemp("serve-browser")
    league = new_league(tmp / "league", options={"deals": "1"})
    submitted(league, house_bot(tmp, "house-random"))
    submitted(league, house_bot(tmp, "house-first"))
    server = start_server(league, "--jobs", "1")
    try:
        yield server, invite(league, "ada"), tmp
    finally:
        stop_cleanly(server)


def test_log_in_upload_watch_it_accepted_and_open_a_replay(served, driver):
    from selenium.webdriver.common.by import By
    server, token, tmp = served
    archive = tmp / "mybot.tar.gz"
    archive.write_bytes(packed(own_bot(tmp, "mybot", C_BOT)))
    console_errors(driver)
    driver.get(server.url + "/")
    driver.delete_all_cookies()  # logged out, whichever of this module's tests ran here before
    driver.get(server.url + "/my")
    assert "log in first" in driver.find_element(By.ID, "error").text
    driver.get(server.url + "/login")
    driver.find_element(By.ID, "token").send_keys("not-my-token")
    driver.find_element(By.ID, "login").click()
    assert "not valid" in driver.find_element(By.ID, "problem").text
    assert len(console_errors(driver)) == 2  # the two 401s, as the browser notes them
    driver.find_element(By.ID, "token").send_keys(token)
    driver.find_element(By.ID, "login").click()
    page_wait(driver, lambda d: d.current_url.endswith("/my"))
    cookie = driver.get_cookie("arena_session")
    assert cookie["httpOnly"] and cookie["sameSite"] == "Strict"
    driver.get(server.url + "/upload")
    driver.find_element(By.ID, "file").send_keys(str(archive))
    driver.find_element(By.ID, "send").click()
    # My submissions reloads itself while one is pending, until it says accepted.
    # (Its row: another test of this module may have had one of ada's uploads accepted before.)
    page_wait(driver, lambda d: d.current_url.endswith("/my") and any(
        "mybot v1" in row.text
        for row in d.find_elements(By.CSS_SELECTOR, "#submissions tr[data-status=accepted]")))
    # The league plays it; its entrant page lists its games, each opening the report's viewer.
    def has_games(d: Any) -> bool:
        d.get(server.url + "/entrants/mybot")
        return bool(d.find_elements(By.CSS_SELECTOR, "#games a"))
    page_wait(driver, has_games)
    driver.find_element(By.CSS_SELECTOR, "#games a").click()
    page_wait(driver, lambda d: d.execute_script(
        "return document.getElementById('replay').dataset.step !== undefined"))
    assert "mybot@1" in driver.find_element(By.ID, "replay").text
    assert console_errors(driver) == [], console_errors(driver)


def test_no_bot_controlled_text_runs_on_any_page(served, driver):
    from selenium.webdriver.common.by import By
    server, token, tmp = served
    # name and version follow rules that leave no room for markup (docs/league.md); the rest is free
    bot = python_bot(tmp, "xssbot", language=PAYLOADS["language"],
                     author=PAYLOADS["author"], stderr=PAYLOADS["stderr"])
    source = (bot / "bot.py").read_text().replace('NAME = "random-py"',
                                                  f"NAME = {PAYLOADS['hello']!r}")
    (bot / "bot.py").write_text(source)
    chatty = python_bot(tmp, "chatty")
    # A long word after it: the rejection's reason wraps instead of widening its table.
    (chatty / "bot.py").write_text(f"print({PAYLOADS['reply'] + '=' * 400!r}, flush=True)\n")
    with server.client(token) as ada:
        accepted = decided(ada, upload(ada, packed(bot)).json()["id"])
        assert accepted["status"] == "accepted", accepted
        rejected = decided(ada, upload(ada, packed(chatty)).json()["id"])
        assert rejected["status"] == "rejected" and PAYLOADS["reply"] in str(rejected["reason"])
        page_wait(driver, lambda _: ada.get("/api/games", params={"entrant": "xssbot"}).json()["games"]
                 and ada.get("/api/bots/xssbot/logs").json()["logs"])
        game = ada.get("/api/games", params={"entrant": "xssbot", "limit": 1}).json()["games"][0]
    # Logged in here, not by the test before: pytest-xdist may run that one in another process,
    # with its own browser and server (this one then met /my logged out).
    log_in(driver, server.url, token)
    console_errors(driver)
    pages = {"/": ["author"], "/entrants/xssbot": ["language", "author"],
             "/my": ["hello", "reply"], "/my/logs/xssbot": ["stderr"], f"/games/{game['id']}": []}
    for page, shown in pages.items():
        driver.get(server.url + page)
        if page.startswith("/games/"):
            page_wait(driver, lambda d: d.execute_script(
                "return document.getElementById('replay').dataset.step !== undefined"))
        elif page == "/":
            page_wait(driver, lambda d: d.get(server.url + "/") or "xssbot" in d.page_source)
        text = driver.find_element(By.TAG_NAME, "body").text
        for field in shown:
            assert PAYLOADS[field] in text, (page, field)
        if page == "/my":  # nothing wider than the page; no link to a version never stored
            assert driver.execute_script(
                "const t = document.getElementById('submissions');"
                "return t.scrollWidth <= t.parentElement.clientWidth") is True
            assert not driver.find_elements(By.CSS_SELECTOR, "a[href='/entrants/chatty']")
        assert driver.execute_script(RAN) == ["undefined", 0], page
    assert console_errors(driver) == []
    # On a phone the table fits the screen: no sideways scrolling to see an entrant's Elo.
    size = driver.get_window_size()
    driver.set_window_size(320, 740)
    try:
        driver.get(server.url + "/")
        box, shown, screen = driver.execute_script(
            "const box = document.getElementById('ranking').parentElement;"
            "return [box.scrollWidth, box.clientWidth, document.documentElement.clientWidth]")
        assert box <= shown <= screen <= 320, (box, shown, screen)
        assert "xssbot" in driver.find_element(By.ID, "ranking").text
    finally:
        driver.set_window_size(size["width"], size["height"])


SAYS = Path(__file__).resolve().parents[2] / "bots" / "says_each_decision.py"


class HostileSite:
    """A site on another loopback port (cookies ignore ports: the arena's cookies are its cookies
    too, and its pages are the same site as the arena's), serving the pages a test gives it."""

    def __init__(self) -> None:
        pages: dict[str, tuple[list[tuple[str, str]], str]] = {}
        self.pages = pages

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                headers, body = pages.get(self.path, ([], "no such page"))
                data = body.encode()
                self.send_response(200 if self.path in pages else 404)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                for name, value in headers:
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="module")
def hostile() -> Iterator[HostileSite]:
    site = HostileSite()
    try:
        yield site
    finally:
        site.close()


def log_in(driver: Any, url: str, token: str) -> None:
    """Log in on the arena's own login page, as the participant does."""
    from selenium.webdriver.common.by import By
    driver.delete_all_cookies()
    driver.get(url + "/login")
    driver.find_element(By.ID, "token").send_keys(token)
    driver.find_element(By.ID, "login").click()
    page_wait(driver, lambda d: d.current_url.endswith("/my"))


TOSS = "arena_csrf=x; Path=/"  # the Set-Cookie of the hostile site: the same host, so the arena's


def test_a_tossed_cookie_cannot_forge_an_upload(served, driver, hostile):
    server, token, tmp = served
    forged = packed(python_bot(tmp / "forged", "forged"))
    hostile.pages["/upload"] = ([("Set-Cookie", TOSS)], f"""<!DOCTYPE html><body>
<form id="f" method="post" action="{server.url}/upload" enctype="multipart/form-data">
<input type="hidden" name="csrf" value="x"><input type="file" name="file" id="file"></form>
<script>
const bytes = Uint8Array.from(atob("{base64.b64encode(forged).decode()}"), (c) => c.charCodeAt(0));
const files = new DataTransfer();
files.items.add(new File([bytes], "bot.tar.gz"));
document.getElementById("file").files = files.files;
document.getElementById("f").submit();
</script></body>""")
    from selenium.webdriver.common.by import By
    log_in(driver, server.url, token)
    uploads = _uploads(server.league)
    driver.get(hostile.url + "/upload")
    page_wait(driver, lambda d: d.current_url.startswith(server.url))
    assert driver.get_cookie("arena_csrf")["value"] == "x"  # the cookie was tossed
    assert driver.current_url == server.url + "/upload"  # refused: not redirected to /my
    assert "not from this server's pages" in driver.find_element(By.ID, "error").text
    assert _uploads(server.league) == uploads
    driver.get(server.url + "/my")  # still logged in: nothing else changed
    assert "Log out ada" in driver.find_element(By.TAG_NAME, "nav").text


def test_a_tossed_cookie_cannot_log_the_browser_in_as_another(served, driver, hostile):
    from selenium.webdriver.common.by import By
    server, _, _ = served
    mallory = invite(server.league, "mallory")
    hostile.pages["/login"] = ([("Set-Cookie", TOSS)], f"""<!DOCTYPE html><body>
<form id="f" method="post" action="{server.url}/login">
<input type="hidden" name="csrf" value="x"><input type="hidden" name="token" value="{mallory}"></form>
<script>document.getElementById("f").submit();</script></body>""")
    driver.delete_all_cookies()
    driver.get(server.url + "/")  # a visitor of the arena, logged out: it has a pre-session
    driver.get(hostile.url + "/login")
    page_wait(driver, lambda d: d.current_url.startswith(server.url))
    assert driver.get_cookie("arena_session") is None
    driver.get(server.url + "/")
    assert "mallory" not in driver.find_element(By.TAG_NAME, "nav").text


def test_another_site_cannot_read_a_replay_with_the_participants_cookies(served, driver, hostile):
    from selenium.webdriver.common.by import By
    server, token, tmp = served
    bot = python_bot(tmp / "says", "saysbot")
    (bot / "bot.py").write_text(SAYS.read_text())
    with server.client(token) as ada:
        assert decided(ada, upload(ada, packed(bot)).json()["id"])["status"] == "accepted"
        found: list[dict[str, Any]] = []

        def played() -> bool:
            found[:] = ada.get("/api/games", params={"entrant": "saysbot", "limit": 1}).json()["games"]
            return bool(found)

        page_wait(driver, lambda _: played())
        game = ada.get(f"/api/games/{found[0]['id']}").json()
    game_id, first_deal = game["id"], game["deals"][0]["deal"]
    log_in(driver, server.url, token)
    # The arena's own replay shows ada what her bot wrote while deciding: the secret exists.
    driver.get(f"{server.url}/games/{game_id}?deal={first_deal}&step=99")
    page_wait(driver, lambda d: d.execute_script(
        "return document.getElementById('replay').dataset.step !== undefined"))
    assert " act 1 plays " in driver.execute_script(
        "return document.getElementById('replay').textContent")
    hostile.pages["/include"] = ([], f"""<!DOCTYPE html><body><script>
window.stolen = null; window.included = null; window.fetched = null;
window.arenaGame = function () {{ window.stolen = JSON.stringify(Array.from(arguments)); }};
const script = document.createElement("script");
script.src = "{server.url}/replays/{game_id}.js";
script.onload = () => {{ window.included = "loaded"; }};
script.onerror = () => {{ window.included = "refused"; }};
document.head.appendChild(script);
const json = document.createElement("script");  // the JSON as a script: neither run nor read
json.src = "{server.url}/replays/{game_id}.json";
document.head.appendChild(json);
fetch("{server.url}/replays/{game_id}.json", {{ credentials: "include" }})
  .then((answer) => answer.text()).then((text) => {{ window.fetched = text; }})
  .catch((error) => {{ window.fetched = "refused: " + error; }});
</script></body>""")
    driver.get(hostile.url + "/include")
    page_wait(driver, lambda d: d.execute_script(
        "return window.included !== null && window.fetched !== null"))
    stolen, fetched = driver.execute_script("return [window.stolen, window.fetched]")
    assert stolen is None or " act 1 plays " not in stolen, stolen
    assert fetched.startswith("refused: "), fetched[:200]
    console_errors(driver)
    driver.get(server.url + "/")
    assert driver.find_elements(By.CSS_SELECTOR, "nav form")  # still logged in, nothing broken


def _uploads(league: Path) -> list[tuple[int]]:
    with sqlite3.connect(league / DATABASE) as db:
        return db.execute("SELECT id FROM uploads").fetchall()
