"""The referee with real bot processes: complete games, every fault recorded, time banks.

No mocks: the starter bots, the misbehaving bots (tests/bots/misbehaving/*.py) and the spy bot
(tests/bots/spy_bot.py) are started as processes and play through ``play_game``. Timing is never
asserted beyond the time-bank logic itself: a bot that sleeps DELAY always takes at least DELAY.
"""

from __future__ import annotations

import itertools
import random
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
import pytest

import engine
from arena.bots.process import BotProcess
from arena.bots.shutdown import close_bots
from arena.errors import BotStartError
from arena.records.result import result_of
from arena.records.writer import milliseconds
from arena.referee.referee import play_game
from arena.settings import Clock, FaultPolicy, Limits, TimeControl
from arena.values.faults import FaultKind

from helpers import build_c_bots

pytestmark = pytest.mark.timeout(120)

ROOT = Path(__file__).resolve().parents[3]
MISBEHAVING = ROOT / "tests" / "bots" / "misbehaving"
SPY = ROOT / "tests" / "bots" / "spy_bot.py"
GENEROUS = TimeControl(start_ms=20_000, move_ms=2_000, bank_ms=20_000)  # bounds a hang only
SHORT = {"deals": 3}  # 4 players: each seat bids 3 times and plays 6 cards

StartBot = Callable[..., BotProcess]


@pytest.fixture(scope="module")
def c_bots() -> Path:
    """The C starter bots, built as ``make test`` builds them."""
    return build_c_bots()


@pytest.fixture
def start() -> Iterator[StartBot]:
    """Start a bot from its argv (``begin=False``: the test starts it); all are closed after."""
    bots: list[BotProcess] = []

    def start_bot(name: str, argv: list[str], begin: bool = True, **options: Any) -> BotProcess:
        bot = BotProcess(name, argv, **options)
        bots.append(bot)
        if begin:
            bot.start()
        return bot

    yield start_bot
    close_bots(bots, grace=0.1)


def misbehaving(name: str, *args: object) -> list[str]:
    """The argv of a misbehaving bot."""
    return [sys.executable, "-S", str(MISBEHAVING / f"{name}.py"), *map(str, args)]


def decisions(record: dict[str, Any]) -> list[tuple[int, int]]:
    """(deal, seat) of every decision of a game in order, from its record (fallback moves too)."""
    out = []
    for deal in record["deals"]:
        auction = deal["bids"] if record["game"] == "blackout" else deal["calls"]
        out += [(deal["deal"], seat) for seat, _ in auction]
        out += [(deal["deal"], seat) for seat, _ in deal["plays"]]
    return out


def nth_decision(record: dict[str, Any], seat: int, n: int) -> tuple[int, int]:
    """(deal, game-wide decision number counted from 1) of ``seat``'s ``n``-th decision."""
    count = 0
    for number, (deal, who) in enumerate(decisions(record), start=1):
        if who == seat:
            count += 1
            if count == n:
                return deal, number
    raise AssertionError(f"seat {seat} has fewer than {n} decisions")


def places_among(places: list[int], seats: list[int]) -> dict[int, int]:
    """The place of each of ``seats`` among those seats only (1 + how many of them did better)."""
    return {seat: 1 + sum(places[other] < places[seat] for other in seats) for seat in seats}


# --- Complete games between the starter bots ----------------------------------------------------


def starter_argvs(c_bots: Path) -> dict[str, list[str]]:
    """Every starter bot's argv by name (the JavaScript one only when node is installed)."""
    argvs = {
        "random-py": [sys.executable, "-S", str(ROOT / "bots" / "python" / "random_bot.py")],
        "greedy-py": [sys.executable, "-S", str(ROOT / "bots" / "python" / "greedy_bot.py")],
        "random-c": [str(c_bots / "random_bot")],
        "first-c": [str(c_bots / "first_bot")],
    }
    if (node := shutil.which("node")) is not None:
        argvs["random-js"] = [node, str(ROOT / "bots" / "js" / "random_bot.js")]
    return argvs


