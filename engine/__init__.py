"""The rules engine: pure functions over immutable game states, no I/O, no clock.

Each game is a module (its rules in its docstring) that gives its ``GAME``, the game behind the
``Game`` interface (``engine.game``): its ``info`` (a ``GameInfo``: player counts, teams, decision
kinds, option schema, what a score is indexed by) and ``resolve_options``, ``new_game``,
``legal_actions``, ``parse_action``, ``apply``, ``view``, ``events``, ``totals``, ``places``,
``record``, ``replay``. What both games share is ``engine.trickgame``. ``game(name)`` returns
one; callers ask it, never compare names. Randomness comes only from the seed passed to
``new_game``; a ``Preset`` (``engine.chance``) gives deals instead. The rules in words:
docs/rules.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine import blackout, partnership
from engine.chance import Preset, PresetDeal
from engine.errors import OptionError, PresetError, ReplayError, UnknownGameError
from engine.game import Game, GameInfo, GameState
from engine.wire import action_to_json, actions_to_json

__all__ = ["DEFAULT_GAME", "GAMES", "Game", "GameInfo", "GameState", "Preset", "PresetDeal", "ReplayError",
           "action_to_json", "actions_to_json", "game", "replay"]

GAMES: dict[str, Game] = {blackout.NAME: blackout.GAME, partnership.NAME: partnership.GAME}
"""Every game, by name. A game added here is covered by the interface tests as it stands."""
DEFAULT_GAME: str = blackout.NAME
"""The game a command plays when none is named."""


def game(name: str) -> Game:
    """The game called ``name``; UnknownGameError (an OptionError) naming the known games otherwise."""
    try:
        return GAMES[name]
    except (KeyError, TypeError):
        raise UnknownGameError(name, tuple(GAMES)) from None


def replay(record: Mapping[str, Any]) -> GameState:
    """Replay a game record and check it; returns the final state, raises ReplayError."""
    try:
        return game(record["game"]).replay(record)
    except (OptionError, PresetError) as error:
        raise ReplayError(f"record: {error}") from None
    except (KeyError, TypeError, ValueError) as error:
        raise ReplayError(f"record: malformed ({type(error).__name__}: {error})") from None
