"""The key table of play settings: every setting of how games are played, declared once.

Each ``Setting`` says its key in a tournament file (``time.move_ms``), the name of its
command-line option (``--move-ms``), its type, its range, its default, a one-line help for
``--help`` and the longer text of docs/tournaments.md's table. The tournament file's reader
(``read_settings``), the commands' options (``arena.cli.options``), ``league init`` and the docs'
table all come from here, and a test keeps docs/tournaments.md's rows equal to ``doc_row``.
``PlaySettings`` is what a tournament, a match and a league compose: the time control, the
limits, the fault policy, the sandbox and the installations it allows, and what the bots are told
of each other's names.

The game's own settings (``game``, ``players``, ``options``) are in the table for their names,
help and docs; their values are checked together, by the engine's rules for the game
(``GAME_SETTINGS``: a tournament file's reader and each command hand them to the engine).
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from typing import TYPE_CHECKING, Any

import engine
from arena.settings import (
    BANK_MS,
    BUILD_CPU_SECONDS,
    BUILD_SECONDS,
    CPU_SECONDS,
    DEFAULT_BUILD_LIMITS,
    DEFAULT_LIMITS,
    DEFAULT_NAMES,
    DEFAULT_POLICY,
    DEFAULT_RATING,
    DEFAULT_SANDBOX,
    DEFAULT_SEATING,
    DEFAULT_TIME,
    FILE_MB,
    MEMORY_MB,
    MOVE_MS,
    QUIT_GRACE_MS,
    SEED,
    START_MS,
    WALL_MS,
    BuildLimits,
    Clock,
    FaultPolicy,
    Limits,
    NamesShown,
    Range,
    RatingModel,
    SandboxMode,
    Seating,
    TimeControl,
    check_rating,
    sandbox_mode,
)

if TYPE_CHECKING:
    from arena.configfile import FileChecker
    from arena.values.work import BotCommand, RunSettings

# The tournament file's reader (yaml), the installations and the work items are imported where
# they are used: the commands' --help reads this table, and should not wait for them.


@dataclass(frozen=True)
class Setting:
    """One play setting: where it is written, what it may be, what it is for."""

    key: str
    """Its key in a tournament file: ``time.move_ms``, ``fault_policy``."""
    type: type
    """``int``, ``str``, an ``enum.Enum`` (its values are the words), or ``list`` (of text)."""
    default: Any
    """The value when nothing says otherwise (None: off, or computed: ``shown_default`` says)."""
    help: str
    """One line for ``--help``."""
    doc: str
    """The meaning column of docs/tournaments.md (the help, at length)."""
    range: Range[int] | None = None
    """An integer's bounds."""
    nullable: bool = False
    """Whether a tournament file's ``null`` is a value (no limit, the computed default)."""
    option: str = ""
    """The command-line option's name without ``--``; default: the key's last part, with ``-``."""
    shown_default: str | None = None
    """docs/tournaments.md's default column where the default is not a plain value."""
    shown_type: str | None = None
    """docs/tournaments.md's type column where it says more than the type."""
    reader: Callable[[FileChecker, object], Any] | None = None
    """Reads and checks a file's value where the type's own rule does not (paths, models)."""

    @property
    def option_name(self) -> str:
        """``--move-ms``."""
        return "--" + (self.option or self.key.rsplit(".", 1)[-1].replace("_", "-"))

    @property
    def parameter(self) -> str:
        """The Python name of a command's parameter for it: ``move_ms``."""
        return self.option_name[2:].replace("-", "_")

    @property
    def field(self) -> str:
        """The field of its value type (``TimeControl.move_ms``): the key's last part."""
        return self.key.rsplit(".", 1)[-1]

    def words(self) -> list[str]:
        """The words an enum setting takes."""
        assert issubclass(self.type, enum.Enum)
        return [str(member.value) for member in self.type]

    def type_text(self) -> str:
        """docs/tournaments.md's type column."""
        if self.shown_type is not None:
            return self.shown_type
        if issubclass(self.type, enum.Enum):
            text = " or ".join(", ".join(f"`{word}`" for word in self.words()).rsplit(", ", 1))
        elif self.type is int:
            assert self.range is not None
            text = f"integer {self.range}"
        elif self.type is list:
            text = "list of directories"
        elif self.type is dict:
            text = "mapping"
        else:
            text = "text"
        return f"{text}, or `null`" if self.nullable else text

    def default_text(self) -> str:
        """docs/tournaments.md's default column."""
        if self.shown_default is not None:
            return self.shown_default
        if self.default is None:
            return "`null`"
        if isinstance(self.default, enum.Enum):
            return f"`{self.default.value}`"
        if isinstance(self.default, tuple):
            return "none" if not self.default else ", ".join(self.default)
        if isinstance(self.default, dict):
            return f"`{self.default or '{}'}`"
        return str(self.default)

    def doc_row(self) -> str:
        """This setting's row of docs/tournaments.md's table."""
        return f"| `{self.key}` | {self.type_text()} | {self.default_text()} | {self.doc} |"

    def read(self, where: FileChecker, raw: object) -> Any:
        """A tournament file's value for this setting, checked; ConfigError ``FILE: KEY: ...``."""
        from arena.configfile import kind as kind_of

        if raw is None and self.nullable:
            return self.default if self.type is list else None
        if self.reader is not None:
            return self.reader(where, raw)
        if issubclass(self.type, enum.Enum):
            if not isinstance(raw, str) or raw not in self.words():
                raise where.error(self.key, f"{kind_of(raw)} is not one of "
                                            f"{', '.join(self.words())}")
            return self.type(raw)
        if self.type is int:
            assert self.range is not None
            return where.integer(raw, self.key, self.range.low, self.range.high)
        if self.type is list:
            if not isinstance(raw, list):
                raise where.error(self.key, f"expected a list, got {kind_of(raw)}")
            return tuple(raw)
        return where.text(raw, self.key)


