"""The schema of a results line: what the writer writes, field for field and in order, what
docs/records.md says, and what the engine and the faults contribute, all the same thing."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import pytest

import engine
from arena.executors.batch import close_batch_bots, play_batch
from arena.records.check import record_problem
from arena.records.schema import (
    CONTRACT,
    DEAL,
    FAULT,
    FORMAT,
    GAME,
    PARTS,
    RESULT,
    TIME_CONTROL,
    Part,
    markdown_table,
    without_times,
)
from arena.records.upgrade import upgrade
from arena.records.writer import fault_entry, serialise
from arena.settings import TimeControl
from arena.values.faults import Fault, FaultKind, TimeLimit
from arena.values.work import BotCommand, GameSpec, RunSettings

ROOT = Path(__file__).resolve().parents[3]
DOCS = ROOT / "docs" / "records.md"
C_BOT = (str(ROOT / "bots" / "c" / "random_bot"),)
ILLEGAL = (sys.executable, "-S", str(ROOT / "tests" / "bots" / "misbehaving" / "illegal.py"),
           "junk", "3")

pytestmark = pytest.mark.timeout(120)


def test_docs_hold_every_part_as_the_schema_says_it() -> None:
    text = DOCS.read_text()
    for part in PARTS:
        assert markdown_table(part) in text, f"docs/records.md: table of {part.title!r} differs:\n" \
                                             f"{markdown_table(part)}"


def test_docs_document_no_field_the_schema_lacks() -> None:
    documented = re.findall(r"^\| `([a-z_]+)` \|", DOCS.read_text(), re.MULTILINE)
    declared = [field.name for part in PARTS for field in part.fields]
    assert sorted(documented) == sorted(declared)


def test_every_field_says_what_older_lines_get_when_they_may_lack_it() -> None:
    for part in PARTS:
        for field in part.fields:
            assert 1 <= field.since <= FORMAT, field.name
            assert (field.older is not None) == (field.since > 1), field.name
            assert not (field.when and field.beside), field.name
            if field.beside is not None:
                assert field.beside in part.by_name, field.name


def _lines() -> list[dict[str, Any]]:
    """Results lines of real games: Blackout and Partnership Blackout, each with a fault."""
    settings = RunSettings(bots={"c": BotCommand(C_BOT), "bad": BotCommand(ILLEGAL)},
                           time_control=TimeControl(20_000, 5_000, 20_000))
    specs = [GameSpec("r1-t0000-s0", "blackout", {"deals": 3}, ("c", "bad", "c"), 5, 1, 0, 0),
             GameSpec("r1-t0001-s1", "partnership-blackout", {"max_deals": 2},
                      ("c", "bad", "c", "c"), 6, 1, 1, 1)]
    try:
        return play_batch(specs, settings)
    finally:
        close_batch_bots()


def _in_schema_order(obj: dict[str, Any], part: Part) -> None:
    names = [field.name for field in part.fields]
    assert list(obj) == [name for name in names if name in obj], part.title
    assert [f.name for f in part.fields if f.required and f.name not in obj] == [], part.title


def test_the_writer_writes_the_schema_in_order() -> None:
    lines = _lines()
    seen: set[str] = set()
    for line in lines:
        assert record_problem(line) is None
        assert upgrade(line) is line  # the current format: nothing to upgrade
        assert serialise(line).startswith(b'{"format":%d,"id":' % FORMAT)
        assert serialise(line).endswith(b"}\n") and serialise(line).count(b"\n") == 1
        _in_schema_order(line, GAME)
        _in_schema_order(line["result"], RESULT)
        _in_schema_order(line["time_control"], TIME_CONTROL)
        assert line["faults"], "each game has a fault"
        for fault in line["faults"]:
            _in_schema_order(fault, FAULT)
        for deal in line["deals"]:
            _in_schema_order(deal, DEAL)
            if deal.get("contract") is not None:
                _in_schema_order(deal["contract"], CONTRACT)
        seen.update(line)
        seen.update(key for deal in line["deals"] for key in deal)
    optional = {field.name for part in (GAME, DEAL) for field in part.fields if not field.required}
    assert optional - seen == {"preset"}  # both games' fields written; no preset in a run


def test_without_times_leaves_what_two_plays_of_a_game_share() -> None:
    line = _lines()[0]
    kept = without_times(line)
    measured = {f.name for f in GAME.fields if f.measured} | {f.name for f in DEAL.fields
                                                              if f.measured}
    assert measured == {"bank_used_ms", "stalls", "bid_ms", "call_ms", "play_ms", "bid_cpu_ms",
                        "call_cpu_ms", "play_cpu_ms"}
    assert set(line) - set(kept) == {"bank_used_ms", "stalls"}
    assert set(line["deals"][0]) - set(kept["deals"][0]) == {"bid_ms", "play_ms", "bid_cpu_ms",
                                                              "play_cpu_ms"}


def test_a_fault_entry_is_the_schema_fault() -> None:
    fault = Fault(FaultKind.TIMEOUT, "b", "slow", "sent", "got", "tail", 1.5, exit_code=3,
                  signal="SIGKILL", memory_peak_mb=12.0, cpu=0.5, limit=TimeLimit.CPU)
    entry = fault_entry(fault, 2, 4, 17)
    assert list(entry) == [field.name for field in FAULT.fields]
    assert all(field.type.test(entry[field.name]) for field in FAULT.fields)


@pytest.mark.parametrize("name", sorted(engine.GAMES))
def test_the_engine_record_holds_only_fields_of_the_schema(name: str) -> None:
    game = engine.game(name)
    players = min(game.info.player_counts)
    state = game.new_game(players, 3, None)
    while state.to_act is not None:
        state = game.apply(state, game.legal_actions(state)[0])
    record = game.record(state, [f"p{seat}" for seat in range(players)])
    assert set(record) <= set(GAME.by_name)
    assert list(record) == [f.name for f in GAME.fields if f.name in record]
    for deal in record["deals"]:
        assert list(deal) == [f.name for f in DEAL.fields if f.name in deal]
