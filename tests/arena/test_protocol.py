"""docs/protocol.md shows the messages the arena sends: each example line is what ``arena.protocol``
builds, and the page's two example games, replayed by real processes that play their moves, are
sent line for line as the page shows them."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

from arena import protocol
from arena.bots.process import BotProcess
from arena.bots.shutdown import close_bots
from arena.referee.referee import play_game
from arena.settings import TimeControl

from helpers import sent_lines

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "protocol.md"
PLAYS_GIVEN = ROOT / "tests" / "bots" / "plays_given.py"
ELIDED = "... [elided"
"""How the page marks lines of an example left out."""
TIME = TimeControl(move_ms=1000, bank_ms=10_000)
"""The examples' time control: ``time_ms`` 11000, ``move_ms`` plus the whole bank."""


def arena_lines(text: str) -> list[str]:
    """Every line the page shows the arena writing (``arena> ``, the prefix taken off), in order;
    an elision mark where the page leaves lines out."""
    lines = []
    for line in text.splitlines():
        if line.startswith("arena> "):
            lines.append(line.removeprefix("arena> "))
        elif line.startswith(ELIDED):
            lines.append(ELIDED)
    return lines


def example(title: str) -> str:
    """The page's section ``## Example: title``."""
    match = re.search(rf"^## Example: {re.escape(title)}\n(.*?)(?=^## |\Z)", PAGE.read_text(),
                      re.MULTILINE | re.DOTALL)
    assert match, f"docs/protocol.md has no section '## Example: {title}'"
    return match.group(1)


def test_the_pages_messages_are_built_as_shown() -> None:
    """``hello``, ``game_start``, ``game_end`` and ``quit`` are what the protocol module builds from
    their fields; every other message shown is a line as the arena writes it (compact JSON)."""
    built = set()
    for line in arena_lines(PAGE.read_text()):
        if line == ELIDED or "{...}" in line:  # an act whose view the page leaves out
            continue
        fields = orjson.loads(line)
        kind = fields["type"]
        if kind == "hello":
            assert fields["id"] == protocol.HELLO_ID
            made = protocol.hello(fields["games"])
        elif kind == "game_start":
            made = protocol.game_start(fields["game"], fields["options"], fields["players"],
                                       fields["names"], fields["seat"], fields["seed"],
                                       fields.get("teams"))
        elif kind == "game_end":
            made = protocol.game_end(fields["scores"], fields["ranks"])
        elif kind == "quit":
            made = protocol.QUIT
        else:
            made = protocol.line(fields)
        built.add(kind)
        assert made == line.encode() + b"\n"
    assert {"hello", "game_start", "deal_start", "event", "act", "game_end", "quit"} <= built


def actions_by_seat(lines: list[str], players: int) -> list[list[Any]]:
    """Each seat's actions, in order, in the game an example shows: each deal's auction from its
    ``deal_end``, its plays from the last ``act``'s view of the deal and the plays after it (so
    an example may leave tricks out)."""
    actions: list[list[Any]] = [[] for _ in range(players)]
    plays: list[list[Any]] = []
    for line in lines:
        if line == ELIDED:
            continue
        message = json.loads(line)
        if message["type"] == "act":
            plays = list(message["view"]["plays"])
        elif message.get("event") == "play":
            plays.append([message["seat"], message["card"]])
        elif message.get("event") == "deal_end":
            for seat, action in [*message.get("bids", message.get("calls", [])), *plays]:
                actions[seat].append(action)
            plays = []
    return actions


def blocks(lines: list[str]) -> list[list[str]]:
    """The runs of lines between elision marks."""
    runs: list[list[str]] = [[]]
    for line in lines:
        if line == ELIDED:
            runs.append([])
        else:
            runs[-1].append(line)
    return runs


EXAMPLES = {
    "a whole Blackout game from one seat": ("blackout", 3, {"deals": 2}, 7),
    "a Partnership Blackout deal from one seat": ("partnership-blackout", 4,
                                                  {"target": 1, "max_deals": 1}, 36),
}
"""Each example of the page: its game, players, options and seed, as its text says."""


@pytest.mark.parametrize("title", sorted(EXAMPLES))
def test_an_example_game_is_sent_as_the_page_shows_it(title: str) -> None:
    game, players, options, seed = EXAMPLES[title]
    shown = arena_lines(example(title))
    start = json.loads(next(line for line in shown if '"type":"game_start"' in line))
    assert start["seat"] == 0
    actions = actions_by_seat(shown, players)
    replies = [json.loads(line.removeprefix("bot<").strip())
               for line in example(title).splitlines() if line.startswith("bot<")]
    if ELIDED not in shown:  # seat 0's, as it replied
        assert actions[0] == [reply["action"] for reply in replies[1:]]
    bots = [BotProcess(f"seat{seat}", [sys.executable, "-S", str(PLAYS_GIVEN),
                                       json.dumps(actions[seat])], start_timeout=60.0)
            for seat in range(players)]
    try:
        with sent_lines() as sent:
            for bot in bots:
                bot.start()
            record = play_game(game, bots, seed, options, names=start["names"],
                               time_control=TIME).record
            close_bots(bots)
    finally:
        close_bots(bots, grace=0)
    assert record["faults"] == []
    lines, at = sent.lines["seat0"], 0
    for run in blocks(shown):  # in order, each run whole
        found = next((index for index in range(at, len(lines) - len(run) + 1)
                      if lines[index:index + len(run)] == run), None)
        assert found is not None, f"not sent as shown: {run[0]}"
        at = found + len(run)
    assert (lines[0], lines[-1]) == (shown[0], shown[-1])  # from hello to quit