_GAMES = " or ".join(engine.GAMES)
_PLAYERS = (min(min(g.info.player_counts) for g in engine.GAMES.values()),
            max(max(g.info.player_counts) for g in engine.GAMES.values()))
"""The fewest and the most players of any game."""

GAME = Setting(
    "game", str, engine.DEFAULT_GAME, f"The game: {_GAMES}.",
    "`blackout` or `partnership-blackout`.", shown_type="string, **required**",
    shown_default="")
PLAYERS = Setting(
    "players", int, 4,
    "Players per table: 3..7 for blackout; partnership-blackout is always 4.",
    "Seats per table: 3..7 for `blackout`. `partnership-blackout` is always 4.",
    # No range for the commands' bounds: the game's own check says which counts it takes
    # ("--players: blackout is for 3, 4, 5, 6, 7 players, not 9").
    shown_type=f"integer {_PLAYERS[0]}..{_PLAYERS[1]}")
OPTIONS = Setting(
    "options", dict, {}, "A game option as name=value, e.g. -o deals=5; repeatable.",
    "Game options (`docs/rules.md`; `arena rules GAME` lists them with their defaults). Any "
    "option you leave out takes its default. The game itself checks the values, so an unknown "
    "option or a bad value is an error. Strings such as `\"true\"` or `\"3\"` are accepted.",
    option="option")

START = Setting(
    "time.start_ms", int, DEFAULT_TIME.start_ms, "Time from start to the hello reply, ms.",
    "How long a bot has to answer `hello` after it is started.", START_MS)
MOVE = Setting(
    "time.move_ms", int, DEFAULT_TIME.move_ms, "Each decision's time allowance, ms.",
    "How long a bot has for each decision.", MOVE_MS)
BANK = Setting(
    "time.bank_ms", int, DEFAULT_TIME.bank_ms, "Extra time per game a decision may draw on, ms.",
    "Extra time per game, used up when a decision runs past `move_ms`.", BANK_MS)
CLOCK = Setting(
    "time.clock", Clock, DEFAULT_TIME.clock,
    "What move_ms and the bank measure: fair, the bot's own time (its CPU time and its sleeps "
    "and waits, never the time it waited for a CPU: a busy machine costs a bot nothing, a "
    "sleeping bot times out); cpu, its CPU time alone (sleeping is free up to the wall cap); or "
    "wall, the time from request to reply.",
    "What `move_ms` and the bank measure. `fair`: the bot's own time, the real time of the "
    "decision less the time the bot (every thread and child) waited for a CPU and the time the "
    "arena waited for one to read its reply, "
    "never less than its CPU time: a loaded machine costs a bot nothing, and a bot that sleeps "
    "is charged its sleep. `cpu`: the CPU time of the bot's process tree alone (sleeping is not "
    "charged; the wall cap ends it). `wall`: the real time from the request to the reply, for "
    "bots that must answer in real time. A run resumed from a file without `time.clock` keeps "
    "the clock it started with (a run begun before clocks existed: `wall`; one begun before "
    "`fair`: `cpu`); a file that says another clock than the run's is refused.")
