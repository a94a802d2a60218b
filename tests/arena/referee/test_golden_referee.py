"""The referee plays the same seeded games, with real bots, as the code the golden digests came from.

Each case starts real bot processes (the seeded C random bot, and misbehaving Python bots for the
fault paths), plays two games in a row with them through ``play_game`` and digests, byte for byte:
every line the arena wrote to each seat (from the process layer's debug log, the same bytes that
went down the pipe) and each game's record less its measured times. Bots are seeded by the game, so
the same code gives the same bytes; a faster referee must too.

The digests in ``tests/engine/golden/referee.json`` were written before the referee was tuned
(issue 22). Regenerate only for an intended change of the protocol or the record:
``python tests/arena/referee/test_golden_referee.py --write``.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

from arena.bots.process import BotProcess
from arena.bots.shutdown import close_bots
from arena.records.schema import without_times
from arena.referee.referee import play_game
from arena.settings import Clock, TimeControl

from helpers import build_c_bots, sent_lines

ROOT = Path(__file__).resolve().parents[3]
GOLDEN = ROOT / "tests" / "engine" / "golden" / "referee.json"
RANDOM_C = str(ROOT / "bots" / "c" / "random_bot")
MISBEHAVING = ROOT / "tests" / "bots" / "misbehaving"
# The move allowance never binds and the bank never moves, so every act's ``time_ms`` is the same.
# The clock the digests were made on: records say their clock (and its wall cap), so a run on the
# fair clock, the default since, records other bytes by those two fields alone.
TIME = TimeControl(start_ms=30_000, move_ms=20_000, bank_ms=20_000, clock=Clock.CPU)

Case = tuple[str, int, dict[str, object], int, dict[int, list[str]]]
"""(game, players, options, seed, {seat: misbehaving bot argv after the script name})."""


def cases() -> dict[str, Case]:
    """Every case by its id."""
    return {
        "blackout-3p-default": ("blackout", 3, {}, 11, {}),
        "blackout-4p-default": ("blackout", 4, {}, 12, {}),
        "blackout-5p-hook-trump": ("blackout", 5, {"hook": True, "must_trump": True}, 13, {}),
        "blackout-6p-updown-penalty": ("blackout", 6, {"sequence": "up_down", "deals": 5,
                                                       "scoring": "penalty"}, 14, {}),
        "blackout-7p-down-always": ("blackout", 7, {"sequence": "down", "no_trump_last": "always",
                                                    "tiebreak": "most_exact_bids"}, 15, {}),
        "partnership-default": ("partnership-blackout", 4, {"max_deals": 8}, 21, {}),
        "partnership-broken-pertrick": ("partnership-blackout", 4,
                                        {"target": 60, "max_deals": 6, "spade_lead": "after_broken",
                                         "contract_points": "per_trick"}, 22, {}),
        "blackout-4p-illegal-card": ("blackout", 4, {"deals": 4}, 31, {2: ["illegal", "card", "5"]}),
        "blackout-4p-garbage-and-wrong-id": ("blackout", 4, {"deals": 4}, 32,
                                             {0: ["garbage_line", "3"], 3: ["wrong_id", "6"]}),
        "partnership-illegal-call": ("partnership-blackout", 4, {"max_deals": 3}, 33,
                                     {1: ["illegal", "junk", "1"]}),
    }


def _timeless(record: dict[str, Any]) -> dict[str, Any]:
    """The record less what is measured: decision times, banks, a fault's elapsed and CPU time."""
    out = without_times(record)
    out["faults"] = [{k: v for k, v in fault.items() if k not in ("elapsed_ms", "cpu_ms")}
                     for fault in out["faults"]]
    return out


def digest(game: str, players: int, options: dict[str, object], seed: int,
           odd: dict[int, list[str]]) -> str:
    """SHA-256 of two games' records (less times) and every line each seat was sent."""
    bots = []
    for seat in range(players):
        argv = [RANDOM_C]
        if seat in odd:
            script, *args = odd[seat]
            argv = [sys.executable, "-S", str(MISBEHAVING / f"{script}.py"), *args]
        bots.append(BotProcess(f"seat{seat}", argv, start_timeout=30.0))
    out = hashlib.sha256()
    try:
        with sent_lines() as sent:
            for bot in bots:
                bot.start()
            for game_seed in (seed, seed + 1000):
                record = play_game(game, bots, game_seed, options, time_control=TIME).record
                out.update(orjson.dumps(_timeless(record)))
    finally:
        close_bots(bots, grace=0.1)
    for seat in range(players):
        out.update(f"seat{seat}\n".encode())
        out.update("\n".join(sent.lines.get(f"seat{seat}", [])).encode())
    return out.hexdigest()


@pytest.fixture(scope="module")
def built() -> None:
    """The C starter bots, built as ``make test`` builds them."""
    build_c_bots()


@pytest.mark.parametrize("case", sorted(cases()))
def test_seeded_games_with_real_bots_send_and_record_the_same_bytes(case: str, built: None) -> None:
    golden = json.loads(GOLDEN.read_text())
    assert digest(*cases()[case]) == golden[case]


def test_every_golden_case_is_played() -> None:
    assert sorted(json.loads(GOLDEN.read_text())) == sorted(cases())


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python tests/arena/referee/test_golden_referee.py --write")
    subprocess.run(["make", "--no-print-directory", "-C", str(ROOT / "bots" / "c")], check=True)
    GOLDEN.parent.mkdir(exist_ok=True)
    values = {case: digest(*spec) for case, spec in cases().items()}
    GOLDEN.write_text(json.dumps(values, indent=1, sort_keys=True) + "\n")
    print(f"wrote {GOLDEN}")
