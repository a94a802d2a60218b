"""Settings that several parts of the arena share: a bot's resource limits, the time control and
the fault policy. Plain frozen values, importable from every layer without reaching into another."""

from __future__ import annotations

import enum
import os
import re
from dataclasses import dataclass

from arena.errors import ConfigError


@dataclass(frozen=True)
class Limits:
    """Resource limits of each bot process, and the grace it has to exit (None: no limit).

    ``memory_mb`` is resident memory (RSS) of the bot's whole process tree, measured by the
    arena's memory watch (arena.bots.memory) and enforced by killing the process group: runtimes
    that reserve large virtual ranges (a JVM, Go, node) run with their defaults. As a backstop
    against a bot that allocates faster than the watch samples, the address space is also capped,
    generously (``address_space_mb``: four times ``memory_mb``, and at least the machine's memory
    plus 4 GiB, since a default JVM reserves a quarter of the machine's memory for its heap and
    several GiB more: 9 GiB on a 24 GiB machine). ``cpu_seconds``
    counts over the whole life of the process, which plays many games, so it is off by default;
    the per-decision clock is the real time control. ``file_mb`` caps any file the bot writes
    (SIGXFSZ past it). Core dumps are always off. ``quit_grace_ms`` is how long a bot has to exit
    after ``quit`` (its stderr keeps being drained meanwhile) before its process group is killed:
    long enough for a JVM or a bot flushing a large log.
    """

    memory_mb: int | None = 2048
    cpu_seconds: int | None = None
    file_mb: int | None = 16
    quit_grace_ms: int = 2_000

    @property
    def address_space_mb(self) -> int | None:
        """The address-space backstop applied with ``memory_mb`` (RLIMIT_AS), or None."""
        if self.memory_mb is None:
            return None
        return max(4 * self.memory_mb, _machine_memory_mb() + 4096)


@dataclass(frozen=True)
class TimeControl:
    """Time limits in milliseconds: to the ``hello`` reply, per decision, and an extra bank per game."""

    start_ms: int = 10_000
    move_ms: int = 1_000
    bank_ms: int = 10_000


class FaultPolicy(enum.Enum):
    """What a fault costs the faulting seat."""

    FORFEIT = "forfeit"
    SUBSTITUTE = "substitute"


MAX_LIVE_BOTS = 24
"""Bot processes one worker keeps alive at most, by default (the least recently used are closed).
A Python bot holds about 14 MB resident and a node bot 40-50 MB, so two workers stay under about
2.5 GB even with node bots, while a 7-player table and its neighbours in the game order stay warm."""


def _machine_memory_mb() -> int:
    """The machine's physical memory in MB (8192 where the system does not say)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") >> 20
    except (ValueError, OSError, AttributeError):
        return 8192


class SandboxMode(enum.Enum):
    """Whether bot processes run in a bubblewrap sandbox (arena.bots.sandbox).

    ``none``: as the organiser's user with resource limits only; ``bwrap``: always sandboxed, an
    error where bubblewrap is missing or cannot run; ``auto``: sandboxed where it can be, else
    unsandboxed with a warning.
    """

    NONE = "none"
    BWRAP = "bwrap"
    AUTO = "auto"


CLUSTER_ADDRESS = re.compile(r"(tcp|tls|ws|wss|ucx)://\[?[A-Za-z0-9_.:-]+\]?:\d{1,5}")
"""A Dask scheduler's address: a protocol Dask speaks, a host and a port."""


def check_cluster_address(address: str, where: str = "--cluster") -> str:
    """``address`` if it looks like a Dask scheduler's address, else ConfigError naming ``where``."""
    address = address.strip()
    if not CLUSTER_ADDRESS.fullmatch(address):
        raise ConfigError(f"{where}: {address!r} is not a Dask scheduler address "
                          "(expected e.g. tcp://127.0.0.1:8786)")
    return address


def available_cpus() -> list[int]:
    """The CPUs this process may run on, in order (the default number of parallel games)."""
    return sorted(os.sched_getaffinity(0))