WALL = Setting(
    "time.wall_ms", int, DEFAULT_TIME.wall_ms,
    "Under --clock fair or cpu, the wall time after which a decision times out whatever it was "
    "charged, ms (default: 10 x (move + bank), at least 5000).",
    "Under `clock: fair` or `cpu`, the real time after which a decision times out whatever it "
    "was charged (a timeout fault with `limit` `wall_cap`): under `fair` a backstop that only a "
    "bot kept waiting for a CPU nine times its allowance reaches (a bot that sleeps or hangs "
    "times out at its allowance); under `cpu` what ends a decision that blocks or sleeps. Under "
    "`wall` it bounds the time given back to a bot when the arena itself stalled.", WALL_MS,
    nullable=True, shown_default="`null`: 10 x (`move_ms` + `bank_ms`), at least 5000")
MEMORY = Setting(
    "limits.memory_mb", int, DEFAULT_LIMITS.memory_mb,
    "Resident-memory limit of each bot process (with its children), MB; the bot is killed past "
    "it. Reserved address space does not count: a JVM, Go or node bot runs with its defaults.",
    "Resident memory (RSS) of a bot's process and its children. The arena samples it every "
    "50 ms and kills the process group past the limit: a `crash` fault \"memory limit N MB "
    "exceeded\", with the peak in the fault's `memory_peak_mb`. Only memory in use counts, so a "
    "JVM, Go or node bot runs with its defaults (no `-Xmx` needed); the address space is capped "
    "only as a generous backstop (4 times this, and at least the machine's memory plus 4096 MB: "
    "a default JVM reserves a quarter of the machine's memory for its heap, and more). `null` "
    "means no limit.", MEMORY_MB, nullable=True)
CPU_LIMIT = Setting(
    "limits.cpu_seconds", int, DEFAULT_LIMITS.cpu_seconds,
    "CPU time over the whole life of a bot process, s (it plays many games; default: none).",
    "CPU time over the whole life of a bot process. That process plays many games, so leave "
    "this off unless you need it.", CPU_SECONDS, nullable=True)
FILE_SIZE = Setting(
    "limits.file_mb", int, DEFAULT_LIMITS.file_mb, "The largest file a bot may write, MB.",
    "The largest file a bot may write.", FILE_MB, nullable=True)
QUIT_GRACE = Setting(
    "limits.quit_grace_ms", int, DEFAULT_LIMITS.quit_grace_ms,
    "Time a bot has to exit after quit before it is killed, ms.",
    "How long a bot has to exit after `quit` before its process group is killed, and the time "
    "it waited for a CPU meanwhile (up to 10 times this in all), so a loaded machine does not "
    "cost a bot its clean exit. Its stderr keeps being read meanwhile, so a bot flushing a "
    "large log can finish.", QUIT_GRACE_MS)
POLICY = Setting(
    "fault_policy", FaultPolicy, DEFAULT_POLICY,
    "What a fault costs: forfeit (placed last) or substitute (result stands).",
    "What happens to a bot that faults (a timeout, a malformed reply, an illegal action or a "
    "crash). The game always finishes, with legal fallback moves for that seat. `forfeit` ranks "
    "the seat below every seat that did not fault. `substitute` lets the result stand as it was "
    "played.", option="policy")
SANDBOX = Setting(
    "sandbox", SandboxMode, DEFAULT_SANDBOX,
    "Run the bots in a bubblewrap sandbox (docs/sandbox.md): none, bwrap (an error where it "
    "cannot run), or auto (bwrap where it can run, else none with a warning).",
    "Run the bots (and their build commands) in a bubblewrap sandbox: see "
    "[sandbox.md](sandbox.md). `bwrap` stops the run before any game where bubblewrap cannot "
    "run; `auto` then runs unsandboxed with a warning on the first line.",
    reader=lambda where, raw: sandbox_mode(raw, f"{where.path}: sandbox"))
INTERPRETERS = Setting(
    "sandbox_interpreters", list, (),
    "An installation the sandbox shows its bots read-only besides the system directories and "
    "the arena's own interpreters (docs/sandbox.md), e.g. /opt/pypy3; repeatable. Never a home "
    "directory or one that holds a home.",
    "Installations every sandbox of the run shows its bots read-only, besides the system "
    "directories and the arena's own interpreters (e.g. `[/opt/pypy3]`; relative paths from the "
    "current directory). Never a home directory or one that holds a home: see "
    "[sandbox.md](sandbox.md#allowed-installations). A sandboxed bot whose program is outside "
    "its directory, the system directories and these is refused before any build or game. May "
    "change on `--resume`.", nullable=True, option="interpreter",
    reader=lambda where, raw: _interpreters(where, raw))
