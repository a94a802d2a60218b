"""Settings that several parts of the arena share: a bot's resource limits, the time control and
the fault policy, and the numbers the commands take, each declared once with its bounds and, for
those outside the key table of play settings (``arena.spec``), its default (``Number``). Plain
frozen values, light to import (``--help`` reads them), from every layer without reaching into
another."""

from __future__ import annotations

import enum
import math
import os
import re
from dataclasses import dataclass
from typing import Generic, TypeVar

from arena.errors import ConfigError

N = TypeVar("N", int, float)
"""What a setting counts: an integer (games, milliseconds) or a real number (Elo, seconds)."""


@dataclass(frozen=True)
class Range(Generic[N]):
    """The values a number setting may take, stated once: the tournament file's reader, the
    command line's options (typer's ``min``/``max``) and docs/tournaments.md's table all use it,
    so the three cannot drift. Every integer bound is finite: a value past it would exhaust
    memory or overflow a system call long after the run began; a real number may have no upper
    bound (``math.inf``)."""

    key: str
    """The setting's key in a tournament file (``time.move_ms``), or its option's name."""
    low: N
    high: N

    def __str__(self) -> str:
        return f"{self.low}..{self.high}"

    def check(self, value: N, where: str) -> N:
        """``value`` if it is in range, else ConfigError ``WHERE: VALUE is out of range (LOW..HIGH)``."""
        if not self.low <= value <= self.high:
            raise ConfigError(f"{where}: {value} is out of range ({self})")
        return value


@dataclass(frozen=True)
class Number(Range[N]):
    """A number a command takes that the key table of play settings (``arena.spec``) does not
    hold, with its default: the command's option (its bounds and default), the library's
    parameter and the league's stored setting all read this row, so none repeats the number."""

    default: N


MAX_GAMES = 10_000_000
"""The most games one run may schedule: a schedule is built in memory (about 400 bytes a game)."""

ROUNDS = Range("rounds", 1, MAX_GAMES)
MAX_TABLES = Range("max_tables", 1, 1_000_000)
SEED = Range("seed", 0, 2**64 - 1)
"""Seeds are 64-bit: they are written to records and sent to bots as JSON integers."""
JOBS = Range("jobs", 1, 256)
LIVE_BOTS = Range("max_live_bots", 1, 1_000)
"""Bot processes one worker keeps alive (each holds three pipes); the low bound in a tournament
file is the number of players."""
START_MS = Range("time.start_ms", 1, 3_600_000)
MOVE_MS = Range("time.move_ms", 1, 3_600_000)
BANK_MS = Range("time.bank_ms", 0, 86_400_000)
WALL_MS = Range("time.wall_ms", 1, 86_400_000)
MEMORY_MB = Range("limits.memory_mb", 16, 1 << 20)
CPU_SECONDS = Range("limits.cpu_seconds", 1, 31_536_000)
FILE_MB = Range("limits.file_mb", 1, 1 << 20)
QUIT_GRACE_MS = Range("limits.quit_grace_ms", 0, 600_000)
RESAMPLES = Number("resamples", 0, 1_000_000, 1000)
"""Bootstrap resamples for the intervals and LOS of a ratings table (``arena.ratings``)."""
GAME_COUNT = Range("games", 1, MAX_GAMES)
"""Games a command plays (``match --games``, ``league run --games``)."""
ANALYSED_GAMES = Number(GAME_COUNT.key, GAME_COUNT.low, GAME_COUNT.high, 10)
"""Games of the entrant ``arena analyse`` analyses (``--games``; ``arena report --analyse``)."""
TOP = Range("top", 1, 10_000_000)
"""``arena analyse --top N``: the N costliest decisions."""
SAMPLES = Number("samples", 1, 10_000, 64)
"""Samples of the unseen cards per decision an analysis takes: see docs/analysis.md (the bench's
standard error against samples, and the time of one seat of a 4-player Blackout game)."""
DELTA = Number("delta", 0.0, math.inf, 10.0)
"""A league's ``delta`` (Elo): a pair whose difference's interval lies within +-delta is a tie.
Ten points are 51.4% of the comparisons under any model (a deal under ``deals``)."""
SUSPEND_AFTER = Number("suspend_after", 0, 1_000_000, 3)
"""A league's ``suspend_after``: games in a row in which an entrant failed to start, timed out or
crashed before the matchmaker stops seating it (0: never). Each such game costs the league up to a
start or move allowance (10 s by default), and a working bot almost never fails three in a row."""
LOCK_WAIT = Number("wait", 0.0, math.inf, 60.0)
"""Seconds a submission waits for another one that is storing its bot, then gives up."""
MINUTES = Range("minutes", 0, 525_600)
"""``league run --minutes``: at most a year."""
BUILD_SECONDS = Range("build_seconds", 1, 86_400)
BUILD_CPU_SECONDS = Range("build_cpu_seconds", 1, 86_400)

