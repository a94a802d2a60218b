//! The decisions: a card-counting heuristic for both games, the same as the Python greedy bot's
//! (bots/python/greedy_bot.py), as pure functions of the view and the legal actions.
//!
//! - Blackout bid: the tricks the hand should take (sure tops, guarded honours, trumps and
//!   ruffs, discounted by the chance that a rival holds a higher card or is void), the nearest
//!   legal bid (so the `hook` option is respected).
//! - Blackout play: while the bid is not made, win the trick as cheaply as is safe and lead the
//!   surest winner; once it is made, duck (the highest card that cannot win).
//! - Partnership auction: call the hand's own tricks, shaded down (the partners' calls add up);
//!   `zero` as the team's first caller with a hand of nothing above a jack and few low spades;
//!   `pass` when the team can no longer win the auction.
//! - Partnership play: duck every trick against a zero contract (ours or theirs); otherwise take
//!   all the tricks the team can, never overtaking a partner who already holds the trick.

use crate::cards::{beats, trick_winner, Card, CardSet, Suit};
use crate::json::Value;
use crate::view::{Call, View};

/// The action for one `act`: an index into `legal`, or why none could be chosen.
pub fn decide(kind: &str, view: &Value, legal: &[Value]) -> Result<usize, String> {
    if legal.is_empty() {
        return Err("the act has no legal actions".to_string());
    }
    let view = View::read(view)?;
    match kind {
        "bid" => choose_bid(&view, legal),
        "call" => choose_call(&view, legal),
        "play" => choose_play(&view, legal),
        _ => Err(format!("an act of an unknown kind {:?}", kind)),
    }
}

/// The first item with the smallest key (Python's `min`), as an index.
fn first_min<T, K: PartialOrd>(items: &[T], key: impl Fn(&T) -> K) -> Option<usize> {
    let mut best: Option<(usize, K)> = None;
    for (i, item) in items.iter().enumerate() {
        let k = key(item);
        if best.as_ref().map_or(true, |(_, b)| k < *b) {
            best = Some((i, k));
        }
    }
    best.map(|(i, _)| i)
}

/// The first item with the largest key (Python's `max`), as an index.
fn first_max<T, K: PartialOrd>(items: &[T], key: impl Fn(&T) -> K) -> Option<usize> {
    let mut best: Option<(usize, K)> = None;
    for (i, item) in items.iter().enumerate() {
        let k = key(item);
        if best.as_ref().map_or(true, |(_, b)| k > *b) {
            best = Some((i, k));
        }
    }
    best.map(|(i, _)| i)
}

/// The index of the legal number nearest to `target` (the lower one on a tie).
fn closest(target: f64, legal: &[Value]) -> Option<usize> {
    let numbers: Vec<(usize, i64)> = legal.iter().enumerate().filter_map(|(i, v)| v.as_i64().map(|n| (i, n))).collect();
    first_min(&numbers, |&(_, n)| ((n as f64 - target).abs(), n)).map(|i| numbers[i].0)
}

/// How likely a card is to win a trick one day: trumps above every side card, then by rank.
fn danger(card: Card, trump: Option<Suit>) -> i32 {
    card.rank as i32 + if Some(card.suit) == trump { 13 } else { 0 }
}

/// n choose k as a float (0 when k is out of range).
fn comb(n: i64, k: i64) -> f64 {
    if k < 0 || n < 0 || k > n {
        return 0.0;
    }
    let k = k.min(n - k);
    (0..k).fold(1.0, |acc, i| acc * (n - i) as f64 / (i + 1) as f64)
}

/// P(`hand` cards drawn from `pool` hold fewer than `below` of `have` given cards).
fn fewer_than(have: i64, pool: i64, hand: i64, below: i64) -> f64 {
    let total = comb(pool, hand);
    if total == 0.0 {
        return 0.0;
    }
    (0..below.min(have + 1)).map(|k| comb(have, k) * comb(pool - have, hand - k)).sum::<f64>() / total
}

