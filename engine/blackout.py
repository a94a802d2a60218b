"""Blackout: 3 to 7 players, each for themselves, exact bids (docs/rules.md, "Blackout").

Rules as implemented here:

- Deal d of the sequence gives every player ``hand_size`` cards, dealt one at a time from dealer+1.
  The dealer then turns the next card: its suit is trump. With no card left, or on the last deal when
  ``no_trump_last`` is ``always``, no card is turned and the deal has no trump.
- The sequence (``sequence``): ``up`` is 1..D, ``down`` D..1, ``up_down`` 1..D then D-1..1, with D
  the ``deals`` option (default: 15, 13, 10, 8, 7 for 3..7 players).
- Bidding: one round from dealer+1; each player bids 0..hand size once. With ``hook``, the last bidder
  may not bid the number that makes the bids add up to the hand size.
- Play: dealer+1 leads. Follow suit if able; with ``must_trump``, a player void in the suit led who
  holds a trump must play one (overtrumping is not required). Highest trump wins, else highest card
  of the suit led; the winner leads next.
- Score per deal (b bid, t tricks, ppt ``points_per_trick``): t == b > 0 scores ppt * b + bonus;
  t == b == 0 scores ppt + bonus (``zero_bid`` ``as_one_trick``) or bonus (``bonus_only``); t != b
  scores 0 (``classic``) or, with ``penalty``, -ppt * (b - t) when t < b and 0 when t > b.
- After the last deal the highest total wins; equal totals share the place, unless ``tiebreak`` is
  ``most_exact_bids``, which ranks tied players by the number of deals they bid exactly.
- The first dealer is drawn from the game's seed; the deal passes clockwise after every deal.
  A ``Preset`` (``engine.chance``) may give the first dealer and the first deals instead.

The state is an immutable value: ``apply`` returns a new state and never changes the one given.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any, Final

from engine.cards import (
    CARD_BY_VALUE,
    NAME_OF,
    RANK_BITS,
    SUIT_CARDS,
    SUITS,
    Card,
    cards_of,
    mask_of,
    names_of,
)
from engine.chance import Preset, check_deal, check_dealer
from engine.errors import (
    IllegalActionError,
    InvalidActionError,
    OptionError,
    PresetError,
    ReplayError,
    shown,
)
from engine.game import GameInfo
from engine.options import POINTS, BoolOption, ChoiceOption, IntOption, Option, resolve
from engine.seeding import derive_seed
from engine.state import (
    DEAL_END,
    DEAL_START,
    JUST_PLAYED,
    PLAY_EVENT_KEY,
    Event,
    PlaysSeen,
    TrickState,
    expect,
    names_json,
    plays_json,
    plays_view,
    replay_step,
    view_tail_json,
)
from engine.trick import (
    NO_TRUMP,
    SUIT_NAMES,
    Plays,
    Trick,
    dealt_masks,
    plays_in_order,
    shuffled_prefix,
    trick_winner,
)
from engine.wire import (
    PLAY_EVENT,
    cards_json,
    hand_json,
    ints_json,
    object_head,
    pairs_json,
    trick_json,
)

NAME: Final = "blackout"
PLAYER_COUNTS: Final = (3, 4, 5, 6, 7)
DEFAULT_DEALS: Final = {3: 15, 4: 13, 5: 10, 6: 8, 7: 7}

Action = int
"""A bid (an int) or a card (a ``Card``, itself an int)."""


_SPECS: dict[int, dict[str, Option]] = {}


def option_spec(players: int) -> dict[str, Option]:
    """The options of a ``players``-player game, defaults first."""
    spec = _SPECS.get(players)
    if spec is None:
        _check_players(players)
        spec = _SPECS[players] = _option_spec(players)
    return dict(spec)  # a copy: the options are frozen values, the dict is the caller's


def _option_spec(players: int) -> dict[str, Option]:
    return {
        "deals": IntOption(DEFAULT_DEALS[players], 1, 52 // players,
                           "the largest hand size D (the default depends on the players)"),
        "sequence": ChoiceOption(("up", "down", "up_down"),
                                 "hand sizes in order: 1..D, D..1, or 1..D then D-1..1"),
        "no_trump_last": ChoiceOption(("when_exhausted", "always"),
                                      "the last deal has no trump only when no card is left to "
                                      "turn, or always"),
        "hook": BoolOption(False, "the last bidder may not make the bids add up to the hand size"),
        "must_trump": BoolOption(False, "a player void in the suit led must trump if able"),
        "points_per_trick": IntOption(1, 1, POINTS, "points for each trick of an exact bid"),
        "bonus": IntOption(10, 0, POINTS, "points added to every exact bid"),
        "zero_bid": ChoiceOption(("as_one_trick", "bonus_only"),
                                 "an exact zero bid scores points_per_trick + bonus, or bonus alone"),
        "scoring": ChoiceOption(("classic", "penalty"),
                                "a missed bid scores 0, or loses points_per_trick per missing trick"),
        "tiebreak": ChoiceOption(("shared", "most_exact_bids"),
                                 "equal totals share a place, or are ranked by deals bid exactly"),
    }


def resolve_options(players: int, raw: Mapping[str, object] | None = None) -> dict[str, Any]:
    """All options for ``players`` players, ``raw`` validated and defaults filled in."""
    return resolve(NAME, option_spec(players), raw)


def _check_players(players: int) -> None:
    if players not in PLAYER_COUNTS:
        raise OptionError(f"blackout is for 3 to 7 players, not {players}")


info: Final = GameInfo(
    name=NAME, title="Blackout", player_counts=PLAYER_COUNTS, default_players=4, teams=None,
    decision_kinds=("bid", "play"), score_by="seat", option_spec=option_spec,
    short_options={"deals": 3},
)
"""What Blackout is, for callers that must not ask its name (``engine.game``)."""


def hand_sizes(players: int, options: Mapping[str, Any]) -> tuple[int, ...]:
    """The hand size of every deal of the game, in order."""
    top: int = options["deals"]
    up = tuple(range(1, top + 1))
    if options["sequence"] == "down":
        return up[::-1]
    if options["sequence"] == "up_down":
        return up + up[-2::-1]
    return up


class Rules:
    """The per-game constants every state of one game shares."""

    __slots__ = (
        "bid_ranges",
        "bonus",
        "deals",
        "hook",
        "must_trump",
        "options",
        "penalty",
        "players",
        "ppt",
        "preset",
        "seed",
        "sizes",
        "zero_score",
    )

    def __init__(self, players: int, seed: int, options: dict[str, Any],
                 preset: Preset | None = None) -> None:
        self.players = players
        self.options = options
        self.seed = seed
        self.preset = preset
        self.sizes: tuple[int, ...] = hand_sizes(players, options)
        self.ppt: int = options["points_per_trick"]
        self.bonus: int = options["bonus"]
        self.zero_score: int = (self.ppt + self.bonus if options["zero_bid"] == "as_one_trick"
                                else self.bonus)
        self.penalty: bool = options["scoring"] == "penalty"
        self.hook: bool = options["hook"]
        self.must_trump: bool = options["must_trump"]
        self.bid_ranges: dict[int, tuple[int, ...]] = {size: tuple(range(size + 1))
                                                       for size in set(self.sizes)}
        self.deals: tuple[Deal, ...] = deal_all(self)

    def deal_score(self, bid: int, tricks: int) -> int:
        """One player's score for one deal."""
        if tricks == bid:
            return self.ppt * bid + self.bonus if bid else self.zero_score
        if self.penalty and tricks < bid:
            return -self.ppt * (bid - tricks)
        return 0


