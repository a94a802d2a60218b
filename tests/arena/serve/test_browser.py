"""The served pages in headless Chromium (Debian's, driven by Selenium as the report's tests do):
a participant's whole flow, and every bot-controlled string shown as text, never run.

Skipped, with the reason, when Chromium, chromedriver or selenium is missing.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from helpers import C_BOT, FIRST_BOT, new_league, own_bot, submitted

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parents[1] / "report"))
from browser import chromium, console_errors, missing
from served import decided, invite, packed, python_bot, start_server, stop_server, upload

pytestmark = [pytest.mark.slow, pytest.mark.skipif(missing() is not None, reason=str(missing())),
              pytest.mark.timeout(300)]

WAIT = 60  # seconds: generous, the machine may be loaded

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
    submitted(league, own_bot(tmp, "house-random", C_BOT))
    submitted(league, own_bot(tmp, "house-first", FIRST_BOT))
    server = start_server(league, "--jobs", "1")
    try:
        yield server, invite(league, "ada"), tmp
    finally:
        assert stop_server(server) in (0, 130)


@pytest.fixture(scope="module")
def driver():
    with chromium() as browser:
        yield browser


def wait_for(driver: Any, condition: Any) -> Any:
    from selenium.webdriver.support.ui import WebDriverWait
    return WebDriverWait(driver, WAIT).until(condition)


def test_log_in_upload_watch_it_accepted_and_open_a_replay(served, driver):
    from selenium.webdriver.common.by import By
    server, token, tmp = served
    archive = tmp / "mybot.tar.gz"
    archive.write_bytes(packed(own_bot(tmp, "mybot", C_BOT)))
    console_errors(driver)
    driver.get(server.url + "/my")
    assert "log in first" in driver.find_element(By.ID, "error").text
    driver.get(server.url + "/login")
    driver.find_element(By.ID, "token").send_keys("not-my-token")
    driver.find_element(By.ID, "login").click()
    assert "not valid" in driver.find_element(By.ID, "problem").text
    assert len(console_errors(driver)) == 2  # the two 401s, as the browser notes them
    driver.find_element(By.ID, "token").send_keys(token)
    driver.find_element(By.ID, "login").click()
    wait_for(driver, lambda d: d.current_url.endswith("/my"))
    cookie = driver.get_cookie("arena_session")
    assert cookie["httpOnly"] and cookie["sameSite"] == "Strict"
    driver.get(server.url + "/upload")
    driver.find_element(By.ID, "file").send_keys(str(archive))
    driver.find_element(By.ID, "send").click()
    # My submissions reloads itself while one is pending, until it says accepted.
    wait_for(driver, lambda d: d.current_url.endswith("/my") and d.find_elements(
        By.CSS_SELECTOR, "#submissions tr[data-status=accepted]"))
    row = driver.find_element(By.CSS_SELECTOR, "#submissions tr[data-status=accepted]")
    assert "mybot v1" in row.text
    # The league plays it; its entrant page lists its games, each opening the report's viewer.
    def has_games(d: Any) -> bool:
        d.get(server.url + "/entrants/mybot")
        return bool(d.find_elements(By.CSS_SELECTOR, "#games a"))
    wait_for(driver, has_games)
    driver.find_element(By.CSS_SELECTOR, "#games a").click()
    wait_for(driver, lambda d: d.execute_script(
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
    (chatty / "bot.py").write_text(f"print({PAYLOADS['reply']!r}, flush=True)\n")
    with server.client(token) as ada:
        accepted = decided(ada, upload(ada, packed(bot)).json()["id"])
        assert accepted["status"] == "accepted", accepted
        rejected = decided(ada, upload(ada, packed(chatty)).json()["id"])
        assert rejected["status"] == "rejected" and PAYLOADS["reply"] in str(rejected["reason"])
        wait_for(driver, lambda _: ada.get("/api/games", params={"entrant": "xssbot"}).json()["games"]
                 and ada.get("/api/bots/xssbot/logs").json()["logs"])
        game = ada.get("/api/games", params={"entrant": "xssbot", "limit": 1}).json()["games"][0]
    console_errors(driver)
    pages = {"/": ["author"], "/entrants/xssbot": ["language", "author"],
             "/my": ["hello", "reply"], "/my/logs/xssbot": ["stderr"], f"/games/{game['id']}": []}
    for page, shown in pages.items():
        driver.get(server.url + page)
        if page.startswith("/games/"):
            wait_for(driver, lambda d: d.execute_script(
                "return document.getElementById('replay').dataset.step !== undefined"))
        elif page == "/":
            wait_for(driver, lambda d: d.get(server.url + "/") or "xssbot" in d.page_source)
        text = driver.find_element(By.TAG_NAME, "body").text
        for field in shown:
            assert PAYLOADS[field] in text, (page, field)
        assert driver.execute_script(RAN) == ["undefined", 0], page
    assert console_errors(driver) == []