@pytest.mark.parametrize(("players", "options"), [
    (4, {}),
    (6, {"hook": True, "must_trump": True}),
    (3, {"sequence": "up_down", "deals": 5, "scoring": "penalty"}),
])
def test_blackout_between_starter_bots_completes_and_replays(players, options, c_bots, start):
    argvs = starter_argvs(c_bots)
    names = list(argvs)
    seats = [names[seat % len(names)] for seat in range(players)]
    bots = [start(f"{name}#{seat}", argvs[name]) for seat, name in enumerate(seats)]
    outcome = play_game("blackout", bots, 1234 + players, options, time_control=GENEROUS)
    record = outcome.record
    assert record["faults"] == [] and outcome.faulted_seats == frozenset()
    assert record["complete"] and record["players"] == players
    assert record["names"] == [bot.name for bot in bots]
    final = engine.replay(record)
    assert final.is_over
    assert engine.game("blackout").places(final) == record["places"]
    result = result_of(record, record["names"], FaultPolicy.FORFEIT)
    assert result["ranks"] == record["places"] and result["faults"] == [0] * players
    assert all(bot.is_running for bot in bots)  # they stay up for the next game


def test_partnership_between_starter_bots_completes_and_replays(c_bots, start):
    argvs = starter_argvs(c_bots)
    fourth = "random-js" if "random-js" in argvs else "first-c"
    seats = ["greedy-py", "random-c", "random-py", fourth]
    bots = [start(f"{name}#{seat}", argvs[name]) for seat, name in enumerate(seats)]
    options = {"target": 40, "max_deals": 12}
    for seed in (5, 6):  # the same processes play game after game
        outcome = play_game("partnership-blackout", bots, seed, options, time_control=GENEROUS)
        record = outcome.record
        assert record["faults"] == [] and outcome.faulted_seats == frozenset()
        assert record["complete"] and record["teams"] == [[0, 2], [1, 3]]
        engine.replay(record)
        result = result_of(record, engine.game("partnership-blackout").info.entrants(record["names"]),
                           FaultPolicy.FORFEIT)
        assert result["ranks"] == record["places"] and result["faults"] == [0, 0]


# --- Faults -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    """A misbehaving bot, where it sits, and the fault it must leave in the record."""

    argv: list[str]
    seat: int
    kind: FaultKind
    nth: int  # the seat's decision (1 = its first act) that faults
    detail: str  # a regular expression the detail must match from its start
    received: str = ""  # a regular expression ``received`` must match from its start
    stderr: str = ""  # text the stderr tail must contain
    time_control: TimeControl = GENEROUS
    options: dict[str, Any] = field(default_factory=dict)


