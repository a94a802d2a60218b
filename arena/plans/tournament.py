"""Tournament files: YAML in, a validated ``Tournament`` out, every mistake named before any game.

Errors read ``FILE: KEY: PROBLEM``, e.g. ``tournaments/x.yaml: bots[2].cmd: no such file 'bots/y'``.
Relative paths: a bot's ``workdir`` is relative to the current directory; its ``cmd`` runs in its
``workdir`` (the current directory when none is given), so paths in ``cmd`` are relative to that.
"""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass, field, replace
from enum import StrEnum
from pathlib import Path
from typing import Any

import engine
from arena import spec
from arena.botfiles.resolve import ResolvedBot, resolve_command, resolve_manifest
from arena.configfile import FileChecker as _FileChecker
from arena.configfile import command as _command
from arena.configfile import kind as _kind
from arena.configfile import read_yaml, resolved_from
from arena.connectivity import minimum_tables
from arena.errors import ConfigError
from arena.names import same_name
from arena.plans.deals import DealSuite, load_suite
from arena.plans.seating import DEFAULT_SEATING, Seating
from arena.settings import (
    DEFAULT_RATING,
    JOBS,
    LIVE_BOTS,
    MAX_LIVE_BOTS,
    MAX_TABLES,
    ROUNDS,
    Range,
    RatingModel,
    SandboxMode,
    check_cluster_address,
    sandbox_mode,
)
from engine.errors import OptionError
from engine.game import GameInfo

SCHEDULES = ("round-robin",)


class Format(StrEnum):
    """A tournament's format (its ``format:``): how a round's tables are chosen, each by its
    scheduler (``arena.plans.schedule.SCHEDULERS``)."""

    ROUND_ROBIN = "round-robin"
    GAUNTLET = "gauntlet"

    @property
    def has_challengers(self) -> bool:
        """Whether the format takes ``challengers``: programs under test, one at every table."""
        return self is Format.GAUNTLET


@dataclass(frozen=True)
class BotSpec:
    """One entrant program: its name, the program resolved (``arena.botfiles.resolve``: absolute
    directories, argv, build command), and its own sandbox setting."""

    name: str
    resolved: ResolvedBot
    sandbox: SandboxMode | None = None
    """This bot's own ``sandbox`` setting; None: the tournament's."""
    owner: str | None = None
    """Who entered it (``owner:``), as written; None: nobody said, the bot is its own owner."""

    @property
    def owner_name(self) -> str:
        """Its owner: the file's ``owner``, else its own name (it shares an owner with no bot)."""
        return self.name if self.owner is None else self.owner

    @property
    def argv(self) -> tuple[str, ...]:
        """The command that runs it (in ``workdir``)."""
        return self.resolved.argv

    @property
    def workdir(self) -> str:
        """Where it runs and builds (absolute)."""
        return self.resolved.workdir

    @property
    def build(self) -> tuple[str, ...] | None:
        """Its build command, if any."""
        return self.resolved.build


