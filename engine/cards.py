"""Cards: small immutable values that parse from and print to their two-character form.

A card is an ``int`` subclass, ``suit * 16 + rank`` (rank 0 is the two, 12 the ace; suits C D H S
are 0..3), so it hashes, compares and indexes as fast as an int inside the referee's hot loops while
still printing as ``"TD"``. There are exactly 52 instances; ``Card.parse`` and ``CARD_BY_VALUE``
return them, so ``is`` works too. (mypyc cannot make an ``int`` subclass a native class: ``Card``
stays a Python class in the compiled build, while the rest of this module compiles.)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final, TypeVar

from engine.errors import InvalidActionError, shown

_T = TypeVar("_T")

try:  # mypyc (``make compiled``) reads this decorator; the pure package does without it
    from mypy_extensions import mypyc_attr
except ImportError:  # pragma: no cover (mypy_extensions comes with mypy, in the dev extra)
    def mypyc_attr(*_: object, **__: object) -> Callable[[_T], _T]:  # type: ignore[misc]
        """A no-op stand-in for ``mypy_extensions.mypyc_attr``."""
        return lambda cls: cls


SUITS: Final = "CDHS"
RANKS: Final = "23456789TJQKA"
CLUBS, DIAMONDS, HEARTS, SPADES = 0, 1, 2, 3


@mypyc_attr(native_class=False)
class Card(int):
    """One of the 52 cards; ``str(card)`` is its two-character name, e.g. ``"QS"``."""

    __slots__ = ()

    @property
    def suit(self) -> int:
        """The suit index 0..3 (C D H S)."""
        return self >> 4

    @property
    def rank(self) -> int:
        """The rank index 0..12 (2 .. A)."""
        return self & 15

    def __str__(self) -> str:
        return NAMES[self]

    def __repr__(self) -> str:
        return f"Card('{NAMES[self]}')"

    @staticmethod
    def parse(text: object) -> Card:
        """The card named ``text`` (e.g. ``"TD"``); raises InvalidActionError for anything else."""
        card = CARD_BY_NAME.get(text) if isinstance(text, str) else None
        if card is None:
            raise InvalidActionError(f"{shown(text)} is not a card (rank 2-9TJQKA then suit CDHS, e.g. 'TD')")
        return card


NAMES: Final[dict[int, str]] = {
    s * 16 + r: RANKS[r] + SUITS[s] for s in range(4) for r in range(13)
}
DECK: Final[tuple[Card, ...]] = tuple(Card(s * 16 + r) for s in range(4) for r in range(13))
CARD_BY_NAME: Final[dict[str, Card]] = {str(c): c for c in DECK}
CARD_BY_VALUE: Final[dict[int, Card]] = {int(c): c for c in DECK}
NAME_OF: Final[tuple[str, ...]] = tuple(NAMES.get(v, "") for v in range(64))
"""``NAME_OF[card]``: a card's name by plain indexing, for loops that name many cards."""


class _SuitCards(dict[int, tuple[Card, ...]]):
    """Lazily filled map from a 13-bit rank mask of one suit to its cards, low to high."""

    def __init__(self, suit: int) -> None:
        super().__init__()
        self.suit = suit

    def __missing__(self, mask: int) -> tuple[Card, ...]:
        cards = tuple(DECK[self.suit * 13 + r] for r in range(13) if mask >> r & 1)
        self[mask] = cards
        return cards


class _SuitNames(dict[int, tuple[str, ...]]):
    """Lazily filled map from a 13-bit rank mask of one suit to its cards' names, low to high."""

    def __init__(self, suit: int) -> None:
        super().__init__()
        self.suit = suit

    def __missing__(self, mask: int) -> tuple[str, ...]:
        names = tuple(NAMES[self.suit * 16 + r] for r in range(13) if mask >> r & 1)
        self[mask] = names
        return names


SUIT_CARDS: Final = tuple(_SuitCards(s) for s in range(4))
"""``SUIT_CARDS[suit][(mask >> 16 * suit) & 0x1FFF]``: the cards of ``suit`` in a hand bitmask."""
RANK_BITS: Final = 0x1FFF


def mask_of(cards: object) -> int:
    """The bitmask (bit ``card``) of an iterable of cards."""
    mask = 0
    for card in cards:  # type: ignore[attr-defined]
        mask |= 1 << card
    return mask


SUIT_NAMES_OF: Final = tuple(_SuitNames(s) for s in range(4))


def names_of(mask: int) -> list[str]:
    """The names of the cards of a bitmask, clubs to spades, low to high."""
    return [*SUIT_NAMES_OF[0][mask & RANK_BITS], *SUIT_NAMES_OF[1][(mask >> 16) & RANK_BITS],
            *SUIT_NAMES_OF[2][(mask >> 32) & RANK_BITS], *SUIT_NAMES_OF[3][mask >> 48]]


def cards_of(mask: int) -> tuple[Card, ...]:
    """The cards of a bitmask, clubs to spades, low to high."""
    return (SUIT_CARDS[0][mask & RANK_BITS] + SUIT_CARDS[1][(mask >> 16) & RANK_BITS]
            + SUIT_CARDS[2][(mask >> 32) & RANK_BITS] + SUIT_CARDS[3][mask >> 48])
