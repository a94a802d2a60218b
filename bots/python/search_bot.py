"""Search reference bot: determinized (PIMC) search with the project's engine, for both games.

For each decision it deals the cards it cannot see many times over, each deal consistent with what
its view shows (its hand, the cards played, the turned card, the suits each seat has shown out of,
and the bids or calls: of a few such deals one is kept, drawn by how well each bid matches the
hand the deal gives that seat). In every kept deal it plays each legal action and then the rest
of the deal with a fast copy of the greedy bot's play (``Rollout``), on the engine's own rules
(``engine.game(...).apply`` from a game started on those hands), and takes the action with the
best mean outcome over the deals. Bids and calls are chosen the same way, the
other seats bidding or calling as the greedy bot does.

The outcome it maximises is the deal's score margin: in Blackout its own score minus the mean of
the other seats' scores (a place depends on both), in Partnership Blackout its team's score minus
the other team's.

Budget, per decision: ``--samples N`` deals (default 24), and at most ``--ms M`` milliseconds
(default 400, and never more than a quarter of the ``time_ms`` the arena allows): whichever ends
first. The clock is checked before every action's play-out, so a decision ends within one
play-out of its limit; a sample cut short is dropped whole (every action is compared on the same
deals), and with no complete sample the greedy choice is played. Its random generator is seeded
from ``game_start.seed``, so with the sample budget binding (as on an idle machine) a game
replays; a decision that the time limit cut short says so on stderr.

The engine: ``import engine`` finds the copy that ``make bots`` puts next to this file
(``bots/python/engine/``), so the bot works in the arena's sandbox, which shows a bot only its own
directory. Run: ``python3 bots/python/search_bot.py [--samples N] [--ms M]`` (see bots/README.md).
"""

import argparse
import json
import math
import random
import sys
import time

try:
    import engine
    from engine.cards import CARD_BY_NAME, NAME_OF, SPADES, SUITS
    from engine.chance import Preset, PresetDeal
except ImportError as error:  # before hello: the arena shows this line as the start error
    sys.exit(f"search_bot: cannot import the engine ({error}): run `make bots` in the repository, "
             "which copies engine/ into bots/python/engine/")

import greedy_bot

NAME = "search-py"
DEFAULT_SAMPLES = 24
DEFAULT_MS = 400
OVERSAMPLE = 3
"""Deals drawn per sample kept: the kept one is drawn from these by their bid weights."""
BID_SIGMA = 1.0
"""How far (in tricks) a seat's bid may stray from the greedy estimate of its hand, as a std dev."""
SUIT_BITS = tuple(0x1FFF << (16 * suit) for suit in range(4))
ALL_CARDS = SUIT_BITS[0] | SUIT_BITS[1] | SUIT_BITS[2] | SUIT_BITS[3]
CARD = {name: card for name, card in CARD_BY_NAME.items()}
ABOVE = tuple(SUIT_BITS[card >> 4] & ~((2 << card) - 1) if card & 15 < 13 else 0 for card in range(64))
"""``ABOVE[card]``: the bits of the cards of its suit that rank higher."""


class Unsupported(Exception):
    """A position the search cannot set up on the engine: the greedy bot decides instead."""


# --- what the view shows -------------------------------------------------------------------------