@dataclass(frozen=True)
class Tournament:
    """A validated tournament file."""

    path: Path
    name: str
    game: str
    players: int
    options: dict[str, Any]
    bots: tuple[BotSpec, ...]
    teams: tuple[tuple[str, str], ...] = ()
    schedule: str = "round-robin"
    rounds: int = 1
    max_tables: int = 200
    seed: int = 1
    play: spec.PlaySettings = field(default_factory=spec.PlaySettings)
    """How its games are played: ``time``, ``limits``, ``fault_policy``, ``sandbox`` and
    ``sandbox_interpreters`` (``arena.spec``)."""
    jobs: int | None = None
    format: Format = Format.ROUND_ROBIN
    challengers: tuple[BotSpec, ...] = ()
    """``format: gauntlet``: the programs under test; every table holds one, the rest from ``bots``."""
    left_out: tuple[str, ...] = ()
    """One line per bot left out because a program its ``requires`` names is missing."""
    max_live_bots: int | None = MAX_LIVE_BOTS
    cluster: str | None = None
    """A Dask scheduler's address to play the games on (``docs/cluster.md``); None: locally."""
    clock_given: bool = False
    """Whether the file says ``time.clock``: a run resumed from a file that does not keeps the
    clock it started with (``arena.runs.runner``), so a run begun before clocks existed stays on wall."""
    rating: RatingModel = DEFAULT_RATING
    """What the closing table rates (``arena.ratings.model``); it does not change the games."""
    seating: Seating | None = None
    """The seat-order design (``arena.plans.seating``); None: the file does not say (a new run
    gets ``DEFAULT_SEATING``, a resumed one keeps its saved copy's)."""
    deals: DealSuite | None = None
    """The deals file the sets play in order (``arena.plans.deals``); None: deals drawn from the
    seed. Compared by content: a resumed run refuses another."""
    same_owner_tables: bool = False
    """``same_owner_tables: allow``: where the schedule cannot keep one owner's entrants apart
    (``arena.plans.apart``), it seats them together instead of refusing the run."""

    @property
    def owners(self) -> dict[str, str]:
        """Each program's owner (``BotSpec.owner_name``), by bot name."""
        return {bot.name: bot.owner_name for bot in self.programs}

    @property
    def seating_design(self) -> Seating:
        """The seat-order design the schedule uses."""
        return DEFAULT_SEATING if self.seating is None else self.seating

    def sandbox_of(self, bot: BotSpec) -> SandboxMode:
        """The sandbox mode ``bot`` runs under: its own setting, else the tournament's."""
        return bot.sandbox if bot.sandbox is not None else self.play.sandbox

    @property
    def programs(self) -> tuple[BotSpec, ...]:
        """Every program that plays: the bots, then the challengers."""
        return self.bots + self.challengers

    @property
    def program_keys(self) -> tuple[str, ...]:
        """Each of ``programs``' key in the file: ``bots[0]``..., ``challengers[0]``..."""
        return (tuple(f"bots[{i}]" for i in range(len(self.bots)))
                + tuple(f"challengers[{i}]" for i in range(len(self.challengers))))

    @property
    def has_teams(self) -> bool:
        """Whether entrants are teams (the game has teams: Partnership Blackout)."""
        return engine.game(self.game).info.has_teams


TOP_KEYS = {"name", "game", "players", "options", "bots", "teams", "schedule", "rounds",
            "max_tables", "seed", "time", "limits", "fault_policy", "jobs", "format",
            "challengers", "max_live_bots", "cluster", "sandbox", "sandbox_interpreters", "rating",
            "seating", "deals", "deals_sha256", "same_owner_tables", "names"}
BOT_KEYS = {"name", "cmd", "dir", "workdir", "build", "requires", "sandbox", "owner"}
SAME_OWNER_TABLES = ("apart", "allow")
"""``same_owner_tables``' words: ``apart`` (the default: a schedule that cannot keep one owner's
entrants apart is refused) or ``allow`` (it seats them together)."""
TIME_KEYS = spec.section_keys("time")
LIMIT_KEYS = spec.section_keys("limits")


