"""Decision clocks: how long a request may take, and what it is charged (docs/protocol.md, Time).

A request is timed by the clock its time control names (``arena.settings.Clock``): each bot
process has one of each (``BotProcess`` asks the one a request names), and each owns its state.

- ``WallClock``: the wall time from just before the write to just after the read that completed
  the reply line, less the time the arena itself was not running past a deadline (``STALL``).
- ``FairClock``: the wall time less the time the bot waited for a CPU (``arena.bots.cputime``: the
  run-queue delay of its threads) and the time the arena's own thread waited for one to read the
  reply, never less than the bot's CPU time. What is left is the time it computed and the time it
  chose to wait (sleeping, blocking on its own input): its sleeping is charged, its waiting not.
  Linux counts time the machine took from a running task (a hypervisor running another guest,
  interrupts) neither as its CPU time nor as a wait: while a task of the bot awake at the write
  (``TreeClock.mark_awake``) has not slept since, the bot is charged its CPU time from there.
  A request marked at its write is timed from the write: the arena's time before it, while the
  bot waited on its input, is not the bot's.
- ``CpuClock``: the CPU time of the bot's process tree since its previous reply.

Under ``fair`` and ``cpu``, when the allowance has passed in wall time, what the bot was charged
decides: under the allowance the wait goes on, up to the wall cap (``wall_cap``, or the time
control's), which ends a request whatever it was charged. The caller never waits past the
allowance (plus poll's 1 ms granularity) in the clock's time.

Every reply carries the CPU time the bot's process tree used since its previous reply, read once
per request, just after the reply (and at a deadline), not at the write: one reading per decision
instead of two, and what a bot does between two requests (the messages in between, pondering)
counts toward the next. The three clocks of a process share that reading and the count of the
arena's stalls (``Meter``). A wait that woke up much later than its deadline (over ``STALL``: the
arena itself was not running) is counted in ``stalls``; under ``wall`` the bot is given that time
again.

A clock is asked three times about a request (python-chess's commands own their state the same
way; ``RequestState`` says where the request is):

- ``begin(allowance, cap)`` just before it is written: its start; ``written()`` just after,
  while the clock asks for it (``marking``);
- ``at_deadline(now, deadline)`` when the read's deadline has passed without a reply (the
  ``Deadline`` of ``arena.bots.channel``): a later deadline, or ``now``: it timed out;
- ``charge(elapsed)`` at its reply: the CPU seconds and the seconds charged; or ``timed_out(...)``
  at a timeout: what the fault says.
"""

from __future__ import annotations

import enum
import threading
from time import perf_counter
from typing import Final, NamedTuple

from mypy_extensions import mypyc_attr

from arena.bots.channel import NOTHING_RECEIVED
from arena.bots.cputime import ARENA_MARK_SECONDS, ARENA_WAITS, ArenaWait, TreeClock, arena_wait
from arena.values.faults import TimeLimit

__all__ = ["BLOCKED_HINT", "STALL", "CpuClock", "DecisionClock", "FairClock", "Meter",
           "RequestState", "TimedOut", "WallClock", "wall_cap"]

STALL = 0.025
"""Seconds past its deadline after which a wait counts as having woken up late: the arena itself
was not running (poll's granularity and a busy machine's wake-up latency stay below it)."""
QUICK = 0.001
"""Under ``clock: fair``, a reply within this many seconds is charged its wall time (at least its
CPU time) without reading the waits, as long as they were read under ``FRESH`` seconds before
the request: a wait read later may then take in at most that much from before the request.
Below a millisecond the charge moves no bank, and reading the bot's and the arena's waits at
every reply would cost a microsecond-fast bot's decision a quarter more."""
FRESH = 0.005
"""See ``QUICK``; ``arena.bots.cputime.ARENA_MARK_SECONDS`` is the arena's own."""
CONFIRM = 0.005
"""Under ``clock: fair``, seconds until a decision that seems over its allowance while a thread of
the bot is runnable is looked at again (``FairClock.at_deadline``): the bot's wait for a CPU, if it
is waiting, is counted by then, or bounded by this."""
BLOCKED_HINT = "blocked on input, or the reply is not flushed"
"""Said with a timeout that used little CPU and received nothing: the bot was waiting, not working."""
UNENDED_HINT = "the reply line has no end yet: is the newline written and flushed?"
"""Said with a timeout that received part of a line while the bot was waiting, not working."""