class Deal:
    """The constants of one deal: its number, dealer, the hands as dealt and the turned card."""

    __slots__ = ("dealer", "masks", "number", "size", "trump", "trump_card", "trump_suit",
                 "view_head")

    def __init__(self, number: int, dealer: int, size: int, masks: tuple[int, ...],
                 trump_card: Card | None) -> None:
        self.number = number
        self.dealer = dealer
        self.size = size
        self.masks = masks
        """Each seat's hand as dealt, as a bitmask."""
        self.trump_card = trump_card
        self.trump: int | None = None if trump_card is None else trump_card >> 4
        self.trump_suit: int = NO_TRUMP if trump_card is None else trump_card >> 4
        self.view_head: str | None = None
        """The head of the JSON text of the views of this deal: the fields fixed for the deal."""

    @property
    def dealt(self) -> tuple[tuple[Card, ...], ...]:
        """Each seat's hand as dealt, low to high by suit."""
        return tuple([cards_of(mask) for mask in self.masks])


def deal_all(rules: Rules) -> tuple[Deal, ...]:
    """Every deal of the game, drawn from one stream seeded by the game's seed.

    The first dealer is drawn first; each deal then takes a partial Fisher-Yates shuffle of the
    cards it needs (the hands, plus the turned card when one is turned). What the rules' preset
    gives replaces what is drawn, and is still drawn, so that later deals stay the seed's.
    """
    players = rules.players
    preset = rules.preset
    given_deals = () if preset is None else preset.deals
    if preset is not None:
        check_dealer(preset, players)
        if len(given_deals) > len(rules.sizes):
            raise PresetError(f"preset: {len(given_deals)} deals given, "
                              f"the game has {len(rules.sizes)}")
    rng = random.Random(derive_seed(rules.seed, "blackout-deals"))
    dealer = rng.randrange(players)
    if preset is not None and preset.dealer is not None:
        dealer = preset.dealer
    no_trump_last = rules.options["no_trump_last"] == "always"
    deals = []
    count = len(rules.sizes)
    for index in range(count):
        number = index + 1
        size = rules.sizes[index]
        dealt = players * size
        turn = dealt < 52 and not (number == count and no_trump_last)
        cards = shuffled_prefix(rng, dealt + 1 if turn else dealt)
        if number <= len(given_deals):
            given = given_deals[index]
            check_deal(given, number, players, size, turn)
            masks = tuple([mask_of(hand) for hand in given.hands])
            deals.append(Deal(number, dealer, size, masks, given.trump_card))
        else:
            masks = tuple(dealt_masks(cards, dealer, players, dealt))
            deals.append(Deal(number, dealer, size, masks,
                              CARD_BY_VALUE[cards[dealt]] if turn else None))
        dealer = dealer + 1 if dealer + 1 < players else 0
    return tuple(deals)


