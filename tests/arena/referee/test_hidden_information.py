"""No seat is ever told a card of another seat's hand before that card is played.

Spy bots (tests/bots/spy_bot.py, real processes playing random legal actions) sit in every seat of
many games played through ``play_game`` and write down every line they receive. Afterwards each
seat's messages are walked in the order it received them, against the game's record (which holds
every hand): every card named anywhere in a message must be in the seat's own hand of the current
deal, the turned trump card, or a card whose play was already announced to the seat in this deal;
a play announcement must be the next play of the record (so no play is told early); every ``act``
offers only cards the seat still holds, and its view shows exactly the plays so far.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

import engine
from arena.bots.process import BotProcess
from arena.bots.shutdown import close_bots
from arena.referee.referee import play_game
from arena.settings import TimeControl

pytestmark = pytest.mark.timeout(180)

SPY = Path(__file__).resolve().parents[2] / "bots" / "spy_bot.py"
CARD = re.compile(r"(?<![0-9A-Za-z])[2-9TJQKA][CDHS](?![0-9A-Za-z])")
"""A card name as a whole token, also inside a longer string (a leak need not be a list item)."""
TIME = TimeControl(start_ms=20_000, move_ms=5_000, bank_ms=20_000)  # generous: bounds a hang only

BLACKOUT_OPTIONS: list[dict[str, object]] = [
    {},
    {"hook": True, "must_trump": True},
    {"no_trump_last": "always", "sequence": "down"},
    {"sequence": "up_down", "deals": 4},
    {"scoring": "penalty", "zero_bid": "bonus_only"},
    {"must_trump": True},
]
PARTNERSHIP_OPTIONS: list[dict[str, object]] = [
    {"target": 30, "max_deals": 4},
    {"target": 30, "max_deals": 4, "spade_lead": "after_broken"},
    {"target": 20, "max_deals": 3, "spade_lead": "any"},
    {"target": 30, "max_deals": 4, "contract_points": "per_trick"},
    {"target": 30, "max_deals": 4},
]


def card_names(value: Any) -> Iterator[str]:
    """Every card name in a decoded JSON value: in strings anywhere, keys included."""
    if isinstance(value, str):
        yield from CARD.findall(value)
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from CARD.findall(key)
            yield from card_names(item)
    elif isinstance(value, list):
        for item in value:
            yield from card_names(item)


def games_in_log(path: Path) -> list[list[dict[str, Any]]]:
    """A spy's log split into games: the messages from each ``game_start`` to its ``game_end``."""
    games: list[list[dict[str, Any]]] = []
    for line in path.read_bytes().splitlines():
        message = orjson.loads(line)
        if message["type"] == "game_start":
            games.append([])
        if message["type"] not in ("hello", "quit"):
            assert games, f"{path}: {message['type']} before any game_start"
            games[-1].append(message)
    return games


def check_seat(messages: list[dict[str, Any]], record: dict[str, Any], seat: int) -> None:
    """Walk one seat's messages of one game in order; fail on any card it should not know yet."""
    where = f"{record['game']} seed {record['seed']} seat {seat}"
    assert messages[0]["type"] == "game_start" and messages[0]["seat"] == seat, where
    assert messages[-1]["type"] == "game_end", where
    deals = record["deals"]
    deal: dict[str, Any] | None = None
    deal_starts = 0
    own: set[str] = set()  # the seat's whole hand of the current deal, from the record
    held: set[str] = set()  # what it still holds
    public: set[str] = set()  # the turned trump card
    played: set[str] = set()  # plays of this deal announced to it so far
    announced = 0
    for index, message in enumerate(messages):
        kind = message["type"]
        at = f"{where}, message {index} ({kind})"
        if kind == "deal_start":
            if deal is not None:
                assert announced == len(deal["plays"]), f"{at}: plays of the last deal missing"
            assert deal_starts < len(deals), f"{at}: more deals than the record"
            deal = deals[deal_starts]
            deal_starts += 1
            assert message["deal"] == deal["deal"], at
            assert message["hand"] == deal["hands"][seat], f"{at}: not its record hand"
            assert message["trump_card"] == deal["trump_card"], at
            own = set(deal["hands"][seat])
            held = set(own)
            public = {deal["trump_card"]} if deal["trump_card"] else set()
            played = set()
            announced = 0
        elif kind == "event" and message["event"] == "play":
            assert deal is not None, at
            assert announced < len(deal["plays"]), f"{at}: a play the record does not have"
            assert [message["seat"], message["card"]] == deal["plays"][announced], (
                f"{at}: play announced out of order")
            announced += 1
            played.add(message["card"])
            if message["seat"] == seat:
                held.discard(message["card"])
        leaked = set(card_names(message)) - own - public - played
        assert not leaked, f"{at}: told {sorted(leaked)} before they were played: {message}"
        if kind == "act":
            assert deal is not None, at
            view = message["view"]
            assert set(view["hand"]) == held, f"{at}: view hand is not what it holds"
            assert view["plays"] == deal["plays"][:announced], f"{at}: view plays differ"
            if message["kind"] == "play":
                assert deal["plays"][announced][0] == seat, f"{at}: asked out of turn"
                assert message["legal"], at
                assert set(message["legal"]) <= held, f"{at}: legal has cards it does not hold"
    assert deal is not None and announced == len(deal["plays"]), where
    assert deal_starts == len(deals), f"{where}: {deal_starts} deal_starts for {len(deals)} deals"


