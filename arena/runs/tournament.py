"""Tournament files: YAML in, a validated ``Tournament`` out, every mistake named before any game.

Errors read ``FILE: KEY: PROBLEM``, e.g. ``tournaments/x.yaml: bots[2].cmd: no such file 'bots/y'``.
Relative paths: a bot's ``workdir`` is relative to the current directory; its ``cmd`` runs in its
``workdir`` (the current directory when none is given), so paths in ``cmd`` are relative to that.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

import engine
from arena.bots.sandbox import Sandbox, sandbox_layout, sandbox_mode
from arena.errors import ConfigError
from arena.settings import FaultPolicy, Limits, SandboxMode, TimeControl
from engine.errors import OptionError

SCHEDULES = ("round-robin",)
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
"""Tournament and bot names: they become file and directory names."""
SCRIPT_SUFFIXES = (".py", ".js", ".mjs", ".rb", ".pl", ".sh", ".lua", ".jar")


@dataclass(frozen=True)
class BotSpec:
    """One entrant program: its name, argv, working directory and optional build command."""

    name: str
    argv: tuple[str, ...]
    workdir: str | None = None
    build: tuple[str, ...] | None = None
    sandbox: SandboxMode | None = None
    """This bot's own ``sandbox`` setting; None: the tournament's."""


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
    time: TimeControl = field(default_factory=TimeControl)
    limits: Limits = field(default_factory=Limits)
    fault_policy: FaultPolicy = FaultPolicy.FORFEIT
    jobs: int | None = None
    sandbox: SandboxMode = SandboxMode.NONE

    def sandbox_of(self, bot: BotSpec) -> SandboxMode:
        """The sandbox mode ``bot`` runs under: its own setting, else the tournament's."""
        return bot.sandbox if bot.sandbox is not None else self.sandbox

    @property
    def is_partnership(self) -> bool:
        """Whether entrants are teams (Partnership Blackout)."""
        return self.game == "partnership-blackout"


TOP_KEYS = {"name", "game", "players", "options", "bots", "teams", "schedule", "rounds",
            "max_tables", "seed", "time", "limits", "fault_policy", "jobs", "sandbox"}
BOT_KEYS = {"name", "cmd", "workdir", "build", "sandbox"}
TIME_KEYS = {"start_ms", "move_ms", "bank_ms"}
LIMIT_KEYS = {"memory_mb", "cpu_seconds", "file_mb"}


