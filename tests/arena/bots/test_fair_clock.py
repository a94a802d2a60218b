"""The fair clock (``clock: fair``): a decision is charged the bot's CPU time and the time it chose
to wait (sleeping, blocking), never the time it waited for a CPU. Against real processes.

A bot's wait for a CPU is made real by pinning it to one CPU beside busy loops pinned there too:
the kernel then shares that CPU, and the bot spends part of its wall time runnable but not
running. Times are asserted with generous slack, except where what is charged is the point.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from time import perf_counter

import pytest

from arena.bots.channel import Channel, ChannelError
from arena.bots.clocks import BLOCKED_HINT, FairClock, Meter, RequestState, TimedOut
from arena.bots.cputime import TreeClock, arena_wait
from arena.bots.shutdown import QUIT_WAIT_CAP
from arena.bots.stderr_sink import StderrSink
from arena.protocol import line
from arena.settings import Clock, TimeControl
from arena.values.faults import BotFaultError, FaultKind, TimeLimit

pytestmark = pytest.mark.timeout(120)

BOTS = Path(__file__).resolve().parents[2] / "bots" / "misbehaving"
SLACK = 2.0  # seconds: a loaded 2-CPU machine may stall anything this long
SPIN = "import time\nend = time.monotonic() + 60\nwhile time.monotonic() < end: pass"


def act() -> dict[str, object]:
    """An act message as the referee would send it (the layer sets the id)."""
    return {"type": "act", "kind": "play", "legal": ["QS", "2H"], "view": {}, "time_ms": 100}


@pytest.fixture
def busy_cpu() -> Iterator[Callable[[int], int]]:
    """``crowd(pid)``: pin ``pid`` to one CPU beside two busy loops pinned there; returns the CPU."""
    loops: list[subprocess.Popen[bytes]] = []

    def crowd(pid: int) -> int:
        cpu = min(os.sched_getaffinity(0))
        for _ in range(2):
            loop = subprocess.Popen([sys.executable, "-S", "-c", SPIN])
            loops.append(loop)
            os.sched_setaffinity(loop.pid, {cpu})
        os.sched_setaffinity(pid, {cpu})
        return cpu

    yield crowd
    for loop in loops:
        loop.kill()
        loop.wait()


OVERLAP = 0.03
"""Seconds of a sleep that may go uncharged on a loaded machine: a bot that waits for a CPU after
writing its reply while the arena waits for one to read it has both waits taken off."""


def test_a_bot_that_sleeps_is_charged_its_sleep(bot) -> None:
    reply = bot("slow", 0.3, 1).request(act(), 30.0, Clock.FAIR)
    assert 0.3 - OVERLAP <= reply.charged <= reply.elapsed
    assert reply.cpu < 0.1  # the sleep is charged, though it used next to no CPU


def test_a_bot_that_sleeps_past_its_allowance_times_out_at_it_not_at_the_cap(bot) -> None:
    process = bot("slow", 60.0, 1)
    began = perf_counter()
    with pytest.raises(BotFaultError) as error:
        process.request(act(), 0.2, Clock.FAIR, 30.0)
    waited = perf_counter() - began
    assert 0.2 <= waited < 0.2 + SLACK  # the cap (30 s) is a backstop only
    fault = error.value.fault
    assert fault.kind is FaultKind.TIMEOUT and fault.limit is TimeLimit.FAIR
    assert fault.cpu is not None
    slept = round((0.2 - fault.cpu) * 1000)
    assert fault.detail.startswith(f"used {fault.cpu * 1000:.0f} ms of CPU and {slept} ms asleep "
                                   f"or waiting, limit 200 ms")
    assert fault.detail.endswith(f": {BLOCKED_HINT}")


def test_a_spinning_bot_is_charged_its_cpu(bot) -> None:
    process = bot("spins", 30.0, 1)
    with pytest.raises(BotFaultError) as error:
        process.request(act(), 0.2, Clock.FAIR, 30.0)
    fault = error.value.fault
    assert fault.limit is TimeLimit.FAIR and fault.cpu is not None and fault.cpu >= 0.1
    assert "flush" not in fault.detail  # it was working, not waiting


def test_waiting_for_a_cpu_is_not_charged(bot, busy_cpu) -> None:
    """The bot spins 0.15 s of CPU on a CPU it shares with two busy loops: it takes about three
    times that in wall time, and is charged its CPU time, not the wall time."""
    process = bot("spins", 0.15, 1)
    assert process.pid is not None
    busy_cpu(process.pid)
    reply = process.request(act(), 30.0, Clock.FAIR)
    waited = reply.elapsed - reply.cpu
    assert waited > 0.1  # the loops did keep it waiting: else this test shows nothing
    assert reply.cpu <= reply.charged < reply.cpu + 0.3 * waited


def test_a_bot_kept_waiting_for_a_cpu_still_makes_a_tight_allowance(bot, busy_cpu) -> None:
    """0.15 s of CPU under a 0.25 s allowance, on a crowded CPU: about 0.45 s of wall time, which
    the wall clock would time out, and the fair clock does not."""
    process = bot("spins", 0.15, 1)
    assert process.pid is not None
    busy_cpu(process.pid)
    reply = process.request(act(), 0.25, Clock.FAIR, 30.0)
    assert reply.elapsed > 0.25 and reply.charged < 0.25


def test_a_sleeping_bot_kept_waiting_to_wake_is_charged_its_sleep_only(bot, busy_cpu) -> None:
    process = bot("slow", 0.3, 1)
    assert process.pid is not None
    busy_cpu(process.pid)
    reply = process.request(act(), 30.0, Clock.FAIR)
    assert 0.3 - OVERLAP <= reply.charged <= reply.elapsed
    assert reply.charged < 0.3 + 0.5 * (reply.elapsed - 0.3) + 0.05


def test_tree_clock_finds_the_longest_wait_of_any_thread(busy_cpu) -> None:
    """A process whose second thread spins on a crowded CPU while its main thread sleeps: the
    wait found is the spinning thread's (the longest), not the sum or the main thread's."""
    program = ("import threading, time\n"
               "def spin():\n"
               "    end = time.monotonic() + 60\n"
               "    while time.monotonic() < end: pass\n"
               "threading.Thread(target=spin, daemon=True).start()\n"
               "time.sleep(60)\n")
    born = perf_counter()
    child = subprocess.Popen([sys.executable, "-S", "-c", program])
    try:
        clock = TreeClock(child.pid)
        assert clock.waited() == 0.0  # the first call starts tracking
        began = perf_counter()
        busy_cpu(child.pid)
        waited = 0.0
        while perf_counter() - began < 20 and waited < 0.2:
            waited += clock.waited(fresh=True)
        # Each reading takes the longest wait of one thread; a wait of the other thread that
        # ended in a later reading adds then, and one going on when tracking began counts whole:
        # two threads wait at most twice the process's life.
        assert 0.2 <= waited <= 2 * (perf_counter() - born)
        clock.close()
    finally:
        child.kill()
        child.wait()


def test_the_arena_threads_own_wait_is_read_per_thread(busy_cpu) -> None:
    """The arena's wait for a CPU: this thread, spinning on a crowded CPU, waits; another thread
    of this process has its own reading."""
    before = os.sched_getaffinity(0)
    waits = arena_wait()
    start = waits.read()
    try:
        busy_cpu(threading.get_native_id())
        end = perf_counter() + 0.5
        while perf_counter() < end:
            pass
        waited = (waits.read() - start) / 1e9
    finally:
        os.sched_setaffinity(threading.get_native_id(), before)
    assert waited > 0.1
    assert arena_wait() is waits
    other: list[object] = []
    thread = threading.Thread(target=lambda: other.append(arena_wait()))
    thread.start()
    thread.join()
    assert other and other[0] is not waits


def test_the_fair_clock_is_the_default_and_its_cap_a_generous_backstop() -> None:
    """A hung bot times out at its allowance on the fair clock: the cap is reached only by a bot
    starved of CPU, so it stays as generous as the CPU clock's."""
    default = TimeControl()
    assert default.clock is Clock.FAIR
    assert default.wall_cap_ms == 110_000 == TimeControl(clock=Clock.CPU).wall_cap_ms
    assert TimeControl(move_ms=100, bank_ms=0).wall_cap_ms == 5000
    assert TimeControl(wall_ms=700).wall_cap_ms == 700


