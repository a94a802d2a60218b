"""What a bot writes to stderr reaches its owner alone, through every way a bot can break a game,
on a real ``arena league serve`` over real HTTP.

eve uploads a canary bot (tests/bots/misbehaving/canary.py): it passes the upload's check-bot,
then breaks the league's games in every way in turn, once each, after writing a token to stderr
(among text shaped like the arena's old quotes of stderr). Every page and API route, as an
anonymous visitor and as bob (another participant, logged in and with his token), must hold the
token nowhere; eve finds it where the server shows a bot's stderr: the ``stderr_tail`` of her
faults in the game's record and its replay, and her bot's logs. The first start failure is then
stored again as an arena before this rule stored it (its detail quoting another token of the
canary's stderr, its ``stderr_tail`` empty), as a league played before holds it: that token too
reaches eve alone.

One league and one server for the module: two house bots and the canary (every game seats all
three), one deal a game, start and move allowances only the canary misses, 64 MB of memory.
"""

from __future__ import annotations

import json
import secrets
import shutil
import sqlite3
import sys
from pathlib import Path

import pytest

from arena.league.store import DATABASE

from helpers import MISBEHAVING, submitted, wait_for

sys.path.insert(0, str(Path(__file__).parent))
from served import decided, house_bot, invite, logged_in, packed, start_server, stop_cleanly, upload

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

CANARY = "canary"
FAULTS = [
    ("exit_before_hello", "crash", "could not be started: bot 'canary@1': exited before replying "
                                   "to hello: exited with code 3"),
    ("hello_timeout", "crash", "could not be started: bot 'canary@1': no hello reply within "
                               "4000 ms"),
    ("bad_hello", "crash", "could not be started: bot 'canary@1': bad hello reply: reply is not "
                           "JSON"),
    ("timeout", "timeout", ""),
    ("malformed", "malformed", "reply is not JSON"),
    ("illegal", "illegal", ""),
    ("crash", "crash", "exited with code 3"),
    ("memory", "crash", "memory limit 64 MB exceeded"),
]
"""The ways the canary breaks the league's games, in turn: each fault's kind and how its detail
begins (a start failure is a crash before the game's first decision)."""


def made_league(path: Path) -> Path:
    """Blackout for 3, one deal a game; 4 s to say hello, 1 s a decision with no bank, 64 MB: the
    canary's hello that never comes and its answer that never comes cost the league that, once.
    Never suspended: its three start failures in a row would end its games before the others."""
    from arena.league.settings import LeagueSettings
    from arena.league.store import Store
    from arena.settings import Limits, TimeControl
    from arena.spec import PlaySettings

    play = PlaySettings(time=TimeControl(start_ms=4000, move_ms=1000, bank_ms=0),
                        limits=Limits(memory_mb=64))
    settings = LeagueSettings.checked("blackout", 3, {"deals": "1"}, play, suspend_after=0)
    Store.create(path, settings.stored()).close()
    return path


def canary_bot(parent: Path, token: str) -> Path:
    """eve's bot: it writes ``token`` to stderr and breaks the league's games each way in turn."""
    directory = parent / CANARY
    directory.mkdir(parents=True)
    shutil.copy(MISBEHAVING / "canary.py", directory / "bot.py")
    shutil.copy(MISBEHAVING / "_protocol.py", directory)
    kinds = ",".join(kind for kind, _, _ in FAULTS)
    said = f"api_key={token} (stderr: x) | {token}"
    manifest = {"name": CANARY, "run": ["python3", "-S", "bot.py", kinds, said, "stored"]}
    (directory / "bot.yaml").write_text(json.dumps(manifest))  # JSON is YAML
    return directory


def stored_as_before(league: Path, game: str, stderr: str) -> None:
    """Store the canary's start failure in ``game`` again as an arena stored it before details
    held no stderr: ``stderr`` quoted at the end of its detail (in the game's line and in the
    league's faults table), its ``stderr_tail`` empty."""
    quote = f" (stderr: {stderr})"
    with sqlite3.connect(league / DATABASE, timeout=60) as db:
        (line,) = db.execute("SELECT line FROM games WHERE id = ?", (game,)).fetchone()
        record = json.loads(line)
        for fault in record["faults"]:
            if record["names"][fault["seat"]] == f"{CANARY}@1":
                fault["detail"] += quote
                fault["stderr_tail"] = ""
        db.execute("UPDATE games SET line = ? WHERE id = ?",
                   (json.dumps(record, separators=(",", ":")).encode(), game))
        db.execute("UPDATE faults SET detail = detail || ? WHERE game = ?", (quote, game))