RATING = Setting(
    "rating", RatingModel, DEFAULT_RATING,
    "What is rated: places (every two entrants at a table), duplicate (totals of entrants that "
    "held the same cards), deals (the same, deal by deal), adjusted (deal scores less the "
    "luck of the cards, every two entrants of a duplicate set) or margins (as deals, each deal "
    "scored by how much it was won); docs/ratings.md.",
    "What the closing table rates: see [ratings.md](ratings.md#models). It changes how games "
    "are read, not which are played, so a resumed run may change it.",
    reader=lambda where, raw: check_rating(raw, f"{where.path}: rating"))
SEATING = Setting(
    "seating", Seating, DEFAULT_SEATING,
    "How a table's seat order changes from round to round: balanced or cyclic.",
    "How a table's seat order changes from round to round (see \"Seat orders\" below). A run "
    "records it in its copy of the file (`results/<name>/tournament.yaml`); a copy without it, "
    "from a run begun before the key existed, reads as `cyclic`, and such a run resumes with "
    "that. Changing it for a run that has games is refused.", nullable=True)
NAMES = Setting(
    "names", NamesShown, DEFAULT_NAMES,
    "What game_start tells the bots of who sits where: shown (the entrants' names) or hidden "
    "(seat labels only: seat 0, seat 1...).",
    "What `game_start.names` tells the bots (docs/protocol.md). `shown`: the entrants' names by "
    "seat. `hidden`: seat labels only (`seat 0`, `seat 1`...), so that a bot cannot find a "
    "partner by its name; the records keep the real names either way. It changes what the bots "
    "are told, not which games are played.")
SEED_SETTING = Setting(
    "seed", int, 1, "Seed of the deals (and of the bots' own seeds).",
    "Every deal seed is derived from this one. Change it to get different deals.", SEED,
    shown_type="integer 0..18446744073709551615 (64 bits)")


BUILD_WALL = Setting(
    "build.seconds", int, DEFAULT_BUILD_LIMITS.seconds,
    "The wall time a submission's build may take, s; it is stopped past it.",
    "The wall time a submission's build command may take; it is killed past it and the "
    "submission rejected with the reason.", BUILD_SECONDS, option="build-seconds")
BUILD_CPU = Setting(
    "build.cpu_seconds", int, DEFAULT_BUILD_LIMITS.cpu_seconds,
    "The CPU time each process of a submission's build may use, s.",
    "The CPU time each process of a build may use (RLIMIT_CPU: SIGXCPU, then SIGKILL a second "
    "later).", BUILD_CPU_SECONDS, option="build-cpu-seconds")
BUILD_SETTINGS = (BUILD_WALL, BUILD_CPU)
"""A league's build limits (``league init``): the fields of ``BuildLimits`` it sets; a
tournament's builds, and the other fields, keep ``DEFAULT_BUILD_LIMITS``."""


def build_limits(values: Mapping[str, Any], base: BuildLimits = DEFAULT_BUILD_LIMITS) -> BuildLimits:
    """``base`` with the build settings in ``values`` (by key), each checked against its range;
    ConfigError naming its option otherwise."""
    given = {s.field: s.range.check(values[s.key], s.option_name)
             for s in BUILD_SETTINGS if s.key in values and s.range is not None}
    return replace(base, **given)


def _interpreters(where: FileChecker, raw: object) -> tuple[str, ...]:
    """``sandbox_interpreters``: a list of directories (relative ones from the current directory,
    like a bot's ``workdir``)."""
    from arena.botfiles.installations import check_interpreters
    from arena.configfile import kind as kind_of

    if not isinstance(raw, list):
        raise where.error("sandbox_interpreters", f"expected a list of directories, got "
                                                  f"{kind_of(raw)}")
    return check_interpreters(raw, f"{where.path}: sandbox_interpreters")


SETTINGS: tuple[Setting, ...] = (
    GAME, PLAYERS, OPTIONS, SEED_SETTING, START, MOVE, BANK, CLOCK, WALL, MEMORY, CPU_LIMIT,
    FILE_SIZE, QUIT_GRACE, POLICY, SANDBOX, INTERPRETERS, RATING, SEATING, NAMES)
"""Every play setting."""
GAME_SETTINGS = (GAME, PLAYERS, OPTIONS)
"""The game's own: checked together by its rules (``engine.game(NAME).resolve_options``), not
one by one; a tournament file's reader and the commands hand them to the engine."""
BY_KEY = {setting.key: setting for setting in SETTINGS}
TIME_SETTINGS = tuple(s for s in SETTINGS if s.key.startswith("time."))
LIMIT_SETTINGS = tuple(s for s in SETTINGS if s.key.startswith("limits."))


