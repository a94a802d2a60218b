"""The rules engine: pure functions over immutable game states, no I/O, no clock.

Each game is a module with the same small interface (see ``engine.blackout`` and
``engine.partnership``): ``resolve_options``, ``new_game``, ``legal_actions``, ``parse_action``,
``apply``, ``view``, ``events``, ``totals``, ``places``, ``record``, ``replay``. Randomness comes only
from the seed passed to ``new_game``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import ModuleType
from typing import Any

from engine import blackout, partnership
from engine.cards import NAME_OF, Card
from engine.errors import OptionError, ReplayError

__all__ = ["GAMES", "ReplayError", "action_to_json", "actions_to_json", "replay", "rules"]

GAMES: dict[str, ModuleType] = {blackout.NAME: blackout, partnership.NAME: partnership}


def rules(name: str) -> ModuleType:
    """The module of the game called ``name``; OptionError naming the known games otherwise."""
    try:
        return GAMES[name]
    except (KeyError, TypeError):
        raise OptionError(f"unknown game {name!r} (games: {', '.join(GAMES)})") from None


def replay(record: Mapping[str, Any]) -> Any:
    """Replay a game record and check it; returns the final state, raises ReplayError."""
    try:
        game = rules(record["game"])
        return game.replay(record)
    except OptionError as error:
        raise ReplayError(f"record: {error}") from None
    except (KeyError, TypeError, ValueError) as error:
        raise ReplayError(f"record: malformed ({type(error).__name__}: {error})") from None


def action_to_json(action: object) -> object:
    """The wire form of an engine action: a card's name, else the int or string itself."""
    return NAME_OF[action] if isinstance(action, Card) else action


def actions_to_json(actions: Sequence[object]) -> list[object]:
    """The wire form of a list of legal actions (all of one kind)."""
    return [NAME_OF[a] if isinstance(a, Card) else a for a in actions]