CASES = {
    "timeout": Case(misbehaving("slow", 3.0, 1), 1, FaultKind.TIMEOUT, 1,
                    # its first act: the whole bank is left; nothing came, so the flush hint
                    r"no reply within 1000 ms, using \d+ ms of CPU \(nothing received: did the "
                    r"bot flush stdout",
                    time_control=TimeControl(start_ms=20_000, move_ms=500, bank_ms=500,
                                             clock=Clock.WALL)),
    # Charged its CPU time: over move_ms and the bank, no flush hint. The wall cap (10 s by
    # default) is raised out of the way: at a load of 10 on 2 cores the spinning bot had used
    # 917 ms of CPU after 10 s of wall time and met the cap first (what the cap is for).
    "over-cpu": Case(misbehaving("spins", 30.0, 1), 1, FaultKind.TIMEOUT, 1,
                     r"used \d+ ms of CPU, limit 500 ms \+ bank 500$",
                     time_control=TimeControl(start_ms=20_000, move_ms=500, bank_ms=500,
                                              wall_ms=120_000)),
    "over-cpu-clock": Case(misbehaving("spins", 30.0, 1), 1, FaultKind.TIMEOUT, 1,
                           r"used \d+ ms of CPU, limit 500 ms \+ bank 500$",
                           time_control=TimeControl(start_ms=20_000, move_ms=500, bank_ms=500,
                                                    clock=Clock.CPU, wall_ms=120_000)),
    "asleep": Case(misbehaving("slow", 30.0, 2), 3, FaultKind.TIMEOUT, 2,
                   # the fair clock charges a sleep: timed out at move_ms and the bank
                   r"used \d+ ms of CPU and \d+ ms asleep or waiting, limit 500 ms \+ bank 500"
                   r"( \(not charged: \d+ ms waiting for a CPU\))?: blocked on input, or the "
                   r"reply is not flushed$",
                   time_control=TimeControl(start_ms=20_000, move_ms=500, bank_ms=500)),
    "garbage": Case(misbehaving("garbage_line", 1), 2, FaultKind.MALFORMED, 1,
                    r"reply is not JSON$", received=r"thinking\.\.\. this is not JSON \{$"),
    "garbage-bytes": Case(misbehaving("garbage_line", 4, "bytes"), 3, FaultKind.MALFORMED, 4,
                          r"reply is not JSON$", received=".*not utf-8"),
    "wrong-id": Case(misbehaving("wrong_id", 3), 0, FaultKind.MALFORMED, 3,
                     r"reply has id (?P<got>\d+), expected (?P<wanted>\d+)$",
                     received=r'\{"id":\d+,"action":'),
    "huge-line": Case(misbehaving("huge_line", 2, 0.1, 2), 1, FaultKind.MALFORMED, 2,
                      rf"line over {1 << 20} bytes$", received="xxxxxxxxxx"),
    "illegal-bid": Case(misbehaving("illegal", "junk", 1), 2, FaultKind.ILLEGAL, 1,
                        r"seat 2 bid 99: ", received=r'\{"id":\d+,"action":99\}$'),
    "illegal-junk-card": Case(misbehaving("illegal", "junk", 2), 3, FaultKind.ILLEGAL, 2,
                              r"'XX' is not a card",
                              received=r'\{"id":\d+,"action":"XX"\}$'),
    "illegal-card": Case(misbehaving("illegal", "card", 5), 0, FaultKind.ILLEGAL, 5,
                         r"seat 0 played [2-9TJQKA][CDHS]: ", received=r'\{"id":\d+,"action":"'),
    # Valid JSON that orjson does not read as written: judged as written, never "not JSON".
    "surrogate-bid": Case(misbehaving("valid_json", "surrogate-action", 1), 1, FaultKind.ILLEGAL,
                          1, r"'\\ud800' is not a bid \(an integer\)$",
                          received=r'\{"id":\d+,"action":"\\ud800"\}$'),
    "surrogate-card": Case(misbehaving("valid_json", "surrogate-action", 2), 2, FaultKind.ILLEGAL,
                           2, r"'\\ud800' is not a card", received=r'\{"id":\d+,"action":"\\ud800"\}$'),
    "long-bid": Case(misbehaving("valid_json", "long-action", 1), 3, FaultKind.ILLEGAL, 1,
                     r"seat 3 bid \(an integer of 5,000 digits\): bids are 0\.\.\d+ in this deal$",
                     received=r'\{"id":\d+,"action":9{100}'),
    "long-card": Case(misbehaving("valid_json", "long-action", 2), 0, FaultKind.ILLEGAL, 2,
                      r"\(an integer of 5,000 digits\) is not a card \(rank",
                      received=r'\{"id":\d+,"action":9{100}'),
    "wide-bid": Case(misbehaving("valid_json", "wide-action", 1), 1, FaultKind.ILLEGAL, 1,
                     r"seat 1 bid 18446744073709551616: bids are 0\.\.\d+ in this deal$",
                     received=r'\{"id":\d+,"action":18446744073709551616\}$'),
    "long-id": Case(misbehaving("valid_json", "long-id", 3), 2, FaultKind.MALFORMED, 3,
                    r"reply has id \(an integer of 5,000 digits\), expected \d+$",
                    received=r'\{"id":9{100}'),
    "crash": Case(misbehaving("crash_mid_game", 3), 1, FaultKind.CRASH, 3,
                  r"exited with code 3$", stderr="crash_mid_game: giving up on act"),
    "closes-stdout": Case(misbehaving("closes_stdout", 2), 2, FaultKind.CRASH, 2,
                          r"closed its stdout"),
    "memory": Case(misbehaving("memory_hog", 1), 3, FaultKind.CRASH, 1,
                   r"memory limit 256 MB exceeded$"),
}