DealSummary = tuple["Deal", tuple[tuple[int, int], ...], tuple[tuple[int, Card], ...],
                    tuple[int, ...], tuple[int, ...], tuple[int, ...]]
"""A finished deal: the deal, its bids, its plays, tricks by seat, scores and totals by seat."""


class Phase:
    """The parts of a state that change only between plays: the deal, its bids, the totals so far.

    Shared by every state of one deal's play, so that a play copies few fields.
    """

    __slots__ = ("bids", "deal", "exact", "history", "kind", "playing", "rules", "totals",
                 "view_base", "view_head")

    def __init__(self, rules: Rules, deal: Deal, bids: tuple[tuple[int, int], ...],
                 totals: tuple[int, ...], exact: tuple[int, ...],
                 history: tuple[DealSummary, ...], kind: str | None) -> None:
        self.rules = rules
        self.deal = deal
        self.bids = bids
        self.totals = totals
        self.exact = exact
        self.history = history
        self.kind = kind
        self.playing: bool = kind == "play"
        self.view_base: dict[str, object] | None = None  # the view's fields fixed for this phase
        self.view_head: str | None = None  # the same as the head of the view's JSON text


class State(TrickState):
    """One moment of a Blackout game (see ``TrickState``); ``kind`` is "bid" or "play"."""

    __slots__ = ("phase",)

    def __init__(self, phase: Phase, masks: tuple[int, ...], played: Plays, current: Trick,
                 leader: int, tricks_won: tuple[int, ...], to_act: int | None,
                 last_events: tuple[Event, ...],
                 plays_seen: PlaysSeen | None) -> None:
        self.phase = phase
        self.masks = masks
        self.played = played
        self.current = current
        self.leader = leader
        self.tricks_won = tricks_won
        self.to_act = to_act
        self.last_events = last_events
        self.legal = None
        self.plays_seen = plays_seen

    @property
    def rules(self) -> Rules:
        """The game's constants."""
        return self.phase.rules

    @property
    def deal(self) -> Deal:
        """The deal being played (the last one, once the game is over)."""
        return self.phase.deal

    @property
    def deal_number(self) -> int:
        """The deal being played (1 for the first; the last one once over)."""
        return self.phase.deal.number

    @property
    def kind(self) -> str | None:
        """The kind of action asked now ("bid" or "play"); None once the game is over."""
        return self.phase.kind

    @property
    def totals(self) -> tuple[int, ...]:
        """The totals before this deal is scored (final totals once over)."""
        return self.phase.totals

    @property
    def history(self) -> tuple[DealSummary, ...]:
        """The finished deals."""
        return self.phase.history

    @property
    def bids(self) -> tuple[tuple[int, int], ...]:
        """This deal's bids so far, in order, as (seat, bid)."""
        return self.phase.bids

    @property
    def players(self) -> int:
        """The number of seats."""
        return self.phase.rules.players

    @property
    def options(self) -> dict[str, Any]:
        """The game's options, defaults filled in."""
        return self.phase.rules.options

    @property
    def seed(self) -> int:
        """The game's seed."""
        return self.phase.rules.seed

    def __repr__(self) -> str:
        return f"<blackout deal {self.deal_number} {self.kind or 'over'} seat {self.to_act}>"