@pytest.mark.slow
def test_a_bot_kept_waiting_for_a_cpu_at_quit_is_given_its_waits_not_killed(bot, busy_cpu) -> None:
    """At quit the bot works 0.3 s of CPU, then exits, within a quit grace of 0.5 s; on a CPU it
    shares with two busy loops that takes about 0.9 s. Killed at the grace, check-bot failed such
    bots' quit step on a loaded machine (a league's submissions at a load of 20): the grace now
    grows by the time the bot waited for a CPU during it."""
    process = bot("works_at_quit", 0.3)
    assert process.pid is not None
    busy_cpu(process.pid)
    process.close(grace=0.5)
    assert process.exit_seconds is not None and process.exit_seconds > 0.5


def test_a_bot_that_ignores_quit_is_killed_at_its_grace_when_it_does_not_wait_for_a_cpu(
        bot) -> None:
    """The waits given back are waits for a CPU only: a bot that sleeps through quit is killed
    at its grace as before."""
    process = bot("ignores_quit")
    began = perf_counter()
    process.close(grace=0.3)
    assert process.exit_seconds is None and perf_counter() - began < 0.3 + SLACK


@pytest.mark.slow
def test_a_bot_flushing_its_log_at_quit_is_not_killed_for_the_arenas_slow_reading(
        bot, busy_cpu) -> None:
    """At quit the bot writes 200 MiB to stderr and exits; the arena, reading that pipe, shares
    its CPU with two busy loops, so the bot spends most of its grace blocked on a full pipe,
    waiting for the arena, not for a CPU. It failed check-bot's quit step in CI (8 such bots, the
    arena on a loaded machine): a grace the arena's reading uses up is given again, up to ten
    graces (3 s: a margin for a loaded machine; the reading alone takes over 0.3 s here)."""
    process = bot("logs_at_quit", 200)
    arena_thread = threading.get_native_id()
    before = os.sched_getaffinity(arena_thread)
    try:
        busy_cpu(arena_thread)
        process.close(grace=0.3)
    finally:
        os.sched_setaffinity(arena_thread, before)
    assert process.stderr_written[0] == 200 << 20  # every byte was read, none lost to a kill
    assert process.exit_seconds is not None and process.exit_seconds > 0.3


