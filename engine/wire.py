"""The JSON text of what a seat is sent, made directly from tables and cached pieces.

After every decision the referee sends each seat the same few events; building them as dicts and
serialising them cost more than the engine's own ``apply``. So the games (``engine.trickgame``)
render them as text directly: a play's event line from a table, a trick or a hand from cached
pieces. That text is each event's one rendering: the dict forms (``events``) are parsed from it.

The view a bot is sent with each ``act`` and the legal actions are rendered from them too
(``view_json``, ``legal_json``): the fields fixed for a deal once and those fixed for a phase once
per phase, both encoded from the dicts ``view`` holds (``object_head``, ``compact_json``), the rest
from cached pieces, the plays extended by one play at a time. As a dict serialised by orjson the
view cost a decision more than ``apply`` (building the dict as much as encoding it); as text about
a third less, measured on fresh games (2.3 against 3.4 us compiled, 2.6 against 3.3 pure). Every
piece is exactly what a compact encoder (orjson) gives for the value's dict form; tests pin it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Final

from engine.cards import NAME_OF, NAMES, RANK_BITS, SUITS, Card

MAX_SEATS: Final = 8
PLAY_JSON: Final[tuple[tuple[str, ...], ...]] = tuple(
    tuple(f'[{seat},"{name}"]' if name else "" for name in NAME_OF) for seat in range(MAX_SEATS)
)
"""``PLAY_JSON[seat][card]``: one play as ``[seat,"QS"]``."""
QUOTED: Final[tuple[str, ...]] = tuple(f'"{name}"' for name in NAME_OF)
"""``QUOTED[card]``: a card's name as a JSON string, ``"QS"`` with the quotes."""
PLAY_EVENT: Final[tuple[tuple[str, ...], ...]] = tuple(
    tuple(f'{{"type":"event","event":"play","seat":{seat},"card":"{name}"}}\n' if name else ""
          for name in NAME_OF) for seat in range(MAX_SEATS)
)
"""``PLAY_EVENT[seat][card]``: the event line every seat is sent when ``seat`` plays ``card``."""


def card_name(card: int | None) -> str | None:
    """A card's name, or None for no card."""
    return None if card is None else NAME_OF[card]


def card_json(card: int | None) -> str:
    """``card_name`` as JSON: the name as a string, or null."""
    return "null" if card is None else QUOTED[card]


def suit_name(suit: int | None) -> str | None:
    """A suit's letter (``"S"``), or None for no suit (a deal without trump)."""
    return None if suit is None else SUITS[suit]


def suit_json(suit: int | None) -> str:
    """``suit_name`` as JSON: the letter as a string, or null."""
    return "null" if suit is None else f'"{SUITS[suit]}"'



def plays_list(plays: Sequence[tuple[int, int]]) -> list[list[int | str]]:
    """``[[seat, "QS"], ...]`` from (seat, card) pairs."""
    return [[seat, NAME_OF[card]] for seat, card in plays]


def pairs_list(pairs: Sequence[tuple[int, object]]) -> list[list[object]]:
    """``[[seat, value], ...]`` from (seat, value) pairs (bids or calls)."""
    return [[seat, value] for seat, value in pairs]


def trick_json(trick: Sequence[tuple[int, int]]) -> str:
    """A trick (or any plays) as ``[[seat,"QS"],...]``."""
    table = PLAY_JSON
    return "[" + ",".join([table[seat][card] for seat, card in trick]) + "]"


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


def cards_json(cards: Sequence[int]) -> str:
    """The JSON list of the names of ``cards``, in the order given: ``["2C","QS"]``."""
    quoted = QUOTED
    return "[" + ",".join([quoted[card] for card in cards]) + "]"


_ENCODER: Final = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)
"""One encoder for every call: ``json.dumps`` with these arguments would build one per call."""


def compact_json(value: object) -> str:
    """The compact JSON text of plain values (dicts, lists, strings, ints, bools, None): what
    orjson gives. For what is rendered once a deal or a phase, not per decision."""
    return _ENCODER.encode(value)


def object_head(fields: Mapping[str, object]) -> str:
    """``compact_json`` of an object without its closing brace, followed by a comma: the head of
    an object whose other fields are rendered after it."""
    return compact_json(fields)[:-1] + ","


_COUNTS_JSON: Final[dict[tuple[int, ...], str]] = {}


def counts_json(counts: tuple[int, ...]) -> str:
    """``ints_json`` of a few small counts (tricks won by seat), remembered: a game has few
    distinct ones (at most a few thousand for any number of seats), each met many times."""
    text = _COUNTS_JSON.get(counts)
    if text is None:
        text = _COUNTS_JSON[counts] = ints_json(counts)
    return text


def ints_json(values: Sequence[int]) -> str:
    """A list of plain ints as JSON."""
    return "[" + ",".join(map(str, values)) + "]"


def pairs_json(pairs: Sequence[tuple[int, object]]) -> str:
    """``((seat, value), ...)`` (bids or calls: ints, or strings that need no escaping) as JSON."""
    return "[" + ",".join([f"[{seat},{value_json(value)}]" for seat, value in pairs]) + "]"


def values_json(values: Sequence[object]) -> str:
    """A list of ints and plain words (bids or calls; see ``value_json``) as JSON."""
    return "[" + ",".join([value_json(value) for value in values]) + "]"


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
