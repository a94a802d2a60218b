"""Determinized sampling and greedy play-outs: how a seat's unseen cards are guessed and a deal is
played out from one decision, shared by the search bot and the arena's evaluator.

A ``Position`` is one decision as a seat's view shows it (``view(state, seat)``: never another
seat's hand). ``draw_sample`` deals the cards the seat cannot see, consistent with the view (its
hand, the cards played, the turned card, the suits each seat has shown out of), weighing a few
such deals by how well each seat's bid fits the hand the deal gives it (``strategy.bidding``, the
greedy bot's bidding). ``Playouts.scores`` plays one action in a sampled deal and the rest of the
deal with a fast copy of the greedy bot's play (``Rollout``) on the engine's own rules, and gives
the deal's scores. Everything is seeded by the ``random.Random`` handed in; nothing reads a clock.
The search bot (bots/python/search_bot.py) and ``arena.analysis`` both import this module: the
first adds its time budget, the second its statistics.
"""

from __future__ import annotations

import math
import random
from typing import Any

from engine.cards import CARD_BY_NAME, NAME_OF, SPADES, SUITS
from engine.chance import Preset, PresetDeal
from engine.game import Game
from engine.wire import actions_to_json
from strategy import bidding

OVERSAMPLE = 3
"""Deals drawn per sample kept: the kept one is drawn from these by their bid weights."""
BID_SIGMA = 1.0
"""How far (in tricks) a seat's bid may stray from the greedy estimate of its hand, as a std dev."""
SUIT_BITS = tuple(0x1FFF << (16 * suit) for suit in range(4))
ALL_CARDS = SUIT_BITS[0] | SUIT_BITS[1] | SUIT_BITS[2] | SUIT_BITS[3]
CARD: dict[str, int] = dict(CARD_BY_NAME)
ABOVE = tuple(SUIT_BITS[card >> 4] & ~((2 << card) - 1) if card & 15 < 13 else 0 for card in range(64))
"""``ABOVE[card]``: the bits of the cards of its suit that rank higher."""


class Unsupported(Exception):
    """A position the sampler cannot set up on the engine (the caller decides otherwise)."""


# --- what the view shows -------------------------------------------------------------------------


def voids_of(plays: list[tuple[int, int]], players: int, trump: int | None, must_trump: bool,
             spade_lead: str | None) -> list[int]:
    """Per seat, a 4-bit set of the suits it has shown out of.

    A seat shows out of the suit led by not following it (and of trumps too, under ``must_trump``,
    by not trumping). In Partnership Blackout a spade led while the rule (``spade_lead``) allows it
    only from a hand of spades alone shows that the leader held nothing else.
    """
    voids = [0] * players
    broken = False
    for start in range(0, len(plays), players):
        trick = plays[start:start + players]
        leader, lead = trick[0]
        led = lead >> 4
        if led == SPADES and (spade_lead == "only_if_only_spades"
                              or (spade_lead == "after_broken" and not broken)):
            voids[leader] |= 0b0111
        broken = broken or any(card >> 4 == SPADES for _, card in trick)
        for seat, card in trick[1:]:
            suit = card >> 4
            if suit != led:
                voids[seat] |= 1 << led
                if must_trump and trump is not None and suit != trump:
                    voids[seat] |= 1 << trump
    return voids


