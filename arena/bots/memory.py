"""The memory watch: resident memory of each bot's process group, sampled off the decision path.

Address-space limits punish runtimes that reserve large virtual ranges while using little memory
(a JVM reserves a gigabyte of class space and a quarter of the machine for its heap; Go and node
reserve hundreds of MB up front), so the memory limit is on resident memory instead: one daemon
thread per runner process wakes every ``INTERVAL`` seconds, adds up the resident set (``statm``) of
every process in each watched bot's tree (the leader and its descendants, found through
``/proc/PID/task/TID/children``), keeps the peak, and SIGKILLs the process group of a bot over its
``Limits.memory_mb``. The bot's next request then reports a crash, "memory limit N MB exceeded",
with the peak. Nothing here runs inside a request; the thread holds the GIL for a few
microseconds per bot per sample (``make bench`` measures what it costs a decision). No cgroups are
created or changed: the machine's hierarchy belongs to its host.

A bot can allocate faster than one interval, so a generous address-space limit stays as a
backstop (``Limits.address_space_mb``). The tree walk sees the bot's descendants, also those that
left its process group; the kill is of the group.

The same watch bounds a build's processes where the kernel cannot: a root arena's unsandboxed
build runs as root, which RLIMIT_NPROC exempts, so with ``MemoryUse.process_limit`` the walk also
counts the tree's threads and kills the group past that many (``arena.bots.build``). A fork bomb
can outrun one interval by what it forks in 50 ms; sandboxed builds and bots get the kernel's
limit instead.
"""

from __future__ import annotations

import contextlib
import math
import os
import signal
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass

INTERVAL = 0.05
"""Seconds between two samples of every watched bot."""

sampling = True
"""False pauses the sampling (the benchmark compares a decision's cost with and without it)."""

_PAGE = os.sysconf("SC_PAGE_SIZE")


@dataclass
class MemoryUse:
    """What the watch saw of one bot process: its limit, its peak, whether it killed it.

    Owned by this module: only the watch writes ``peak`` and ``exceeded``; the bot process reads
    them (``BotProcess.memory_peak``) and starts a fresh one for each process it starts.
    """

    limit_mb: int | None
    peak: int = 0
    """Largest resident memory of the process tree seen so far, in bytes."""
    exceeded: bool = False
    """Whether the watch killed the process group for going over ``limit_mb``."""
    process_limit: int | None = None
    """Most processes and threads of the tree (a root arena's unsandboxed build: the kernel
    exempts root from RLIMIT_NPROC); None: not counted."""
    tasks_peak: int = 0
    """Largest count of processes and threads of the tree seen, while ``process_limit`` is set."""
    processes_exceeded: bool = False
    """Whether the watch killed the process group for going over ``process_limit``."""


_WATCHED: dict[int, MemoryUse] = {}
"""Every watched process group, by leader pid."""
_LOCK = threading.Lock()
"""Held while a group is sampled or forgotten: a group being reaped is never signalled."""
_thread: threading.Thread | None = None


def watch(pid: int, use: MemoryUse) -> None:
    """Sample the process group led by ``pid`` from now on, into ``use`` (with a limit: kill past it)."""
    with _LOCK:
        _WATCHED[pid] = use
    if use.limit_mb is not None or use.process_limit is not None:
        _ensure_watching()


def unwatch(pid: int) -> None:
    """Stop sampling ``pid``'s group; call before reaping its leader, so it is never signalled after."""
    with _LOCK:
        _WATCHED.pop(pid, None)


def _ensure_watching() -> None:
    """Make sure the watch thread runs: it samples every watched bot that has a memory limit."""
    global _thread
    if _thread is None or not _thread.is_alive():
        _thread = threading.Thread(target=_run, name="arena-memory-watch", daemon=True)
        _thread.start()


def _forget_thread() -> None:
    """In a forked child the thread is gone (the next ``watch`` starts a new one), and the parent's
    bots are the parent's to watch."""
    global _thread, _LOCK
    _thread = None
    _LOCK = threading.Lock()  # another thread may have held it at the fork
    _WATCHED.clear()


os.register_at_fork(after_in_child=_forget_thread)


def megabytes_over(peak: int) -> float:
    """``peak`` bytes in MB to one decimal, rounded up: a peak a few pages over a 256 MB limit
    reads 256.1, never a contradicting "256.0"."""
    return math.ceil(peak * 10 / (1 << 20)) / 10


def resident_bytes(pid: int, tasks: list[int] | None = None) -> int:
    """Resident memory of ``pid`` and all its descendants, in bytes (0 if it is gone); with
    ``tasks``, each process's count of threads is appended to it."""
    total = 0
    for current in process_tree(pid, tasks):
        try:
            total += int(_read(f"/proc/{current}/statm").split()[1]) * _PAGE
        except (OSError, ValueError, IndexError):  # exited meanwhile
            continue
    return total


def process_tree(pid: int, tasks: list[int] | None = None) -> Iterator[int]:
    """``pid`` and its descendants that are alive (``/proc/PID/task/TID/children``); with
    ``tasks``, the count of threads of each one yielded is appended to it."""
    pending = [pid]
    while pending:
        current = pending.pop()
        try:
            threads = os.listdir(f"/proc/{current}/task")
            children = [int(child) for task in threads
                        for child in _read(f"/proc/{current}/task/{task}/children").split()]
        except (OSError, ValueError):  # exited meanwhile
            continue
        if tasks is not None:
            tasks.append(len(threads))
        yield current
        pending.extend(children)


def _read(path: str) -> bytes:
    # os.open/os.read: a third of the cost of open() for these one-page files.
    fd = os.open(path, os.O_RDONLY)
    try:
        return os.read(fd, 65536)
    finally:
        os.close(fd)


def sample() -> None:
    """Measure every watched bot once; kill the group of each one over its limit."""
    for pid, use in list(_WATCHED.items()):
        if use.exceeded or use.processes_exceeded:
            continue
        if use.process_limit is None:
            if use.limit_mb is None:
                continue
            used = resident_bytes(pid)
        else:
            tasks: list[int] = []
            used = resident_bytes(pid, tasks)
            use.tasks_peak = max(use.tasks_peak, sum(tasks))
        if used > use.peak:
            use.peak = used
        over_memory = use.limit_mb is not None and used > use.limit_mb << 20
        over_processes = use.process_limit is not None and use.tasks_peak > use.process_limit
        if over_memory or over_processes:
            with _LOCK:  # the bot's close unwatches under the lock before reaping its leader
                if _WATCHED.get(pid) is use:  # the processes first: forked copies of one
                    use.processes_exceeded = over_processes  # program add up their shared pages
                    use.exceeded = over_memory and not over_processes
                    with contextlib.suppress(ProcessLookupError, PermissionError):
                        os.killpg(pid, signal.SIGKILL)


def _run() -> None:
    while True:
        time.sleep(INTERVAL)
        if sampling and _WATCHED:
            sample()