/// Expected tricks for `hand` before any card is played. `opponents` is how many hands can beat
/// ours, each as large as ours; `share` the chance that a given unseen card is in one of them (in
/// Blackout many unseen cards are not dealt at all).
fn estimate_tricks(hand: &[Card], trump: Option<Suit>, trump_card: Option<Card>, opponents: i32,
                   share: f64, leads_first: bool) -> f64 {
    let size = hand.len() as i64;
    let turned = trump_card.is_some() as i64;
    let pool = 52 - size - turned;
    let mut by_suit: [Vec<u8>; 4] = Default::default();
    for card in hand {
        by_suit[card.suit as usize].push(card.rank);
    }
    for ranks in by_suit.iter_mut() {
        ranks.sort_unstable_by(|a, b| b.cmp(a));
    }
    let trumps = trump.map_or(0, |t| by_suit[t as usize].len() as i64);
    let trumps_out = if trump.is_some() { 13 - trumps - turned } else { 0 };
    let rival_has_trump = 1.0 - fewer_than(trumps_out, pool, size, 1);
    // Ruffing: a void side suit can take two ruffs, a singleton one; long trumps take length tricks.
    let mut ruffs = 0;
    if let (Some(t), true) = (trump, size >= 4) {
        ruffs = (0..4u8).filter(|&s| s != t).map(|s| by_suit[s as usize].len() as i64).filter(|&n| n <= 1).map(|n| 2 - n).sum();
        if size >= 6 {
            ruffs += (trumps - size / 4 - 1).max(0);
        }
    }
    let mut total = 0.0;
    for suit in 0..4u8 {
        let ranks = &by_suit[suit as usize];
        let mut known = [false; 13];
        for &r in ranks {
            known[r as usize] = true;
        }
        if let Some(card) = trump_card.filter(|c| c.suit == suit) {
            known[card.rank as usize] = true;
        }
        let rest = 13 - known.iter().filter(|&&k| k).count() as i64;
        for (position, &r) in ranks.iter().enumerate() {
            let higher = (r as usize + 1..13).filter(|&x| !known[x]).count() as i32;
            let guards = ranks.len() - position - 1;
            let clear = (1.0 - share).powi(higher); // no hand that could beat it holds a higher card
            let promoted = if guards >= higher as usize { 0.6f64.powi(higher) } else { 0.0 };
            let mut value = clear + (1.0 - clear) * promoted;
            if trump.is_some() && Some(suit) != trump {
                // Ruffed when a rival runs out of the suit before this card's round.
                let out_early = fewer_than(rest, pool, size, position as i64 + 1);
                value *= (1.0 - out_early * rival_has_trump).powi(opponents);
                if size <= 2 && !leads_first {
                    value *= if size == 1 { 0.3 } else { 0.7 }; // a side card wins only if its suit is led
                }
            } else if Some(suit) == trump && value < 0.6 && ruffs > 0 && trumps > 1 {
                value = 0.6;
                ruffs -= 1;
            }
            total += value;
        }
    }
    total.min(size as f64)
}

/// Blackout: bid the hand's estimated tricks, the nearest bid the rules allow.
fn choose_bid(view: &View, legal: &[Value]) -> Result<usize, String> {
    let players = view.players as f64;
    let size = view.hand.len() as f64;
    let pool = 52.0 - size - if view.trump_card.is_some() { 1.0 } else { 0.0 };
    let share = if pool > 0.0 { ((players - 1.0) * size / pool).min(1.0) } else { 1.0 };
    let leads_first = view.seat == (view.dealer + 1) % view.players;
    let mut estimate = estimate_tricks(&view.hand, view.trump, view.trump_card, view.players as i32 - 1,
                                       share, leads_first);
    // Low cards win late tricks once the other hands run out of a suit, the more so the larger
    // the hands and the more of the deck is dealt: an allowance measured in self-play (Python bot).
    let fair_share = size / players;
    estimate += 0.4 * (fair_share - 1.0).max(0.0) * (players * size / 52.0);
    closest(estimate.min(size), legal).ok_or_else(|| "no bid among the legal actions".to_string())
}

/// A team's call so far: what kind (None while it has not called), its number, and whether both
/// partners have called (or one's pass or zero ended the team's calling).
fn team_call(calls: &[(usize, Call)], team: &[usize]) -> (Option<Call>, i64, bool) {
    let (mut number, mut heard) = (0, 0);
    let mut kind = None;
    for &(_, call) in calls.iter().filter(|(s, _)| team.contains(s)) {
        heard += 1;
        match call {
            Call::Number(n) => {
                number = (number + n).min(12);
                kind = Some(Call::Number(number));
            }
            other => return (Some(other), 0, true),
        }
    }
    (kind, number, heard >= 2)
}

