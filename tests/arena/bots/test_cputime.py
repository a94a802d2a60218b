"""The CPU clock of a bot's process tree, and requests timed by it, against real processes.

The bots are real programs (tests/bots/misbehaving): ``spins.py`` burns CPU, ``slow.py`` sleeps.
Timing is asserted only as "within the limit plus generous slack", except where the CPU time
measured is the point (a bot spinning 50 ms of CPU records 45-60 ms).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from time import perf_counter

import pytest

from arena.bots.clocks import BLOCKED_HINT
from arena.bots.cputime import TreeClock
from arena.bots.memory import process_tree
from arena.bots.process import BotProcess
from arena.settings import Clock
from arena.values.faults import BotFaultError, FaultKind, TimeLimit

from helpers import wait_for

pytestmark = pytest.mark.timeout(90)

BOTS = Path(__file__).resolve().parents[2] / "bots" / "misbehaving"
SLACK = 2.0  # seconds: a loaded 2-CPU machine may stall anything this long


def act() -> dict[str, object]:
    """An act message as the referee would send it (the layer sets the id)."""
    return {"type": "act", "kind": "play", "legal": ["QS", "2H"], "view": {}, "time_ms": 100}


def test_tree_clock_counts_a_spinning_child_and_never_goes_down():
    """A child's CPU is counted while it runs, and kept once it has left the tree. The child waits
    for a line after spinning, so its whole 0.2 s can be read before it exits: what it burns after
    the last reading and before it is reaped is not counted (the module says so), and a loaded
    machine may not run the test between the two."""
    spin = ("import sys, time\nend = time.process_time() + 0.2\n"
            "while time.process_time() < end: pass\nsys.stdin.readline()")
    parent = subprocess.Popen([sys.executable, "-S", "-c",
                               f"import subprocess, sys; subprocess.run([sys.executable, '-S', "
                               f"'-c', {spin!r}]); import time; time.sleep(30)"],
                              stdin=subprocess.PIPE)
    try:
        clock = TreeClock(parent.pid)
        readings = [clock.read(fresh=True)]
        began = perf_counter()
        while perf_counter() - began < 20 and readings[-1] < 0.2:
            readings.append(clock.read(fresh=True))
        assert readings[-1] >= 0.2  # the child's CPU, counted while it ran
        assert parent.stdin is not None
        parent.stdin.write(b"exit\n")  # the child reads it, and exits
        parent.stdin.flush()
        wait_for(lambda: list(process_tree(parent.pid)) == [parent.pid], timeout=20,
                 what="the child's exit")
        readings.append(clock.read(fresh=True))  # the child left the tree: its CPU is kept
        assert readings == sorted(readings)
        clock.close()
    finally:
        parent.kill()
        parent.wait()


def test_tree_clock_finds_a_child_between_deadlines_without_a_fresh_walk():
    """Readings at replies look at the tree now and then (paced by readings and by time): a
    child that spins is found and counted without a deadline's fresh walk."""
    spin = "import time\nend = time.process_time() + 0.3\nwhile time.process_time() < end: pass"
    parent = subprocess.Popen([sys.executable, "-S", "-c",
                               "import sys, time; sys.stdin.readline(); import subprocess; "
                               f"subprocess.run([sys.executable, '-S', '-c', {spin!r}]); "
                               "time.sleep(30)"], stdin=subprocess.PIPE)
    try:
        clock = TreeClock(parent.pid)
        before = clock.read()
        assert parent.stdin is not None
        parent.stdin.write(b"go\n")
        parent.stdin.close()
        began = perf_counter()
        reading = before
        while perf_counter() - began < 20 and reading - before < 0.2:
            reading = clock.read()
        assert reading - before >= 0.2  # the child's CPU, found by the readings' own looks
        clock.close()
    finally:
        parent.kill()
        parent.wait()


def test_a_bot_spinning_50_ms_of_cpu_records_45_to_60_ms(bot):
    process = bot("spins", 0.05, 1)
    reply = process.request(act(), 30.0, clock=Clock.CPU)
    assert 0.045 <= reply.cpu <= 0.060
    assert reply.charged == reply.cpu
    assert process.hello_cpu is not None and process.hello_cpu > 0


def test_a_bot_over_its_cpu_limit_times_out_saying_what_it_used(bot):
    process = bot("spins", 30.0, 1)
    began = perf_counter()
    with pytest.raises(BotFaultError) as error:
        process.request(act(), 0.1, clock=Clock.CPU, cap=20.0)
    assert perf_counter() - began < 20.0
    fault = error.value.fault
    assert fault.kind is FaultKind.TIMEOUT and fault.limit is TimeLimit.CPU
    assert fault.cpu is not None and fault.cpu >= 0.1
    assert fault.detail == f"used {fault.cpu * 1000:.0f} ms of CPU, limit 100 ms"


def test_cpu_of_a_child_counts_against_the_limit(bot):
    process = bot("spins", 0.0, 1, "child")  # the parent sleeps, its child spins
    with pytest.raises(BotFaultError) as error:
        process.request(act(), 0.1, clock=Clock.CPU, cap=20.0)
    fault = error.value.fault
    assert fault.limit is TimeLimit.CPU and fault.cpu is not None and fault.cpu >= 0.1


@pytest.mark.slow
def test_a_sleeping_bot_times_out_at_the_wall_cap_and_is_told_it_was_waiting(bot):
    process = bot("slow", 60.0, 1)
    began = perf_counter()
    with pytest.raises(BotFaultError) as error:
        process.request(act(), 0.1, clock=Clock.CPU, cap=1.0)
    waited = perf_counter() - began
    assert 1.0 <= waited < 1.0 + SLACK
    fault = error.value.fault
    assert fault.kind is FaultKind.TIMEOUT and fault.limit is TimeLimit.WALL_CAP
    assert fault.cpu is not None and fault.cpu < 0.05
    assert fault.detail == (f"no reply in 1 s of wall time while using {fault.cpu * 1000:.0f} ms "
                            f"of CPU: {BLOCKED_HINT}")


def test_a_spinning_bot_under_a_wall_clock_gets_no_flush_hint(bot):
    process = bot("spins", 30.0, 1)
    with pytest.raises(BotFaultError) as error:
        process.request(act(), 0.2)
    fault = error.value.fault
    assert fault.limit is TimeLimit.WALL
    assert fault.detail.startswith("no reply within 200 ms, using ") and "flush" not in fault.detail


@pytest.mark.slow
def test_a_hello_that_never_comes_says_how_much_cpu_it_used(tmp_path):
    process = BotProcess("mute", [sys.executable, "-S", "-c", "import time; time.sleep(60)"],
                         start_timeout=1.0, log_path=tmp_path / "mute.log")
    from arena.errors import BotStartError
    with pytest.raises(BotStartError) as error:
        process.start()
    assert "no hello reply within 1000 ms (used " in str(error.value)
    assert BLOCKED_HINT in str(error.value)