class Position:
    """One decision as the view shows it, in engine cards; the starting point of every sample."""

    def __init__(self, view: dict[str, Any], game: Game) -> None:
        self.view = view
        self.game = game
        self.players = view["players"]
        self.seat = view["seat"]
        self.dealer = view["dealer"]
        self.is_team_game = self.game.info.has_teams
        self.hand: list[int] = [CARD[c] for c in view["hand"]]
        self.plays: list[tuple[int, int]] = [(seat, CARD[c]) for seat, c in view.get("plays") or ()]
        self.trump_card: int | None = CARD.get(view.get("trump_card") or "")
        trump = view.get("trump")
        self.trump = None if trump is None else SUITS.index(trump)
        self.options: dict[str, Any] = dict(view.get("options") or {})
        self.size: int
        self.auction: list[tuple[int, Any]]
        self.sim_options: dict[str, Any]
        if self.is_team_game:
            self.size = 13
            self.auction = [(seat, call) for seat, call in view.get("calls") or ()]
            self.sim_options = {**self.options, "max_deals": 1}  # the game ends with this deal
        else:
            self.size = view.get("hand_size") or len(self.hand)
            self.auction = [(seat, bid) for seat, bid in view.get("bids") or ()]
            self.sim_options = {**self.options, "deals": self.size, "sequence": "down",
                                "no_trump_last": self._no_trump_last()}
        self.voids = voids_of(self.plays, self.players, self.trump,
                              self.options.get("must_trump") is True,
                              self.options.get("spade_lead") if self.is_team_game else None)
        played = [0] * self.players
        for seat, _ in self.plays:
            played[seat] += 1
        self.left = [self.size - n for n in played]
        seen = set(self.hand) | {card for _, card in self.plays}
        if self.trump_card is not None:
            seen.add(self.trump_card)
        self.unknown = sorted(set(CARD.values()) - seen)

    def _no_trump_last(self) -> str:
        """The sim game's ``no_trump_last``: its first deal must turn a card exactly as this one."""
        turns = self.players * self.size < 52
        if self.trump_card is not None or not turns:
            return "when_exhausted"
        if self.size == 1:  # a one-deal game: its only deal is the last
            return "always"
        raise Unsupported("a deal without trump while cards are left (no_trump_last: always)")

    def start(self, hands: list[list[int]]) -> Any:
        """The engine state of this decision in a game dealt ``hands`` (as dealt, before play)."""
        deal = PresetDeal(tuple(tuple(sorted(h)) for h in hands), self.trump_card)  # type: ignore[arg-type]
        game = self.game
        state = game.new_game(self.players, 0, self.sim_options,
                              preset=Preset(self.dealer, (deal,)))
        for _, action in self.auction:
            state = game.apply(state, action)
        for _, card in self.plays:
            state = game.apply(state, card)
        return state


# --- sampling the hidden cards -------------------------------------------------------------------


def deal_hidden(rng: random.Random, position: Position) -> list[list[int]]:
    """Every seat's hand as dealt, the unseen cards shared out at random as the view allows.

    Each other seat gets as many unseen cards as it still holds, none of a suit it has shown out
    of; in Blackout the rest stay undealt. Cards go one at a time to a seat with room that may hold
    them, chosen in proportion to that room (the undealt pile counts as a seat without voids).
    The suits fewest seats may hold go first; a dead end starts over.
    """
    seat, players = position.seat, position.players
    holders = [s for s in range(players) if s != seat]
    undealt = len(position.unknown) - sum(position.left[s] for s in holders)
    voids = [position.voids[s] for s in holders] + [0]
    for _ in range(200):
        room = [position.left[s] for s in holders] + [undealt]
        got: list[list[int]] = [[] for _ in room]
        cards = position.unknown[:]
        rng.shuffle(cards)
        cards.sort(key=lambda c: -sum(v >> (c >> 4) & 1 for v in voids))
        for card in cards:
            bit = 1 << (card >> 4)
            total = sum(r for r, v in zip(room, voids, strict=True) if not v & bit)
            if total == 0:
                break
            pick = rng.randrange(total)
            for index, (r, v) in enumerate(zip(room, voids, strict=True)):
                if v & bit:
                    continue
                if pick < r:
                    got[index].append(card)
                    room[index] -= 1
                    break
                pick -= r
        else:
            hands: list[list[int]] = [[] for _ in range(players)]
            hands[seat] = list(position.hand)
            for index, s in enumerate(holders):
                hands[s] = got[index]
            for s, card in position.plays:
                hands[s].append(card)
            return hands
    raise Unsupported("no deal of the unseen cards fits the voids shown")


def bid_weight(position: Position, hands: list[list[int]]) -> float:
    """How well the bids or calls made so far fit ``hands``, each seat judged as the greedy bot bids.

    A number is compared with the greedy estimate for that hand (a normal likelihood, ``BID_SIGMA``
    wide); Partnership's ``pass`` says little and is not weighed, ``zero`` asks for a weak hand.
    """
    view = position.view
    log_weight = 0.0
    for seat, bid in position.auction:
        if seat == position.seat:
            continue
        hand = [NAME_OF[c] for c in hands[seat]]
        if position.is_team_game:
            if bid == "pass":
                continue
            if bid == "zero":
                log_weight += 0.0 if bidding.is_nil_hand(hand) else -2.0
                continue
            estimate = bidding.call_estimate(hand) + 0.2
        else:
            estimate = bidding.bid_estimate(view, hand, seat)
        log_weight -= (estimate - bid) ** 2 / (2 * BID_SIGMA**2)
    return math.exp(log_weight)