def wall_cap(allowance: float) -> float:
    """The default wall cap of a request with ``allowance`` seconds: 10 x, and at least 5 s."""
    return max(5.0, 10 * allowance)


class RequestState(enum.Enum):
    """Where the request a clock times is."""

    IDLE = "idle"
    """None asked yet."""
    WAITING = "waiting"
    """Written, and its deadline has not passed."""
    OVERTIME = "overtime"
    """A deadline has passed and the clock let the wait go on (a stall given back, an allowance
    of CPU or of the bot's own time not used up yet): it is charged with what that deadline saw."""
    TIMED_OUT = "timed_out"
    """A limit ended it (``limit`` says which); its reply, if it comes, is dropped."""
    ANSWERED = "answered"
    """Its reply came, and was charged."""


_WAITING: Final = RequestState.WAITING
_OVERTIME: Final = RequestState.OVERTIME
_ANSWERED: Final = RequestState.ANSWERED
_thread_id = threading.get_ident


class TimedOut(NamedTuple):
    """What a timeout's fault says of the time: the CPU seconds the bot used, the detail (which
    limit, what was used, where it was waiting), and the limit that ended it."""

    cpu: float
    detail: str
    limit: TimeLimit


class Meter:
    """What the clocks of one bot process share: the CPU clock of its process tree, its reading at
    the bot's last reply, and the count of the arena's stalls. ``BotProcess`` opens it at each
    start and closes it at each exit."""

    def __init__(self) -> None:
        self.tree: TreeClock | None = None
        """The CPU clock of the running process's tree (``arena.bots.cputime``)."""
        self.cpu_start = 0.0
        """The tree's CPU time when the bot last replied: a request's CPU time counts from there."""
        self.stalls = 0
        """Waits for this bot that woke up over ``STALL`` late: the arena was not running."""

    def open(self, pid: int) -> None:
        """Time the process ``pid`` just started: its CPU time counts from its start."""
        self.tree = TreeClock(pid)
        self.cpu_start = 0.0

    def close(self) -> None:
        """The process is gone: close its tree's files."""
        if self.tree is not None:
            self.tree.close()
            self.tree = None

    def used(self, fresh: bool = False) -> float:
        """The CPU seconds the tree has used since the bot's last reply; ``fresh`` walks the tree
        first (a child may have been started)."""
        tree = self.tree
        assert tree is not None
        return tree.read(fresh=fresh) - self.cpu_start

    def lap(self, fresh: bool = False) -> float:
        """``used``, and the next request's CPU time counts from now (a reply, a timeout)."""
        tree = self.tree
        assert tree is not None
        total = tree.read(fresh=fresh)
        used, self.cpu_start = total - self.cpu_start, total
        return used

    def waited(self) -> float | None:
        """The longest a thread of the tree has waited for a CPU since the last look, its threads
        found afresh (0 at the first look, which starts counting, and when they cannot be read);
        None when no process is timed."""
        if self.tree is None:
            return None
        try:
            return self.tree.waited(fresh=True)
        except OSError:
            return 0.0