@pytest.mark.parametrize("policy", list(FaultPolicy), ids=lambda p: p.value)
@pytest.mark.parametrize("case", [  # the timeouts wait a second each: slow (make check skips them)
    pytest.param(case, marks=pytest.mark.slow if case.kind is FaultKind.TIMEOUT else (), id=name)
    for name, case in CASES.items()])
def test_fault_is_recorded_and_every_other_result_stands(case, policy, start):
    bots = [start(f"good{seat}", misbehaving("well_behaved")) for seat in range(3)]
    bad = start("bad", case.argv, limits=Limits(memory_mb=256))
    bots.insert(case.seat, bad)
    outcome = play_game("blackout", bots, 77, {**SHORT, **case.options},
                        time_control=case.time_control, policy=policy)
    record = outcome.record
    assert outcome.faulted_seats == {case.seat}
    assert len(record["faults"]) == 1, record["faults"]
    fault = record["faults"][0]
    deal, decision = nth_decision(record, case.seat, case.nth)
    assert (fault["kind"], fault["seat"], fault["bot"]) == (case.kind.value, case.seat, "bad")
    assert (fault["deal"], fault["decision"]) == (deal, decision)
    detail = re.match(case.detail, fault["detail"])
    assert detail, fault["detail"]
    assert fault["sent"].startswith('{"type":"act","kind":'), fault["sent"]
    assert re.match(case.received, fault["received"], re.DOTALL), fault["received"]
    assert case.stderr in fault["stderr_tail"]
    assert fault["elapsed_ms"] is not None and fault["elapsed_ms"] >= 0
    if case.kind is FaultKind.TIMEOUT:
        assert fault["elapsed_ms"] >= 1000
        assert fault["cpu_ms"] is not None and fault["limit"] == case.time_control.clock.value
    if "got" in detail.groupdict():  # wrong_id answers with the right id plus 1000
        assert int(detail["got"]) == int(detail["wanted"]) + 1000
    # The game went on to the end with a fallback in the faulting seat: it replays, and nobody
    # else faulted or lost anything.
    assert record["complete"]
    engine.replay(record)
    result = result_of(record, record["names"], policy)
    others = [seat for seat in range(4) if seat != case.seat]
    assert result["faults"] == [int(seat == case.seat) for seat in range(4)]
    if policy is FaultPolicy.FORFEIT:
        assert result["forfeits"] == [seat == case.seat for seat in range(4)]
        assert all(result["ranks"][case.seat] > result["ranks"][seat] for seat in others)
        assert {seat: result["ranks"][seat] for seat in others} == places_among(
            record["places"], others)
    else:
        assert result["forfeits"] == [False] * 4
        assert result["ranks"] == record["places"]
    assert all(bots[seat].is_running for seat in others)


@pytest.mark.parametrize("mode", ["surrogate-extra", "long-extra"])
def test_a_reply_whose_extra_key_orjson_refuses_is_accepted(mode, start):
    """Extra keys are ignored (docs/protocol.md), whatever valid JSON they hold."""
    bots = [start(f"good{seat}", misbehaving("well_behaved")) for seat in range(3)]
    bots.insert(2, start("extra", misbehaving("valid_json", mode, 2)))
    outcome = play_game("blackout", bots, 5, SHORT, time_control=GENEROUS)
    assert outcome.record["faults"] == [] and outcome.record["complete"]