def load_tournament(path: str | os.PathLike[str]) -> Tournament:
    """Read and validate a tournament file; ConfigError naming file, key and problem."""
    path = Path(path)
    where = _FileChecker(path)
    raw = read_yaml(path, "tournament file")
    top = where.mapping(raw, "", TOP_KEYS)
    for required in ("name", "game", "bots"):
        if required not in top:
            raise where.error(required, "missing (required)")
    name = where.name(top["name"], "name")
    game_name = where.text(top["game"], "game")
    try:
        game = engine.game(game_name)
    except OptionError as error:
        raise where.error("game", str(error)) from None
    info = game.info
    players = where.integer(top.get("players", info.default_players), "players",
                            min(info.player_counts), max(info.player_counts))
    options_raw = {} if top.get("options") is None else top["options"]
    if not isinstance(options_raw, dict):
        raise where.error("options", f"expected a mapping, got {_kind(options_raw)}")
    try:
        options = game.resolve_options(players, options_raw)
    except OptionError as error:
        key = "options" if error.option is None else f"options.{error.option}"
        raise where.error(key, error.problem) from None
    bots, left_out = _available(where, _bots(where, top["bots"]), top["bots"])
    teams = _teams(where, top.get("teams"), bots, info, left_out)
    entrants = len(teams) if teams else len(bots)
    needed = players if info.teams is None else len(info.teams)
    fmt = _format(where, top.get("format", Format.ROUND_ROBIN.value))
    challengers = _challengers(where, fmt, top.get("challengers"), bots)
    if challengers:  # a challenger takes one seat (one team) of every table
        needed -= 1
    if entrants < needed:
        what = f"bots for {players}-player tables" if info.teams is None else "teams"
        if challengers:
            what = (f"field bots besides the challenger at {players}-player tables"
                    if info.teams is None else "field teams besides the challenger")
        raise where.error("bots", f"{entrants} entrants: at least {needed} {what} needed")
    schedule = where.text(top.get("schedule", "round-robin"), "schedule")
    if schedule not in SCHEDULES:
        raise where.error("schedule", f"{schedule!r} is not one of {', '.join(SCHEDULES)}")
    where.mapping({} if top.get("time") is None else top["time"], "time", TIME_KEYS)
    where.mapping({} if top.get("limits") is None else top["limits"], "limits", LIMIT_KEYS)
    values = spec.read_settings(where, top)
    max_tables = _in(where, top.get("max_tables", 200), MAX_TABLES)
    if info.teams is None:  # team games play every pairing of teams: always connected
        _check_connectable(where, max_tables, len(bots), players)
    return Tournament(
        path=path, name=name, game=game_name, players=players, options=options, bots=bots,
        teams=teams, schedule=schedule,
        rounds=_in(where, top.get("rounds", 1), ROUNDS),
        max_tables=max_tables,
        seed=values.get(spec.SEED_SETTING.key, spec.SEED_SETTING.default),
        play=spec.PlaySettings.of(values),
        jobs=None if top.get("jobs") is None else _in(where, top["jobs"], JOBS),
        format=fmt,
        challengers=challengers,
        left_out=tuple(left_out.values()),
        max_live_bots=_optional_key(where, top, LIVE_BOTS, MAX_LIVE_BOTS,
                                    players),  # every seat of a table needs a live bot
        cluster=None if top.get("cluster") is None else _cluster(where, top["cluster"]),
        clock_given=spec.CLOCK.key in values,
        rating=values.get(spec.RATING.key, spec.RATING.default),
        seating=values.get(spec.SEATING.key),
        deals=_deals(where, top, game_name, players, options),
        same_owner_tables=_same_owner_tables(where, top.get("same_owner_tables", "apart")),
    )


def _same_owner_tables(where: _FileChecker, raw: object) -> bool:
    """``same_owner_tables``: whether it says ``allow``."""
    word = where.text(raw, "same_owner_tables")
    if word not in SAME_OWNER_TABLES:
        raise where.error("same_owner_tables",
                          f"{word!r} is not one of {', '.join(SAME_OWNER_TABLES)}")
    return word == "allow"


def _owner(where: _FileChecker, entry: dict[str, Any], key: str) -> str | None:
    """A bot's ``owner``: a name (``arena.names``), or None when it gives none."""
    if entry.get("owner") is None:
        return None
    return where.name(entry["owner"], f"{key}.owner")


def _deals(where: _FileChecker, top: dict[str, Any], game: str, players: int,
           options: dict[str, Any]) -> DealSuite | None:
    """``deals: FILE``, read and checked against the game (``arena.plans.deals``), and the
    ``deals_sha256`` that pins its content (a run's saved copy has it: a resumed run refuses a
    file that changed)."""
    pinned = top.get("deals_sha256")
    if top.get("deals") is None:
        if pinned is not None:
            raise where.error("deals_sha256", "only with deals: FILE")
        return None
    if pinned is not None:
        pinned = where.text(pinned, "deals_sha256").lower()
        if not re.fullmatch(r"[0-9a-f]{64}", pinned):
            raise where.error("deals_sha256", "expected 64 hex digits (a SHA-256)")
    return load_suite(where.text(top["deals"], "deals"), game, players, options,
                      f"{where.path}: deals", sha256=pinned)