def draw_sample(rng: random.Random, position: Position) -> list[list[int]]:
    """One deal for the search: the best fit to the bids of ``OVERSAMPLE`` drawn, chosen by weight.

    (Drawn one at a time, so a decision that runs out of time has spent none on unused deals.)
    """
    if not any(seat != position.seat for seat, _ in position.auction):
        return deal_hidden(rng, position)
    pool = [deal_hidden(rng, position) for _ in range(OVERSAMPLE)]
    weights = [bid_weight(position, hands) for hands in pool]
    if sum(weights) <= 0:
        return pool[0]
    return rng.choices(pool, weights)[0]


def draw_samples(rng: random.Random, position: Position, count: int) -> list[list[list[int]]]:
    """``count`` deals for the search (``draw_sample``)."""
    return [draw_sample(rng, position) for _ in range(count)]


# --- the rollout policy: the greedy bot's play, on bitmasks --------------------------------------


class Rollout:
    """Plays a deal out from an engine state, every seat as the greedy bot plays, and scores it.

    Each seat decides from what it could know (its own hand, the cards played, the voids shown),
    never from the other hands of the sample.
    """

    def __init__(self, position: Position, bids: dict[int, Any]) -> None:
        self.position = position
        self.game = position.game
        self.trump = position.trump
        self.players = position.players
        self.bids = bids
        self.turned = 0 if position.trump_card is None else 1 << position.trump_card
        self.must_trump = position.options.get("must_trump") is True

    def play_out(self, state: Any, played: int, voids: list[int], contract: Any) -> list[int]:
        """The deal's scores once every card of ``state`` is played (``played``: cards gone)."""
        game, trump, must_trump = self.game, self.trump, self.must_trump
        number = state.deal_number
        voids = voids[:]
        while not state.is_over and state.deal_number == number:
            seat = state.to_act
            legal = game.legal_actions(state)
            card = legal[0] if len(legal) == 1 else self.choose(state, seat, legal, played,
                                                                 voids, contract)
            trick = state.trick
            if trick:
                led = trick[0][1] >> 4
                if card >> 4 != led:
                    voids[seat] |= 1 << led
                    if must_trump and trump is not None and card >> 4 != trump:
                        voids[seat] |= 1 << trump
            played |= 1 << card
            state = game.apply(state, card)
        return game.totals(state)

    def choose(self, state: Any, seat: int, legal: tuple[int, ...], played: int, voids: list[int],
               contract: Any) -> int:
        """The greedy bot's card for ``seat`` (greedy_bot.py's ``_play``), from its own knowledge."""
        players, trump = self.players, self.trump
        partner: int | None
        if self.position.is_team_game:
            partner = (seat + 2) % 4
            want = contract is None or contract["kind"] != "zero"
            if not want:
                partner = None
        else:
            partner = None
            want = self.bids[seat] > state.tricks_won[seat]
        trick = state.trick
        masks = state.masks
        unseen = ALL_CARDS & ~masks[seat] & ~played & ~self.turned
        later = [(seat + i) % players for i in range(1, players - len(trick))]
        rivals = [(s, masks[s].bit_count(), voids[s]) for s in later if s != partner]
        n_unseen: int = unseen.bit_count()
        suit_out = [(unseen & bits).bit_count() for bits in SUIT_BITS]

        def holds_one(left: int, count: int) -> float:
            if count <= 0 or not n_unseen:
                return 0.0
            return 1.0 - (1.0 - count / n_unseen) ** left

        def risk(card: int, led: int) -> float:
            suit = card >> 4
            higher = (unseen & ABOVE[card]).bit_count()
            trumps_out = suit_out[trump] if trump is not None else 0
            safe = 1.0
            for _, left, void in rivals:
                p = 0.0
                can_ruff = trump is not None and not void >> trump & 1
                if suit == led:
                    if not void >> led & 1:
                        p += holds_one(left, higher)
                    if can_ruff and suit != trump:
                        out = 1.0 if void >> led & 1 else 1 - holds_one(left, suit_out[led])
                        p += out * holds_one(left, trumps_out)
                elif suit == trump and can_ruff:
                    out = 1.0 if void >> led & 1 else 1 - holds_one(left, suit_out[led])
                    p += out * holds_one(left, higher)
                safe *= 1 - min(1.0, p)
            return round(1 - safe, 1)  # a 5% risk is as good as none

        def cheap(card: int) -> int:
            return (card & 15) + (13 if card >> 4 == trump else 0)

        if not trick:
            if want:
                return min(legal, key=lambda c: (risk(c, c >> 4), cheap(c)))
            return max(legal, key=lambda c: (risk(c, c >> 4), -cheap(c)))
        led = trick[0][1] >> 4
        winner_seat, best = trick[0]
        for s, c in trick[1:]:
            if (c >> 4 == best >> 4 and c > best) or (c >> 4 == trump and best >> 4 != trump):
                winner_seat, best = s, c
        best_suit = best >> 4
        winners = [c for c in legal
                   if (c >> 4 == best_suit and c > best) or (c >> 4 == trump and best_suit != trump)]
        losers = [c for c in legal if c not in winners]
        if not want:
            if losers:
                return max(losers, key=cheap)
            return max(legal, key=cheap) if not later else min(legal, key=cheap)
        if winner_seat == partner:
            if risk(best, led) <= 0.2:
                return min(losers or legal, key=cheap)
            sure = [c for c in winners if risk(c, led) == 0]
            return min(sure or losers or legal, key=cheap)
        if winners:
            return min(winners, key=lambda c: (risk(c, led), cheap(c)))
        return min(legal, key=cheap)


