"""The uid of each live sandboxed bot of a root arena: allocated, never shared by two live bots.

RLIMIT_NPROC counts the processes of a uid, so a bot's process limit is its own only while no
other live process has its uid. The uid space above ``UID_FIRST`` is cut into blocks of
``SLOTS`` by the pid of the arena process that starts the bot, and each process hands out the
slots of its own block, taking one when a bot starts and giving it back when the bot is closed:

    uid = UID_FIRST + pid * SLOTS + slot        (0 <= slot < SLOTS)

A pid names one live process (a forked worker has its own, so its own block), and a sandboxed bot
dies with the process that started it (bwrap's ``--die-with-parent``; its PID namespace dies with
bwrap's child), so no two live bots can hold one uid, across processes, without any state shared
between them. Within a process, freed slots are handed out again in the order they were freed,
after the never-used ones: a uid is reused as late as possible.

The arithmetic: Linux pids are below ``/proc/sys/kernel/pid_max``, at most ``PID_LIMIT`` (2^22)
on every architecture, so the highest uid is ``UID_FIRST + PID_LIMIT * SLOTS - 1``
(4,196,303,999), below 4,294,967,294, the highest valid uid (4,294,967,295 is ``(uid_t) -1``).
``UID_FIRST`` keeps every bot above the accounts of a system and the usual subordinate-uid ranges.
"""

from __future__ import annotations

import collections
import os
import threading

from arena.errors import BotStartError

UID_FIRST = 2_000_000
SLOTS = 1_000
"""Live sandboxed bots one arena process can hold at once (a worker's bot pool holds at most
1,000)."""
PID_LIMIT = 1 << 22
"""The kernel's largest possible ``pid_max`` (PID_MAX_LIMIT on 64-bit Linux)."""
UID_LAST = UID_FIRST + PID_LIMIT * SLOTS - 1
assert UID_LAST < 2**32 - 1, "a bot's uid must stay below (uid_t) -1"


class UidBlock:
    """The slots of one process's block of uids: taken at a bot's start, given back at its close."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pid = -1
        self._fresh = 0
        self._freed: collections.deque[int] = collections.deque()
        self._taken: set[int] = set()

    def _mine(self) -> int:
        """This process's pid; a forked child starts a block of its own (under the lock)."""
        pid = os.getpid()
        if pid != self._pid:
            self._pid, self._fresh, self._taken = pid, 0, set()
            self._freed = collections.deque()
        return pid

    def take(self) -> int:
        """A uid no other live bot has; BotStartError when this process holds ``SLOTS`` already."""
        with self._lock:
            pid = self._mine()
            if self._fresh < SLOTS:
                slot, self._fresh = self._fresh, self._fresh + 1
            elif self._freed:
                slot = self._freed.popleft()
            else:
                raise BotStartError(f"more than {SLOTS} sandboxed bots alive in one arena process")
            self._taken.add(slot)
            return UID_FIRST + pid * SLOTS + slot

    def give_back(self, uid: int) -> None:
        """Free ``uid`` once its bot is gone (a uid of another process's block is ignored)."""
        with self._lock:
            pid = self._mine()
            slot = uid - UID_FIRST - pid * SLOTS
            if slot in self._taken:
                self._taken.remove(slot)
                self._freed.append(slot)


BOT_UIDS = UidBlock()
"""This process's block (one per process: a forked worker's starts afresh)."""
