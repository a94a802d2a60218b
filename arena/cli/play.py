"""``arena play``: one game between bot commands, with a deal-by-deal report."""

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager, suppress
from pathlib import Path
from typing import Annotated, BinaryIO

import typer

import engine
from arena import spec
from arena.cli.options import option
from arena.cli.options_text import option_defaults
from arena.errors import ConfigError
from arena.settings import (
    Clock,
    FaultPolicy,
    Limits,
    SandboxMode,
    TimeControl,
)


def play_command(
    game: Annotated[str, typer.Argument(
        help=f"{spec.GAME.help[:-1]} (`arena rules GAME` lists its options).")],
    bots: Annotated[list[str], typer.Argument(
        help="One command per seat, each quoted, e.g. \"python3 bots/python/random_bot.py\", "
             "optionally named: \"fast=python3 my_bot.py\". Blackout takes 3 to 7; "
             "Partnership Blackout 4, or 2 (each bot then partners a copy of itself). "
             "A bot directory with a bot.yaml (or a NAME.bot.yaml file) is built and run "
             "from its directory.",
        show_default=False)],
    seed: Annotated[int, option(spec.SEED_SETTING)] = spec.SEED_SETTING.default,
    option: Annotated[list[str] | None, option(
        spec.OPTIONS, "-o", help=f"{spec.OPTIONS.help} Defaults (by player count where they "
        f"differ; `arena rules GAME` says what each sets): "
        + "; ".join(f"{name}: {option_defaults(name)}" for name in engine.GAMES) + ".")] = None,
    log: Annotated[Path | None, typer.Option(
        help="Write the full game record (with faults) as JSON to this file.")] = None,
    move_ms: Annotated[int, option(spec.MOVE)] = spec.MOVE.default,
    bank_ms: Annotated[int, option(spec.BANK)] = spec.BANK.default,
    clock: Annotated[Clock, option(spec.CLOCK)] = spec.CLOCK.default,
    wall_ms: Annotated[int | None, option(spec.WALL)] = spec.WALL.default,
    start_ms: Annotated[int, option(spec.START)] = spec.START.default,
    memory_mb: Annotated[int, option(spec.MEMORY)] = spec.MEMORY.default,
    quit_grace_ms: Annotated[int, option(spec.QUIT_GRACE)] = spec.QUIT_GRACE.default,
    policy: Annotated[FaultPolicy, option(spec.POLICY)] = spec.POLICY.default,
    stderr_dir: Annotated[Path | None, typer.Option(
        help="Save each bot's stderr to seatN-LABEL.stderr.log in this directory.")] = None,
    sandbox: Annotated[SandboxMode, option(spec.SANDBOX)] = spec.SANDBOX.default,
    interpreter: Annotated[list[str] | None, option(spec.INTERPRETERS)] = None,
) -> None:
    """Play one game between bot programs and print it deal by deal.

    \b
    Each seat is a quoted command, or NAME=COMMAND to choose its label.
    Copies of one program get distinct labels (random_bot, random_bot-2),
    except partners sharing a command (one team entrant).

    \b
    Examples:
      arena play blackout "python3 bots/python/random_bot.py" "node bots/js/random_bot.js" \\
        bots/c/random_bot
      arena play blackout "me=python3 my_bot.py" "a=bots/c/random_bot" "b=bots/c/random_bot"
    """
    from arena.botfiles.installations import check_interpreters
    from arena.bots.sandbox import choose_sandbox
    from arena.records.writer import indented
    from arena.referee.command_game import parse_option_pairs, play_one
    from arena.report.transcript import game_report
    from arena.runs.sandboxes import sandbox_line
    from arena.values.sandbox_settings import Sandbox

    allowed = Sandbox(interpreters=check_interpreters(interpreter or [], "--interpreter"))
    box, note = choose_sandbox(sandbox, "--sandbox", allowed)
    if note is not None:
        typer.echo(note, err=True)
    if stderr_dir is not None:
        try:
            stderr_dir.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise ConfigError(f"--stderr-dir: {stderr_dir}: cannot create: "
                              f"{error.strerror or error}") from None
    # The record's file is opened before the game, so a path that cannot be written costs no game.
    with ExitStack() as stack:
        handle = None if log is None else stack.enter_context(_output(log, "--log"))
        record = play_one(game, bots, seed=seed, options=parse_option_pairs(option or []),
                          time_control=TimeControl(start_ms, move_ms, bank_ms, clock, wall_ms), policy=policy,
                          limits=Limits(memory_mb=memory_mb, quit_grace_ms=quit_grace_ms),
                          log_dir=stderr_dir, sandbox=box)
        typer.echo(game_report(record))
        typer.echo(f"\n{sandbox_line(dict.fromkeys(record['names'], box))}")
        if handle is not None:
            try:
                handle.write(indented(record))
                handle.flush()
            except OSError as error:
                raise ConfigError(f"--log: {log}: cannot write the record: "
                                  f"{error.strerror or error} (the game is printed above)") from None
    if log is not None:
        typer.echo(f"\nrecord written to {log}")


@contextmanager
def _output(path: Path, option: str) -> Iterator[BinaryIO]:
    """``path`` opened for writing, or ConfigError naming ``option``; removed again if the work
    that was to fill it fails, so a failed game leaves no empty record behind."""
    try:
        handle = path.open("wb")
    except OSError as error:
        raise ConfigError(f"{option}: {path}: cannot write: {error.strerror or error}") from None
    try:
        yield handle
    except BaseException:
        with suppress(OSError):
            handle.close()
            if path.is_file():
                path.unlink()
        raise
    finally:
        with suppress(OSError):  # a failed write is said above; a second failure adds nothing
            handle.close()
