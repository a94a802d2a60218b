"""The JSON text of the events every seat is sent, from tables instead of dicts.

After every decision the referee sends each seat the same few events; building them as dicts and
serialising them cost more than the engine's own ``apply``. The games render them here as text
directly: a play's event line from a table, a trick or a hand from cached pieces. The text is
exactly what a compact JSON encoder (orjson) gives for the dict forms (``events``); a test pins it.

(The view is still a dict serialised by orjson: rendered as text like the events it cost as much,
measured, since orjson is faster than Python string building for a 700-byte object.)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from engine.cards import NAME_OF, NAMES, RANK_BITS, Card

MAX_SEATS: Final = 8
PLAY_JSON: Final[tuple[tuple[str, ...], ...]] = tuple(
    tuple(f'[{seat},"{name}"]' if name else "" for name in NAME_OF) for seat in range(MAX_SEATS)
)
"""``PLAY_JSON[seat][card]``: one play as ``[seat,"QS"]``."""
PLAY_EVENT: Final[tuple[tuple[str, ...], ...]] = tuple(
    tuple(f'{{"type":"event","event":"play","seat":{seat},"card":"{name}"}}\n' if name else ""
          for name in NAME_OF) for seat in range(MAX_SEATS)
)
"""``PLAY_EVENT[seat][card]``: the event line every seat is sent when ``seat`` plays ``card``."""


class _SuitJson(dict[int, str]):
    """Lazily filled map from a 13-bit rank mask of one suit to ``"2C","5C"`` (may be empty)."""

    def __init__(self, suit: int) -> None:
        super().__init__()
        self.suit = suit

    def __missing__(self, mask: int) -> str:
        text = ",".join(f'"{NAMES[self.suit * 16 + r]}"' for r in range(13) if mask >> r & 1)
        self[mask] = text
        return text


_SUIT_JSON: Final = tuple(_SuitJson(s) for s in range(4))


def hand_json(mask: int) -> str:
    """The JSON list of the cards of a bitmask, clubs to spades, low to high: ``["2C","QS"]``."""
    clubs, diamonds, hearts, spades = _SUIT_JSON
    parts = [clubs[mask & RANK_BITS], diamonds[(mask >> 16) & RANK_BITS],
             hearts[(mask >> 32) & RANK_BITS], spades[mask >> 48]]
    return "[" + ",".join([part for part in parts if part]) + "]"


def trick_json(trick: tuple[tuple[int, int], ...]) -> str:
    """A trick (or any plays) as ``[[seat,"QS"],...]``."""
    table = PLAY_JSON
    return "[" + ",".join([table[seat][card] for seat, card in trick]) + "]"


def ints_json(values: tuple[int, ...] | list[int]) -> str:
    """A list of plain ints as JSON."""
    return "[" + ",".join(map(str, values)) + "]"


def pairs_json(pairs: tuple[tuple[int, int | str], ...]) -> str:
    """``((seat, value), ...)`` (bids or calls: ints, or strings that need no escaping) as JSON."""
    return "[" + ",".join([f"[{seat},{value_json(value)}]" for seat, value in pairs]) + "]"


def value_json(value: object) -> str:
    """An int, a plain word (a call such as ``pass``; no escaping needed) or None as JSON."""
    if value is None:
        return "null"
    if isinstance(value, str):
        return f'"{value}"'
    return f"{value:d}"


def action_to_json(action: object) -> object:
    """The wire form of an engine action: a card's name, else the int or string itself."""
    return NAME_OF[action] if isinstance(action, Card) else action


def actions_to_json(actions: Sequence[object]) -> list[object]:
    """The wire form of a list of legal actions."""
    return [NAME_OF[action] if isinstance(action, Card) else action for action in actions]
