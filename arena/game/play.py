"""One game between bot commands, start to finish: what ``arena play`` runs."""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import engine
from arena.bots.process import BotProcess, close_bots
from arena.errors import ConfigError
from arena.game.referee import play_game, result_of
from arena.settings import FaultPolicy, Limits, TimeControl
from engine.game import GameInfo


def parse_option_pairs(pairs: Sequence[str]) -> dict[str, str]:
    """``["hook=true", "deals=5"]`` as a dict; ConfigError for a pair without ``=``."""
    options: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name.strip():
            raise ConfigError(f"--option {pair!r}: expected name=value, e.g. --option hook=true")
        options[name.strip()] = value.strip()
    return options


def seat_commands(game_name: str, commands: Sequence[str]) -> list[list[str]]:
    """The argv of every seat: one command per seat, or in a team game one per team (each command
    then plays every seat of its team)."""
    info = engine.game(game_name).info
    argvs = []
    for command in commands:
        try:
            argv = shlex.split(command)
        except ValueError as error:
            raise ConfigError(f"bot command {command!r}: {error}") from None
        if not argv:
            raise ConfigError("bot command '': empty")
        argvs.append(argv)
    if len(argvs) not in info.command_counts:
        raise ConfigError(f"{game_name} takes {_bot_counts(info)}; got {len(commands)}")
    return info.seats_of(argvs)


def _bot_counts(info: GameInfo) -> str:
    """``3 to 7 bot commands, one per seat`` (and, in a team game, the one-per-team form)."""
    counts = info.player_counts
    contiguous = counts == tuple(range(counts[0], counts[-1] + 1))
    seats = (f"{counts[0]} to {counts[-1]}" if contiguous and len(counts) > 1
             else ", ".join(map(str, counts)))
    text = f"{seats} bot commands, one per seat"
    if info.teams is not None:
        text += f", or {len(info.teams)}, one per team (each plays all its team's seats)"
    return text


def seat_names(argvs: Sequence[Sequence[str]]) -> list[str]:
    """A readable, unique name per seat from its command (the same command keeps the same name)."""
    names: list[str] = []
    by_command: dict[tuple[str, ...], str] = {}
    for argv in argvs:
        key = tuple(argv)
        if key not in by_command:
            path = Path(next((a for a in reversed(argv) if "/" in a or "." in a), argv[0]))
            parent = path.parent.name
            base = f"{parent}/{path.stem}" if parent not in ("", ".", "bots") else path.stem
            name, n = base, 2
            while name in by_command.values():
                name, n = f"{base}-{n}", n + 1
            by_command[key] = name
        names.append(by_command[key])
    return names


def play_one(game_name: str, commands: Sequence[str], *, seed: int,
             options: Mapping[str, object] | None = None,
             time_control: TimeControl = TimeControl(),  # noqa: B008 (frozen)
             policy: FaultPolicy = FaultPolicy.FORFEIT, limits: Limits = Limits(),  # noqa: B008
             log_dir: Path | None = None) -> dict[str, Any]:
    """Start the bots, play one game, stop the bots; the record with its ``result``."""
    game = engine.game(game_name)
    argvs = seat_commands(game_name, commands)
    resolved = game.resolve_options(len(argvs), options)
    names = seat_names(argvs)
    with ExitStack() as stack:
        bots: list[BotProcess] = []
        stack.callback(close_bots, bots)  # together: one shared quit grace, not one per seat
        for seat, (name, argv) in enumerate(zip(names, argvs, strict=True)):
            log = None if log_dir is None else log_dir / f"seat{seat}-{name}.stderr.log"
            bot = BotProcess(name, argv, limits=limits, log_path=log,
                             start_timeout=time_control.start_ms / 1000)
            bot.start()
            bots.append(bot)
        outcome = play_game(game_name, bots, seed, resolved, names=names,
                            time_control=time_control, policy=policy)
    record = outcome.record
    record["result"] = result_of(record, game.info.entrants(names), policy)
    return record