def _in(where: _FileChecker, value: object, bounds: Range[int], low: int | None = None) -> int:
    """``value`` as an integer in ``bounds`` (from ``low`` instead, when given)."""
    return where.integer(value, bounds.key, bounds.low if low is None else low, bounds.high)


def _optional_key(where: _FileChecker, top: dict[str, Any], bounds: Range[int], default: int | None,
                  low: int) -> int | None:
    """A top-level integer that ``null`` turns off."""
    if bounds.key not in top:
        return default
    return None if top[bounds.key] is None else _in(where, top[bounds.key], bounds, low)


def _cluster(where: _FileChecker, raw: object) -> str:
    return check_cluster_address(where.text(raw, "cluster"), where=f"{where.path}: cluster")




def _check_connectable(where: _FileChecker, max_tables: int, bots: int, players: int) -> None:
    """Fewer tables than it takes to link every bot would split the ratings: refuse them."""
    minimum = minimum_tables(bots, players)
    if max_tables < minimum:
        raise where.error("max_tables", f"{max_tables} tables cannot link {bots} bots at "
                                        f"{players}-player tables: at least {minimum} needed")


def _format(where: _FileChecker, raw: object) -> Format:
    text = where.text(raw, "format")
    try:
        return Format(text)
    except ValueError:
        raise where.error("format", f"{text!r} is not one of {', '.join(Format)}") from None


def _challengers(where: _FileChecker, fmt: Format, raw: object,
                 bots: tuple[BotSpec, ...]) -> tuple[BotSpec, ...]:
    if not fmt.has_challengers:
        if raw is not None:
            takes = " or ".join(f"format: {each}" for each in Format if each.has_challengers)
            raise where.error("challengers", f"only {takes} has challengers")
        return ()
    if raw is None:
        raise where.error("challengers", f"missing (required by format: {fmt})")
    challengers = _bots(where, raw, "challengers")
    for index, challenger in enumerate(challengers):
        if (taken := same_name(challenger.name, [bot.name for bot in bots])) is not None:
            raise where.error(f"challengers[{index}].name", _taken(challenger.name, taken, "a bot"))
    return challengers


def _taken(name: str, taken: str, whose: str) -> str:
    """The problem with a bot name that is the same name as another's (``arena.names``)."""
    if name == taken:
        return f"{name!r} is already the name of {whose}"
    return f"{name!r} is the name of {whose}, {taken!r}, written differently"


def _bots(where: _FileChecker, raw: object, section: str = "bots") -> tuple[BotSpec, ...]:
    if not isinstance(raw, list) or not raw:
        raise where.error(section, f"expected a list of bots, got {_kind(raw)}")
    bots: list[BotSpec] = []
    for index, entry in enumerate(raw):
        key = f"{section}[{index}]"
        entry = where.mapping(entry, key, BOT_KEYS)
        if "dir" in entry:
            bots.append(_dir_bot(where, entry, key, bots))
            continue
        for required in ("name", "cmd"):
            if required not in entry:
                raise where.error(f"{key}.{required}", "missing (required)")
        name = where.name(entry["name"], f"{key}.name")
        if (taken := same_name(name, [bot.name for bot in bots])) is not None:
            raise where.error(f"{key}.name", _taken(name, taken, "another bot"))
        workdir = entry.get("workdir")
        if workdir is not None:
            workdir = where.text(workdir, f"{key}.workdir")
            if not Path(workdir).is_dir():
                raise where.error(f"{key}.workdir", f"no such directory '{workdir}'"
                                                    f"{resolved_from(workdir, Path.cwd())}")
        argv = _command(where, entry["cmd"], f"{key}.cmd")
        build = None if entry.get("build") is None else _command(where, entry["build"], f"{key}.build")
        # with a build command, the program may not exist until it has run; a bot that requires
        # a missing program is left out instead (_available)
        checked = build is None and not _missing(where, entry, key)
        resolved = replace(resolve_command(argv, workdir, check=where if checked else None,
                                           key=f"{key}.cmd"), build=build)
        sandbox = None if "sandbox" not in entry else sandbox_mode(
            entry["sandbox"], f"{where.path}: {key}.sandbox")
        bots.append(BotSpec(name, resolved, sandbox, _owner(where, entry, key)))
    return tuple(bots)