TOURNAMENT_RANGES = (ROUNDS, MAX_TABLES, SEED, JOBS, LIVE_BOTS, START_MS, MOVE_MS, BANK_MS,
                     WALL_MS, MEMORY_MB, CPU_SECONDS, FILE_MB, QUIT_GRACE_MS)
"""The ranges of a tournament file's integer keys (docs/tournaments.md lists each)."""


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


DEFAULT_LIMITS = Limits()
"""The limits when nothing says otherwise: its fields' defaults are the key table's
(``arena.spec``: ``limits.memory_mb``...)."""


class Clock(enum.Enum):
    """What a decision's time is: the bot's own time (fair), its CPU time, or wall time."""

    FAIR = "fair"
    CPU = "cpu"
    WALL = "wall"


@dataclass(frozen=True)
class TimeControl:
    """Time limits in milliseconds: to the ``hello`` reply, per decision, and an extra bank per game.

    ``clock`` says what ``move_ms`` and the bank measure. Under ``fair`` (the default) a decision
    is charged its wall time less the time the bot waited for a CPU and the time the arena itself
    was not running: its CPU time and the time it chose to wait (sleeping, blocking on its own
    I/O), never less than its CPU time. A busy machine costs a bot nothing, and a bot that sleeps
    times out as on the wall clock. Under ``cpu`` (the default of runs begun before ``fair``) a
    decision is charged the CPU time of the bot's process tree alone, and only the wall cap ends
    one that blocks or sleeps. Under ``wall`` a decision is charged the time from the request to
    the reply, as a bot that must answer in real time is.
    """

    start_ms: int = 10_000
    move_ms: int = 1_000
    bank_ms: int = 10_000
    clock: Clock = Clock.FAIR
    wall_ms: int | None = None
    """The wall cap of a decision under ``clock: fair`` or ``cpu``; None: the default."""

    @property
    def wall_cap_ms(self) -> int:
        """The wall cap of a decision in ms: ``wall_ms``, or ``max(5000, 10 x (move + bank))``.

        Under ``fair`` a decision that sleeps or blocks is charged that time, so a hung bot times
        out at its allowance and the cap is reached only by a bot kept waiting for a CPU nine
        times its allowance: it stays generous, for a tight cap would fault bots for the
        machine's load (a spinning bot reached a cap of allowance + 5 s with 745 ms of CPU at
        load 14 on 2 CPUs). Under ``cpu`` it is what ends a decision that sleeps."""
        if self.wall_ms is not None:
            return self.wall_ms
        return max(5_000, 10 * (self.move_ms + self.bank_ms))


DEFAULT_TIME = TimeControl()
"""The time control when nothing says otherwise: its fields' defaults are the key table's
(``arena.spec``: ``time.move_ms``...)."""


class FaultPolicy(enum.Enum):
    """What a fault costs the faulting seat."""

    FORFEIT = "forfeit"
    SUBSTITUTE = "substitute"


DEFAULT_POLICY = FaultPolicy.FORFEIT
"""The key table's ``fault_policy`` default (``arena.spec.POLICY``), here where the layers below
the key table (the referee, the work items, one game) take it from too."""


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


@dataclass(frozen=True)
class GameLogs:
    """Each bot's stderr kept per game (a league's runs): a file per game, capped at
    ``game_cap`` bytes, in a directory per bot version that keeps at most ``budget`` bytes and
    ``games`` files, the oldest dropped first. The defaults keep a bot that floods its stderr
    its last 128 games (a replay page shows
    ``arena.stderrindex.PAGE_BYTES`` of a game: all that is kept)."""

    game_cap: int = 256 * 1024
    budget: int = 32 * 1024 * 1024
    games: int = 1000


STORED_MB = 256
"""The most a bot's directory may hold, in MB: a league's cap on a submission (its archive
unpacked, or its directory copied), and what its build may add to its directory."""


@dataclass(frozen=True)
class BuildLimits:
    """What a bot's build command may use: the one set of limits of every build
    (``arena.bots.build``), on the runner, a cluster worker and in a league alike.

    The defaults were chosen from the bundled starters' builds with a wide margin (measured on
    2 cores, docs/sandbox.md): the Rust starter's ``cargo build --release`` peaks at about
    190 MB of resident memory and 7 processes (13 threads), javac at 90 MB and 22 threads, Go at
    70 MB; each takes under 3 s of wall time. A JVM and cargo start threads by the number of
    CPUs, hence the generous process limit.
    """

    seconds: int = 300
    """Wall time of the whole build; the build is killed past it."""
    cpu_seconds: int = 300
    """CPU time of each process of the build (RLIMIT_CPU: SIGXCPU, then SIGKILL)."""
    memory_mb: int = 2048
    """Resident memory of the build's process tree (the memory watch, ``arena.bots.memory``)."""
    processes: int = 512
    """Processes and threads of the build at once (RLIMIT_NPROC of its uid)."""
    file_mb: int = STORED_MB
    """The largest file a build may write (RLIMIT_FSIZE: SIGXFSZ past it)."""
    disk_mb: int = STORED_MB
    """How much the build may add to its bot's directory while it runs, in MB (watched)."""
    files: int = 50_000
    """How many files and directories the build may add to its bot's directory (watched)."""

    @property
    def rlimits(self) -> Limits:
        """The resource limits its processes start with (the address-space backstop of
        ``memory_mb`` among them)."""
        return Limits(memory_mb=self.memory_mb, cpu_seconds=self.cpu_seconds,
                      file_mb=self.file_mb)