@pytest.fixture(scope="module")
def league(tmp_path_factory: pytest.TempPathFactory):
    """The served league once the canary has broken a game every way: the server, the
    participants' tokens, the canary's token, and its faults ``(game, kind, detail)`` in order."""
    tmp = tmp_path_factory.mktemp("stderr")
    path = made_league(tmp / "league")
    submitted(path, house_bot(tmp, "house-random"))
    submitted(path, house_bot(tmp, "house-first"))
    tokens = {name: invite(path, name) for name in ("eve", "bob")}
    server = start_server(path, "--jobs", "1")
    try:
        token = f"CANARY{secrets.token_hex(8)}"
        with server.client(tokens["eve"]) as eve:
            answer = upload(eve, packed(canary_bot(tmp / "eve", token)))
            assert answer.status_code == 202, answer.text
            result = decided(eve, answer.json()["id"])
            assert result["status"] == "accepted", result
        faults: list[tuple[str, str, str]] = []

        def broke_every_way() -> bool:
            with sqlite3.connect(path / DATABASE) as db:
                faults[:] = db.execute(
                    "SELECT faults.game, faults.kind, faults.detail FROM faults JOIN bots ON "
                    "bots.id = faults.bot WHERE bots.name = ? ORDER BY faults.rowid", (CANARY,))
            return len(faults) >= len(FAULTS)

        wait_for(broke_every_way, 240, "the canary to break a game every way")
        old_token = f"OLDCANARY{secrets.token_hex(8)}"
        stored_as_before(path, faults[0][0], f"canary: api_key={old_token} | more (stderr: x)")
        yield server, tokens, (token, old_token), faults
    finally:
        stop_cleanly(server)


def test_the_canary_broke_a_game_every_way_once(league):
    _, _, _, faults = league
    found = [(kind, detail) for _, kind, detail in faults]
    assert len(found) == len(FAULTS), found
    for (kind, detail), (way, expected, start) in zip(found, FAULTS, strict=True):
        assert kind == expected and detail.startswith(start), (way, kind, detail)


ENTRANTS = (CANARY, "house-random", "house-first")


def every_route(games: list[str]) -> list[str]:
    """Every page and API route that shows a game, an entrant, a participant's things or the
    table: those of each entrant, and those of each game in ``games``."""
    routes = ["/", "/games", "/api/games?limit=500", "/api/table", "/head-to-head", "/my"]
    for name in ENTRANTS:
        routes += [f"/entrants/{name}", f"/games?entrant={name}", f"/api/games?entrant={name}",
                   f"/games?entrant={name}&opponent=house-first",
                   f"/head-to-head?a={name}&b=house-random", f"/my/logs/{name}",
                   f"/api/bots/{name}/logs"]
    for game in games:
        routes += [f"/games/{game}", f"/replays/{game}.json", f"/api/games/{game}"]
    return routes


def test_no_response_to_anyone_but_the_owner_holds_the_canary(league):
    server, tokens, canaries, faults = league
    games = sorted({game for game, _, _ in faults})
    bob_page, bob_api, anonymous = (logged_in(server.url, tokens["bob"]),
                                    server.client(tokens["bob"]), server.client())
    try:
        wait_for(lambda: anonymous.get("/api/table").status_code == 200, 120, "the table")
        for route in every_route(games):
            # The pages know a participant by the session, the API by the token alone.
            bob = ("bob's token", bob_api) if route.startswith("/api/") else ("bob", bob_page)
            for who, client in (("anyone", anonymous), bob):
                answer = client.get(route)
                assert answer.status_code in (200, 401, 403), (who, route, answer.status_code)
                for token in canaries:
                    assert token not in answer.text, f"{route} shows the canary's stderr to {who}"
        for game in games:  # those routes showed the games, faults and all
            record = anonymous.get(f"/api/games/{game}").json()
            assert record["faults"] and all(f["stderr_tail"] == "" for f in record["faults"])
    finally:
        for client in (bob_page, bob_api, anonymous):
            client.close()


def test_its_owner_sees_the_canary_where_stderr_is_shown(league):
    server, tokens, (token, old_token), faults = league
    eve_page, eve_api = logged_in(server.url, tokens["eve"]), server.client(tokens["eve"])
    try:
        for game, kind, _ in faults:
            record = eve_api.get(f"/api/games/{game}").json()
            [mine] = [f for f in record["faults"] if record["names"][f["seat"]] == f"{CANARY}@1"]
            said = old_token if game == faults[0][0] else token  # stored as before: moved
            assert said in mine["stderr_tail"] and said not in mine["detail"], (kind, mine)
            assert said in eve_page.get(f"/replays/{game}.json").text, kind
        logs = eve_api.get(f"/api/bots/{CANARY}/logs").json()["logs"]
        assert any(token in log["tail"] for log in logs)
        assert token in eve_page.get(f"/my/logs/{CANARY}").text
        entrant = eve_page.get(f"/entrants/{CANARY}").text
        assert token not in entrant and old_token not in entrant  # no detail quotes stderr
    finally:
        eve_page.close()
        eve_api.close()