/// A hand weak enough to call zero: no card above a jack, at most three spades, none above a 9.
fn is_zero_hand(hand: &[Card]) -> bool {
    let spades: Vec<u8> = hand.iter().filter(|c| c.suit == 3).map(|c| c.rank).collect();
    hand.iter().all(|c| c.rank <= 9) && spades.len() <= 3 && spades.iter().all(|&r| r <= 7)
}

/// Partnership Blackout: call the tricks this hand should take, or zero or pass in rare cases.
fn choose_call(view: &View, legal: &[Value]) -> Result<usize, String> {
    let ours = view.team_of(view.seat).to_vec();
    let theirs: Vec<usize> = (0..view.players).filter(|s| !ours.contains(s)).collect();
    let word = |w: &str| legal.iter().position(|v| v.as_str() == Some(w));
    let estimate = estimate_tricks(&view.hand, Some(3), None, 2, 2.0 / 3.0, true);
    let mine = ((estimate + 0.2) as i64).clamp(1, 12); // shaded down: the team's two calls add up
    let (partner_kind, partner_number, _) = team_call(&view.calls, &ours);
    let (their_kind, their_number, their_final) = team_call(&view.calls, &theirs);
    let they_have_a_number = matches!(their_kind, Some(Call::Number(_)));
    if let (None, false, Some(zero), true) = (partner_kind, they_have_a_number, word("zero"), is_zero_hand(&view.hand)) {
        return Ok(zero);
    }
    if let (Some(Call::Number(_)), true, true, Some(pass)) = (partner_kind, they_have_a_number, their_final, word("pass")) {
        if (partner_number + mine).min(12) < their_number {
            return Ok(pass); // hopeless: the other team wins the auction whatever we call
        }
    }
    Ok(closest(mine as f64, legal).unwrap_or(0))
}

/// What one play decision knows of the cards out: computed once, asked per candidate card.
struct Table {
    trump: Option<Suit>,
    unseen: CardSet,
    voids: Vec<u8>,
    left: Vec<i64>,
    rivals: Vec<usize>,
}

impl Table {
    fn new(view: &View, rivals: Vec<usize>) -> Table {
        Table { trump: view.trump, unseen: view.unseen(), voids: view.known_voids(), left: view.cards_left(), rivals }
    }

    fn is_void(&self, seat: usize, suit: Suit) -> bool {
        self.voids[seat] & (1 << suit) != 0
    }

    /// P(`seat` holds at least one of `count` given unseen cards).
    fn holds_one(&self, seat: usize, count: u32) -> f64 {
        let unseen = self.unseen.len();
        if count == 0 || unseen == 0 {
            return 0.0;
        }
        1.0 - (1.0 - count as f64 / unseen as f64).powi(self.left[seat].max(0) as i32)
    }

    /// P(`seat` holds no card of `suit`).
    fn void_in(&self, seat: usize, suit: Suit) -> f64 {
        if self.is_void(seat, suit) {
            1.0
        } else {
            1.0 - self.holds_one(seat, self.unseen.in_suit(suit))
        }
    }

    /// P(a rival still to play beats `card`, supposing it wins the trick so far); `led` is the
    /// suit led (the card's own when it leads).
    fn beaten(&self, card: Card, led: Suit) -> f64 {
        let higher = self.unseen.higher_than(card);
        let trumps_out = self.trump.map_or(0, |t| self.unseen.in_suit(t));
        let mut safe = 1.0;
        for &seat in &self.rivals {
            let mut p = 0.0;
            let can_ruff = self.trump.map_or(false, |t| !self.is_void(seat, t));
            if card.suit == led {
                if !self.is_void(seat, led) {
                    p += self.holds_one(seat, higher);
                }
                if can_ruff && Some(card.suit) != self.trump {
                    p += self.void_in(seat, led) * self.holds_one(seat, trumps_out);
                }
            } else if Some(card.suit) == self.trump && can_ruff {
                // our ruff, overruffed by a seat also void in the suit led
                p += self.void_in(seat, led) * self.holds_one(seat, higher);
            }
            safe *= 1.0 - p.min(1.0);
        }
        1.0 - safe
    }

    /// `beaten`, to a tenth: a 5% risk is as good as none.
    fn risk(&self, card: Card, led: Suit) -> f64 {
        (self.beaten(card, led) * 10.0).round() / 10.0
    }
}