DEFAULT_BUILD_LIMITS = BuildLimits()
"""A build's limits when nothing says otherwise (a tournament, check-bot; a league's default)."""


class SandboxMode(enum.Enum):
    """Whether bot processes run in a bubblewrap sandbox (arena.bots.sandbox).

    ``none``: as the organiser's user with resource limits only; ``bwrap``: always sandboxed, an
    error where bubblewrap is missing or cannot run; ``auto``: sandboxed where it can be, else
    unsandboxed with a warning.
    """

    NONE = "none"
    BWRAP = "bwrap"
    AUTO = "auto"


DEFAULT_SANDBOX = SandboxMode.NONE
"""The key table's ``sandbox`` default (``arena.spec.SANDBOX``)."""


def sandbox_mode(value: object, where: str) -> SandboxMode:
    """Parse a ``sandbox`` setting; ConfigError naming ``where`` otherwise."""
    try:
        return SandboxMode(value)
    except ValueError:
        shown = "nothing" if value is None else repr(value)
        raise ConfigError(f"{where}: {shown} is not one of none, bwrap, auto") from None


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


class Seating(enum.StrEnum):
    """How a table's seat order changes from round to round (``arena.plans.seating``)."""

    CYCLIC = "cyclic"
    BALANCED = "balanced"


DEFAULT_SEATING = Seating.BALANCED
"""What a tournament file without ``seating`` gets, except the saved copy of a run begun before
``seating`` existed, which reads as ``cyclic`` (``arena.runs.runner``)."""


class NamesShown(enum.StrEnum):
    """What ``game_start.names`` tells the bots (the records always keep the real names)."""

    SHOWN = "shown"
    """The entrants' names by seat."""
    HIDDEN = "hidden"
    """Seat labels only (``seat 0``, ``seat 1``...): a bot cannot find a partner by name."""

    def labels(self, names: list[str]) -> list[str]:
        """What the bots are sent for ``names``, by seat."""
        return names if self is NamesShown.SHOWN else [f"seat {i}" for i in range(len(names))]


DEFAULT_NAMES = NamesShown.SHOWN
"""Bots are told the entrants' names unless a tournament or league hides them."""


class RatingModel(enum.StrEnum):
    """What the ratings compare (``arena.ratings.model``; docs/ratings.md says which to use when)."""

    PLACES = "places"
    """Every two entrants at a table: the better final place wins the pair."""
    DUPLICATE = "duplicate"
    """Entrants that held the same cards in one duplicate set: the higher total wins."""
    DEALS = "deals"
    """The same, deal by deal: one comparison per deal (matchpoints)."""
    ADJUSTED = "adjusted"
    """Every two entrants of one duplicate set, deal by deal, by luck-adjusted deal scores (their
    score less what the cards they held explain, ``arena.ratings.luck``), at any position."""
    MARGINS = "margins"
    """As ``deals``, each deal scored by its margin: 1/2 + d / (2M) of its point to the first, d the
    difference of the two deal scores and M the largest such difference the game's rules allow."""


DEFAULT_RATING = RatingModel.MARGINS
"""``margins``: between bots of different styles ``deals`` can be sure of an order that the totals
and places reverse, ``margins`` orders a pair as their totals on the same cards do, at about the
games of ``deals`` (docs/ratings.md, "Validation on more fields")."""


def check_rating(value: object, where: str = "--rating") -> RatingModel:
    """``value`` as a RatingModel; ConfigError naming ``where`` and the models otherwise."""
    try:
        return RatingModel(str(value))
    except ValueError:
        raise ConfigError(f"{where}: {value!r} is not a rating model (models: "
                          f"{', '.join(m.value for m in RatingModel)})") from None


@dataclass(frozen=True)
class SprtBounds:
    """The hypotheses (Elo) and error rates of a test."""

    elo0: float = 0.0
    elo1: float = 10.0
    alpha: float = 0.05
    beta: float = 0.05

    @property
    def lower(self) -> float:
        """The LLR at or below which H0 is accepted."""
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        """The LLR at or above which H1 is accepted."""
        return math.log((1 - self.beta) / self.alpha)
