"""Trick-taking rules shared by both games: following suit and who wins a trick.

Cards are ``engine.cards.Card`` (ints ``suit * 16 + rank``), so ``card >> 4`` is the suit and, within
one suit, a larger card is a higher one.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from engine.cards import DECK, Card

SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")

Play = tuple[int, Card]  # (seat, card)


def trick_winner(trick: Sequence[Play], trump: int | None) -> int:
    """The seat that wins a complete trick: the highest trump in it, else the highest card led."""
    best_seat, best = trick[0]
    best_suit = best >> 4
    for seat, card in trick[1:]:
        suit = card >> 4
        if suit == best_suit:
            if card > best:
                best_seat, best = seat, card
        elif suit == trump:
            best_seat, best, best_suit = seat, card, suit
    return best_seat


Plays = tuple[Any, int, Card] | None
"""A deal's plays as a linked list, newest first: ``(earlier, seat, card)``; O(1) to extend."""


def plays_in_order(played: Plays) -> tuple[Play, ...]:
    """The plays of a linked list, oldest first."""
    out = []
    node = played
    while node is not None:
        node, seat, card = node
        out.append((seat, card))
    return tuple(reversed(out))


def shuffled_prefix(rng: random.Random, count: int) -> list[Card]:
    """The first ``count`` cards of a uniformly shuffled deck (partial Fisher-Yates)."""
    deck = list(DECK)
    draw = rng.random
    for i in range(count):
        j = i + int(draw() * (52 - i))
        deck[i], deck[j] = deck[j], deck[i]
    return deck[:count]
