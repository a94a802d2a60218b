"""`arena show`: one game as text, with decision times, faults, and one seat's view."""

from __future__ import annotations

import re
import subprocess
import sys

import orjson
import pytest

from arena.errors import ConfigError
from arena.report.show import show_game


def first_record(results, with_fault: bool = False) -> dict:
    for line in (results / "games.jsonl").read_bytes().splitlines():
        record = orjson.loads(line)
        if record["faults"] or not with_fault:
            return record
    raise AssertionError("no such game")


@pytest.mark.slow
def test_every_decision_is_shown_with_its_time_or_as_the_fallback(blackout_results):
    record = first_record(blackout_results, with_fault=True)
    text = show_game(record)
    shown = re.findall(r"\d:(?:\w{2}|\d+) \((fb|\d+\.\d ms)\)", text)
    times = [ms for d in record["deals"] for ms in d["bid_ms"] + d["play_ms"]]
    assert len(shown) == len(times)
    assert shown.count("fb") == times.count(None) > 0
    [fault] = record["faults"]
    # numbered within its deal, as the replays number it (the record's number is game-wide)
    before = sum(len(d["bids"]) + len(d["plays"]) for d in record["deals"]
                 if d["deal"] < fault["deal"])
    step = fault["decision"] - before
    assert 1 <= step < fault["decision"] or fault["deal"] == 1
    assert (f"! fault at deal {fault['deal']}, decision {step}: seat {fault['seat']} (crasher) "
            "crash") in text
    assert (f"seat {fault['seat']} (crasher), deal {fault['deal']}, decision {step}: crash"
            in text)  # the table's faults, as `arena play` prints them
    assert "place" in text  # ends with the table `arena play` prints


def test_a_seat_view_shows_no_other_seats_hand(blackout_results):
    record = first_record(blackout_results)
    for seat in range(len(record["names"])):
        text = show_game(record, seat)
        hand_lines = [line for line in text.splitlines() if re.match(r"  seat \d [^(]", line)]
        assert len(hand_lines) == len(record["names"]) * len(record["deals"])
        players = len(record["names"])
        for number, deal in enumerate(record["deals"]):
            lines = hand_lines[number * players:(number + 1) * players]
            for other, line in enumerate(lines):
                cards = set(re.findall(r"\b[2-9TJQKA][CDHS]\b", line))
                assert cards == (set(deal["hands"][seat]) if other == seat else set())


def test_partnership_game_shows_calls_and_contracts(partnership_results):
    record = first_record(partnership_results)
    text = show_game(record, 1)
    assert text.count("calls: ") == len(record["deals"])
    assert "contract: " in text
    # Whose tricks: each trick's winner with its team, and the deal table's `tricks` column says
    # which team it counts first (it read `5-8` for both).
    teams, entrants = record["teams"], record["result"]["entrants"]
    team_of = {seat: team for team, seats in enumerate(teams) for seat in seats}
    won = re.findall(r"-> seat (\d)(.*)", text)
    assert won and all(rest == f" (team {team_of[int(seat)]} {entrants[team_of[int(seat)]]})"
                       for seat, rest in won)
    assert f"(tricks: {entrants[0]}'s-{entrants[1]}'s; each team: the deal's score" in text


@pytest.mark.slow
def test_an_unknown_seat_or_game_is_one_error_line(blackout_results):
    record = first_record(blackout_results)
    with pytest.raises(ConfigError, match="--seat: 4 is not a seat"):
        show_game(record, 4)
    done = subprocess.run([sys.executable, "-c", "from arena.cli import main; main()", "show",
                           str(blackout_results), "no-such-game"], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1
    assert "no game with id 'no-such-game'" in done.stderr
