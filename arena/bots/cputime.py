"""The CPU time a bot's process tree has used: read at a request's start, its reply and its deadline.

Each process's CPU time is read from its process CPU clock (``clock_gettime`` on the clock id the
kernel derives from the pid, as ``clock_getcpuclockid(3)`` does): nanosecond resolution, every
thread of the process including threads that have exited, one system call per process (about
1.5 us; reading ``/proc/PID/stat`` would cost several times that and counts in 10 ms ticks).

The tree (the bot and its descendants: under bubblewrap, ``bwrap``, the sandbox's pid 1 and the
bot below them) is walked through ``/proc`` as the memory watch walks it, but a walk costs 12-40
us, so it is kept: walked at the start and after ``hello``, always before a decision is judged
over its limit (``read(fresh=True)``), and otherwise looked at every ``CHECK_EVERY`` readings,
though not sooner than ``CHECK_SECONDS`` after the last look: a look walks the tree again when
``WALK_SECONDS`` have passed since the last walk or when one of the kept processes' main threads
shows a different list of children (one ``pread`` of an open ``children`` file each). Paced by time
as well as by readings, looking costs a bot that answers in microseconds (a C bot: a decision of
the whole arena is about 25 us) next to nothing, where every 8 and 64 readings cost it about 3% of
a decision, and finds the children of a slow bot as soon. A child found late is not lost: its clock
counts from its own start (what it used is charged to the decision that finds it). A process that
leaves the tree keeps counting with the CPU time last read of it, so the total never goes down. Not
counted: the CPU of a child that started and was reaped between two reads (it is in its parent's
``cutime``, which the kernel only keeps in 10 ms ticks).
"""

from __future__ import annotations

import contextlib
import os
import time

from arena.bots.memory import process_tree

_clock_ns = time.clock_gettime_ns
_pread = os.pread
_now = time.perf_counter

CHECK_EVERY = 8
"""Readings between two looks at the tree (each also waits for ``CHECK_SECONDS``)."""
CHECK_SECONDS = 0.005
"""Seconds at least between two looks at the kept processes' main threads' children."""
WALK_SECONDS = 0.05
"""Seconds after which a look walks the whole tree again: children forked by a thread other than
a process's main thread are found by the walk (a JVM starts processes from another thread)."""


def process_clock(pid: int) -> int:
    """The clock id of ``pid``'s CPU time (the kernel's ``MAKE_PROCESS_CPUCLOCK(pid, SCHED)``)."""
    return ((~pid) << 3) | 2


class TreeClock:
    """CPU time of one bot's process tree, in seconds since it was started; owned by its BotProcess."""

    __slots__ = ("children", "clocks", "countdown", "gone", "last", "looked", "only", "pid",
                 "walked")

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.clocks: dict[int, int] = {}
        """Clock id of every process of the tree as last walked, by pid."""
        self.children: dict[int, tuple[int, bytes]] = {}
        """An open ``children`` file of each process's main thread, and what it last said."""
        self.last: dict[int, int] = {}
        """CPU ns last read of each process (kept for those that left the tree)."""
        self.gone = 0
        """CPU ns of processes that have left the tree."""
        self.only: tuple[int, int] | None = None
        """(pid, clock id) while the tree is that one process (most bots): read without a loop."""
        self.countdown = CHECK_EVERY
        """Readings left before the next look at the tree."""
        self.looked = self.walked = 0.0
        """``perf_counter()`` at the last look at the tree, and at the last walk."""
        self.walk()

    def walk(self) -> None:
        """Find the tree again (``/proc``), keeping what processes that left it had used."""
        self.looked = self.walked = _now()
        pids = list(process_tree(self.pid))
        for pid in list(self.clocks):
            if pid not in pids:
                self._forget(pid)
        for pid in pids:
            if pid in self.clocks:
                continue
            self.clocks[pid] = process_clock(pid)
            try:
                fd = os.open(f"/proc/{pid}/task/{pid}/children", os.O_RDONLY | os.O_CLOEXEC)
            except OSError:
                continue
            try:
                self.children[pid] = (fd, _pread(fd, 4096, 0))
            except OSError:
                os.close(fd)
        self.only = next(iter(self.clocks.items())) if len(self.clocks) == 1 else None

    def _forget(self, pid: int) -> None:
        self.clocks.pop(pid, None)
        self.gone += self.last.pop(pid, 0)
        entry = self.children.pop(pid, None)
        if entry is not None:
            with contextlib.suppress(OSError):
                os.close(entry[0])

    def _look(self) -> None:
        """Every ``CHECK_EVERY`` readings: once ``CHECK_SECONDS`` have passed since the last look,
        walk the tree if ``WALK_SECONDS`` have passed since the last walk or it has changed."""
        self.countdown = CHECK_EVERY
        now = _now()
        if now - self.looked < CHECK_SECONDS:
            return
        self.looked = now
        if now - self.walked >= WALK_SECONDS or self._changed():
            self.walk()

    def _changed(self) -> bool:
        """Whether a kept process's main thread has gained or lost a child since the last walk."""
        for fd, said in self.children.values():
            try:
                if _pread(fd, 4096, 0) != said:
                    return True
            except OSError:  # the process is gone
                return True
        return False

    def read(self, fresh: bool = False) -> float:
        """Seconds of CPU the tree has used; ``fresh`` walks the tree first (at a deadline)."""
        countdown = self.countdown = self.countdown - 1
        if fresh:
            self.walk()
        elif countdown <= 0:
            self._look()
        only = self.only
        if only is not None:  # one process: what the loop below does, minus the loop
            pid, clock = only
            try:
                used = self.last[pid] = _clock_ns(clock)
            except OSError:
                used = self.last.get(pid, 0)
            return (self.gone + used) / 1e9
        total = self.gone
        last = self.last
        for pid, clock in self.clocks.items():
            try:
                used = last[pid] = _clock_ns(clock)
            except OSError:  # exited, not yet out of the tree: what it used last time
                used = last.get(pid, 0)
            total += used
        return total / 1e9

    def is_working(self) -> bool:
        """Whether a thread of the tree is running or waiting for a CPU (state ``R``) right now:
        a bot that is not is waiting for something (its input, a sleep, a lock), and a reply it
        wrote but did not flush stays in its buffer."""
        for pid in process_tree(self.pid):
            try:
                tasks = os.listdir(f"/proc/{pid}/task")
            except OSError:
                continue
            for task in tasks:
                try:
                    with open(f"/proc/{pid}/task/{task}/stat", "rb") as handle:
                        stat = handle.read()
                except OSError:
                    continue
                if stat[stat.rfind(b")") + 2:][:1] == b"R":
                    return True
        return False

    def close(self) -> None:
        """Close the ``children`` files."""
        self.only = None
        for pid in list(self.clocks):
            self._forget(pid)
