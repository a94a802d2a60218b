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

Under ``clock: fair`` a decision is charged its wall time less the time the bot waited for a CPU
(and the time the arena did): Linux keeps every task's run-queue delay, the nanoseconds it was
runnable but not running, in ``/proc/PID/task/TID/schedstat`` (its second field). ``TreeClock``
tracks the tasks (threads) of the tree once asked to (``waited``), with one open ``schedstat``
file each, read with one ``pread``; a task found by a later walk counts from its own start.
``ArenaWait`` is the same for the arena's own thread.

Linux counts the time a running task loses to the machine (a hypervisor running another guest:
steal time; interrupts) in neither field: ``mark_awake`` and ``is_awake`` tell whether a task has
stayed running or runnable since a mark, by its state and its count of voluntary context switches
(``/proc/PID/task/TID/status``), so that such time is not taken for a sleep of the bot's.
"""

from __future__ import annotations

import contextlib
import os
import threading
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
                 "tasks", "tracking", "waits_before", "waits_read", "walked")

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
        self.tracking = False
        """Whether the tasks' run-queue delays are tracked (from the first ``waited``)."""
        self.tasks: dict[int, list[int]] = {}
        """While tracking: by task id, [its process's pid, its open ``schedstat``, the run-queue
        delay and the CPU time in ns last read of it, 1 if it ran between the last two reads,
        its open ``status`` (-1 until ``mark_awake`` opens it), its voluntary context switches
        at the last ``mark_awake`` (-1: not marked, or not running nor runnable then)]."""
        self.waits_read = self.waits_before = 0.0
        """``perf_counter()`` at the last ``waited`` and at the one before."""
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
        if self.tracking:
            self._find_tasks(pids, 0)

    def _find_tasks(self, pids: list[int], since: int) -> None:
        """Open the ``schedstat`` of every task of ``pids`` not yet tracked, counting its delay
        from ``since`` (0: from its start; -1: from now); forget those of processes gone."""
        tasks = self.tasks
        for tid in [tid for tid, task in tasks.items() if task[0] not in self.clocks]:
            _close_task(tasks.pop(tid))
        for pid in pids:
            try:
                tids = os.listdir(f"/proc/{pid}/task")
            except OSError:
                continue
            for name in tids:
                tid = int(name)
                if tid in tasks:
                    continue
                try:
                    fd = os.open(f"/proc/{pid}/task/{tid}/schedstat", os.O_RDONLY | os.O_CLOEXEC)
                except OSError:
                    continue
                try:
                    ran, delay = _schedstat(fd)
                except (OSError, ValueError, IndexError):
                    os.close(fd)
                    continue
                tasks[tid] = [pid, fd, delay if since < 0 else since, ran, 1, -1, -1]

    def waited(self, fresh: bool = False) -> float:
        """The longest time, in seconds, that one task of the tree waited for a CPU since the last
        call (the first call starts tracking and returns 0). ``fresh`` looks for new tasks first.

        The longest, not the sum: threads wait side by side, and a decision is charged its wall
        time less this, but never less than its CPU time (``arena.bots.clocks``), so a thread
        kept waiting beside a sleeping one earns a bot no more than the CPU it burns. The kernel
        adds a wait to a task's delay when the wait ends: ``settle`` bounds a wait going on."""
        if not self.tracking:
            self.tracking = True
            self._find_tasks(list(self.clocks), -1)
            self.waits_read = _now()
            return 0.0
        if fresh:
            self.walk()
        self.waits_before, self.waits_read = self.waits_read, _now()
        longest = 0
        gone = None
        for tid, task in self.tasks.items():
            try:
                ran, delay = _schedstat(task[1])
            except (OSError, ValueError, IndexError):  # the thread has exited
                gone = [*(gone or ()), tid]
                continue
            if delay - task[2] > longest:
                longest = delay - task[2]
            task[2] = delay
            task[4] = ran != task[3]
            task[3] = ran
        for tid in gone or ():
            _close_task(self.tasks.pop(tid))
        return longest / 1e9

    def settle(self) -> tuple[float, float | None]:
        """At a deadline: what ``waited(fresh=True)`` returns, and the most that a wait for a CPU
        still going on can add to it, in seconds: 0 when no task was runnable (every wait had
        ended, so it is counted); the time since the reading before when every runnable task ran
        since then (a wait going on began after it); None when one has not: it may be waiting yet.

        The states are read before the delays: a task that runs in between has its wait counted
        by the delays, where the other order could miss a wait that ended after the delays were
        read and see the task asleep again (a reply written meanwhile)."""
        self.walk()
        runnable = [tid for tid, task in self.tasks.items() if _is_runnable(task[0], tid)]
        waited = self.waited()
        unseen: float | None = 0.0
        for tid in runnable:
            task = self.tasks.get(tid)
            if task is None:  # it has exited since
                continue
            if not task[4]:
                return waited, None
            unseen = self.waits_read - self.waits_before
        return waited, unseen

    def mark_awake(self) -> None:
        """Note which tracked tasks are running or runnable now, and how often each has given up
        its CPU of its own accord (``voluntary_ctxt_switches``: sleeping, blocking on input, a
        lock, a page to read); ``is_awake`` asks whether one has stayed so. A task found later is
        not marked. Reads each task's ``status`` (about 4 us): at a request's write, not per read."""
        for tid, task in self.tasks.items():
            task[6] = -1
            try:
                if task[5] < 0:
                    task[5] = os.open(f"/proc/{task[0]}/task/{tid}/status",
                                      os.O_RDONLY | os.O_CLOEXEC)
                runnable, switches = _status(task[5])
            except (OSError, ValueError, IndexError):
                continue
            if runnable:
                task[6] = switches

    def is_awake(self) -> bool:
        """Whether a task marked by ``mark_awake`` has been running or runnable ever since: it is
        now, and has not given up its CPU of its own accord in between. Its time since the mark
        is then its CPU time, its waits for a CPU and what the machine took from it (a hypervisor
        that ran another guest, interrupts), never a sleep of the bot's."""
        for task in self.tasks.values():
            if task[6] < 0:
                continue
            try:
                runnable, switches = _status(task[5])
            except (OSError, ValueError, IndexError):
                continue
            if runnable and switches == task[6]:
                return True
        return False

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
        """Close the ``children`` and ``schedstat`` files."""
        self.only = None
        for pid in list(self.clocks):
            self._forget(pid)
        for task in self.tasks.values():
            _close_task(task)
        self.tasks.clear()
        self.tracking = False


