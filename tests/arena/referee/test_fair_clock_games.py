"""The fair clock in whole games, as a user runs them: a bot that sleeps through its decisions and
a bot that hangs, in ``arena play`` and ``arena check-bot`` (the league: tests/arena/league)."""

from __future__ import annotations

import sys
from pathlib import Path

import orjson
import pytest

from helpers import arena, build_c_bots

ROOT = Path(__file__).resolve().parents[3]
C_BOT = str(ROOT / "bots" / "c" / "random_bot")
STALLS = f"{sys.executable} -S {ROOT / 'tests' / 'bots' / 'hostile' / 'stalls.py'} 0.4"
SLOW = ROOT / "tests" / "bots" / "misbehaving" / "slow.py"

pytestmark = pytest.mark.timeout(180)


@pytest.fixture(scope="module", autouse=True)
def c_bots() -> None:
    build_c_bots()


def play(log: Path, *args: str) -> dict[str, object]:
    done = arena("play", "blackout", STALLS, C_BOT, C_BOT, "-o", "deals=2", "--seed", "3",
                 "--log", str(log), *args)
    assert done.returncode == 0, done.stderr
    return orjson.loads(log.read_bytes())


@pytest.mark.slow
def test_a_bot_that_sleeps_through_its_decisions_times_out_at_its_allowance(
        tmp_path: Path) -> None:
    """Sleeping 0.4 s a decision under move_ms 100 and no bank: a timeout at 100 ms of its own
    time on the fair clock (the default), where the CPU clock charged nothing and let it play."""
    fair = play(tmp_path / "fair.json", "--move-ms", "100", "--bank-ms", "0")
    [fault] = fair["faults"]  # type: ignore[misc]
    assert (fault["kind"], fault["seat"], fault["limit"]) == ("timeout", 0, "fair")
    assert fault["detail"].startswith("used ") and "ms asleep or waiting, limit 100 ms" in \
        fault["detail"]
    assert fault["elapsed_ms"] < 100 + 2000  # not the 400 ms sleep, nor the wall cap
    cpu = play(tmp_path / "cpu.json", "--move-ms", "100", "--bank-ms", "0", "--clock", "cpu")
    assert cpu["faults"] == []  # what the fair clock closes: 0.4 s decisions, no fault
    times = [ms for deal in cpu["deals"] for ms in deal["bid_ms"] + deal["play_ms"]]  # type: ignore[attr-defined]
    assert max(times) >= 400


@pytest.mark.slow
def test_a_hung_bot_costs_its_game_its_allowance_not_the_wall_cap(tmp_path: Path) -> None:
    """A bot that never answers its first act, under move_ms 100 and a 1500 ms bank: the fault
    comes after its 1.6 s of allowance, well before the wall cap (16 s)."""
    log = tmp_path / "game.json"
    done = arena("play", "blackout", f"{sys.executable} -S {SLOW} 3600 1", C_BOT, C_BOT,
                 "-o", "deals=1", "--move-ms", "100", "--bank-ms", "1500", "--log", str(log))
    assert done.returncode == 0, done.stderr
    [fault] = orjson.loads(log.read_bytes())["faults"]
    assert (fault["kind"], fault["limit"]) == ("timeout", "fair")
    assert 1600 <= fault["elapsed_ms"] < 1600 + 2000


@pytest.mark.slow
def test_check_bot_on_a_bot_that_stops_answering_finishes_within_a_minute() -> None:
    """A bot that answers three decisions and then never again: check-bot reports the timeout
    after the decision's allowance (move 1000 ms + bank 10000 ms by default) and goes on."""
    done = arena("check-bot", f"{sys.executable} -S {SLOW} 3600 4", timeout=60)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "timeout" in done.stdout and "asleep or waiting" in done.stdout