def voids_of(plays: list, players: int, trump: int | None, must_trump: bool,
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

    def __init__(self, view: dict) -> None:
        self.view = view
        self.game = engine.game(view["game"])
        self.players = view["players"]
        self.seat = view["seat"]
        self.dealer = view["dealer"]
        self.is_team_game = self.game.info.has_teams
        self.hand = [CARD[c] for c in view["hand"]]
        self.plays = [(seat, CARD[c]) for seat, c in view.get("plays") or ()]  # the trick too
        self.trump_card = CARD.get(view.get("trump_card") or "")
        trump = view.get("trump")
        self.trump = None if trump is None else SUITS.index(trump)
        self.options = dict(view.get("options") or {})
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

    def start(self, hands: list[list[int]]) -> object:
        """The engine state of this decision in a game dealt ``hands`` (as dealt, before play)."""
        deal = PresetDeal(tuple(tuple(sorted(h)) for h in hands), self.trump_card)
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
                log_weight += 0.0 if greedy_bot.is_nil_hand(hand) else -2.0
                continue
            estimate = greedy_bot.estimate_tricks(hand, "S", None, 2, 2 / 3) + 0.2
        else:
            estimate = greedy_estimate(view, hand, seat)
        log_weight -= (estimate - bid) ** 2 / (2 * BID_SIGMA**2)
    return math.exp(log_weight)


def greedy_estimate(view: dict, hand: list[str], seat: int) -> float:
    """The tricks the greedy bot would bid for ``hand`` in ``seat`` (before rounding)."""
    players = view["players"]
    size = len(hand)
    pool = 52 - size - (1 if view.get("trump_card") else 0)
    share = min(1.0, (players - 1) * size / pool) if pool else 1.0
    leads_first = seat == (view["dealer"] + 1) % players
    estimate = greedy_bot.estimate_tricks(hand, view.get("trump"), view.get("trump_card"),
                                          players - 1, share, leads_first)
    estimate += 0.4 * max(0.0, size / players - 1) * (players * size / 52)
    return min(estimate, size)


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

    def __init__(self, position: Position, bids: dict[int, object]) -> None:
        self.position = position
        self.game = position.game
        self.trump = position.trump
        self.players = position.players
        self.bids = bids
        self.turned = 0 if position.trump_card is None else 1 << position.trump_card
        self.must_trump = position.options.get("must_trump") is True

    def play_out(self, state: object, played: int, voids: list[int], contract: object) -> list[int]:
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

    def choose(self, state: object, seat: int, legal: tuple, played: int, voids: list[int],
               contract: object) -> int:
        """The greedy bot's card for ``seat`` (``greedy_bot._play``), from its own knowledge."""
        players, trump = self.players, self.trump
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
        n_unseen = unseen.bit_count()
        suit_out = [(unseen & bits).bit_count() for bits in SUIT_BITS]

        def holds_one(left: int, count: int) -> float:
            if count <= 0 or not n_unseen:
                return 0.0
            return 1 - (1 - count / n_unseen) ** left

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


# --- the search ----------------------------------------------------------------------------------


class Search:
    """One decision: samples, each action played out in each, the best mean margin chosen."""

    def __init__(self, view: dict, kind: str, legal: list, rng: random.Random, samples: int,
                 deadline: float) -> None:
        self.position = Position(view)
        self.view = view
        self.kind = kind
        self.legal = legal
        self.rng = rng
        self.samples = samples
        self.deadline = deadline
        self.cut_short = False

    def margin(self, scores: list[int]) -> float:
        """The outcome this seat maximises: its (team's) score minus the others' mean."""
        position = self.position
        mine = position.game.info.entrant_of(position.seat)
        others = [score for index, score in enumerate(scores) if index != mine]
        return scores[mine] - sum(others) / len(others)

    def candidates(self, fallback: object) -> list[object]:
        """The actions worth playing out (card actions that differ, bids near the greedy one)."""
        if self.kind == "play":
            return distinct_cards(self.legal, self.position)
        if self.kind == "bid":
            return [b for b in self.legal if abs(b - fallback) <= 2]
        numbers = [c for c in self.legal if isinstance(c, int) and abs(c - fallback) <= 1] \
            if isinstance(fallback, int) else [c for c in self.legal if isinstance(c, int)][:2]
        return [*numbers, *(c for c in ("pass", "zero") if c in self.legal)]

    def run(self, fallback: object) -> object:
        """The action with the best mean margin; ``fallback`` (the greedy choice) on ties."""
        actions = self.candidates(fallback)
        if fallback in self.legal and fallback not in actions:
            actions.append(fallback)
        if len(actions) == 1:
            return actions[0]
        totals = dict.fromkeys(actions, 0.0)
        position = self.position
        played = 0
        for _, card in position.plays:
            played |= 1 << card
        wire = {action: self.engine_action(action) for action in actions}
        done = 0
        while done < self.samples and not self.cut_short:
            state = position.start(draw_sample(self.rng, position))
            margins = []
            for action in actions:
                if time.perf_counter() > self.deadline:  # a sample counts whole or not at all
                    self.cut_short = True
                    break
                margins.append(self.margin(self.play_action(state, wire[action], played)))
            else:
                for action, margin in zip(actions, margins, strict=True):
                    totals[action] += margin
                done += 1
        if not done:
            return fallback
        return max(actions, key=lambda a: (totals[a], a == fallback))

    def engine_action(self, action: object) -> object:
        """The engine's action for a wire action (a card for a card name)."""
        return CARD[action] if self.kind == "play" else action

    def play_action(self, state: object, action: object, played: int) -> list[int]:
        """The deal's scores after this seat takes ``action`` in ``state`` and all play on."""
        position = self.position
        game = position.game
        state = game.apply(state, action)
        if self.kind == "play":
            played |= 1 << action
            bids, contract = dict(position.auction), self.view.get("contract")
        else:
            state = self.finish_auction(state)
            bids, contract = {}, None
            if not state.is_over:  # the auction as this sample played it
                view = game.view(state, position.seat)
                bids, contract = dict(view.get("bids") or ()), view.get("contract")
        return Rollout(position, bids).play_out(state, played, position.voids, contract)

    def finish_auction(self, state: object) -> object:
        """The rest of the bids or calls, each seat as the greedy bot bids (from its own view)."""
        game = self.position.game
        number = state.deal_number
        while not state.is_over and state.deal_number == number and state.kind != "play":
            seat = state.to_act
            view = game.view(state, seat)
            legal = engine.actions_to_json(game.legal_actions(state))
            state = game.apply(state, greedy_bot.decide(state.kind, view, legal))
        return state



def distinct_cards(legal: list, position: Position) -> list[str]:
    """The legal cards, one of each run of cards equal in play (e.g. QJ when no card between is out).

    Two cards of a suit with nothing between them but cards played or in this hand win and lose
    the same tricks; the lowest of each run stands for it.
    """
    gone = 0
    for _, card in position.plays:
        gone |= 1 << card
    own = 0
    for card in position.hand:
        own |= 1 << card
    kept = []
    last = None
    for name in sorted(legal, key=lambda n: CARD[n]):
        card = CARD[name]
        if last is not None and card >> 4 == last >> 4:
            between = ((1 << card) - 1) & ~((2 << last) - 1)
            if between & ~(gone | own) == 0:
                last = card
                continue
        kept.append(name)
        last = card
    return kept


# --- the message loop ----------------------------------------------------------------------------


def decide(message: dict, rng: random.Random, samples: int, ms: int,
           received: float | None = None) -> object:
    """The action for one ``act`` message: the search's, or the greedy bot's where it cannot run.

    The search stops ``ms`` milliseconds (at most a quarter of the ``time_ms`` allowed) after
    ``received``, the moment the message was read (default: now).
    """
    allowed = min(ms, message.get("time_ms", ms) // 4)
    deadline = (time.perf_counter() if received is None else received) + allowed / 1000
    legal = message["legal"]
    kind = message.get("kind", "")
    view = message.get("view") or {}
    fallback = greedy_bot.decide(kind, view, legal)
    if len(legal) == 1:
        return legal[0]
    try:
        search = Search(view, kind, legal, rng, samples, deadline)
        action = search.run(fallback)
    except Unsupported as why:
        print(f"search: {why}; playing the greedy choice", file=sys.stderr, flush=True)
        return fallback
    if search.cut_short:
        print(f"search: the {allowed} ms limit cut deal {view.get('deal')}'s {kind} short",
              file=sys.stderr, flush=True)
    return action if action in legal else fallback


def parse_args(argv: list) -> argparse.Namespace:
    """``--samples N`` and ``--ms M``."""
    parser = argparse.ArgumentParser(prog="search_bot.py", description=__doc__.split("\n")[0])
    parser.add_argument("--samples", type=int, default=DEFAULT_SAMPLES,
                        help=f"deals sampled per decision (default {DEFAULT_SAMPLES})")
    parser.add_argument("--ms", type=int, default=DEFAULT_MS,
                        help=f"most milliseconds per decision (default {DEFAULT_MS})")
    args = parser.parse_args(argv)
    if args.samples < 1 or args.ms < 1:
        parser.error("--samples and --ms must be at least 1")
    return args


def main() -> None:
    """Read one JSON message per line; reply to ``hello`` and ``act``; stop on ``quit`` or EOF."""
    args = parse_args(sys.argv[1:])
    rng = random.Random(0)
    read = sys.stdin.readline
    write = sys.stdout.write
    flush = sys.stdout.flush
    while True:
        line = read()
        received = time.perf_counter()
        if not line:
            return
        if not line.strip():
            continue
        message = json.loads(line)
        kind = message.get("type")
        if kind == "act":
            legal = message["legal"]
            try:
                action = decide(message, rng, args.samples, args.ms, received)
            except Exception as error:  # a bug here must not cost the game: log it, play safe
                print(f"search: {type(error).__name__}: {error}; playing {legal[0]!r}",
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
