"""Greedy starter bot: a simple card-counting heuristic for Blackout and Partnership Blackout.

It keeps no state between messages: every decision is a pure function of the `act` message's
`view` and `legal` list (`choose_bid`, `choose_call`, `choose_play`, dispatched by `decide`), so
each can be unit-tested on a hand-made view. The only thing read outside `act` is `hello`/`quit`.

- Blackout bid: an estimate of the tricks the hand takes (tops and guarded honours in each suit,
  trumps, ruffing chances, discounted by how likely the opponents hold higher cards or are void),
  rounded to the nearest legal bid (so the hook option is respected).
- Blackout play: while it still needs tricks, win the current trick as cheaply as is safe and lead
  its most certain winner; once the bid is made, duck: play the highest card that cannot win the
  trick (or the lowest card when every card wins), lead the card most likely to be beaten.
- Partnership auction: call its own estimated tricks (shaded down, the team's two calls add up);
  "zero" only as the team's first caller with a hand of nothing above a jack and at most three
  low spades;
  "pass" when the team cannot win the auction any more.
- Partnership play: against a zero contract (ours or theirs), duck every trick; otherwise take as
  many tricks as the team can, never overtaking a partner whose card already holds the trick.

Run: python3 bots/python/greedy_bot.py   (standard library only; see bots/python/README.md)

`--noise P` weakens it on purpose: each decision is a uniformly random legal action with
probability P (drawn from a generator seeded by `game_start.seed`, so a game replays), the greedy
choice otherwise. It gives a copy of known, adjustable weakness to test matches against.
"""

import json
import random
import sys
from math import comb

NAME = "greedy-py"
RANKS = "23456789TJQKA"
SUITS = "CDHS"
RANK = {r: i for i, r in enumerate(RANKS)}
DECK = tuple(r + s for s in SUITS for r in RANKS)


# --- cards and tricks ---------------------------------------------------------------------------


def rank(card: str) -> int:
    """The rank index of a card, 0 (two) .. 12 (ace)."""
    return RANK[card[0]]


def danger(card: str, trump: str | None) -> int:
    """How likely a card is to win a trick one day: trumps above every side card, then by rank."""
    return RANK[card[0]] + (13 if card[1] == trump else 0)


def beats(card: str, best: str, trump: str | None) -> bool:
    """Whether `card` beats `best`, the card now winning a trick (led suit or trump)."""
    if card[1] == best[1]:
        return RANK[card[0]] > RANK[best[0]]
    return card[1] == trump


def trick_winner(trick: list, trump: str | None) -> tuple[int, str]:
    """The (seat, card) now winning a non-empty trick given as [[seat, card], ...]."""
    seat, best = trick[0]
    for other_seat, card in trick[1:]:
        if beats(card, best, trump):
            seat, best = other_seat, card
    return seat, best


def deal_plays(view: dict) -> list:
    """Every [seat, card] played this deal in order, the current trick included."""
    plays = list(view.get("plays") or ())
    trick = list(view.get("trick") or ())
    if trick and plays[-len(trick) :] != trick:
        plays += trick
    return plays


def unseen_cards(view: dict) -> set[str]:
    """Cards this seat has not seen: not in its hand, not played this deal, not the turned card."""
    seen = set(view["hand"])
    seen.update(card for _, card in deal_plays(view))
    if view.get("trump_card"):
        seen.add(view["trump_card"])
    return set(DECK) - seen


def known_voids(view: dict) -> dict[int, set[str]]:
    """Suits each seat has shown out of this deal (it did not follow the suit led)."""
    players = view["players"]
    trump = view.get("trump")
    must_trump = (view.get("options") or {}).get("must_trump") is True
    plays = deal_plays(view)
    voids: dict[int, set[str]] = {seat: set() for seat in range(players)}
    for start in range(0, len(plays), players):
        trick = plays[start : start + players]
        led = trick[0][1][1]
        for seat, card in trick[1:]:
            if card[1] != led:
                voids[seat].add(led)
                if must_trump and trump and card[1] != trump:
                    voids[seat].add(trump)
    return voids


