"""Chance steps: the first dealer and each deal's hands and turned card, drawn or given.

A game draws its chance steps from its seed. A ``Preset`` gives some of them instead: the first
dealer, and the hands (and turned card) of the first deals. Deals after the preset ones are drawn
as the seed would draw them, so a preset changes only what it names. A preset game's record
carries the preset, which is what its replay needs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.cards import Card
from engine.errors import InvalidActionError, PresetError

CardsLike = str | Sequence[str | Card]
"""A hand as card names (``"AS KS 2C"`` or ``["AS", "KS", "2C"]``) or cards."""


@dataclass(frozen=True)
class PresetDeal:
    """One deal given instead of shuffled: every seat's hand, and the turned card (None: none)."""

    hands: tuple[tuple[Card, ...], ...]
    trump_card: Card | None = None

    @classmethod
    def parse(cls, hands: Sequence[CardsLike], trump_card: str | Card | None = None) -> PresetDeal:
        """A deal from card names; PresetError naming the first name that is not a card."""
        parsed = tuple(tuple(sorted(_cards(hand, f"hands[{seat}]"))) for seat, hand in enumerate(hands))
        turned = None if trump_card is None else _card(trump_card, "trump_card")
        return cls(parsed, turned)

    def to_json(self) -> dict[str, Any]:
        """The record's form: ``{"hands": [["2C", ...], ...], "trump_card": "TD" | None}``."""
        return {"hands": [[str(c) for c in hand] for hand in self.hands],
                "trump_card": None if self.trump_card is None else str(self.trump_card)}


@dataclass(frozen=True)
class Preset:
    """Chance steps given instead of drawn: the first dealer (None: drawn) and the first deals."""

    dealer: int | None = None
    deals: tuple[PresetDeal, ...] = ()

    @classmethod
    def parse(cls, raw: Mapping[str, Any]) -> Preset:
        """A preset from its JSON form (``to_json``); PresetError when it is malformed."""
        if not isinstance(raw, Mapping):
            raise PresetError(f"preset: expected a mapping, got {raw!r}")
        unknown = sorted(set(raw) - {"dealer", "deals"})
        if unknown:
            raise PresetError(f"preset: unknown key {unknown[0]!r} (keys: dealer, deals)")
        dealer = raw.get("dealer")
        if dealer is not None and (isinstance(dealer, bool) or not isinstance(dealer, int)):
            raise PresetError(f"preset: dealer: expected a seat number, got {dealer!r}")
        deals = []
        for index, deal in enumerate(raw.get("deals") or ()):
            if not isinstance(deal, Mapping) or not isinstance(deal.get("hands"), list):
                raise PresetError(f"preset: deals[{index}]: expected {{hands: [...], trump_card: ...}}")
            try:
                deals.append(PresetDeal.parse(deal["hands"], deal.get("trump_card")))
            except PresetError as error:
                raise PresetError(f"preset: deals[{index}].{error}") from None
        return cls(dealer, tuple(deals))

    def to_json(self) -> dict[str, Any]:
        """The record's form of the preset (what ``parse`` reads back)."""
        return {"dealer": self.dealer, "deals": [deal.to_json() for deal in self.deals]}


def check_dealer(preset: Preset, players: int) -> None:
    """PresetError unless the preset's dealer (if any) is a seat of a ``players``-seat game."""
    if preset.dealer is not None and not 0 <= preset.dealer < players:
        raise PresetError(f"preset: dealer {preset.dealer} is not a seat (0..{players - 1})")


def check_deal(deal: PresetDeal, number: int, players: int, size: int, turns: bool) -> None:
    """PresetError unless ``deal`` is one the rules could deal as deal ``number``.

    ``size`` is the hand size of that deal and ``turns`` whether the rules turn a card in it.
    """
    where = f"preset deal {number}"
    if len(deal.hands) != players:
        raise PresetError(f"{where}: {len(deal.hands)} hands for {players} seats")
    for seat, hand in enumerate(deal.hands):
        if len(hand) != size:
            raise PresetError(f"{where}: seat {seat} holds {len(hand)} cards, the deal gives {size}")
    if turns and deal.trump_card is None:
        raise PresetError(f"{where}: the rules turn a card in this deal: give its trump_card")
    if not turns and deal.trump_card is not None:
        raise PresetError(f"{where}: the rules turn no card in this deal, "
                          f"yet trump_card is {deal.trump_card}")
    seen: set[Card] = set()
    cards = [card for hand in deal.hands for card in hand]
    for card in cards + ([deal.trump_card] if deal.trump_card is not None else []):
        if card in seen:
            raise PresetError(f"{where}: {card} is dealt twice")
        seen.add(card)


def _cards(hand: CardsLike, where: str) -> list[Card]:
    words = hand.split() if isinstance(hand, str) else hand
    return [_card(word, where) for word in words]


def _card(word: str | Card, where: str) -> Card:
    if type(word) is Card:
        return word
    try:
        return Card.parse(word)
    except InvalidActionError as error:
        raise PresetError(f"{where}: {error}") from None