# Compiled (`make compiled`), a class is closed to subclasses written in Python unless it says so:
# a test's or a benchmark's stand-in clock may be one. A no-op when pure.
@mypyc_attr(allow_interpreted_subclasses=True)
class DecisionClock:
    """How a bot's request is timed: ``begin`` it, ask ``at_deadline`` when its deadline passes,
    ``charge`` its reply or say how it ``timed_out``. One request at a time; the subclasses are
    the clocks, this the stall and the wall cap they share."""

    at_cap = TimeLimit.WALL_CAP
    """The limit a request that reaches its wall cap ran into."""

    def __init__(self, meter: Meter) -> None:
        self.meter = meter
        self.state = RequestState.IDLE
        self.start = 0.0
        """``perf_counter()`` just before the request was written."""
        self.allowance = 0.0
        """Its allowance, in seconds of this clock."""
        self.cap: float | None = None
        """Its wall cap in seconds (None: ``wall_cap`` of the allowance)."""
        self.stalled = 0.0
        """Seconds the arena stalled past its deadlines (from its first deadline on)."""
        self.limit: TimeLimit | None = None
        """The limit that ended it, once one did."""
        self.marking = False
        """Whether the clock asks to be told when the request has been written (``written``)."""

    def begin(self, allowance: float, cap: float | None) -> float:
        """Time a request of ``allowance`` seconds (ending at ``cap`` seconds of wall time at
        most) written now; returns its start (``perf_counter()``)."""
        self.state = _WAITING
        self.allowance = allowance
        self.cap = cap
        start = self.start = perf_counter()
        return start

    def written(self) -> None:
        """The request has just been written (called while ``marking``): here nothing to do."""

    def at_deadline(self, now: float, deadline: float) -> float:
        """The request's new deadline when ``deadline`` has passed without a reply; not after
        ``now``: it timed out (``limit`` says which). A wait that woke up over ``STALL`` late is
        counted; the clock decides the rest (``extended``)."""
        if self.state is not _OVERTIME:  # its first deadline
            self.state = _OVERTIME
            self.stalled = 0.0
            self.limit = None
            self.overtime()
        cap = self.cap
        cap_at = self.start + (cap if cap is not None else wall_cap(self.allowance))
        late = now - deadline
        if late > STALL:
            self.meter.stalls += 1
            self.stalled += late
        if now >= cap_at:
            return self.ended(now, self.at_cap)
        return self.extended(now, late, cap_at)

    def overtime(self) -> None:
        """At the request's first deadline: what a clock counts from there starts at nothing."""

    def extended(self, now: float, late: float, cap_at: float) -> float:
        """At a deadline before the wall cap (``cap_at``), ``late`` seconds after it: the new
        deadline, or ``ended``."""
        raise NotImplementedError

    def ended(self, now: float, limit: TimeLimit) -> float:
        """End the request at ``now``: ``limit`` ran out."""
        self.state = RequestState.TIMED_OUT
        self.limit = limit
        return now

    def charge(self, elapsed: float) -> tuple[float, float]:
        """At the reply, ``elapsed`` wall seconds after the start: the CPU seconds the bot's tree
        used since its previous reply, and the seconds it is charged."""
        raise NotImplementedError

    def timed_out(self, received: bool) -> TimedOut:
        """At a timeout (``received``: part of a reply line had come): the CPU the bot used, and
        what the fault says: which limit, what was used, and a hint where the bot is waiting rather
        than working (no thread of its tree runnable): the reply was not flushed, or not
        written at all."""
        cpu = max(0.0, self.meter.lap(fresh=True))
        limit = (self.limit if self.state is RequestState.TIMED_OUT else None) or TimeLimit.WALL
        detail = self.detail(limit, cpu)
        tree = self.meter.tree
        assert tree is not None
        if limit is not TimeLimit.CPU and not tree.is_working():
            if received:
                detail += f": {UNENDED_HINT}"
            elif limit is TimeLimit.WALL:
                detail += f" ({NOTHING_RECEIVED})"
            else:
                detail += f": {BLOCKED_HINT}"
        return TimedOut(cpu, detail, limit)

    def detail(self, limit: TimeLimit, cpu: float) -> str:
        """What a timeout's fault says of the time it took, by the limit that ended it: here the
        wall's and the wall cap's; a clock says its own."""
        if limit is TimeLimit.WALL_CAP:
            wall = self.cap if self.cap is not None else wall_cap(self.allowance)
            return f"no reply in {wall:g} s of wall time while using {_cpu_text(cpu)}"
        return f"no reply within {self.allowance * 1000:.0f} ms, using {_cpu_text(cpu)}"


@mypyc_attr(allow_interpreted_subclasses=True)
class WallClock(DecisionClock):
    """``clock: wall``: the wall time, less what the arena itself stalled past a deadline."""

    at_cap = TimeLimit.WALL

    def extended(self, now: float, late: float, cap_at: float) -> float:
        """The time the arena was not running is given again; else the allowance is over."""
        if late > STALL:
            return min(cap_at, now + late)
        return self.ended(now, TimeLimit.WALL)

    def charge(self, elapsed: float) -> tuple[float, float]:
        """The wall time, less what the arena stalled past a deadline."""
        meter = self.meter
        tree = meter.tree
        assert tree is not None
        cpu_start = meter.cpu_start
        used = meter.cpu_start = tree.read()
        # a deadline passed: the arena may have stalled
        charged = elapsed - self.stalled if self.state is _OVERTIME else elapsed
        self.state = _ANSWERED
        return used - cpu_start, charged


