//! The `view` of an `act` message, read into types (docs/protocol.md, "The view").

use crate::cards::{parse_suit, Card, CardSet, Suit};
use crate::json::Value;

/// A call of the Partnership auction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Call {
    Number(i64),
    Pass,
    Zero,
}

impl Call {
    /// A call as the protocol writes it: an integer, `"pass"` or `"zero"`.
    pub fn read(value: &Value) -> Option<Call> {
        match value.as_str() {
            Some("pass") => Some(Call::Pass),
            Some("zero") => Some(Call::Zero),
            Some(_) => None,
            None => value.as_i64().map(Call::Number),
        }
    }
}

/// What one seat knows when it is asked to act, in either game.
#[derive(Clone, Debug)]
pub struct View {
    pub partnership: bool,
    pub players: usize,
    pub seat: usize,
    pub dealer: usize,
    pub hand: Vec<Card>,
    /// Cards dealt to each player this deal.
    pub hand_size: usize,
    pub trump: Option<Suit>,
    pub trump_card: Option<Card>,
    pub must_trump: bool,
    /// Blackout's bids so far, `(seat, bid)`.
    pub bids: Vec<(usize, i64)>,
    /// Partnership's calls so far, `(seat, call)`.
    pub calls: Vec<(usize, Call)>,
    /// Partnership: whether the contract (once the auction is over) is a zero.
    pub zero_contract: bool,
    /// Every card played this deal, the current trick included.
    pub plays: Vec<(usize, Card)>,
    pub trick: Vec<(usize, Card)>,
    pub tricks_won: Vec<i64>,
    pub teams: Vec<Vec<usize>>,
}

fn seat(value: &Value, players: usize, what: &str) -> Result<usize, String> {
    match value.as_i64() {
        Some(n) if n >= 0 && (n as usize) < players => Ok(n as usize),
        _ => Err(format!("the view's {} is not a seat", what)),
    }
}

fn card(value: &Value, what: &str) -> Result<Card, String> {
    value.as_str().and_then(Card::parse).ok_or_else(|| format!("the view's {} holds a non-card", what))
}

fn seat_cards(value: &Value, players: usize, what: &str) -> Result<Vec<(usize, Card)>, String> {
    value.as_array().iter().map(|pair| {
        let pair = pair.as_array();
        if pair.len() != 2 {
            return Err(format!("the view's {} is not a list of [seat, card]", what));
        }
        Ok((seat(&pair[0], players, what)?, card(&pair[1], what)?))
    }).collect()
}

impl View {
    /// Reads the view; an error says which field could not be read.
    pub fn read(view: &Value) -> Result<View, String> {
        let players = match view.get("players").as_i64() {
            Some(n) if (2..=52).contains(&n) => n as usize,
            _ => return Err("the view has no number of players".to_string()),
        };
        let hand: Vec<Card> = view.get("hand").as_array().iter().map(|c| card(c, "hand")).collect::<Result<_, _>>()?;
        let plays = seat_cards(view.get("plays"), players, "plays")?;
        let trick = seat_cards(view.get("trick"), players, "trick")?;
        let mut bids = Vec::new();
        let mut calls = Vec::new();
        for pair in view.get("bids").as_array() {
            let pair = pair.as_array();
            match (pair.first().map(|s| seat(s, players, "bids")), pair.get(1).and_then(Value::as_i64)) {
                (Some(Ok(s)), Some(bid)) => bids.push((s, bid)),
                _ => return Err("the view's bids are not a list of [seat, bid]".to_string()),
            }
        }
        for pair in view.get("calls").as_array() {
            let pair = pair.as_array();
            match (pair.first().map(|s| seat(s, players, "calls")), pair.get(1).and_then(Call::read)) {
                (Some(Ok(s)), Some(call)) => calls.push((s, call)),
                _ => return Err("the view's calls are not a list of [seat, call]".to_string()),
            }
        }
        let teams = view.get("teams").as_array().iter()
            .map(|team| team.as_array().iter().map(|s| seat(s, players, "teams")).collect())
            .collect::<Result<Vec<Vec<usize>>, String>>()?;
        let mut tricks_won: Vec<i64> = view.get("tricks_won").as_array().iter().map(|n| n.as_i64().unwrap_or(0)).collect();
        tricks_won.resize(players, 0);
        let played = plays.len().max(trick.len());
        let hand_size = match view.get("hand_size").as_i64() {
            Some(n) if n > 0 => n as usize,
            // Partnership deals are always 13 cards; otherwise what is held plus what was played.
            _ if view.get("game").as_str() == Some("partnership-blackout") => 13,
            _ => hand.len() + played / players,
        };
        Ok(View {
            partnership: view.get("game").as_str() == Some("partnership-blackout"),
            players,
            seat: seat(view.get("seat"), players, "seat")?,
            dealer: seat(view.get("dealer"), players, "dealer").unwrap_or(0),
            hand,
            hand_size,
            trump: view.get("trump").as_str().and_then(parse_suit),
            trump_card: view.get("trump_card").as_str().and_then(Card::parse),
            must_trump: view.get("options").get("must_trump").is_true(),
            bids,
            calls,
            zero_contract: view.get("contract").get("kind").as_str() == Some("zero"),
            plays,
            trick,
            tricks_won,
            teams,
        })
    }

    /// Every card played this deal in order, the current trick included (added when `plays`
    /// does not already end with it).
    pub fn deal_plays(&self) -> Vec<(usize, Card)> {
        let mut plays = self.plays.clone();
        if !self.trick.is_empty() && !plays.ends_with(&self.trick) {
            plays.extend_from_slice(&self.trick);
        }
        plays
    }

    /// The cards this seat has not seen: not in its hand, not played this deal, not turned.
    pub fn unseen(&self) -> CardSet {
        let mut unseen = CardSet::deck();
        for &card in &self.hand {
            unseen.remove(card);
        }
        for (_, card) in self.deal_plays() {
            unseen.remove(card);
        }
        if let Some(card) = self.trump_card {
            unseen.remove(card);
        }
        unseen
    }

    /// The suits each seat has shown out of this deal (one bit per suit), from tricks in which
    /// it did not follow the suit led.
    pub fn known_voids(&self) -> Vec<u8> {
        let mut voids = vec![0u8; self.players];
        for trick in self.deal_plays().chunks(self.players) {
            let led = trick[0].1.suit;
            for &(seat, card) in &trick[1..] {
                if card.suit != led {
                    voids[seat] |= 1 << led;
                    if let (true, Some(trump)) = (self.must_trump, self.trump) {
                        if card.suit != trump {
                            voids[seat] |= 1 << trump;
                        }
                    }
                }
            }
        }
        voids
    }

    /// How many cards each seat still holds.
    pub fn cards_left(&self) -> Vec<i64> {
        let mut left = vec![self.hand_size as i64; self.players];
        for (seat, _) in self.deal_plays() {
            left[seat] -= 1;
        }
        left
    }

    /// The seats still to play to the current trick after this one.
    pub fn seats_after(&self) -> Vec<usize> {
        let later = self.players.saturating_sub(self.trick.len() + 1);
        (1..=later).map(|i| (self.seat + i) % self.players).collect()
    }

    /// The team holding `seat` (empty when the view has no teams).
    pub fn team_of(&self, seat: usize) -> &[usize] {
        self.teams.iter().find(|team| team.contains(&seat)).map_or(&[], |team| team)
    }

    /// This seat's partner, in a game with teams of two.
    pub fn partner(&self) -> Option<usize> {
        self.team_of(self.seat).iter().copied().find(|&s| s != self.seat)
    }
}
