"""Settings that several parts of the arena share: a bot's resource limits, the time control and
the fault policy. Plain frozen values, importable from every layer without reaching into another."""

from __future__ import annotations

import enum
from dataclasses import dataclass


@dataclass(frozen=True)
class Limits:
    """Resource limits applied to each bot process right after it starts (None: no limit).

    ``memory_mb`` is address space (RLIMIT_AS), not resident memory. The default 2048 lets the
    common runtimes start: node reserves about 800 MB of address space before running any code
    (with 1024 it starts but has only ~120 MB of heap left; with 2048 about 1 GB); Python and C
    bots need a few tens of MB. The JVM reserves 1 GiB of class space plus its heap: give Java bots
    4096 or ``-Xmx512m -XX:CompressedClassSpaceSize=64m``. ``cpu_seconds`` counts over the whole
    life of the process, which plays many games, so it is off by default; the per-decision clock is
    the real time control. ``file_mb`` caps any file the bot writes (SIGXFSZ past it). Core dumps
    are always off.
    """

    memory_mb: int | None = 2048
    cpu_seconds: int | None = None
    file_mb: int | None = 16


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


class SandboxMode(enum.Enum):
    """Whether bot processes run in a bubblewrap sandbox (arena.bots.sandbox).

    ``none``: as the organiser's user with resource limits only; ``bwrap``: always sandboxed, an
    error where bubblewrap is missing or cannot run; ``auto``: sandboxed where it can be, else
    unsandboxed with a warning.
    """

    NONE = "none"
    BWRAP = "bwrap"
    AUTO = "auto"