@pytest.mark.parametrize("policy", list(FaultPolicy), ids=lambda p: p.value)
def test_fault_in_partnership_costs_the_team(policy, start):
    bots = [start(f"good{seat}", misbehaving("well_behaved")) for seat in range(3)]
    bots.insert(1, start("bad", misbehaving("illegal", "card", 3)))
    outcome = play_game("partnership-blackout", bots, 11, {"target": 20, "max_deals": 3},
                        time_control=GENEROUS, policy=policy)
    record = outcome.record
    [fault] = record["faults"]
    assert (fault["kind"], fault["seat"]) == ("illegal", 1)
    assert (fault["deal"], fault["decision"]) == nth_decision(record, 1, 3)
    engine.replay(record)
    result = result_of(record, ["A", "B"], policy)
    assert result["faults"] == [0, 1]
    if policy is FaultPolicy.FORFEIT:
        assert result["ranks"] == [1, 2] and result["forfeits"] == [False, True]
    else:
        assert result["ranks"] == record["places"] and result["forfeits"] == [False, False]


def test_bot_that_never_starts_is_a_crash_before_the_first_decision(start):
    bots = [start(f"good{seat}", misbehaving("well_behaved")) for seat in range(3)]
    dead = start("dead", misbehaving("exits_before_hello"), begin=False)
    with pytest.raises(BotStartError, match="exited with code 2") as error:
        dead.start()
    assert "cannot load my model" in error.value.stderr_tail
    bots.insert(0, dead)
    outcome = play_game("blackout", bots, 3, SHORT, time_control=GENEROUS)
    record = outcome.record
    [fault] = record["faults"]
    assert (fault["kind"], fault["seat"], fault["deal"], fault["decision"]) == ("crash", 0, 1, 0)
    assert fault["detail"] == "exited with code 2"
    assert "cannot load my model" in fault["stderr_tail"]
    engine.replay(record)
    assert result_of(record, record["names"], FaultPolicy.FORFEIT)["ranks"][0] == 4


@pytest.mark.parametrize("argv", [
    misbehaving("stderr_flood", 8, 2),
    misbehaving("ignores_quit"),
    misbehaving("forks_child"),
    misbehaving("well_behaved"),
], ids=["stderr_flood", "ignores_quit", "forks_child", "well_behaved"])
def test_bots_that_misbehave_outside_the_protocol_play_without_fault(argv, start):
    bots = [start(f"good{seat}", misbehaving("well_behaved")) for seat in range(3)]
    bots.insert(2, start("odd", argv))
    for seed in (1, 2):
        outcome = play_game("blackout", bots, seed, SHORT, time_control=GENEROUS)
        assert outcome.record["faults"] == []
        engine.replay(outcome.record)


# --- The time bank ------------------------------------------------------------------------------

# Wide enough that a well-behaved bot on a loaded machine never touches the bank by accident.
MOVE_MS, DELAY_MS, BANK_MS = 100, 400, 2400
BANK_CONTROL = TimeControl(start_ms=20_000, move_ms=MOVE_MS, bank_ms=BANK_MS, clock=Clock.WALL)
"""Sleeping bots spend wall time, not CPU: the bank's wall-clock behaviour."""
DRAW_MS = DELAY_MS - MOVE_MS  # the least each slow decision takes from the bank


def acts_seen(log: Path) -> list[dict[str, Any]]:
    """The act messages a spy received, in order."""
    messages = [orjson.loads(line) for line in log.read_bytes().splitlines()]
    return [message for message in messages if message["type"] == "act"]


@pytest.mark.slow
def test_slow_decisions_draw_on_the_bank_without_a_timeout(start, tmp_path):
    """Two decisions over move_ms, each well within what the bank holds: no fault."""
    log = tmp_path / "slow.jsonl"
    bots = [start(f"good{seat}", misbehaving("well_behaved")) for seat in range(3)]
    slow = start("slow", [sys.executable, "-S", str(SPY), str(log), str(DELAY_MS / 1000)])
    bots.insert(1, slow)
    outcome = play_game("blackout", bots, 21, {"deals": 1}, time_control=BANK_CONTROL)
    assert outcome.record["faults"] == []
    close_bots([slow])
    first, second = (act["time_ms"] for act in acts_seen(log))
    assert first == MOVE_MS + BANK_MS
    assert MOVE_MS < second <= first - DRAW_MS + 1  # the first took at least DRAW_MS of the bank


