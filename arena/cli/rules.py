"""``arena rules``: a game's options with their defaults, values and meaning, from the engine."""

from typing import Annotated

import typer

import engine
from arena.cli.options_text import rules_report


def rules_command(
    game: Annotated[str, typer.Argument(
        help=f"The game: {' or '.join(engine.GAMES)}.", show_default=False)],
    players: Annotated[int | None, typer.Option(
        help="Show the defaults and ranges for this many players (default: every count, where "
             "they differ).", show_default=False)] = None,
) -> None:
    """Print a game's options: name, default, allowed values and what each one sets.

    The rules themselves, with worked examples, are in docs/rules.md.

    \b
    Examples:
      arena rules blackout
      arena rules blackout --players 5
    """
    typer.echo(rules_report(game, players))