/// Plays to win the trick (`want_tricks`) or to lose it, helping `partner` if there is one.
fn play(view: &View, legal: &[(usize, Card)], want_tricks: bool, partner: Option<usize>) -> usize {
    let trump = view.trump;
    let later = view.seats_after();
    let table = Table::new(view, later.iter().copied().filter(|&s| Some(s) != partner).collect());
    let cheap = |&(_, c): &(usize, Card)| danger(c, trump);
    let pick = |cards: &[(usize, Card)], i: Option<usize>| cards[i.expect("a non-empty choice")].0;
    if view.trick.is_empty() {
        // Leading: our surest winner, or the card most likely to be beaten.
        return if want_tricks {
            pick(legal, first_min(legal, |&(_, c)| (table.risk(c, c.suit), danger(c, trump))))
        } else {
            pick(legal, first_max(legal, |&(_, c)| (table.risk(c, c.suit), -danger(c, trump))))
        };
    }
    let led = view.trick[0].1.suit;
    let (winner_seat, best) = trick_winner(&view.trick, trump);
    let (winners, losers): (Vec<(usize, Card)>, Vec<(usize, Card)>) = legal.iter().partition(|(_, c)| beats(*c, best, trump));
    let cheapest = |cards: &[(usize, Card)]| pick(cards, first_min(cards, cheap));
    if !want_tricks {
        // The highest card that cannot win; when every card wins, the one likeliest to be beaten.
        return if !losers.is_empty() {
            pick(&losers, first_max(&losers, cheap))
        } else if !later.is_empty() {
            pick(legal, first_max(legal, cheap))
        } else {
            cheapest(legal)
        };
    }
    let losers_or_legal = if losers.is_empty() { legal } else { &losers[..] };
    if Some(winner_seat) == partner {
        if table.risk(best, led) <= 0.2 {
            return cheapest(losers_or_legal); // the partner holds the trick: do not overtake
        }
        let sure: Vec<(usize, Card)> = winners.iter().copied().filter(|&(_, c)| table.risk(c, led) == 0.0).collect();
        return cheapest(if sure.is_empty() { losers_or_legal } else { &sure });
    }
    if !winners.is_empty() {
        return pick(&winners, first_min(&winners, |&(_, c)| (table.risk(c, led), danger(c, trump))));
    }
    cheapest(legal)
}