class _Where:
    """Builds ``FILE: KEY: PROBLEM`` errors."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def error(self, key: str, problem: str) -> ConfigError:
        return ConfigError(f"{self.path}: {key}: {problem}" if key else f"{self.path}: {problem}")

    def mapping(self, value: object, key: str, allowed: set[str]) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.error(key, f"expected a mapping, got {_kind(value)}")
        unknown = sorted(str(k) for k in value if k not in allowed)
        if unknown:
            prefix = f"{key}." if key else ""
            raise self.error(f"{prefix}{unknown[0]}",
                             f"unknown key (allowed: {', '.join(sorted(allowed))})")
        return value

    def integer(self, value: object, key: str, low: int, high: int | None = None) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.error(key, f"expected an integer, got {_kind(value)}")
        if value < low or (high is not None and value > high):
            bound = f"{low}..{high}" if high is not None else f">= {low}"
            raise self.error(key, f"{value} is out of range ({bound})")
        return value

    def text(self, value: object, key: str) -> str:
        if not isinstance(value, str) or not value.strip():
            raise self.error(key, f"expected a non-empty string, got {_kind(value)}")
        return value.strip()


def _kind(value: object) -> str:
    if value is None:
        return "nothing"
    if isinstance(value, str):
        return f"the string {value!r}"
    return f"{type(value).__name__} {value!r}"[:80]


def load_tournament(path: str | os.PathLike[str]) -> Tournament:
    """Read and validate a tournament file; ConfigError naming file, key and problem."""
    path = Path(path)
    where = _Where(path)
    try:
        text = path.read_text()
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such tournament file") from None
    except OSError as error:
        raise ConfigError(f"{path}: cannot read: {error.strerror}") from None
    try:
        raw = yaml.load(text, Loader=_StrictLoader)  # noqa: S506 (a SafeLoader)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        line = f"line {mark.line + 1}: " if mark is not None else ""
        problem = getattr(error, "problem", None) or str(error).splitlines()[0]
        raise ConfigError(f"{path}: {line}invalid YAML: {problem}") from None
    top = where.mapping(raw, "", TOP_KEYS)
    for required in ("name", "game", "bots"):
        if required not in top:
            raise where.error(required, "missing (required)")
    name = where.text(top["name"], "name")
    if not NAME.fullmatch(name):
        raise where.error("name", f"{name!r}: use letters, digits, '-', '_', '.', "
                                  "starting with a letter or digit (64 at most)")
    game_name = where.text(top["game"], "game")
    try:
        game = engine.rules(game_name)
    except OptionError as error:
        raise where.error("game", str(error)) from None
    default_players = 4 if len(game.PLAYER_COUNTS) == 1 else 4
    players = where.integer(top.get("players", default_players), "players",
                            min(game.PLAYER_COUNTS), max(game.PLAYER_COUNTS))
    options_raw = {} if top.get("options") is None else top["options"]
    if not isinstance(options_raw, dict):
        raise where.error("options", f"expected a mapping, got {_kind(options_raw)}")
    try:
        options = game.resolve_options(players, options_raw)
    except OptionError as error:
        key = "options" if error.option is None else f"options.{error.option}"
        raise where.error(key, error.problem) from None
    bots = _bots(where, top["bots"])
    teams = _teams(where, top.get("teams"), bots, game_name)
    entrants = len(teams) if teams else len(bots)
    needed = 2 if game_name == "partnership-blackout" else players
    if entrants < needed:
        what = "teams" if game_name == "partnership-blackout" else f"bots for {players}-player tables"
        raise where.error("bots", f"{entrants} entrants: at least {needed} {what} needed")
    schedule = where.text(top.get("schedule", "round-robin"), "schedule")
    if schedule not in SCHEDULES:
        raise where.error("schedule", f"{schedule!r} is not one of {', '.join(SCHEDULES)}")
    time = where.mapping({} if top.get("time") is None else top["time"], "time", TIME_KEYS)
    limits = where.mapping({} if top.get("limits") is None else top["limits"], "limits", LIMIT_KEYS)
    policy = top.get("fault_policy", "forfeit")
    if policy not in [p.value for p in FaultPolicy]:
        raise where.error("fault_policy", f"{_kind(policy)} is not one of forfeit, substitute")
    defaults = TimeControl()
    base_limits = Limits()
    return Tournament(
        path=path, name=name, game=game_name, players=players, options=options, bots=bots,
        teams=teams, schedule=schedule,
        rounds=where.integer(top.get("rounds", 1), "rounds", 1),
        max_tables=where.integer(top.get("max_tables", 200), "max_tables", 1),
        seed=where.integer(top.get("seed", 1), "seed", 0),
        time=TimeControl(
            start_ms=where.integer(time.get("start_ms", defaults.start_ms), "time.start_ms", 1),
            move_ms=where.integer(time.get("move_ms", defaults.move_ms), "time.move_ms", 1),
            bank_ms=where.integer(time.get("bank_ms", defaults.bank_ms), "time.bank_ms", 0)),
        limits=Limits(
            memory_mb=_optional(where, limits, "memory_mb", base_limits.memory_mb, 16),
            cpu_seconds=_optional(where, limits, "cpu_seconds", base_limits.cpu_seconds, 1),
            file_mb=_optional(where, limits, "file_mb", base_limits.file_mb, 1)),
        fault_policy=FaultPolicy(policy),
        jobs=None if top.get("jobs") is None else where.integer(top["jobs"], "jobs", 1, 256),
        sandbox=sandbox_mode(top.get("sandbox", "none"), f"{path}: sandbox"),
    )


class _StrictLoader(yaml.SafeLoader):
    """A SafeLoader that rejects a key given twice in one mapping (PyYAML keeps the last one)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        first_line: dict[object, int] = {}
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":  # '<<' merges may be overridden
                continue
            key = self.construct_object(key_node, deep=True)
            try:
                line = first_line.setdefault(key, key_node.start_mark.line + 1)
            except TypeError:  # an unhashable key: the base class reports it
                continue
            if line != key_node.start_mark.line + 1:
                raise yaml.constructor.ConstructorError(
                    None, None, f"duplicate key {key!r} (first on line {line})",
                    key_node.start_mark)
        return super().construct_mapping(node, deep=deep)


def _optional(where: _Where, section: dict[str, Any], key: str, default: int | None,
              low: int) -> int | None:
    if key not in section:
        return default
    value = section[key]
    return None if value is None else where.integer(value, f"limits.{key}", low)


