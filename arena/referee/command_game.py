"""One game between bot commands, start to finish: what ``arena play`` runs."""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from contextlib import ExitStack
from dataclasses import replace
from pathlib import Path
from typing import Any

import engine
from arena.botfiles.manifest import Manifest, is_bot_target
from arena.botfiles.resolve import ResolvedBot, resolve_manifest
from arena.botfiles.view import check_visible
from arena.bots.build import build_bot
from arena.bots.process import BotProcess
from arena.bots.shutdown import close_bots
from arena.errors import ConfigError
from arena.names import command_label, free_name
from arena.records.result import result_of
from arena.records.writer import logged_record
from arena.referee.referee import play_game
from arena.referee.seats import game_seats, given_name, log_file_name
from arena.settings import DEFAULT_LIMITS, DEFAULT_POLICY, DEFAULT_TIME, FaultPolicy, Limits, TimeControl
from arena.values.sandbox_settings import Sandbox


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
            by_command[key] = free_name(command_label(argv), by_command.values())
        names.append(by_command[key])
    return names


def play_one(game_name: str, commands: Sequence[str], *, seed: int,
             options: Mapping[str, object] | None = None,
             time_control: TimeControl = DEFAULT_TIME, policy: FaultPolicy = DEFAULT_POLICY,
             limits: Limits = DEFAULT_LIMITS,
             log_dir: Path | None = None, sandbox: Sandbox | None = None) -> dict[str, Any]:
    """Start the bots, play one game, stop the bots; the record with its ``result``
    (``arena.records.writer.logged_record``).

    Seats are ``NAME=COMMAND``, bare commands (``arena.referee.seats``) or bot directories (built
    first, then run from their directory under their manifest's name).
    """
    game = engine.game(game_name)
    targets = [_bot_target(c) for c in commands]
    directories = {program.bot_dir: program for _, program in targets if program is not None}
    seats = game_seats(game_name, [c if program is None else _seat_text(given, program)
                                   for c, (given, program) in zip(commands, targets, strict=True)])
    argvs = [list(seat.argv) for seat in seats]
    resolved = game.resolve_options(len(argvs), options)
    programs = [program for _, program in targets]
    per_seat = programs if len(programs) == len(seats) else game.info.seats_of(programs)
    given_names = [given for given, _ in targets]
    given_per_seat = given_names if len(programs) == len(seats) else game.info.seats_of(given_names)
    names = _manifest_names([seat.name for seat in seats],
                            [None if program is None or given is not None else program.manifest
                             for program, given in zip(per_seat, given_per_seat, strict=True)])
    workdirs = [None if program is None else program.workdir for program in per_seat]
    if sandbox is not None:  # every program the sandbox would refuse, before any build or start
        for program in directories.values():
            assert program.manifest is not None
            program.check_sandboxed(_for_dir(sandbox, program.bot_dir),
                                    f"{program.manifest.path}: run",
                                    f"{program.manifest.path}: build")
        for seat, (name, argv) in enumerate(zip(names, argvs, strict=True)):
            check_visible(sandbox, argv, workdirs[seat], f"seat {seat} ({name})", workdirs[seat])
    for program in directories.values():
        assert program.manifest is not None  # a bot directory: resolved from its manifest
        build_bot(program.manifest, sandbox=_for_dir(sandbox, program.bot_dir))
    with ExitStack() as stack:
        bots: list[BotProcess] = []
        stack.callback(close_bots, bots)  # together: one shared quit grace, not one per seat
        for seat, (name, argv) in enumerate(zip(names, argvs, strict=True)):
            log = None if log_dir is None else log_dir / log_file_name(seat, name)
            bot = BotProcess(name, argv, cwd=workdirs[seat], limits=limits, log_path=log,
                             start_timeout=time_control.start_ms / 1000,
                             sandbox=_for_dir(sandbox, workdirs[seat]))
            bot.start()
            bots.append(bot)
        outcome = play_game(game_name, bots, seed, resolved, names=names,
                            time_control=time_control, policy=policy)
    return logged_record(outcome.record, result_of(outcome.record, game.info.entrants(names), policy))


def _bot_target(text: str) -> tuple[str | None, ResolvedBot | None]:
    """A seat's given name (``NAME=``) and its bot directory or manifest, resolved; (name, None)
    when the seat is a command."""
    given, target = given_name(text)
    return given, resolve_manifest(target) if is_bot_target(target) else None


def _seat_text(given: str | None, bot: ResolvedBot) -> str:
    """The seat as ``arena.referee.seats`` parses it: the bot's command, with its given name."""
    command = shlex.join(bot.argv)
    return command if given is None else f"{given}={command}"


def _for_dir(sandbox: Sandbox | None, bot_dir: str | None) -> Sandbox | None:
    """``sandbox`` with a manifest's directory as the bot's directory (None: found from argv)."""
    if sandbox is None or bot_dir is None:
        return sandbox
    return replace(sandbox, bot_dir=bot_dir)


def _manifest_names(names: list[str], manifests: Sequence[Manifest | None]) -> list[str]:
    """Seat names with each bot directory's seats named after its manifest (copies numbered).

    A manifest's name competes only with the names that stay (commands' labels, given names) and
    with the manifests renamed before it, never with its own seats' labels: ``name: gobot`` with
    ``run: ./gobot`` is labelled ``gobot``, not ``gobot-2``.
    """
    kept = [name for name, manifest in zip(names, manifests, strict=True) if manifest is None]
    renamed: dict[str, str] = {}
    for seat, manifest in enumerate(manifests):
        if manifest is None:
            continue
        label = names[seat]  # distinct per program, shared by partners running one program
        if label not in renamed:
            renamed[label] = free_name(manifest.name, [*kept, *renamed.values()])
        names[seat] = renamed[label]
    return names