def play_with_spies(tmp_path: Path, schedule: list[tuple[str, int, dict[str, object]]],
                    ) -> tuple[list[dict[str, Any]], list[Path]]:
    """Play ``schedule`` (game, players, options) with spies in every seat; records and logs.

    The same spy processes play every game (spy i sits in seat i), as a tournament keeps them.
    """
    most = max(players for _, players, _ in schedule)
    logs = [tmp_path / f"spy{seat}.jsonl" for seat in range(most)]
    spies = [BotProcess(f"spy{seat}", [sys.executable, "-S", str(SPY), str(log)])
             for seat, log in enumerate(logs)]
    records = []
    try:
        for spy in spies:
            spy.start()
        for number, (game, players, options) in enumerate(schedule):
            outcome = play_game(game, spies[:players], 9_000 + number, options, time_control=TIME)
            assert outcome.record["faults"] == []
            engine.replay(outcome.record)
            records.append(outcome.record)
    finally:
        close_bots(spies)  # each spy exits on quit, so its log is complete
    return records, logs


def check_all(records: list[dict[str, Any]], logs: list[Path]) -> int:
    """Check every seat of every game; the number of seat-games checked."""
    checked = 0
    for seat, log in enumerate(logs):
        played = [record for record in records if record["players"] > seat]
        games = games_in_log(log)
        assert len(games) == len(played), f"{log.name}: {len(games)} games for {len(played)}"
        for messages, record in zip(games, played, strict=True):
            check_seat(messages, record, seat)
            checked += 1
    return checked


@pytest.mark.slow
def test_no_seat_sees_a_card_of_another_hand_before_it_is_played_in_blackout(tmp_path):
    schedule = [("blackout", 3 + number % 5, BLACKOUT_OPTIONS[number % len(BLACKOUT_OPTIONS)])
                for number in range(30)]
    records, logs = play_with_spies(tmp_path, schedule)
    assert check_all(records, logs) == sum(players for _, players, _ in schedule)


@pytest.mark.slow
def test_no_seat_sees_a_card_of_another_hand_before_it_is_played_in_partnership(tmp_path):
    schedule = [("partnership-blackout", 4, options) for options in PARTNERSHIP_OPTIONS * 2]
    records, logs = play_with_spies(tmp_path, schedule)
    assert check_all(records, logs) == 4 * len(schedule)


def test_the_check_catches_a_leak():
    """The walk itself fails on a message naming a card of another hand (a guard on the guard)."""
    record = {"game": "blackout", "seed": 1, "deals": [
        {"deal": 1, "hands": [["AS"], ["KD"], ["2C"]], "trump_card": "5H",
         "plays": [[1, "KD"], [2, "2C"], [0, "AS"]]}]}
    deal_start = {"type": "deal_start", "deal": 1, "hand": ["AS"], "trump_card": "5H"}
    plays = [{"type": "event", "event": "play", "seat": seat, "card": card}
             for seat, card in record["deals"][0]["plays"]]
    honest = [{"type": "game_start", "seat": 0}, deal_start, *plays,
              {"type": "game_end", "scores": [0, 0, 0], "ranks": [1, 1, 1]}]
    check_seat(honest, record, 0)
    note = {"type": "event", "event": "note", "text": "seat 2 holds 2C"}
    leaky = [*honest[:2], note, *honest[2:]]
    with pytest.raises(AssertionError, match=r"told \['2C'\]"):
        check_seat(leaky, record, 0)
    early = [*honest[:2], plays[1], plays[0], *honest[4:]]
    with pytest.raises(AssertionError, match="out of order"):
        check_seat(early, record, 0)