def new_game(players: int, seed: int, options: Mapping[str, object] | None = None, *,
             preset: Preset | None = None) -> State:
    """A new game for ``players`` seats; the same seed and options always give the same game.

    ``preset`` gives the first dealer and the first deals instead of drawing them (PresetError
    when the rules could not have dealt them).
    """
    rules = Rules(players, seed, resolve_options(players, options), preset)
    zeros = (0,) * players
    return _start_deal(rules, rules.deals[0], zeros, zeros, (), ())


def _start_deal(rules: Rules, deal: Deal, totals: tuple[int, ...], exact: tuple[int, ...],
                history: tuple[DealSummary, ...], events: tuple[Event, ...]) -> State:
    first = (deal.dealer + 1) % rules.players
    phase = Phase(rules, deal, (), totals, exact, history, "bid")
    return State(phase, deal.masks, None, (), first, (0,) * rules.players, first,
                 events + (DEAL_START,), None)


def legal_actions(state: State) -> tuple[Action, ...]:
    """Every action the seat to act may take now (empty when the game is over)."""
    memo = state.legal
    if memo is not None:
        return memo  # type: ignore[return-value]  # this game's memo holds only its actions
    seat = state.to_act
    if seat is None:
        return ()
    phase = state.phase
    legal: tuple[int, ...]
    if phase.playing:
        mask: int = state.masks[seat]
        current = state.current
        if current:
            led = current[0][1] >> 4
            legal = SUIT_CARDS[led][(mask >> (led << 4)) & RANK_BITS]
            if not legal:
                trump = phase.deal.trump_suit
                if phase.rules.must_trump and trump != NO_TRUMP:
                    legal = SUIT_CARDS[trump][(mask >> (trump << 4)) & RANK_BITS]
                if not legal:
                    legal = cards_of(mask)
        else:
            legal = cards_of(mask)
    else:
        legal = _legal_bids(state)
    state.legal = legal
    return legal


