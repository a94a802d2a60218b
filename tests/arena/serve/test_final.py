"""A closed league served by a real ``arena league serve``: an upload is refused with 403 and the
reason, the pages say the league is closed, the final's table is a page and JSON with its audit's
flags, and the rest of the collusion audit is shown to no participant and no visitor."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest

from arena.formats import TableFormat
from arena.league.final import play_final
from arena.league.final_table import final_table
from arena.league.store import Store
from arena.league.submit import submit

from helpers import ROOT, new_league, own_bot, submitted

sys.path.insert(0, str(Path(__file__).parent))
from served import invite, logged_in, packed, python_bot, start_server, stop_cleanly, upload

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory):
    """A league of three C bots (one entered for ada, invited later: ``--owner ada``), closed,
    with a final of 6 games, served without play."""
    tmp = tmp_path_factory.mktemp("serve-final")
    league = new_league(tmp / "league", options={"deals": "2"})
    for bot in (ROOT / "bots/c/random.bot.yaml", ROOT / "bots/c/first.bot.yaml"):
        submitted(league, bot)
    assert submit(league, own_bot(tmp, "mine"), named_owner="ada").accepted
    store = Store.open(league)
    try:
        store.deadline.close(time.time())
    finally:
        store.close()
    play_final(league, games=6, seed=11, jobs=1)
    token = invite(league, "ada")
    server = start_server(league, "--no-play")
    try:
        yield server, token, tmp
    finally:
        stop_cleanly(server)


def test_an_upload_to_a_closed_league_is_refused_with_the_reason(served) -> None:
    server, token, tmp = served
    with server.client(token) as ada:
        answer = upload(ada, packed(python_bot(tmp / "ada", "latebot")))
        assert answer.status_code == 403, answer.text
        assert "the league is closed for submissions (since " in answer.json()["error"]
    browser = logged_in(server.url, token)
    try:
        page = browser.get("/upload").text
        assert 'id="closed"' in page and 'id="file"' not in page
        assert "The league is closed for submissions (since " in browser.get("/").text
    finally:
        browser.close()


def test_the_final_is_a_page_and_json(served) -> None:
    server, _, _ = served
    field = {"random-c@1", "first-legal-c@1", "mine@1"}
    with server.client() as anyone:
        data = anyone.get("/api/final").json()
        assert {row["name"] for row in data["entrants"]} == field
        assert {v["key"]: v["games"] for v in data["versions"]} == dict.fromkeys(field, 6)
        assert data["final"]["seed"] == 11
        owners = {"random-c@1": "organiser", "first-legal-c@1": "organiser", "mine@1": "ada"}
        assert {row["name"]: row["owner"] for row in data["entrants"]} == owners
        assert {v["key"]: v["owner"] for v in data["versions"]} == owners
        page = anyone.get("/final").text
        assert 'id="final-ranking"' in page and 'id="final-audit"' in page
        assert all(f"<li>{key} (owner {owners[key]}): 6 games</li>" in page for key in field)
        assert page.count('<td class="owner">ada</td>') == 1
        entrant = anyone.get("/entrants/mine").text
        assert "Entered by the organiser for participant ada, its owner." in entrant


def test_the_finals_audit_flags_are_shown_and_the_rest_of_the_audit_is_the_organisers(
        served) -> None:
    """The final decided, /final and /api/final show what its audit flags and how many pairs it
    measured, never an unflagged pair's figures; no other route shows any audit."""
    server, token, tmp = served
    organiser = json.loads(final_table(tmp / "league", fmt=TableFormat.JSON, resamples=0))
    pairs = organiser["audit"]
    assert pairs, "the organiser's table audits the final: else this test shows nothing"
    flagged = [pair for pair in pairs if pair["flagged"]]
    browser = logged_in(server.url, token)
    try:
        with server.client() as anyone, server.client(token) as ada:
            for viewer in (anyone, ada, browser):
                final = viewer.get("/api/final")
                assert final.status_code == 200
                assert final.json()["audit"] == {"measured": len(pairs), "flagged": flagged}
                page = viewer.get("/final").text
                assert (f"No pair flagged of {len(pairs)} measured" in page) == (not flagged)
                assert page.count(" helped by ") == len(flagged)
                for route in ("/", "/api/table", "/entrants/mine", "/my"):
                    text = viewer.get(route).text.lower()
                    assert "audit" not in text and "helped by" not in text, route
    finally:
        browser.close()