def test_one_slow_decision_within_move_plus_bank_is_not_a_timeout(start):
    bots = [start(f"good{seat}", misbehaving("well_behaved")) for seat in range(3)]
    bots.insert(0, start("slow", misbehaving("slow", DELAY_MS / 1000, 1)))
    outcome = play_game("blackout", bots, 22, SHORT, time_control=BANK_CONTROL)
    assert outcome.record["faults"] == []


@pytest.mark.slow
def test_slow_decisions_time_out_once_the_bank_is_spent_and_are_told_so(start, tmp_path):
    log = tmp_path / "slow.jsonl"
    bots = [start(f"good{seat}", misbehaving("well_behaved")) for seat in range(3)]
    slow = start("slow", [sys.executable, "-S", str(SPY), str(log), str(DELAY_MS / 1000)])
    bots.insert(2, slow)
    outcome = play_game("blackout", bots, 23, SHORT, time_control=BANK_CONTROL)
    record = outcome.record
    [fault] = record["faults"]
    assert (fault["kind"], fault["seat"]) == ("timeout", 2)
    close_bots([slow])
    allowances = [act["time_ms"] for act in acts_seen(log)]
    # Every slow decision takes at least DRAW_MS from the bank: once less than that is left, the
    # next one must time out, so it is at the latest the 1 + BANK_MS // DRAW_MS-th decision.
    # The first has the whole bank and cannot time out.
    timed_out = len(allowances)
    assert 2 <= timed_out <= 1 + BANK_MS // DRAW_MS
    assert (fault["deal"], fault["decision"]) == nth_decision(record, 2, timed_out)
    assert allowances[0] == MOVE_MS + BANK_MS
    assert all(later <= earlier - DRAW_MS + 1
               for earlier, later in itertools.pairwise(allowances))
    assert MOVE_MS <= allowances[-1] < MOVE_MS + BANK_MS
    stated = int(re.match(r"no reply within (\d+) ms", fault["detail"]).group(1))
    assert abs(stated - allowances[-1]) <= 1  # the act's time_ms is what it was allowed
    # It is told where its time went: the bank, drawn down by the earlier slow decisions.
    used = re.search(r"; bank used up: (\d+) ms of the (\d+) ms bank were left \(earlier "
                     r"decisions over move_ms (\d+) drew (\d+) ms\)$", fault["detail"])
    assert used is not None, fault["detail"]
    left, bank, move, drawn = map(int, used.groups())
    assert (bank, move) == (BANK_MS, MOVE_MS) and abs(left + drawn - BANK_MS) <= 1
    assert abs(MOVE_MS + left - allowances[-1]) <= 1
    engine.replay(record)


# --- Decision times in the record ---------------------------------------------------------------