def _legal_bids(state: State) -> tuple[int, ...]:
    phase = state.phase
    bids = phase.rules.bid_ranges[phase.deal.size]
    forbidden = _hooked_bid(state)
    if forbidden is not None:
        return tuple([b for b in bids if b != forbidden])
    return bids


def _hooked_bid(state: State) -> int | None:
    """The bid the hook forbids the last bidder, or None."""
    phase = state.phase
    if not phase.rules.hook or len(phase.bids) != phase.rules.players - 1:
        return None
    forbidden = phase.deal.size - sum([b for _, b in phase.bids])
    return forbidden if forbidden >= 0 else None


def parse_action(state: State, raw: object) -> Action:
    """The engine action for a wire value (a bid's int, a card's name); InvalidActionError if none."""
    kind = state.phase.kind
    if kind == "play":
        if type(raw) is Card:
            return raw
        return Card.parse(raw)
    if kind == "bid":
        if isinstance(raw, bool) or not isinstance(raw, int):
            raise InvalidActionError(f"{shown(raw)} is not a bid (an integer)")
        return raw
    raise InvalidActionError("the game is over: no action is asked for")


def apply(state: State, action: object) -> State:
    """The state after the seat to act takes ``action``; IllegalActionError if the rules forbid it."""
    phase = state.phase
    if not phase.playing:
        if phase.kind == "bid":
            return _bid(state, action)
        raise IllegalActionError(f"the game is over: no action {shown(action)} is allowed")
    # Playing a card: the hot path, kept in one function.
    seat = state.to_act
    assert seat is not None
    legal = state.legal
    if legal is None:
        legal = legal_actions(state)
    if type(action) is Card and action in legal:
        card: int = action
    elif type(action) is not bool and isinstance(action, int) and action in legal:
        card = action  # an int equal to a legal card is that card
    else:
        raise _illegal_play(state, seat, action)
    masks = list(state.masks)  # list, set, tuple: half the cost of slicing and concatenating
    mask = masks[seat] & ~(1 << card)
    masks[seat] = mask
    trick = state.current + ((seat, card),)
    players = phase.rules.players
    played = (state.played, seat, card)
    if len(trick) < players:
        return State(phase, tuple(masks), played, trick, state.leader, state.tricks_won,
                     seat + 1 if seat + 1 < players else 0, JUST_PLAYED, state.plays_seen)
    winner = trick_winner(trick, phase.deal.trump_suit)
    won = list(state.tricks_won)
    won[winner] += 1
    new = State(phase, tuple(masks), played, (), winner, tuple(won), winner,
                (("play", seat, card), ("trick", winner, trick)), state.plays_seen)
    if mask:
        return new
    return _end_deal(new)


def _bid(state: State, bid: object) -> State:
    seat = state.to_act
    assert seat is not None
    if isinstance(bid, bool) or not isinstance(bid, int) or type(bid) is Card:
        raise InvalidActionError(f"seat {seat} bid {shown(bid)}: a bid is an integer")
    phase = state.phase
    size = phase.deal.size
    if not 0 <= bid <= size:
        raise IllegalActionError(f"seat {seat} bid {shown(bid)}: bids are 0..{size} in this deal")
    if bid == _hooked_bid(state):
        raise IllegalActionError(
            f"seat {seat} bid {bid}: the hook forbids the last bid that makes the total {size}"
        )
    bids = phase.bids + ((seat, bid),)
    players = phase.rules.players
    done = len(bids) == players
    new_phase = Phase(phase.rules, phase.deal, bids, phase.totals, phase.exact, phase.history,
                      "play" if done else "bid")
    return State(new_phase, state.masks, state.played, state.current, state.leader,
                 state.tricks_won, state.leader if done else (seat + 1) % players,
                 (("bid", seat, bid),), state.plays_seen)