def _bots(where: _Where, raw: object) -> tuple[BotSpec, ...]:
    if not isinstance(raw, list) or not raw:
        raise where.error("bots", f"expected a list of bots, got {_kind(raw)}")
    bots: list[BotSpec] = []
    for index, entry in enumerate(raw):
        key = f"bots[{index}]"
        entry = where.mapping(entry, key, BOT_KEYS)
        for required in ("name", "cmd"):
            if required not in entry:
                raise where.error(f"{key}.{required}", "missing (required)")
        name = where.text(entry["name"], f"{key}.name")
        if not NAME.fullmatch(name):
            raise where.error(f"{key}.name", f"{name!r}: use letters, digits, '-', '_', '.', "
                                             "starting with a letter or digit (64 at most)")
        if any(bot.name == name for bot in bots):
            raise where.error(f"{key}.name", f"{name!r} is already the name of another bot")
        workdir = entry.get("workdir")
        if workdir is not None:
            workdir = where.text(workdir, f"{key}.workdir")
            if not Path(workdir).is_dir():
                raise where.error(f"{key}.workdir", f"no such directory '{workdir}'")
        argv = _command(where, entry["cmd"], f"{key}.cmd")
        build = None if entry.get("build") is None else _command(where, entry["build"], f"{key}.build")
        if build is None:  # with a build command, the program may not exist until it has run
            _check_program(where, argv, workdir, f"{key}.cmd")
        sandbox = None if "sandbox" not in entry else sandbox_mode(
            entry["sandbox"], f"{where.path}: {key}.sandbox")
        bots.append(BotSpec(name, argv, workdir, build, sandbox))
    return tuple(bots)


def _command(where: _Where, raw: object, key: str) -> tuple[str, ...]:
    if isinstance(raw, list) and raw and all(isinstance(a, str | int | float) for a in raw):
        return tuple(str(a) for a in raw)
    if isinstance(raw, str):
        try:
            argv = shlex.split(raw)
        except ValueError as error:
            raise where.error(key, f"cannot split {raw!r}: {error}") from None
        if argv:
            return tuple(argv)
    raise where.error(key, f"expected a command (a string or a list of words), got {_kind(raw)}")


def _check_program(where: _Where, argv: tuple[str, ...], workdir: str | None, key: str) -> None:
    """The program and any script path in ``argv`` must exist, so a typo fails before any game."""
    base = Path(workdir) if workdir else Path.cwd()
    program = argv[0]
    if "/" in program:
        if not (base / program).exists():
            raise where.error(key, f"no such file '{program}'")
    elif shutil.which(program) is None:
        raise where.error(key, f"'{program}' is not a program on PATH")
    for arg in argv[1:]:
        if not arg.startswith("-") and arg.endswith(SCRIPT_SUFFIXES) and not (base / arg).exists():
            raise where.error(key, f"no such file '{arg}'")


def _teams(where: _Where, raw: object, bots: tuple[BotSpec, ...],
           game: str) -> tuple[tuple[str, str], ...]:
    if raw is None:
        return ()
    if game != "partnership-blackout":
        raise where.error("teams", "only partnership-blackout has teams")
    if not isinstance(raw, list) or not raw:
        raise where.error("teams", f"expected a list of [bot, bot] pairs, got {_kind(raw)}")
    names = {bot.name for bot in bots}
    teams: list[tuple[str, str]] = []
    for index, pair in enumerate(raw):
        key = f"teams[{index}]"
        if not (isinstance(pair, list) and len(pair) == 2 and all(isinstance(p, str) for p in pair)):
            raise where.error(key, f"expected a pair of bot names, got {_kind(pair)}")
        for member in pair:
            if member not in names:
                raise where.error(key, f"no bot named {member!r}")
        team = (pair[0], pair[1])
        if team in teams:
            raise where.error(key, f"team {pair[0]}+{pair[1]} is listed twice")
        teams.append(team)
    return tuple(teams)


def build_bots(tournament: Tournament, sandboxes: dict[str, Sandbox | None] | None = None) -> None:
    """Run each distinct build command once; ConfigError with the output's tail if one fails.

    A bot with a sandbox in ``sandboxes`` (by name) builds in it, with its own directory writable.
    """
    built: set[tuple[tuple[str, ...], str | None]] = set()
    for index, bot in enumerate(tournament.bots):
        if bot.build is None:
            continue
        if (bot.build, bot.workdir) not in built:
            _build(tournament.path, index, bot, (sandboxes or {}).get(bot.name))
            built.add((bot.build, bot.workdir))
        _check_program(_Where(tournament.path), bot.argv, bot.workdir, f"bots[{index}].cmd")


def _build(path: Path, index: int, bot: BotSpec, sandbox: Sandbox | None = None) -> None:
    assert bot.build is not None
    argv: list[str] = list(bot.build)
    if sandbox is not None:  # the bot's directory is the one its cmd names, not the build's
        here = os.path.abspath(bot.workdir or os.getcwd())
        bot_dir = sandbox_layout(bot.argv, here).bot_dir
        argv = sandbox.for_build().wrap(argv, bot.workdir, Limits(None, None, None),
                                        bot_dir=bot_dir)
    try:
        done = subprocess.run(argv, cwd=bot.workdir, capture_output=True, text=True,
                              timeout=600, check=False)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise ConfigError(f"{path}: bots[{index}].build: {error}") from None
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or [""]
        raise ConfigError(f"{path}: bots[{index}].build: exited with "
                          f"{done.returncode}: {tail[0][:200]}")
