"""``arena league config``: show a league's settings, or change those that may change during its
life (``arena.league.setting_changes``)."""

from pathlib import Path
from typing import Annotated

import typer

from arena import spec
from arena.cli.options import format_option
from arena.cli.options import option as setting_option
from arena.errors import ConfigError
from arena.formats import PlainOrJson
from arena.settings import Clock

League = Annotated[Path, typer.Argument(help="The league's directory.", show_default=False)]


def config_command(
    league: League,
    start_ms: Annotated[int | None, setting_option(spec.START, show_default=False)] = None,
    move_ms: Annotated[int | None, setting_option(spec.MOVE, show_default=False)] = None,
    bank_ms: Annotated[int | None, setting_option(spec.BANK, show_default=False)] = None,
    clock: Annotated[Clock | None, setting_option(spec.CLOCK, show_default=False)] = None,
    wall_ms: Annotated[int | None, setting_option(spec.WALL)] = None,
    memory_mb: Annotated[int | None, setting_option(spec.MEMORY, show_default=False)] = None,
    cpu_seconds: Annotated[int | None, setting_option(spec.CPU_LIMIT)] = None,
    file_mb: Annotated[int | None, setting_option(spec.FILE_SIZE, show_default=False)] = None,
    quit_grace_ms: Annotated[int | None, setting_option(spec.QUIT_GRACE,
                                                        show_default=False)] = None,
    interpreter: Annotated[list[str] | None, setting_option(
        spec.INTERPRETERS, help="Allow the sandbox to show this installation too (as league init's "
                                "--interpreter: never a home directory), e.g. /etc/mono; "
                                "repeatable.")] = None,
    drop_interpreter: Annotated[list[str] | None, typer.Option(
        help="No longer show this installation (one the league allows); repeatable.",
        metavar="DIR", show_default=False)] = None,
    build_seconds: Annotated[int | None, setting_option(spec.BUILD_WALL, show_default=False)] = None,
    build_cpu_seconds: Annotated[int | None, setting_option(spec.BUILD_CPU,
                                                            show_default=False)] = None,
    game: Annotated[str | None, typer.Option(
        help="Refused: the game is fixed for the league's life.", show_default=False)] = None,
    players: Annotated[int | None, typer.Option(
        help="Refused: the table size is fixed for the league's life.", show_default=False)] = None,
    option: Annotated[list[str] | None, typer.Option(
        "--option", "-o", help="Refused: the game's options are fixed for the league's life.",
        show_default=False)] = None,
    fmt: Annotated[PlainOrJson, format_option(
        PlainOrJson, "Output format: {} (json: the settings by key, the fixed ones apart, and "
                     "every change with its time).")] = PlainOrJson.PLAIN,
) -> None:
    """Show the league's settings, or change those that may change during its life.

    The time control, the limits, the installations the sandbox shows and the build limits may
    change: each option given replaces the league's value, checked as league init checks it,
    and the change is kept with its time (league status lists them). A league run in progress
    plays its next batch under the new values, restarting the bots whose limits, clock or
    sandbox changed; the next submission is built and checked under them; games already played
    keep theirs. The game, its players and options never change: the games played under them
    would no longer be comparable with those to come.
    """
    from arena.league.config import FIXED_WHY
    from arena.league.setting_changes import change_settings, league_config

    for given, name in ((game, "--game"), (players, "--players"), (option, "--option")):
        if given is not None:
            raise ConfigError(f"{name}: {FIXED_WHY}")
    values = {key: value for key, value in (
        (spec.START.key, start_ms), (spec.MOVE.key, move_ms), (spec.BANK.key, bank_ms),
        (spec.CLOCK.key, clock), (spec.WALL.key, wall_ms), (spec.MEMORY.key, memory_mb),
        (spec.CPU_LIMIT.key, cpu_seconds), (spec.FILE_SIZE.key, file_mb),
        (spec.QUIT_GRACE.key, quit_grace_ms), (spec.BUILD_WALL.key, build_seconds),
        (spec.BUILD_CPU.key, build_cpu_seconds)) if value is not None}
    changes = []
    if values or interpreter or drop_interpreter:
        changes = change_settings(league, values, add_interpreters=interpreter or (),
                                  drop_interpreters=drop_interpreter or ())
        if not changes and fmt is PlainOrJson.PLAIN:
            typer.echo("nothing changed: the league has these values already")
    typer.echo(league_config(league, fmt, changes), nl=False)