def _illegal_play(state: State, seat: int, action: object) -> Exception:
    """The error that says why ``action`` may not be played by ``seat`` now."""
    card = action if type(action) is Card else None
    if card is None:
        found = CARD_BY_VALUE.get(action) if type(action) is int else None
        if found is None:
            return InvalidActionError(f"seat {seat} played {shown(action)}: not a card")
        card = found
    hand = state.hand(seat)
    if card not in hand:
        return IllegalActionError(f"seat {seat} played {card}: not in its hand")
    led = state.current[0][1] >> 4
    if card >> 4 != led and any(c >> 4 == led for c in hand):
        return IllegalActionError(f"seat {seat} played {card}: must follow {SUIT_NAMES[led]}")
    trump = state.phase.deal.trump_suit
    return IllegalActionError(
        f"seat {seat} played {card}: must trump ({SUIT_NAMES[trump]}) when void in "
        f"{SUIT_NAMES[led]}"
    )


def _end_deal(state: State) -> State:
    """Score the finished deal in ``state`` and start the next deal, or end the game."""
    phase = state.phase
    rules = phase.rules
    players = rules.players
    bid_by_seat = [0] * players
    for seat, bid in phase.bids:
        bid_by_seat[seat] = bid
    won = state.tricks_won
    scores = tuple([rules.deal_score(bid_by_seat[s], won[s]) for s in range(players)])
    totals = tuple([phase.totals[s] + scores[s] for s in range(players)])
    exact = tuple([phase.exact[s] + (bid_by_seat[s] == won[s]) for s in range(players)])
    summary: DealSummary = (phase.deal, phase.bids, plays_in_order(state.played), won, scores,
                            totals)
    history = phase.history + (summary,)
    events = state.last_events + (DEAL_END,)
    deal = phase.deal
    if deal.number == len(rules.sizes):
        over = Phase(rules, deal, phase.bids, totals, exact, history, None)
        return State(over, state.masks, state.played, state.current, state.leader, won, None,
                     events, state.plays_seen)
    return _start_deal(rules, rules.deals[deal.number], totals, exact, history, events)


# --- What a seat may know -------------------------------------------------------------------


def view(state: State, seat: int) -> dict[str, Any]:
    """Everything ``seat`` may know now: its own hand and the public state, nothing hidden.

    Values nested in a view (the options, the bids...) are shared by the views of one phase of
    the deal: read them, do not change them.
    """
    return {
        **_view_base(state.phase),
        "seat": seat,
        "hand": [] if state.to_act is None else names_of(state.masks[seat]),
        "plays": plays_view(state),
        "trick": plays_json(state.current),
        "leader": state.leader,
        "tricks_won": list(state.tricks_won),
    }


def _view_base(phase: Phase) -> dict[str, object]:
    """The view's fields fixed for a phase of a deal (built once per phase)."""
    base = phase.view_base
    if base is None:
        base = {**_deal_view(phase), "bids": [[s, b] for s, b in phase.bids],
                "totals": list(phase.totals)}
        phase.view_base = base
    return base


def _deal_view(phase: Phase) -> dict[str, object]:
    """The view's first fields, those fixed for the whole deal."""
    deal = phase.deal
    rules = phase.rules
    return {
        "game": NAME, "players": rules.players, "options": dict(rules.options),
        "deal": deal.number, "deals": len(rules.sizes), "hand_size": deal.size,
        "dealer": deal.dealer,
        "trump_card": None if deal.trump_card is None else NAME_OF[deal.trump_card],
        "trump": None if deal.trump is None else SUITS[deal.trump],
    }


def view_json(state: State, seat: int) -> str:
    """``view(state, seat)`` as compact JSON text (what orjson gives for the dict).

    The head of the text is rendered once per phase (every bid makes a new phase), from the
    deal's fixed fields rendered once per deal.
    """
    phase = state.phase
    head = phase.view_head
    if head is None:
        deal = phase.deal
        deal_head = deal.view_head
        if deal_head is None:
            deal_head = deal.view_head = object_head(_deal_view(phase))
        head = phase.view_head = (f'{deal_head}"bids":{pairs_json(phase.bids)},'
                                  f'"totals":{ints_json(phase.totals)},')
    return head + view_tail_json(state, seat)


