"""One game between bot commands, start to finish: what ``arena play`` runs."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import engine
from arena.bots.process import BotProcess, close_bots
from arena.errors import ConfigError
from arena.game.referee import play_game, result_of
from arena.game.seats import command_label, game_seats, log_file_name
from arena.settings import FaultPolicy, Limits, TimeControl


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
    return [list(seat.argv) for seat in game_seats(game_name, commands)]


def seat_names(argvs: Sequence[Sequence[str]]) -> list[str]:
    """A readable, unique name per seat from its command (the same command keeps the same name)."""
    names: list[str] = []
    by_command: dict[tuple[str, ...], str] = {}
    for argv in argvs:
        key = tuple(argv)
        if key not in by_command:
            base = command_label(argv)
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
    """Start the bots, play one game, stop the bots; the record with its ``result``.

    Seats are ``NAME=COMMAND`` or bare commands (``arena.game.seats``).
    """
    game = engine.game(game_name)
    seats = game_seats(game_name, commands)
    argvs = [list(seat.argv) for seat in seats]
    resolved = game.resolve_options(len(argvs), options)
    names = [seat.name for seat in seats]
    with ExitStack() as stack:
        bots: list[BotProcess] = []
        stack.callback(close_bots, bots)  # together: one shared quit grace, not one per seat
        for seat, (name, argv) in enumerate(zip(names, argvs, strict=True)):
            log = None if log_dir is None else log_dir / log_file_name(seat, name)
            bot = BotProcess(name, argv, limits=limits, log_path=log,
                             start_timeout=time_control.start_ms / 1000)
            bot.start()
            bots.append(bot)
        outcome = play_game(game_name, bots, seed, resolved, names=names,
                            time_control=time_control, policy=policy)
    record = outcome.record
    record["result"] = result_of(record, game.info.entrants(names), policy)
    return record
