"""Trick-taking rules shared by both games: following suit, who wins a trick, dealing.

Inside the engine a card is a plain ``int`` ``suit * 16 + rank`` (``engine.cards``), so ``card >> 4``
is the suit and, within one suit, a larger card is a higher one. ``Card`` values (the same ints,
printing as ``"TD"``) are made at the edge: legal actions, hands, the public ``trick`` and ``plays``.
"""

from __future__ import annotations

import random
from typing import Any, Final

from engine.cards import CARD_BY_VALUE, Card

SUIT_NAMES: Final = ("clubs", "diamonds", "hearts", "spades")
NO_TRUMP: Final = -1
"""The trump suit of a deal without trump, for loops that want a plain int."""

Play = tuple[int, int]
"""(seat, card)."""
Trick = tuple[Play, ...]
Plays = tuple[Any, int, int] | None
"""A deal's plays as a linked list, newest first: ``(earlier, seat, card)``; O(1) to extend.
(``earlier`` is a ``Plays``: spelt ``Any`` because mypyc crashes on a recursive type alias.)"""

_DECK_VALUES: Final[tuple[int, ...]] = tuple(s * 16 + r for s in range(4) for r in range(13))


def trick_winner(trick: Trick, trump: int) -> int:
    """The seat that wins a complete trick: the highest trump in it, else the highest card led.

    ``trump`` is the trump suit, ``NO_TRUMP`` for none.
    """
    best_seat, best = trick[0]
    best_suit = best >> 4
    for index in range(1, len(trick)):
        seat, card = trick[index]
        suit = card >> 4
        if suit == best_suit:
            if card > best:
                best_seat = seat
                best = card
        elif suit == trump:
            best_seat = seat
            best = card
            best_suit = suit
    return best_seat


def plays_in_order(played: Plays) -> tuple[tuple[int, Card], ...]:
    """The plays of a linked list, oldest first, as (seat, Card)."""
    out: list[tuple[int, Card]] = []
    node = played
    while node is not None:
        earlier, seat, card = node
        out.append((seat, CARD_BY_VALUE[card]))
        node = earlier
    out.reverse()
    return tuple(out)


def shuffled_prefix(rng: random.Random, count: int) -> list[int]:
    """The first ``count`` cards of a uniformly shuffled deck (partial Fisher-Yates), as ints.

    The draws (one ``rng.random()`` per card) are the seeds' deals: never change them.
    """
    deck = list(_DECK_VALUES)
    draw = rng.random
    for i in range(count):
        j = i + int(draw() * (52 - i))
        card = deck[j]
        deck[j] = deck[i]
        deck[i] = card
    return deck[:count]


def dealt_masks(cards: list[int], dealer: int, players: int, count: int) -> list[int]:
    """Each seat's hand as a bitmask when ``count`` of ``cards`` are dealt one at a time from
    dealer+1 (the i-th card goes to seat dealer+1+i)."""
    masks = [0] * players
    for offset in range(players):
        # The cards are distinct, so the sum of their bits is their union.
        masks[(dealer + 1 + offset) % players] = sum(map(_BIT.__getitem__, cards[offset:count:players]))
    return masks


_BIT: Final[tuple[int, ...]] = tuple(1 << value for value in range(64))
