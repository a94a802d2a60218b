"""Cards parse from and print to their two-character names."""

import pytest

from engine.cards import DECK, Card, cards_of, mask_of
from engine.errors import InvalidActionError


def test_every_card_round_trips_through_its_name() -> None:
    assert len(DECK) == 52 and len(set(DECK)) == 52
    for card in DECK:
        assert Card.parse(str(card)) is card
        assert str(card) == "23456789TJQKA"[card.rank] + "CDHS"[card.suit]


@pytest.mark.parametrize("text", ["1C", "TX", "10D", "", "qs", None, 12])
def test_bad_card_names_are_invalid(text: object) -> None:
    with pytest.raises(InvalidActionError):
        Card.parse(text)


def test_masks_round_trip() -> None:
    hand = (Card.parse("2C"), Card.parse("TD"), Card.parse("QH"), Card.parse("AS"))
    assert cards_of(mask_of(hand)) == hand
    assert cards_of(mask_of(DECK)) == DECK