def _missing(where: _FileChecker, entry: dict[str, Any], key: str) -> list[str]:
    """The programs a bot's ``requires`` names (one, or a list) that are not on PATH."""
    raw = entry.get("requires")
    if raw is None:
        return []
    names = [raw] if isinstance(raw, str) else raw
    if not isinstance(names, list) or not names or not all(isinstance(n, str) and n.strip()
                                                           for n in names):
        raise where.error(f"{key}.requires",
                          f"expected a program name or a list of them, got {_kind(raw)}")
    return [name for name in names if shutil.which(name.strip()) is None]


def _available(where: _FileChecker, bots: tuple[BotSpec, ...],
               raw: list[Any]) -> tuple[tuple[BotSpec, ...], dict[str, str]]:
    """The bots whose required programs are all on PATH, and a note per bot left out (by name)."""
    kept: list[BotSpec] = []
    left_out: dict[str, str] = {}
    for index, (bot, entry) in enumerate(zip(bots, raw, strict=True)):
        missing = _missing(where, entry, f"bots[{index}]")
        if missing:
            left_out[bot.name] = (f"{where.path}: bots[{index}] ({bot.name}) left out: "
                                  f"requires '{missing[0]}', which is not on PATH")
        else:
            kept.append(bot)
    return tuple(kept), left_out


def _dir_bot(where: _FileChecker, entry: dict[str, Any], key: str, bots: list[BotSpec]) -> BotSpec:
    """A bot given as a directory with a manifest (``dir:``), run and built in that directory."""
    for other in ("cmd", "workdir", "build"):
        if other in entry:
            raise where.error(f"{key}.{other}", "not with dir: the bot's manifest says how to run it")
    try:
        resolved = resolve_manifest(where.text(entry["dir"], f"{key}.dir"))
    except ConfigError as error:
        raise where.error(f"{key}.dir", str(error)) from None
    name = where.name(entry["name"], f"{key}.name") if "name" in entry else str(resolved.name)
    if (taken := same_name(name, [bot.name for bot in bots])) is not None:
        raise where.error(f"{key}.name", _taken(name, taken, "another bot"))
    sandbox = None if "sandbox" not in entry else sandbox_mode(
        entry["sandbox"], f"{where.path}: {key}.sandbox")
    return BotSpec(name, resolved, sandbox, _owner(where, entry, key))


def _teams(where: _FileChecker, raw: object, bots: tuple[BotSpec, ...], info: GameInfo,
           left_out: dict[str, str]) -> tuple[tuple[str, str], ...]:
    if raw is None:
        return ()
    if info.teams is None:
        with_teams = [name for name, game in engine.GAMES.items() if game.info.has_teams]
        raise where.error("teams", f"only {' and '.join(with_teams)} has teams")
    if not isinstance(raw, list) or not raw:
        raise where.error("teams", f"expected a list of [bot, bot] pairs, got {_kind(raw)}")
    names = [bot.name for bot in bots]
    teams: list[tuple[str, str]] = []
    for index, pair in enumerate(raw):
        key = f"teams[{index}]"
        if not (isinstance(pair, list) and len(pair) == 2 and all(isinstance(p, str) for p in pair)):
            raise where.error(key, f"expected a pair of bot names, got {_kind(pair)}")
        absent = [gone for member in pair if (gone := same_name(member, left_out)) is not None]
        if absent:  # its bot's note says why; the team goes with it
            left_out[absent[0]] += f" (and with it {key}, {pair[0]}+{pair[1]})"
            continue
        members = [same_name(member, names) for member in pair]  # each bot's name as written
        for member, found in zip(pair, members, strict=True):
            if found is None:
                raise where.error(key, f"no bot named {member!r}")
        team = (str(members[0]), str(members[1]))
        if team in teams:
            raise where.error(key, f"team {pair[0]}+{pair[1]} is listed twice")
        teams.append(team)
    return tuple(teams)