def _run_delay(fd: int) -> int:
    """The run-queue delay in ns of the task whose ``schedstat`` is open as ``fd``."""
    return int(_pread(fd, 96, 0).split(None, 2)[1])


def _is_runnable(pid: int, tid: int) -> bool:
    """Whether the task ``tid`` of ``pid`` is running or waiting for a CPU (state ``R``)."""
    try:
        with open(f"/proc/{pid}/task/{tid}/stat", "rb") as handle:
            stat = handle.read()
    except OSError:
        return False
    return stat[stat.rfind(b")") + 2:][:1] == b"R"


def _status(fd: int) -> tuple[bool, int]:
    """Whether the task whose ``status`` is open as ``fd`` is running or runnable (``R``), and
    its count of voluntary context switches."""
    status = _pread(fd, 4096, 0)
    state = status.find(b"\nState:")
    switches = status.find(b"\nvoluntary_ctxt_switches:")
    if state < 0 or switches < 0:
        raise ValueError("no State or voluntary_ctxt_switches")
    end = status.find(b"\n", switches + 1)
    return (status[state + 7:state + 9].strip()[:1] == b"R",
            int(status[switches + 25:end if end >= 0 else len(status)]))


def _close_task(task: list[int]) -> None:
    """Close the files a tracked task has open."""
    for fd in (task[1], task[5]):
        if fd >= 0:
            with contextlib.suppress(OSError):
                os.close(fd)


def _schedstat(fd: int) -> tuple[int, int]:
    """The CPU time and the run-queue delay, in ns, of the task whose ``schedstat`` is ``fd``."""
    fields = _pread(fd, 96, 0).split(None, 2)
    return int(fields[0]), int(fields[1])


ARENA_MARK_SECONDS = 0.005
"""How old the arena thread's last reading may be to serve as a request's start (``ArenaWait``)."""


class ArenaWait:
    """The time the arena's own thread waited for a CPU: one per thread (``for_thread``).

    Read at a reply of a request timed by the fair clock and at its deadlines; the reading at the
    previous reply serves as the next request's start when it is under ``ARENA_MARK_SECONDS``
    old (the referee's work between two decisions), so a decision costs one reading."""

    __slots__ = ("at", "delay", "fd")

    def __init__(self) -> None:
        self.fd = -1
        self.delay = 0
        """The run-queue delay in ns last read."""
        self.at = 0.0
        """``perf_counter()`` of that reading."""
        self.read()

    def mark(self, now: float) -> int:
        """The delay at ``now`` (a request's start): the last reading when it is recent."""
        if now - self.at > ARENA_MARK_SECONDS:
            self.read()
        return self.delay

    def read(self) -> int:
        """The delay now, in ns (0 where the system does not keep it)."""
        try:
            delay = _run_delay(self.fd)
        except (OSError, ValueError, IndexError):  # not opened yet, or of a thread gone
            delay = self._reopen()
        self.delay = delay
        self.at = _now()
        return delay

    def _reopen(self) -> int:
        if self.fd >= 0:
            with contextlib.suppress(OSError):
                os.close(self.fd)
            self.fd = -1
        try:
            self.fd = os.open("/proc/thread-self/schedstat", os.O_RDONLY | os.O_CLOEXEC)
            return _run_delay(self.fd)
        except (OSError, ValueError, IndexError):
            return self.delay


ARENA_WAITS: dict[int, ArenaWait] = {}
"""By ``threading.get_ident()`` (no system call, where ``get_native_id`` is one); emptied in a
forked child, whose threads must never read their parent's."""
_thread_id = threading.get_ident
os.register_at_fork(after_in_child=ARENA_WAITS.clear)


def arena_wait() -> ArenaWait:
    """The ``ArenaWait`` of the calling thread (opened at its first call)."""
    waits = ARENA_WAITS.get(_thread_id())
    if waits is None:
        waits = ARENA_WAITS[_thread_id()] = ArenaWait()
    return waits