@mypyc_attr(allow_interpreted_subclasses=True)
class CpuClock(DecisionClock):
    """``clock: cpu``: the CPU time of the bot's process tree since its previous reply."""

    def extended(self, now: float, late: float, cap_at: float) -> float:
        """Under the allowance of CPU, wait for what is left of it (at least 2 ms)."""
        used = self.meter.used(fresh=True)
        allowance = self.allowance
        if used >= allowance:
            return self.ended(now, TimeLimit.CPU)
        return min(cap_at, now + max(0.002, allowance - used))

    def charge(self, elapsed: float) -> tuple[float, float]:
        """The CPU time."""
        meter = self.meter
        tree = meter.tree
        assert tree is not None
        cpu_start = meter.cpu_start
        used = meter.cpu_start = tree.read()
        self.state = _ANSWERED
        return used - cpu_start, used - cpu_start

    def detail(self, limit: TimeLimit, cpu: float) -> str:
        """Over the CPU allowance: what it used; else as the wall cap's."""
        if limit is TimeLimit.CPU:
            return f"used {_cpu_text(cpu)}, limit {self.allowance * 1000:.0f} ms"
        return super().detail(limit, cpu)


@mypyc_attr(allow_interpreted_subclasses=True)
class FairClock(DecisionClock):
    """``clock: fair``: the wall time less the bot's waits for a CPU and the arena's wait to read
    the reply, never less than the CPU time."""

    def __init__(self, meter: Meter) -> None:
        super().__init__(meter)
        self.arena: ArenaWait | None = None
        """The arena thread's waits for a CPU (``arena.bots.cputime``), of the thread asking."""
        self.mark = 0
        """The arena thread's run-queue delay (ns) at the request's start."""
        self.waited = 0.0
        """Seconds the bot waited for a CPU during the request, up to its last deadline
        (``TreeClock.waited``)."""
        self.arena_mark = 0
        """The arena thread's run-queue delay (ns) at the request's last deadline: what it
        waits after that is its wait to read the reply."""
        self.marked = False
        """Whether the bot's tasks that are awake were marked (``TreeClock.mark_awake``) for this
        request: just after its write, or else at its first deadline."""
        self.mark_charged = 0.0
        """Seconds charged at the mark (0 at the write)."""
        self.mark_used = 0.0
        """The CPU seconds since the bot's previous reply at the mark (0 at the write: the charge
        is never less than them)."""
        self.unwritten = 0.0
        """Seconds from the start to the write, when marked there: the arena's time, while the bot
        waited for the request (preempted, or waiting for a lock, the arena is not charged to the
        bot). 0 when not marked at the write."""
        self.last_charged = 0.0
        """Seconds charged at the request's last deadline (``extended``)."""
        self.last_deadline = 0.0
        """``perf_counter()`` at that deadline."""
        self.quick = False
        """Whether the bot's last reply came under ``QUICK``: its next request is then marked at
        its write only when its waits are read in ``begin`` (at most every ``FRESH`` seconds),
        since a mark reads a file per task of the bot, several microseconds, which a bot that
        answers in microseconds would pay at every decision."""

    def begin(self, allowance: float, cap: float | None) -> float:
        """As every clock, and the waits for a CPU from the start: the arena's, and the bot's
        if they were not read just now."""
        self.state = _WAITING
        self.allowance = allowance
        self.cap = cap
        tree = self.meter.tree
        assert tree is not None
        start = self.start = perf_counter()
        arena = self.arena = ARENA_WAITS.get(_thread_id()) or arena_wait()
        self.mark = arena.delay if start - arena.at <= ARENA_MARK_SECONDS else arena.read()
        self.marked = False
        self.unwritten = 0.0
        if not tree.tracking or start - tree.waits_read > FRESH:
            # Its waits from now: not those of the messages it woke for between two requests
            # (game_end, game_start), which a loaded machine makes tens of milliseconds.
            tree.waited()
            self.marking = True
        else:
            self.marking = not self.quick
        return start

    def written(self) -> None:
        """Mark the bot's tasks that are awake: its reader, woken by the write, is among them
        (``extended``); the time before the write and the arena's waits from it on are not the
        bot's."""
        self.marking = False
        tree = self.meter.tree
        assert tree is not None
        tree.mark_awake()
        self.marked = True
        self.mark_charged = self.mark_used = 0.0
        arena = self.arena
        assert arena is not None
        self.mark = arena.read()
        self.unwritten = perf_counter() - self.start

    def overtime(self) -> None:
        """The bot's waits are counted from the first deadline on."""
        self.waited = 0.0

    def extended(self, now: float, late: float, cap_at: float) -> float:
        """What was charged so far decides: the wall time less the bot's waits for a CPU, at
        least the CPU time (the arena's own lateness here fell in the bot's time, and the arena's
        wait to read a reply is taken off at the reply). Under the allowance, wait for what is
        left of it (at least 2 ms); over it while a wait for a CPU may be going on, look again
        shortly (``CONFIRM``).

        Over it on less CPU, while a task of the bot awake at the mark (``written``) has stayed
        so: what was charged at the mark and the CPU time since. The rest of the wall time was
        neither the bot's CPU nor its waits for one, nor a sleep of its own: time the machine
        took (a hypervisor that ran another guest counts in neither, nor do interrupts), or the
        arena's before its write woke the bot."""
        meter = self.meter
        used = meter.used(fresh=True)
        tree = meter.tree
        assert tree is not None
        waited, unseen = tree.settle()
        self.waited += waited
        self.arena_mark = arena_wait().read()  # the arena's wait to here is not the bot's
        allowance = self.allowance
        charged = now - self.start - self.unwritten - self.waited
        if not self.marked:  # not marked at its write: from its first deadline
            self.marked = True
            tree.mark_awake()
            # what was charged to here stays charged (a wait going on, or time the machine
            # took, counted as the bot's): only what comes after the mark can be told apart
            self.mark_charged, self.mark_used = charged, used
        elif charged >= allowance > used and tree.is_awake():
            charged = min(charged, self.mark_charged + used - self.mark_used)
        if charged >= allowance and used < allowance and (
                unseen is None or charged - unseen < allowance):
            # Over, unless a wait for a CPU is going on (the kernel counts a wait when it
            # ends): judged once what may be unseen cannot bring it under; until then looked
            # at again shortly (a runnable task runs within the scheduler's latency).
            self.last_charged, self.last_deadline = charged, now
            return min(cap_at, now + CONFIRM)
        self.last_charged, self.last_deadline = charged, now
        used = max(used, charged)
        if used >= allowance:
            return self.ended(now, TimeLimit.FAIR)
        return min(cap_at, now + max(0.002, allowance - used))

    def charge(self, elapsed: float) -> tuple[float, float]:
        """The wall time less the bot's waits for a CPU and the arena's wait since it last
        looked (its wait to read the reply): a wait, or a late wake-up, before that fell while
        the bot slept or worked, its own time, and is not taken off. Never less than the CPU.
        After a deadline: what was charged there (``extended``), and so from there on."""
        meter = self.meter
        tree = meter.tree
        assert tree is not None
        cpu_start = meter.cpu_start
        used = meter.cpu_start = tree.read()
        cpu = used - cpu_start
        overtime = self.state is _OVERTIME
        self.state = _ANSWERED
        if elapsed < QUICK and not overtime and self.start - tree.waits_read < FRESH:
            # a quick reply: the waits are read now and then, not every time
            self.quick = True
            return cpu, (elapsed if elapsed > cpu else cpu)
        self.quick = False
        waited = tree.waited()
        arena = self.arena
        assert arena is not None
        if overtime:
            charged = (self.last_charged + elapsed - (self.last_deadline - self.start) - waited
                       - (arena.read() - self.arena_mark) / 1e9)
        else:
            charged = elapsed - self.unwritten - waited - (arena.read() - self.mark) / 1e9
        return cpu, (charged if charged > cpu else cpu)

    def detail(self, limit: TimeLimit, cpu: float) -> str:
        """Over the allowance: how the time charged was spent, CPU and sleeping or waiting (and
        the wait for a CPU that was not charged); at the wall cap, the wait for a CPU too."""
        if limit is TimeLimit.FAIR:
            slept = self.allowance - cpu
            asleep = f" and {slept * 1000:.0f} ms asleep or waiting" if slept >= 0.0005 else ""
            detail = f"used {_cpu_text(cpu)}{asleep}, limit {self.allowance * 1000:.0f} ms"
            if asleep and self.waited >= 0.001:
                detail += f" (not charged: {self.waited * 1000:.0f} ms waiting for a CPU)"
            return detail
        detail = super().detail(limit, cpu)
        if limit is TimeLimit.WALL_CAP:
            detail += f" and waiting {self.waited:.1f} s for a CPU (the machine is overloaded)"
        return detail


def _cpu_text(cpu: float) -> str:
    return f"{cpu * 1000:.0f} ms of CPU"