def distinct_cards(legal: list[str], position: Position) -> list[str]:
    """The legal cards, one of each run of cards equal in play (e.g. QJ when no card between is out):
    the lowest of each run (``run_heads``), in card order."""
    return list(dict.fromkeys(run_heads(legal, position).values()))


def run_heads(legal: list[str], position: Position) -> dict[str, str]:
    """Each legal card and the card that stands for its run of cards equal in play.

    Two cards of a suit with nothing between them but cards played or in this hand win and lose
    the same tricks; the lowest of each run stands for it.
    """
    gone = 0
    for _, card in position.plays:
        gone |= 1 << card
    for card in position.hand:
        gone |= 1 << card
    heads: dict[str, str] = {}
    last: int | None = None
    head = ""
    for name in sorted(legal, key=lambda n: CARD[n]):
        card = CARD[name]
        if last is not None and card >> 4 == last >> 4:
            between = ((1 << card) - 1) & ~((2 << last) - 1)
            if between & ~gone == 0:
                heads[name] = head
                last = card
                continue
        heads[name] = head = name
        last = card
    return heads


# --- one action played out -----------------------------------------------------------------------


class Playouts:
    """One decision's play-outs: an action taken in a sampled deal, then the rest of the deal played
    by every seat as the greedy bot plays (the rest of the auction as it bids), scored."""

    def __init__(self, position: Position, kind: str) -> None:
        self.position = position
        self.kind = kind
        played = 0
        for _, card in position.plays:
            played |= 1 << card
        self.played = played

    def engine_action(self, action: Any) -> Any:
        """The engine's action for a wire action (a card for a card name)."""
        return CARD[action] if self.kind == "play" else action

    def scores(self, state: Any, action: Any) -> list[int]:
        """The deal's scores (per entrant) after this seat takes ``action`` (an engine action) in
        ``state`` (a sample's start, ``Position.start``) and all play on."""
        position = self.position
        game = position.game
        played = self.played
        state = game.apply(state, action)
        if self.kind == "play":
            played |= 1 << action
            bids, contract = dict(position.auction), position.view.get("contract")
        else:
            state = self.finish_auction(state)
            bids, contract = {}, None
            if not state.is_over:  # the auction as this sample played it
                view = game.view(state, position.seat)
                bids, contract = dict(view.get("bids") or ()), view.get("contract")
        return Rollout(position, bids).play_out(state, played, position.voids, contract)

    def finish_auction(self, state: Any) -> Any:
        """The rest of the bids or calls, each seat as the greedy bot bids (from its own view)."""
        game = self.position.game
        number = state.deal_number
        while not state.is_over and state.deal_number == number and state.kind != "play":
            seat = state.to_act
            view = game.view(state, seat)
            legal = actions_to_json(game.legal_actions(state))
            state = game.apply(state, bidding.choose_auction(state.kind, view, legal))
        return state