def legal_json(state: State) -> str:
    """``legal_actions(state)`` in their wire form as a JSON list: card names, or bids."""
    legal = legal_actions(state)
    return cards_json(legal) if state.phase.playing else ints_json(legal)


def events(state: State, seat: int) -> list[dict[str, Any]]:
    """The protocol messages the last transition produced, as ``seat`` may see them."""
    return [_event_message(state, event, seat) for event in state.last_events]


def _played(state: State, event: Event) -> tuple[int, int]:
    """(seat, card) of a play event (the shared one stands for the head of ``played``)."""
    if event is PLAY_EVENT_KEY:
        node = state.played
        assert node is not None
        return node[1], node[2]
    seat: int = event[1]  # type: ignore[assignment]
    card: int = event[2]  # type: ignore[assignment]
    return seat, card


def _event_message(state: State, event: Event, seat: int) -> dict[str, Any]:
    kind = event[0]
    if kind == "play":
        seat_played, card = _played(state, event)
        return {"type": "event", "event": "play", "seat": seat_played, "card": NAME_OF[card]}
    if kind == "bid":
        return {"type": "event", "event": "bid", "seat": event[1], "bid": event[2]}
    if kind == "trick":
        trick: Trick = event[2]  # type: ignore[assignment]
        return {"type": "event", "event": "trick", "winner": event[1], "cards": plays_json(trick)}
    if kind == "deal_end":
        deal, bids, _, won, scores, totals = state.phase.history[-1]
        return {"type": "event", "event": "deal_end", "deal": deal.number,
                "bids": [[s, b] for s, b in bids], "tricks": list(won),
                "scores": list(scores), "totals": list(totals)}
    deal = state.phase.deal  # deal_start
    return {
        "type": "deal_start", "deal": deal.number, "dealer": deal.dealer,
        "hand": names_json(state.hand(seat)),
        "trump_card": None if deal.trump_card is None else str(deal.trump_card),
        "trump": None if deal.trump is None else SUITS[deal.trump],
    }


def events_json(state: State, seat: int) -> str:
    """``events(state, seat)`` as JSON lines, each ending in a newline."""
    return "".join([_event_line(state, event, seat) for event in state.last_events])


def shared_events_json(state: State) -> str | None:
    """The JSON lines of the last transition's events when every seat sees the same (None when a
    deal starts: each seat sees its own hand)."""
    last = state.last_events
    if last is JUST_PLAYED:  # the most frequent transition: one play, a line from a table
        node = state.played
        assert node is not None
        return PLAY_EVENT[node[1]][node[2]]
    if last[-1] is DEAL_START:
        return None
    return "".join([_event_line(state, event, 0) for event in last])


def _event_line(state: State, event: Event, seat: int) -> str:
    kind = event[0]
    if kind == "play":
        seat_played, card = _played(state, event)
        return PLAY_EVENT[seat_played][card]
    if kind == "trick":
        trick: Trick = event[2]  # type: ignore[assignment]
        return f'{{"type":"event","event":"trick","winner":{event[1]},"cards":{trick_json(trick)}}}\n'
    if kind == "bid":
        return f'{{"type":"event","event":"bid","seat":{event[1]:d},"bid":{event[2]:d}}}\n'
    if kind == "deal_end":
        deal, bids, _, won, scores, totals = state.phase.history[-1]
        return (f'{{"type":"event","event":"deal_end","deal":{deal.number},"bids":{pairs_json(bids)},'
                f'"tricks":{ints_json(won)},"scores":{ints_json(scores)},'
                f'"totals":{ints_json(totals)}}}\n')
    deal = state.phase.deal  # deal_start
    trump_card = "null" if deal.trump_card is None else f'"{NAME_OF[deal.trump_card]}"'
    trump = "null" if deal.trump is None else f'"{SUITS[deal.trump]}"'
    return (f'{{"type":"deal_start","deal":{deal.number},"dealer":{deal.dealer},'
            f'"hand":{hand_json(state.masks[seat])},"trump_card":{trump_card},"trump":{trump}}}\n')