def test_every_decision_has_its_time_in_the_record(start):
    """One slow decision shows as at least DELAY_MS where it happened; the rest are quick."""
    bots = [start(f"good{seat}", misbehaving("well_behaved")) for seat in range(3)]
    bots.insert(1, start("slow", misbehaving("slow", DELAY_MS / 1000, 2)))
    outcome = play_game("blackout", bots, 24, SHORT, time_control=BANK_CONTROL)
    record = outcome.record
    assert record["faults"] == []
    times = []
    for deal in record["deals"]:
        assert len(deal["bid_ms"]) == len(deal["bids"]) and len(deal["play_ms"]) == len(deal["plays"])
        times += deal["bid_ms"] + deal["play_ms"]
    assert all(ms is not None and ms >= 0 for ms in times)
    deal, number = nth_decision(record, 1, 2)  # the slow bot's second decision (request 2)
    assert times[number - 1] >= DELAY_MS
    assert record["time_control"] == {"move_ms": MOVE_MS, "bank_ms": BANK_MS}
    assert record["bank_used_ms"][1] >= DRAW_MS
    # Beside each wall time, the CPU time: a sleep costs next to none of it.
    cpu = []
    for deal in record["deals"]:
        assert len(deal["bid_cpu_ms"]) == len(deal["bids"])
        assert len(deal["play_cpu_ms"]) == len(deal["plays"])
        cpu += deal["bid_cpu_ms"] + deal["play_cpu_ms"]
    assert all(ms is not None and ms >= 0 for ms in cpu)
    assert cpu[number - 1] < DELAY_MS / 2
    assert (record["clock"], record["wall_ms"]) == ("wall", BANK_CONTROL.wall_cap_ms)
    assert len(record["stalls"]) == 4  # waits that woke up late: the arena's, not the bots'


def test_fallback_decisions_have_no_time_and_partnership_times_its_calls(start):
    bots = [start(f"good{seat}", misbehaving("well_behaved")) for seat in range(3)]
    bots.insert(3, start("crash", misbehaving("crash_mid_game", 3)))
    outcome = play_game("partnership-blackout", bots, 25, {"max_deals": 2}, time_control=GENEROUS)
    record = outcome.record
    [fault] = record["faults"]
    times = []
    for deal in record["deals"]:
        assert "bid_ms" not in deal and len(deal["call_ms"]) == len(deal["calls"])
        times += deal["call_ms"] + deal["play_ms"]
    seats = [seat for _, seat in decisions(record)]
    after = [ms for number, (ms, seat) in enumerate(zip(times, seats, strict=True), start=1)
             if seat == 3 and number > fault["decision"]]
    assert after and all(ms is None for ms in after)
    assert all(ms is not None for ms, seat in zip(times, seats, strict=True) if seat != 3)


# --- The CPU clock on a busy machine ------------------------------------------------------------

BUSY_LOOPS = 4  # twice the CPUs of a 2-core machine: every bot waits for one, besides the tests'
BUSY_SECONDS = 4  # games for 2 s at least, each decision under the loops' load


@pytest.mark.slow
def test_fast_bots_never_time_out_under_the_cpu_clock_on_a_busy_machine(c_bots, start):
    """Four busy loops on this machine, a 5 ms CPU allowance and no bank: C bots, which answer
    in microseconds of CPU, are charged that and never time out, however late they are run."""
    loop = f"import time\nend = time.monotonic() + {BUSY_SECONDS}\nwhile time.monotonic() < end: pass"
    busy = [subprocess.Popen([sys.executable, "-S", "-c", loop]) for _ in range(BUSY_LOOPS)]
    try:
        bots = [start(f"c{seat}", [str(c_bots / "random_bot")], start_timeout=20.0)
                for seat in range(4)]
        control = TimeControl(start_ms=20_000, move_ms=5, bank_ms=0)
        began = time.monotonic()
        games = 0
        while time.monotonic() - began < BUSY_SECONDS - 2 or games < 2:
            outcome = play_game("blackout", bots, 500 + games, SHORT, time_control=control)
            assert outcome.record["faults"] == []
            games += 1
    finally:
        for process in busy:
            process.kill()
            process.wait()


def test_decision_times_round_as_round_does() -> None:
    """The record's ms are ``round(seconds * 1000, 1)`` also where a fast path skips ``round``."""
    rng = random.Random(22)
    below = [rng.uniform(0, 4e-5) for _ in range(20_000)]
    near = [4e-5 * (1 + k * 1e-16) for k in range(-50, 50)] + [5e-324, 4.9999e-5, 5e-5, 1.0]
    seconds: list[float | None] = [*below, *near, 0.0, -0.0, -1e-6, 0.123456, None]
    expected = [None if s is None else round(s * 1000, 1) for s in seconds]
    assert orjson.dumps(milliseconds(seconds)) == orjson.dumps(expected)
