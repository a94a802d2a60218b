//! Cards, sets of cards and who wins a trick.

const RANKS: &[u8; 13] = b"23456789TJQKA";
const SUITS: &[u8; 4] = b"CDHS";

/// A suit, 0..4 in the order C, D, H, S.
pub type Suit = u8;

/// A card: rank 0 (two) .. 12 (ace), and its suit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Card {
    pub rank: u8,
    pub suit: Suit,
}

impl Card {
    /// A card from its two-character form (`"TD"`, `"QS"`); None for anything else.
    pub fn parse(text: &str) -> Option<Card> {
        match text.as_bytes() {
            [r, s] => Some(Card { rank: position(RANKS, *r)?, suit: position(SUITS, *s)? }),
            _ => None,
        }
    }

    fn bit(self) -> u64 {
        1 << (self.suit as u32 * 13 + self.rank as u32)
    }
}

/// A suit from its letter (`"S"`); None for anything else.
pub fn parse_suit(text: &str) -> Option<Suit> {
    match text.as_bytes() {
        [s] => position(SUITS, *s),
        _ => None,
    }
}

fn position(letters: &[u8], letter: u8) -> Option<u8> {
    letters.iter().position(|&l| l == letter).map(|i| i as u8)
}

/// A set of cards, one bit per card.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CardSet(u64);

impl CardSet {
    /// All 52 cards.
    pub fn deck() -> CardSet {
        CardSet((1 << 52) - 1)
    }

    #[cfg(test)]
    pub fn insert(&mut self, card: Card) {
        self.0 |= card.bit();
    }

    pub fn remove(&mut self, card: Card) {
        self.0 &= !card.bit();
    }

    pub fn len(self) -> u32 {
        self.0.count_ones()
    }

    /// How many cards of `suit` the set holds.
    pub fn in_suit(self, suit: Suit) -> u32 {
        ((self.0 >> (suit as u32 * 13)) & 0x1FFF).count_ones()
    }

    /// How many cards of `card`'s suit above it the set holds.
    pub fn higher_than(self, card: Card) -> u32 {
        let suit = (self.0 >> (card.suit as u32 * 13)) & 0x1FFF;
        (suit >> (card.rank as u32 + 1)).count_ones()
    }
}

/// Whether `card` beats `best`, the card now winning a trick (of the led suit, or a trump).
pub fn beats(card: Card, best: Card, trump: Option<Suit>) -> bool {
    if card.suit == best.suit {
        card.rank > best.rank
    } else {
        Some(card.suit) == trump
    }
}

/// The seat and card now winning a trick given as `(seat, card)` in playing order (not empty).
pub fn trick_winner(trick: &[(usize, Card)], trump: Option<Suit>) -> (usize, Card) {
    let mut winner = trick[0];
    for &(seat, card) in &trick[1..] {
        if beats(card, winner.1, trump) {
            winner = (seat, card);
        }
    }
    winner
}

#[cfg(test)]
mod tests {
    use super::*;

    fn card(text: &str) -> Card {
        Card::parse(text).unwrap()
    }

    #[test]
    fn parses_two_character_cards_only() {
        assert_eq!(card("TD"), Card { rank: 8, suit: 1 });
        assert_eq!(card("2C"), Card { rank: 0, suit: 0 });
        assert_eq!(card("AS"), Card { rank: 12, suit: 3 });
        for bad in ["", "T", "1D", "TX", "td", "TDX", "pass"] {
            assert_eq!(Card::parse(bad), None, "{}", bad);
        }
    }

    #[test]
    fn the_highest_trump_or_the_highest_of_the_led_suit_wins() {
        let trick = [(0, card("5H")), (1, card("KH")), (2, card("AC")), (3, card("2S"))];
        assert_eq!(trick_winner(&trick, None), (1, card("KH")));
        assert_eq!(trick_winner(&trick, Some(3)), (3, card("2S")));
        assert_eq!(trick_winner(&trick[..3], Some(0)), (2, card("AC")));
    }

    #[test]
    fn sets_count_by_suit_and_above_a_card() {
        let mut set = CardSet::default();
        for text in ["2H", "9H", "AH", "KS"] {
            set.insert(card(text));
        }
        assert_eq!((set.len(), set.in_suit(2), set.in_suit(3), set.in_suit(0)), (4, 3, 1, 0));
        assert_eq!(set.higher_than(card("8H")), 2);
        set.remove(card("AH"));
        assert_eq!(set.higher_than(card("8H")), 1);
        assert_eq!(CardSet::deck().len(), 52);
    }
}