# --- Results and records ----------------------------------------------------------------------


def totals(state: State) -> list[int]:
    """The running (final, once over) total of every seat."""
    return list(state.totals)


def places(state: State) -> list[int]:
    """Every seat's place, 1 for first, equal for a tie (``tiebreak`` decides ties)."""
    phase = state.phase
    return places_of(phase.totals, phase.exact, phase.rules.options["tiebreak"])


def places_of(totals: Sequence[int], exact: Sequence[int], tiebreak: str) -> list[int]:
    """Places from totals; with ``most_exact_bids`` equal totals are ranked by exact bids."""
    if tiebreak == "most_exact_bids":
        keys = list(zip(totals, exact, strict=True))
    else:
        keys = [(t, 0) for t in totals]
    return [1 + sum(other > key for other in keys) for key in keys]


def record(state: State, names: Sequence[str]) -> dict[str, Any]:
    """The game record: options, seed, names and every finished deal in full (JSON-able)."""
    deals = []
    for deal, bids, plays, won, scores, deal_totals in state.history:
        deals.append({
            "deal": deal.number,
            "dealer": deal.dealer,
            "hand_size": deal.size,
            "hands": [names_json(hand) for hand in deal.dealt],
            "trump_card": None if deal.trump_card is None else str(deal.trump_card),
            "trump": None if deal.trump is None else SUITS[deal.trump],
            "bids": [list(b) for b in bids],
            "plays": plays_json(plays),
            "tricks": list(won),
            "scores": list(scores),
            "totals": list(deal_totals),
        })
    return {
        "game": NAME,
        "players": state.rules.players,
        "options": dict(state.rules.options),
        "seed": state.rules.seed,
        **({} if state.rules.preset is None else {"preset": state.rules.preset.to_json()}),
        "names": list(names),
        "deals": deals,
        "scores": totals(state),
        "places": places(state),
        "complete": state.to_act is None,
    }


def replay(game_record: Mapping[str, Any]) -> State:
    """Replay a record from its seed (and preset) and actions, checking every deal, action and score."""
    players = len(game_record["names"])
    preset = game_record.get("preset")
    state = new_game(players, game_record["seed"], game_record["options"],
                     preset=None if preset is None else Preset.parse(preset))
    for index, stored in enumerate(game_record["deals"]):
        where = f"deal {index + 1}"
        deal = state.deal
        if state.to_act is None:
            raise ReplayError(f"{where}: the game was already over")
        expect(where, "dealer", deal.dealer, stored["dealer"])
        expect(where, "hands", [names_json(h) for h in deal.dealt], stored["hands"])
        trump_card = None if deal.trump_card is None else str(deal.trump_card)
        expect(where, "trump_card", trump_card, stored["trump_card"])
        for seat, bid in stored["bids"]:
            state = replay_step(state, where, seat, bid, parse_action, apply)
        for seat, card in stored["plays"]:
            state = replay_step(state, where, seat, card, parse_action, apply)
        if not state.history or state.history[-1][0] is not deal:
            raise ReplayError(f"{where}: the record's plays do not finish the deal")
        _, _, _, won, scores, deal_totals = state.history[-1]
        expect(where, "tricks", list(won), stored["tricks"])
        expect(where, "scores", list(scores), stored["scores"])
        expect(where, "totals", list(deal_totals), stored["totals"])
    if game_record.get("complete", True) and state.to_act is not None:
        raise ReplayError("the record ends before the game does")
    if state.to_act is None:
        expect("game", "scores", totals(state), game_record["scores"])
        expect("game", "places", places(state), game_record["places"])
    return state
