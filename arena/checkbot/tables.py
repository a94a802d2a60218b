"""The tables check-bot plays: each game's seats and options as the rules resolve them, and about
how many decisions a check will ask for (its time estimate)."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import engine
from arena import spec
from arena.errors import ConfigError

PLAYERS: int = spec.PLAYERS.default
"""Seats in every game of the check unless it is given ``players``: the commands' default (4,
which both games allow)."""


@dataclass(frozen=True)
class Table:
    """How the check plays one game: its seats and its options (all of them, resolved)."""

    players: int
    options: Mapping[str, Any]


def checked_tables(games: Sequence[str] | None, players: int | None,
                   options: Mapping[str, object]) -> dict[str, Table]:
    """The table the check plays each of ``games`` at (None: every game), in order: ``players``
    seats (None: ``PLAYERS``), the short game's options overridden by ``options``, checked by the
    game's rules; ConfigError naming the option at fault (``--players``, ``--option NAME``), and
    the game when several are checked."""
    chosen = list(dict.fromkeys(games)) if games else list(engine.GAMES)
    tables: dict[str, Table] = {}
    for game in chosen:
        rules = engine.game(game)  # UnknownGameError names the games
        try:
            seats, resolved = spec.game_settings(game, PLAYERS if players is None else players,
                                                 {**rules.info.short_options, **options})
        except ConfigError as error:
            hint = f" (checking {game}; --game checks one game)" if len(chosen) > 1 else ""
            raise ConfigError(f"check-bot: {error}{hint}") from None
        tables[game] = Table(seats, resolved)
    return tables


def expected_decisions(tables: Mapping[str, Table], seed: int) -> int:
    """About how many decisions a check of the games of ``tables`` asks for: step 2 plays each
    game once, step 3 the other game (or the same), step 4 the first game and step 5 the first
    game twice; counted by playing those games with random legal actions in the engine
    (milliseconds)."""
    games = list(tables)
    order = [*games, games[-1] if len(games) == 1 else games[1], *[games[0]] * 3]
    total = 0
    for index, name in enumerate(order):
        rules = engine.game(name)
        table = tables[name]
        state = rules.new_game(table.players, seed + index, table.options)
        chooser = random.Random(seed + index)
        while not state.is_over:
            state = rules.apply(state, chooser.choice(rules.legal_actions(state)))
            total += 1
    return total


def options_said(game: str, table: Table) -> str:
    """The options of ``table`` that differ from the game's defaults at its size, ``deals=3``
    (``default options`` when none do)."""
    defaults = engine.game(game).resolve_options(table.players, {})
    changed = [f"{name}={str(value).lower() if isinstance(value, bool) else value}"
               for name, value in table.options.items() if defaults.get(name) != value]
    return ", ".join(changed) or "default options"