def cards_left(view: dict) -> dict[int, int]:
    """How many cards each seat still holds."""
    size = view.get("hand_size") or 13
    left = dict.fromkeys(range(view["players"]), size)
    for seat, _ in deal_plays(view):
        left[seat] -= 1
    return left


def seats_after(view: dict) -> list[int]:
    """The seats still to play to the current trick after this seat."""
    players, seat = view["players"], view["seat"]
    later = players - len(view.get("trick") or ()) - 1
    return [(seat + i) % players for i in range(1, later + 1)]


class Table:
    """What one decision knows about the cards out: computed once, asked per candidate card."""

    def __init__(self, view: dict, rivals: list[int]) -> None:
        self.trump = view.get("trump")
        self.unseen = unseen_cards(view)
        self.voids = known_voids(view)
        self.left = cards_left(view)
        self.rivals = rivals
        self.suit_out = {s: sum(1 for c in self.unseen if c[1] == s) for s in SUITS}

    def _holds_one(self, seat: int, count: int) -> float:
        """P(`seat` holds at least one of `count` given unseen cards)."""
        if count <= 0 or not self.unseen:
            return 0.0
        return 1 - (1 - count / len(self.unseen)) ** self.left[seat]

    def _void_in(self, seat: int, suit: str) -> float:
        """P(`seat` holds no card of `suit`)."""
        if suit in self.voids[seat]:
            return 1.0
        return 1 - self._holds_one(seat, self.suit_out[suit])

    def beaten(self, card: str, led: str) -> float:
        """P(a rival still to play beats `card`, supposing it wins the trick so far).

        `led` is the suit led (the card's own suit when it leads).
        """
        trump, suit = self.trump, card[1]
        higher = sum(1 for c in self.unseen if c[1] == suit and RANK[c[0]] > RANK[card[0]])
        trumps_out = self.suit_out[trump] if trump else 0
        safe = 1.0
        for seat in self.rivals:
            p = 0.0
            can_ruff = trump is not None and trump not in self.voids[seat]
            if suit == led:
                if led not in self.voids[seat]:
                    p += self._holds_one(seat, higher)
                if can_ruff and suit != trump:
                    p += self._void_in(seat, led) * self._holds_one(seat, trumps_out)
            elif suit == trump and can_ruff:  # our ruff, overruffed by a seat also void in led
                p += self._void_in(seat, led) * self._holds_one(seat, higher)
            safe *= 1 - min(1.0, p)
        return 1 - safe


# --- hand evaluation ----------------------------------------------------------------------------


def _fewer_than(have: int, pool: int, hand: int, below: int) -> float:
    """P(`hand` cards drawn from `pool` hold fewer than `below` of `have` given cards)."""
    total = comb(pool, hand)
    if total == 0:
        return 0.0
    hits = range(min(below, have + 1))
    return sum(comb(have, k) * comb(pool - have, hand - k) for k in hits) / total


