"""``arena deals``: write a deals file (a deal suite) from a seed, for ``deals:`` and ``--deals``."""

from typing import Annotated

import typer

from arena import spec
from arena.cli.options import option


def deals_command(
    game: Annotated[str, typer.Argument(
        help=spec.GAME.help, show_default=False)],
    players: Annotated[int, option(spec.PLAYERS)] = spec.PLAYERS.default,
    count: Annotated[int, typer.Option(
        help="How many games' deals: one line each, one line per duplicate set or match unit.",
        min=1, max=100000)] = 100,
    seed: Annotated[int, option(spec.SEED_SETTING)] = spec.SEED_SETTING.default,
    game_deals: Annotated[int | None, typer.Option(
        help="Deals per line (default: every deal a game can last; a game that lasts longer "
             "than its line draws the rest from its seed).", min=1, show_default=False)] = None,
    option_pairs: Annotated[list[str] | None, option(
        spec.OPTIONS, "-o", help=f"{spec.OPTIONS.help} The tournament's or match's: the deals' "
                                 f"sizes and turned cards depend on them.")] = None,
) -> None:
    """Write a deals file (a deal suite) from a seed to stdout, one game's deals per line.

    A tournament's `deals: FILE` and `arena match --deals FILE` play its lines in order, one
    per duplicate set (every seat rotation of a set gets the same line); the format is in
    docs/tournaments.md, "Deal suites".

    \b
    Examples:
      arena deals blackout --players 4 --count 50 --seed 7 > my-deals.jsonl
      arena deals partnership-blackout --count 20 --game-deals 40 > partnership.jsonl
    """
    from arena.plans.deals import suite_text
    from arena.referee.command_game import parse_option_pairs

    options = parse_option_pairs(option_pairs or [])
    seats, _ = spec.game_settings(game, players, options, game_key="GAME")
    typer.echo(suite_text(game, seats, options, count, seed, game_deals), nl=False)
