"""``arena deals``: write a deals file (a deal suite) from a seed, for ``deals:`` and ``--deals``."""

from typing import Annotated

import typer

import engine
from arena import spec
from arena.cli.options import option


def deals_command(
    game: Annotated[str, typer.Argument(
        help=f"The game: {' or '.join(engine.GAMES)}.", show_default=False)],
    players: Annotated[int | None, typer.Option(
        help="Seats per game (default: the game's usual count, 4).", show_default=False)] = None,
    count: Annotated[int, typer.Option(
        help="How many games' deals: one line each, one line per duplicate set or match unit.",
        min=1, max=100000)] = 100,
    seed: Annotated[int, option(spec.SEED_SETTING)] = spec.SEED_SETTING.default,
    game_deals: Annotated[int | None, typer.Option(
        help="Deals per line (default: every deal a game can last; a game that lasts longer "
             "than its line draws the rest from its seed).", min=1, show_default=False)] = None,
    option_pairs: Annotated[list[str] | None, typer.Option(
        "--option", "-o", help="A game option as name=value (the tournament's or match's: the "
                               "deals' sizes and turned cards depend on them); repeatable.")] = None,
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
    from arena.errors import ConfigError
    from arena.game.play import parse_option_pairs
    from arena.plans.deals import suite_text
    from engine.errors import OptionError

    try:
        rules = engine.game(game)
    except OptionError as error:
        raise ConfigError(f"GAME: {error}") from None
    seats = rules.info.default_players if players is None else players
    if seats not in rules.info.player_counts:
        counts = ", ".join(map(str, rules.info.player_counts))
        raise ConfigError(f"--players: {game} is for {counts} players, not {seats}")
    options = parse_option_pairs(option_pairs or [])
    try:
        rules.resolve_options(seats, options)
    except OptionError as error:
        name = "--option" if error.option is None else f"--option {error.option}"
        raise ConfigError(f"{name}: {error.problem}") from None
    typer.echo(suite_text(game, seats, options, count, seed, game_deals), nl=False)