/// Plays a card: make the bid exactly (Blackout), or serve the contract (Partnership).
fn choose_play(view: &View, legal: &[Value]) -> Result<usize, String> {
    let cards: Vec<(usize, Card)> = legal.iter().enumerate()
        .map(|(i, v)| v.as_str().and_then(Card::parse).map(|c| (i, c)))
        .collect::<Option<_>>()
        .ok_or_else(|| "a legal play that is not a card".to_string())?;
    if view.partnership {
        if view.zero_contract {
            return Ok(play(view, &cards, false, None));
        }
        return Ok(play(view, &cards, true, view.partner()));
    }
    let bid = view.bids.iter().rev().find(|(s, _)| *s == view.seat).map_or(0, |&(_, b)| b);
    let need = bid - view.tricks_won[view.seat];
    Ok(play(view, &cards, need > 0, None))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse;

    fn blackout_view(hand: &str, trump: &str, extra: &str) -> Value {
        let cards: Vec<String> = hand.split_whitespace().map(|c| format!("\"{}\"", c)).collect();
        parse(&format!(
            r#"{{"game":"blackout","players":4,"seat":0,"dealer":3,"hand":[{}],"hand_size":{},
                "trump":"{}","trump_card":"2{}","options":{{}},"bids":[],"plays":[],"trick":[],
                "tricks_won":[0,0,0,0]{}}}"#,
            cards.join(","), cards.len(), trump, trump, extra)).unwrap()
    }

    fn legal(text: &str) -> Vec<Value> {
        parse(text).unwrap().as_array().to_vec()
    }

    #[test]
    fn bids_high_with_tops_and_low_with_nothing() {
        let numbers = legal("[0,1,2,3,4,5]");
        let strong = blackout_view("AS KS QS AH AD", "S", "");
        assert!(decide("bid", &strong, &numbers).unwrap() >= 4);
        let weak = blackout_view("2C 3D 4H 5C 3H", "S", "");
        assert_eq!(decide("bid", &weak, &numbers).unwrap(), 0);
    }

    #[test]
    fn a_hooked_bid_takes_the_nearest_legal_number() {
        let weak = blackout_view("2C 3D 4H 5C 3H", "S", "");
        let without_zero = legal("[1,2,3,4,5]");
        assert_eq!(decide("bid", &weak, &without_zero).unwrap(), 0); // index of bid 1
    }

    #[test]
    fn wins_a_trick_it_needs_cheaply_and_ducks_once_the_bid_is_made() {
        let trick = r#"[[1,"9H"],[2,"4H"],[3,"5H"]]"#;
        let extra = format!(r#","bids":[[0,1],[1,0],[2,0],[3,0]],"trick":{},"plays":{}"#, trick, trick);
        let cards = legal(r#"["TH","AH","3H"]"#);
        let need = blackout_view("TH AH 3H", "C", &extra);
        assert_eq!(decide("play", &need, &cards).unwrap(), 0, "wins with the cheapest winner");
        // A repeated field counts once, the last time: here the tricks already won.
        let made = blackout_view("TH AH 3H", "C", &(extra + r#","tricks_won":[1,0,0,0]"#));
        assert_eq!(decide("play", &made, &cards).unwrap(), 2, "ducks with the 3");
    }

    #[test]
    fn does_not_overtake_a_partner_holding_the_trick() {
        let view = parse(r#"{"game":"partnership-blackout","players":4,"seat":0,"dealer":3,
            "teams":[[0,2],[1,3]],"hand":["KD","4D","2C"],"trump":"S","trump_card":null,
            "calls":[[0,4],[1,3],[2,3],[3,4]],"contract":{"team":0,"kind":"number","tricks":7},
            "plays":[[1,"5D"],[2,"AD"],[3,"3D"]],"trick":[[1,"5D"],[2,"AD"],[3,"3D"]],
            "tricks_won":[0,0,0,0]}"#).unwrap();
        assert_eq!(decide("play", &view, &legal(r#"["KD","4D"]"#)).unwrap(), 1);
    }

    #[test]
    fn calls_zero_with_a_hand_of_nothing_and_a_number_otherwise() {
        let view = |hand: &str, calls: &str| parse(&format!(
            r#"{{"game":"partnership-blackout","players":4,"seat":0,"dealer":3,
            "teams":[[0,2],[1,3]],"hand":{},"trump":"S","trump_card":null,"calls":{},
            "contract":null,"plays":[],"trick":[],"tricks_won":[0,0,0,0]}}"#, hand, calls)).unwrap();
        let calls = legal(r#"[1,2,3,4,5,6,7,8,9,10,11,12,"pass","zero"]"#);
        let nothing = r#"["2C","3C","4C","5D","6D","7D","8H","9H","TH","JC","2S","3S","4S"]"#;
        assert_eq!(calls[decide("call", &view(nothing, "[]"), &calls).unwrap()].as_str(), Some("zero"));
        let strong = r#"["AS","KS","QS","JS","TS","AH","KH","AD","KD","AC","KC","2H","3D"]"#;
        let call = calls[decide("call", &view(strong, "[]"), &calls).unwrap()].as_i64().unwrap();
        assert!(call >= 8, "called {}", call);
    }

    #[test]
    fn passes_when_the_other_team_has_outbid_it_for_good() {
        let view = parse(r#"{"game":"partnership-blackout","players":4,"seat":2,"dealer":3,
            "teams":[[0,2],[1,3]],"trump":"S","trump_card":null,"calls":[[0,1],[1,6],[3,6]],
            "hand":["2C","3C","4C","5D","6D","7D","8H","9H","TH","JC","KS","3S","4S"],
            "contract":null,"plays":[],"trick":[],"tricks_won":[0,0,0,0]}"#).unwrap();
        let calls = legal(r#"[1,2,3,4,5,6,7,8,9,10,11,12,"pass","zero"]"#);
        assert_eq!(calls[decide("call", &view, &calls).unwrap()].as_str(), Some("pass"));
    }

    #[test]
    fn an_unreadable_view_is_an_error_not_a_panic() {
        let cards = legal(r#"["TH"]"#);
        assert!(decide("play", &parse("{}").unwrap(), &cards).is_err());
        assert!(decide("play", &blackout_view("TH", "S", ""), &legal("[3]")).is_err());
        assert!(decide("bid", &blackout_view("TH", "S", ""), &[]).is_err());
    }
}