def test_a_bot_that_writes_its_log_without_end_at_quit_is_killed_within_ten_graces(bot) -> None:
    """Time is given back for a full pipe only up to ``QUIT_WAIT_CAP`` times the grace: a bot
    that floods stderr after quit and never exits costs the arena no more than that."""
    process = bot("logs_at_quit", 0)
    began = perf_counter()
    process.close(grace=0.1)
    assert process.exit_seconds is None
    assert process.stderr_written[0] > 1 << 20  # it did flood: else this shows nothing
    assert 0.1 * QUIT_WAIT_CAP <= perf_counter() - began < 0.1 * QUIT_WAIT_CAP + SLACK


class ByHand:
    """A misbehaving bot asked for an act the way ``BotProcess`` asks (``begin``, write,
    ``written`` while the clock is marking, read), by hand, so that a test can put the arena's
    own delays where it wants them: its channel, and a fair clock on its process tree."""

    def __init__(self, name: str, *args: object) -> None:
        self.proc = subprocess.Popen([sys.executable, "-S", str(BOTS / f"{name}.py"),
                                      *map(str, args)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.channel = Channel(self.proc, StderrSink(name, None, 4096), 1 << 20)
        self.meter = Meter()
        self.meter.open(self.proc.pid)
        self.clock = FairClock(self.meter)
        self.channel.write(line({"type": "hello", "id": 0, "protocol": 1}))
        now = perf_counter()
        self.channel.read_line(now + 10 * SLACK, now)
        self.meter.lap()

    def write(self, allowance: float, held: float = 0.0) -> float:
        """Start an act of ``allowance`` seconds and write it ``held`` seconds later (the arena
        held up in between: preempted, say); returns its start."""
        start = self.clock.begin(allowance, 30.0)
        time.sleep(held)
        self.channel.write(line({**act(), "id": 1}))
        if self.clock.marking:
            self.clock.written()
        return start

    def reply(self, start: float) -> tuple[float, float] | TimedOut:
        """Read the act's reply: the CPU seconds and the seconds charged, or the timeout."""
        try:
            self.channel.read_line(start + self.clock.allowance, start, self.clock)
        except ChannelError as error:
            if not error.expired:  # a crash, not a timeout
                raise
            return self.clock.timed_out(bool(error.received))
        return self.clock.charge(perf_counter() - start)

    def close(self) -> None:
        self.meter.close()
        self.proc.kill()
        self.proc.wait()
        for pipe in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            assert pipe is not None
            pipe.close()


@pytest.fixture
def by_hand() -> Iterator[Callable[..., ByHand]]:
    """``ask(name, *args)``: a misbehaving bot asked by hand (``ByHand``), closed afterwards."""
    started: list[ByHand] = []

    def ask(name: str, *args: object) -> ByHand:
        started.append(ByHand(name, *args))
        return started[-1]

    yield ask
    for bot in started:
        bot.close()


@pytest.mark.slow
def test_the_arenas_delay_before_its_write_is_not_charged(by_hand) -> None:
    """The arena is held up 0.7 s between an act's start and its write, while the bot waits for
    it on its input; then the bot spins 0.5 s of CPU under an allowance of 1 s. The fair clock
    once charged it the 0.7 s as if it had slept, and faulted it."""
    bot = by_hand("spins", 0.5, 1)
    reply = bot.reply(bot.write(1.0, held=0.7))
    assert not isinstance(reply, TimedOut), reply.detail
    cpu, charged = reply
    assert 0.4 < cpu <= charged < 1.0


@pytest.mark.slow
def test_a_bot_that_sleeps_past_its_allowance_after_a_late_write_still_times_out(by_hand) -> None:
    """What is not charged of the arena's delay is only the arena's: a bot that then sleeps over
    its allowance is faulted for its sleep."""
    bot = by_hand("slow", 30.0, 1)
    reply = bot.reply(bot.write(0.5, held=0.3))
    assert isinstance(reply, TimedOut) and reply.limit is TimeLimit.FAIR
    assert "ms asleep or waiting" in reply.detail and reply.cpu < 0.25


@pytest.mark.parametrize(("name", "args", "over"), [("spins", (30.0, 1), False),
                                                    ("slow", (30.0, 1), True)],
                         ids=["spinning", "asleep"])
def test_a_bot_awake_since_the_write_is_not_charged_time_the_machine_took(
        by_hand, name: str, args: tuple[object, ...], over: bool) -> None:
    """A second of wall time that was neither the bot's CPU time nor its wait for a CPU nor a
    sleep of its own (a hypervisor ran another guest on the CPU the bot was running on: Linux
    counts that time in neither) is not charged to a bot that stayed awake since the act was
    written: it times out on its CPU time. A bot that slept since is charged it. The deadline is
    looked at as if that second had passed."""
    bot = by_hand(name, *args)
    start = bot.write(1.0)
    tree = bot.meter.tree
    assert tree is not None
    while bot.meter.used() < 0.05 and (name == "spins" or tree.is_working()):
        time.sleep(0.005)  # the spinner is spinning, or the sleeper asleep
    deadline = start + 1.0
    now = bot.clock.at_deadline(max(perf_counter(), deadline) + 1.0, deadline)
    if over:
        assert bot.clock.state is RequestState.TIMED_OUT and bot.clock.limit is TimeLimit.FAIR
    else:
        assert bot.clock.state is RequestState.OVERTIME and now > deadline
