"""The JSON text of what a seat is sent, built from cached pieces instead of dicts.

The referee sends one view per decision and the same few events to every seat; building those as
dicts and serialising them cost more than the engine's own work. The games render the same values
here as text directly: fixed parts once (per game, per deal, per auction step), a card, a play or a
hand from tables, and the deal's plays extended by the plays since the last view. The text is
exactly what a compact JSON encoder (orjson, or ``json.dumps`` with ``separators=(",", ":")`` and
``ensure_ascii=False``) gives for the dict forms (``view``, ``events``); tests pin that.
"""

from __future__ import annotations

import json
from typing import Any, Final

from engine.cards import NAME_OF, NAMES, RANK_BITS
from engine.trick import Plays

CARD_JSON: Final[tuple[str, ...]] = tuple(f'"{name}"' if name else "" for name in NAME_OF)
"""``CARD_JSON[card]``: a card's JSON string, quotes included."""
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


def dumps(value: Any) -> str:
    """Compact JSON text of a value made of dicts, lists, tuples, str, int, bool and None."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


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


def cards_json(cards: tuple[int, ...]) -> str:
    """The JSON list of the names of ``cards``, in their order."""
    table = CARD_JSON
    return "[" + ",".join([table[card] for card in cards]) + "]"


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


def value_json(value: int | str | None) -> str:
    """An int, a plain word (a call such as ``pass``; no escaping needed) or None as JSON."""
    if value is None:
        return "null"
    if isinstance(value, str):
        return f'"{value}"'
    return f"{value:d}"


def extend_plays(seen: tuple[Plays, str] | None, head: Plays) -> tuple[Plays, str]:
    """The deal's plays up to ``head`` as JSON list items (no brackets), extending ``seen``.

    ``seen`` is (the plays list a view last rendered, its text); usually one or a few plays are
    new, so a view's cost stays flat instead of growing with the deal.
    """
    if seen is not None and seen[0] is head:
        return seen
    known_head, known = seen if seen is not None else (None, "")
    new: list[str] = []
    node = head
    table = PLAY_JSON
    while node is not None and node is not known_head:
        node, seat, card = node
        new.append(table[seat][card])
    if node is not known_head:  # the rendered plays belong to an earlier deal
        known = ""
    new.reverse()
    text = ",".join(new)
    if known and text:
        text = known + "," + text
    elif known:
        text = known
    return (head, text)