def estimate_tricks(hand: list, trump: str | None, trump_card: str | None, opponents: int,
                    opponent_share: float, leads_first: bool = True) -> float:
    """Expected tricks for `hand` before any card is played.

    `opponents` is how many hands can beat ours, each as large as ours; `opponent_share` the chance
    that a given unseen card sits in one of them (in Blackout many unseen cards are not dealt).
    """
    size = len(hand)
    pool = 52 - size - (1 if trump_card else 0)
    by_suit = {s: sorted((rank(c) for c in hand if c[1] == s), reverse=True) for s in SUITS}
    trumps = len(by_suit[trump]) if trump else 0
    trumps_out = 13 - trumps - (1 if trump_card else 0) if trump else 0
    opp_has_trump = 1 - _fewer_than(trumps_out, pool, size, 1)
    # Ruffing: a void side suit can take two ruffs, a singleton one; long trumps take length tricks.
    ruffs = 0
    if trump and size >= 4:
        short = [len(by_suit[s]) for s in SUITS if s != trump and len(by_suit[s]) <= 1]
        ruffs = sum(2 - length for length in short)
        if size >= 6:
            ruffs += max(0, trumps - size // 4 - 1)
    total = 0.0
    for suit, ranks in by_suit.items():
        known = set(ranks)
        if trump_card and trump_card[1] == suit:
            known.add(rank(trump_card))
        rest = 13 - len(known)
        for position, r in enumerate(ranks):
            higher = sum(1 for x in range(r + 1, 13) if x not in known)
            guards = len(ranks) - position - 1
            clear = (1 - opponent_share) ** higher  # no hand that can beat it holds a higher card
            promoted = 0.6**higher if guards >= higher else 0.0
            value = clear + (1 - clear) * promoted
            if trump and suit != trump:
                # Ruffed when an opponent runs out of the suit before this card's round.
                out_early = _fewer_than(rest, pool, size, position + 1)
                value *= (1 - out_early * opp_has_trump) ** opponents
                if size <= 2 and not leads_first:
                    value *= 0.3 if size == 1 else 0.7  # a side card only wins if its suit is led
            elif suit == trump and value < 0.6 and ruffs > 0 and trumps > 1:
                value, ruffs = 0.6, ruffs - 1
            total += value
    return min(total, float(size))


def closest(target: float, options: list) -> object:
    """The option nearest to `target` (the lower one on a tie)."""
    return min(options, key=lambda x: (abs(x - target), x))


# --- decisions ----------------------------------------------------------------------------------


def choose_bid(view: dict, legal: list) -> int:
    """Blackout: bid the hand's estimated tricks, the nearest bid the rules allow."""
    players = view["players"]
    size = len(view["hand"])
    pool = 52 - size - (1 if view.get("trump_card") else 0)
    share = min(1.0, (players - 1) * size / pool) if pool else 1.0
    leads_first = view["seat"] == (view["dealer"] + 1) % players
    estimate = estimate_tricks(view["hand"], view.get("trump"), view.get("trump_card"),
                               players - 1, share, leads_first)
    # Low cards win late tricks once the other hands run out of a suit, the more so the larger the
    # hands and the more of the deck is dealt: an allowance measured in self-play.
    fair_share = size / players
    estimate += 0.4 * max(0.0, fair_share - 1) * (players * size / 52)
    return closest(min(estimate, size), legal)


def team_call(calls: list, seats: list) -> tuple[str | None, int, bool]:
    """A team's call so far: (None | "number" | "pass" | "zero", its number, is it final)."""
    state, number, heard = None, 0, 0
    for seat, call in calls:
        if seat not in seats:
            continue
        heard += 1
        if call in ("pass", "zero"):
            return call, 0, True
        state, number = "number", min(12, number + call)
    return state, number, heard >= 2


def choose_call(view: dict, legal: list) -> object:
    """Partnership Blackout: call the tricks this hand should take, or zero/pass in rare cases."""
    seat, hand = view["seat"], view["hand"]
    ours = next(team for team in view["teams"] if seat in team)
    theirs = next(team for team in view["teams"] if seat not in team)
    calls = view.get("calls") or []
    estimate = estimate_tricks(hand, "S", None, 2, 2 / 3)
    numbers = [c for c in legal if isinstance(c, int)]
    partner_kind, partner_number, _ = team_call(calls, ours)
    their_kind, their_number, their_final = team_call(calls, theirs)
    mine = max(1, min(12, int(estimate + 0.2)))  # shaded down: the team's two calls add up
    if partner_kind is None and their_kind != "number" and "zero" in legal and is_nil_hand(hand):
        return "zero"
    if (partner_kind == "number" and their_kind == "number" and their_final and "pass" in legal
            and min(12, partner_number + mine) < their_number):
        return "pass"  # hopeless: the other team wins the auction whatever we call
    if numbers:
        return closest(mine, numbers)
    return legal[0]


def is_nil_hand(hand: list) -> bool:
    """A hand weak enough to call zero: no card above a jack, at most three spades, none above 9."""
    spades = [rank(c) for c in hand if c[1] == "S"]
    return (all(rank(c) <= RANK["J"] for c in hand) and len(spades) <= 3
            and all(r <= RANK["9"] for r in spades))


def _play(legal: list, view: dict, want_tricks: bool, partner: int | None = None) -> str:
    """Play to win the trick (want_tricks) or to lose it, cooperating with `partner` if given."""
    trump = view.get("trump")
    trick = view.get("trick") or []
    later = seats_after(view)
    table = Table(view, [s for s in later if s != partner])

    def cheap(card: str) -> int:
        return danger(card, trump)

    def risk(card: str, led: str) -> float:
        return round(table.beaten(card, led), 1)  # a 5% risk is as good as none

    if not trick:  # leading: our surest winner, or the card most likely to be beaten
        if want_tricks:
            return min(legal, key=lambda c: (risk(c, c[1]), cheap(c)))
        return max(legal, key=lambda c: (risk(c, c[1]), -cheap(c)))
    led = trick[0][1][1]
    winner_seat, best = trick_winner(trick, trump)
    winners = [c for c in legal if beats(c, best, trump)]
    losers = [c for c in legal if not beats(c, best, trump)]
    if not want_tricks:  # the highest card that cannot win; if all win, the one likeliest beaten
        if losers:
            return max(losers, key=cheap)
        return max(legal, key=cheap) if not later else min(legal, key=cheap)
    if winner_seat == partner:
        if risk(best, led) <= 0.2:
            return min(losers or legal, key=cheap)  # the partner holds the trick: do not overtake
        sure = [c for c in winners if risk(c, led) == 0]
        return min(sure or losers or legal, key=cheap)
    if winners:
        return min(winners, key=lambda c: (risk(c, led), cheap(c)))
    return min(legal, key=cheap)


def choose_play(view: dict, legal: list) -> str:
    """Play a card: make the bid exactly (Blackout) or serve the contract (Partnership)."""
    seat = view["seat"]
    if view.get("game") == "partnership-blackout":
        contract = view.get("contract") or {}
        if contract.get("kind") == "zero":
            return _play(legal, view, want_tricks=False)
        partner = next(s for team in view["teams"] if seat in team for s in team if s != seat)
        return _play(legal, view, want_tricks=True, partner=partner)
    bid = next((b for s, b in reversed(view.get("bids") or []) if s == seat), 0)
    need = bid - view["tricks_won"][seat]
    return _play(legal, view, want_tricks=need > 0)


def decide(kind: str, view: dict, legal: list) -> object:
    """The action for one `act` message; always an element of `legal`."""
    if kind == "bid":
        action = choose_bid(view, legal)
    elif kind == "call":
        action = choose_call(view, legal)
    elif kind == "play":
        action = choose_play(view, legal)
    else:
        action = legal[0]
    return action if action in legal else legal[0]


# --- the message loop ---------------------------------------------------------------------------


def parse_noise(argv: list) -> float:
    """The `--noise P` of the command line (0 without it); exits with a message when malformed."""
    if not argv:
        return 0.0
    if len(argv) == 2 and argv[0] == "--noise":
        try:
            noise = float(argv[1])
        except ValueError:
            noise = -1.0
        if 0.0 <= noise <= 1.0:
            return noise
    sys.exit(f"usage: greedy_bot.py [--noise P]  (P from 0 to 1), got {' '.join(argv)}")


def main() -> None:
    """Read one JSON message per line; reply to `hello` and `act`; stop on `quit` or EOF."""
    noise = parse_noise(sys.argv[1:])
    rng = random.Random(0)
    read = sys.stdin.readline
    write = sys.stdout.write
    flush = sys.stdout.flush
    while True:
        line = read()
        if not line:
            return
        if not line.strip():
            continue
        message = json.loads(line)
        kind = message.get("type")
        if kind == "act":
            legal = message["legal"]
            if noise and rng.random() < noise:
                write(json.dumps({"id": message["id"], "action": rng.choice(legal)}) + "\n")
                flush()
                continue
            try:
                action = decide(message.get("kind", ""), message.get("view") or {}, legal)
            except Exception as error:  # a bug here must not cost the game: log it, play safe
                print(f"greedy: {type(error).__name__}: {error}; playing {legal[0]!r}",
                      file=sys.stderr, flush=True)
                action = legal[0]
            write(json.dumps({"id": message["id"], "action": action}) + "\n")
            flush()
        elif kind == "hello":
            write(json.dumps({"id": message["id"], "name": NAME, "protocol": 1}) + "\n")
            flush()
        elif kind == "game_start":
            rng.seed(message.get("seed", 0))
        elif kind == "quit":
            return


if __name__ == "__main__":
    main()