@dataclass(frozen=True)
class PlaySettings:
    """How a run's games are played, the part a tournament, a match and a league share (each
    holds its own as ``play``), and the one way it reaches the workers (``run_settings``).

    Every default is the key table's; each field's ``key`` (its metadata) is where a tournament
    file gives it: a setting's key, or the section of the time control's and the limits'."""

    time: TimeControl = field(default=DEFAULT_TIME, metadata={"key": "time"})
    limits: Limits = field(default=DEFAULT_LIMITS, metadata={"key": "limits"})
    policy: FaultPolicy = field(default=POLICY.default, metadata={"key": POLICY.key})
    sandbox: SandboxMode = field(default=SANDBOX.default, metadata={"key": SANDBOX.key})
    interpreters: tuple[str, ...] = field(default=INTERPRETERS.default,
                                          metadata={"key": INTERPRETERS.key})
    names: NamesShown = field(default=NAMES.default, metadata={"key": NAMES.key})

    @classmethod
    def of(cls, values: Mapping[str, Any]) -> PlaySettings:
        """The play settings in ``values`` (``read_settings``' values by key), the key table's
        default for each one missing."""
        return cls(time_control(values), limits(values), values.get(POLICY.key, POLICY.default),
                   values.get(SANDBOX.key, SANDBOX.default),
                   values.get(INTERPRETERS.key, INTERPRETERS.default),
                   values.get(NAMES.key, NAMES.default))

    @staticmethod
    def file_keys() -> dict[str, str]:
        """Each field's key in a tournament file, by field name (``policy``: ``fault_policy``)."""
        return {part.name: part.metadata["key"] for part in fields(PlaySettings)}

    def run_settings(self, bots: dict[str, BotCommand], **rest: Any) -> RunSettings:
        """The workers' settings: these, the bots' commands and ``rest`` (log directory, live
        bots kept)."""
        from arena.values.work import RunSettings

        return RunSettings(bots=bots, time_control=self.time, limits=self.limits,
                           policy=self.policy, names=self.names, **rest)


def game_settings(game: str, players: int | None, options: Mapping[str, object],
                  game_key: str = "--game") -> tuple[int, dict[str, Any]]:
    """The game's own settings given on a command line (``GAME_SETTINGS``), checked together by
    the game's rules: the players (None: the game's default) and every option resolved;
    ConfigError naming the option at fault (``game_key``, ``--players``, ``--option NAME``)."""
    from arena.errors import ConfigError
    from engine.errors import OptionError

    try:
        rules = engine.game(game)
    except OptionError as error:
        raise ConfigError(f"{game_key}: {error}") from None
    seats = rules.info.default_players if players is None else players
    if seats not in rules.info.player_counts:
        counts = ", ".join(map(str, rules.info.player_counts))
        raise ConfigError(f"--players: {game} is for {counts} players, not {seats}")
    try:
        return seats, rules.resolve_options(seats, dict(options))
    except OptionError as error:
        name = "--option" if error.option is None else f"--option {error.option}"
        raise ConfigError(f"{name}: {error.problem}") from None


def time_control(values: Mapping[str, Any], base: TimeControl = DEFAULT_TIME) -> TimeControl:
    """``base`` with the time settings in ``values`` (by key; a key missing keeps ``base``'s)."""
    given = {s.field: values[s.key] for s in TIME_SETTINGS if s.key in values}
    return TimeControl(**{**{f.name: getattr(base, f.name) for f in fields(TimeControl)}, **given})


def limits(values: Mapping[str, Any], base: Limits = DEFAULT_LIMITS) -> Limits:
    """``base`` with the limit settings in ``values`` (by key)."""
    given = {s.field: values[s.key] for s in LIMIT_SETTINGS if s.key in values}
    return Limits(**{**{f.name: getattr(base, f.name) for f in fields(Limits)}, **given})


def read_settings(where: FileChecker, top: Mapping[str, Any]) -> dict[str, Any]:
    """The play settings a tournament file gives (``top`` is its top mapping, whose ``time`` and
    ``limits`` sections are mappings already checked for unknown keys), by key, checked."""
    values: dict[str, Any] = {}
    for setting in SETTINGS:
        if setting in GAME_SETTINGS:
            continue
        section, _, name = setting.key.rpartition(".")
        mapping = top if not section else (top.get(section) or {})
        if name in mapping:
            values[setting.key] = setting.read(where, mapping[name])
    return values


def section_keys(section: str) -> set[str]:
    """The keys a section of a tournament file (``time``, ``limits``) may hold."""
    return {s.field for s in SETTINGS if s.key.startswith(f"{section}.")}
