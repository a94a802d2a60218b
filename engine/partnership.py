"""Partnership Blackout: two fixed teams of two, spades trump, one auction round
(docs/rules.md, "Partnership Blackout").

Rules as implemented here:

- Seats 0 and 2 are team 0 (A), seats 1 and 3 team 1 (B). Every deal gives 13 cards to each seat,
  dealt one at a time from dealer+1. Spades are always trump; no card is turned.
- Auction: one round from dealer+1. A call is a number 1..12, ``pass`` or ``zero``. A ``pass`` or
  ``zero`` skips the caller's partner (recorded as the same call, absent from the list of calls) and,
  after the partner's number, cancels it. A team's call is PASS, ZERO, or NUMBER(min(12, sum)).
- NUMBER beats ZERO beats PASS; the higher NUMBER wins; equal NUMBERs or ZERO against ZERO go to the
  team of dealer+1. PASS against PASS: the deal is void (no play, no score; the deal passes on).
- Play: dealer+1 leads. Follow suit if able. ``spade_lead``: ``only_if_only_spades`` (a spade may be
  led only from a hand of spades alone), ``after_broken`` (also once a spade has been played to an
  earlier trick of the deal), ``any``.
- Score (contracting team only; the other scores 0), t its tricks, c its contract: NUMBER c: 13
  tricks scores ``all_tricks``; c <= t < 13 scores ``made`` + ``overtrick`` * (t - c); fewer scores
  ``fail``. ZERO: no trick for either partner scores ``nil``, else ``fail``. With ``contract_points``
  ``per_trick``: a made NUMBER scores ``made`` * c + ``overtrick`` * (t - c) and a failed one
  ``fail`` * c (the rules' 10 * c and -10 * c at the default values); ``all_tricks``, ``nil`` and a
  failed ZERO are unchanged.
- End: after a deal in which a team's total reaches ``target``, the higher total wins; equal totals
  play on. After ``max_deals`` deals (void deals count) the higher total wins, equal totals draw.
- The first dealer is drawn from the game's seed, each deal from a seed derived from it and the
  deal's number. A ``Preset`` (``engine.chance``) may give the first dealer and the first deals.

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
    SPADES,
    SUIT_CARDS,
    Card,
    cards_of,
    mask_of,
    names_of,
)
from engine.chance import Preset, check_deal, check_dealer
from engine.errors import IllegalActionError, InvalidActionError, OptionError, ReplayError, shown
from engine.game import GameInfo
from engine.options import POINTS, ChoiceOption, IntOption, Option, resolve
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
    compact_json,
    hand_json,
    ints_json,
    object_head,
    pairs_json,
    trick_json,
    value_json,
    values_json,
)

NAME: Final = "partnership-blackout"
PLAYER_COUNTS: Final = (4,)
TEAMS: Final = ((0, 2), (1, 3))
NUMBERS: Final = tuple(range(1, 13))
LEGAL_CALLS: Final[tuple[int | str, ...]] = (*NUMBERS, "pass", "zero")
_SPADE_BITS: Final = RANK_BITS << (SPADES * 16)

Call = int | str
Action = Call | Card

MAX_DEALS: Final = 10_000
"""The most deals a game may be set to last (``max_deals``): each is a line of its record."""

OPTIONS: Final[dict[str, Option]] = {
    "target": IntOption(100, 1, POINTS, "the game ends after a deal in which a team reaches this total"),
    "max_deals": IntOption(200, 1, MAX_DEALS, "the game ends after this many deals (void deals count)"),
    "spade_lead": ChoiceOption(("only_if_only_spades", "after_broken", "any"),
                               "when a spade may be led by a hand that holds another suit"),
    "made": IntOption(10, -POINTS, POINTS, "a NUMBER contract made (per contracted trick with per_trick)"),
    "overtrick": IntOption(1, -POINTS, POINTS, "each trick over a made NUMBER contract"),
    "all_tricks": IntOption(40, -POINTS, POINTS, "a NUMBER contract that takes all 13 tricks"),
    "nil": IntOption(40, -POINTS, POINTS, "a ZERO contract made (neither partner takes a trick)"),
    "fail": IntOption(-10, -POINTS, POINTS,
                      "a contract missed (per contracted trick for NUMBER with per_trick)"),
    "contract_points": ChoiceOption(("flat", "per_trick"),
                                    "made and fail score once, or once per contracted trick"),
}


def option_spec(players: int) -> dict[str, Option]:
    """The options (the same for every game: it is always 4 players)."""
    if players != 4:
        raise OptionError(f"partnership-blackout is for exactly 4 players, not {players}")
    return OPTIONS


def resolve_options(players: int, raw: Mapping[str, object] | None = None) -> dict[str, Any]:
    """All options, ``raw`` validated and defaults filled in."""
    return resolve(NAME, option_spec(players), raw)


info: Final = GameInfo(
    name=NAME, title="Partnership Blackout", player_counts=PLAYER_COUNTS, default_players=4,
    teams=TEAMS, decision_kinds=("call", "play"), score_by="team", option_spec=option_spec,
    short_options={"target": 20, "max_deals": 3},
)
"""What Partnership Blackout is, for callers that must not ask its name (``engine.game``)."""


class Rules:
    """The per-game constants every state of one game shares."""

    __slots__ = ("first_dealer", "options", "players", "preset", "seed")

    def __init__(self, seed: int, options: dict[str, Any], preset: Preset | None = None) -> None:
        self.players = 4
        self.options = options
        self.seed = seed
        self.preset = preset
        self.first_dealer = random.Random(derive_seed(seed, "partnership-dealer")).randrange(4)
        if preset is not None:
            check_dealer(preset, 4)
            if preset.dealer is not None:
                self.first_dealer = preset.dealer
            for number, deal in enumerate(preset.deals, start=1):
                check_deal(deal, number, 4, 13, turns=False)

    def contract_score(self, contract: Contract, tricks: Sequence[int]) -> int:
        """The contracting team's score for a deal, given tricks won by seat."""
        team, kind, bid = contract
        o = self.options
        if kind == "zero":
            return int(o["nil"] if tricks[team] + tricks[team + 2] == 0 else o["fail"])
        won = tricks[team] + tricks[team + 2]
        per_trick = o["contract_points"] == "per_trick"
        if won == 13:
            return int(o["all_tricks"])
        if won >= bid:
            return int((o["made"] * bid if per_trick else o["made"]) + o["overtrick"] * (won - bid))
        return int(o["fail"] * bid if per_trick else o["fail"])


Contract = tuple[int, str, int]
"""(team, "number" | "zero", tricks): the contracting team and what it must do."""


class Deal:
    """The constants of one deal: its number, dealer and the hands as dealt."""

    __slots__ = ("dealer", "masks", "number", "view_head")

    def __init__(self, number: int, dealer: int, masks: tuple[int, ...]) -> None:
        self.number = number
        self.dealer = dealer
        self.masks = masks
        """Each seat's hand as dealt, as a bitmask."""
        self.view_head: str | None = None
        """The head of the JSON text of the views of this deal: the fields fixed for the deal."""

    @property
    def dealt(self) -> tuple[tuple[Card, ...], ...]:
        """Each seat's hand as dealt, low to high by suit."""
        return tuple([cards_of(mask) for mask in self.masks])


def deal_cards(rules: Rules, number: int) -> Deal:
    """Deal ``number`` (1-based): the preset's, else shuffled from a seed derived from the game's
    seed and ``number``."""
    dealer = (rules.first_dealer + number - 1) % 4
    preset = rules.preset
    if preset is not None and number <= len(preset.deals):
        return Deal(number, dealer, tuple([mask_of(hand) for hand in preset.deals[number - 1].hands]))
    cards = shuffled_prefix(random.Random(derive_seed(rules.seed, "partnership-deal", number)), 52)
    return Deal(number, dealer, tuple(dealt_masks(cards, dealer, 4, 52)))


DealSummary = tuple[Deal, tuple[tuple[int, Call], ...], Contract | None,
                    tuple[tuple[int, Card], ...], tuple[int, ...], tuple[int, ...],
                    tuple[int, ...]]
"""A finished deal: deal, calls, contract, plays, tricks by seat, scores and totals by team."""


class Phase:
    """The parts of a state that change only between plays: deal, calls, contract, totals."""

    __slots__ = ("calls", "contract", "deal", "history", "kind", "playing", "rules", "totals",
                 "view_base", "view_head")

    def __init__(self, rules: Rules, deal: Deal, calls: tuple[tuple[int, Call], ...],
                 contract: Contract | None, totals: tuple[int, ...],
                 history: tuple[DealSummary, ...], kind: str | None) -> None:
        self.rules = rules
        self.deal = deal
        self.calls = calls
        self.contract = contract
        self.totals = totals
        self.history = history
        self.kind = kind
        self.playing: bool = kind == "play"
        self.view_base: dict[str, object] | None = None  # the view's fields fixed for this phase
        self.view_head: str | None = None  # the same as the head of the view's JSON text


class State(TrickState):
    """One moment of a Partnership Blackout game (see ``TrickState``); ``kind`` is "call" or
    "play"."""

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
        """The kind of action asked now ("call" or "play"); None once the game is over."""
        return self.phase.kind

    @property
    def totals(self) -> tuple[int, ...]:
        """Each team's total before this deal is scored (final totals once over)."""
        return self.phase.totals

    @property
    def history(self) -> tuple[DealSummary, ...]:
        """The finished deals."""
        return self.phase.history

    @property
    def players(self) -> int:
        """The number of seats."""
        return 4

    @property
    def options(self) -> dict[str, Any]:
        """The game's options, defaults filled in."""
        return self.phase.rules.options

    @property
    def seed(self) -> int:
        """The game's seed."""
        return self.phase.rules.seed

    def __repr__(self) -> str:
        return (f"<partnership deal {self.deal_number} {self.kind or 'over'} "
                f"seat {self.to_act}>")


def new_game(players: int, seed: int, options: Mapping[str, object] | None = None, *,
             preset: Preset | None = None) -> State:
    """A new game (``players`` must be 4); the same seed and options give the same game.

    ``preset`` gives the first dealer and the first deals instead of drawing them (PresetError
    when the rules could not have dealt them).
    """
    rules = Rules(seed, resolve_options(players, options), preset)
    return _start_deal(rules, deal_cards(rules, 1), (0, 0), (), ())


def _start_deal(rules: Rules, deal: Deal, totals: tuple[int, ...],
                history: tuple[DealSummary, ...], events: tuple[Event, ...]) -> State:
    first = (deal.dealer + 1) % 4
    phase = Phase(rules, deal, (), None, totals, history, "call")
    return State(phase, deal.masks, None, (), first, (0, 0, 0, 0), first, events + (DEAL_START,),
                 None)


def legal_actions(state: State) -> tuple[Action, ...]:
    """Every action the seat to act may take now (empty when the game is over)."""
    memo = state.legal
    if memo is not None:
        return memo
    seat = state.to_act
    if seat is None:
        return ()
    legal: tuple[Action, ...]
    if not state.phase.playing:
        legal = LEGAL_CALLS
    else:
        mask: int = state.masks[seat]
        current = state.current
        if current:
            led = current[0][1] >> 4
            legal = SUIT_CARDS[led][(mask >> (led << 4)) & RANK_BITS] or cards_of(mask)
        elif mask & ~_SPADE_BITS and not _spade_lead_allowed(state):
            legal = cards_of(mask & ~_SPADE_BITS)
        else:
            legal = cards_of(mask)
    state.legal = legal
    return legal


def _spade_lead_allowed(state: State) -> bool:
    """Whether the leader may lead a spade while holding another suit."""
    rule = state.phase.rules.options["spade_lead"]
    if rule == "any":
        return True
    if rule == "after_broken":
        node = state.played
        while node is not None:
            if node[2] >> 4 == SPADES:
                return True
            node = node[0]
    return False


def parse_action(state: State, raw: object) -> Action:
    """The engine action for a wire value (a call, a card's name); InvalidActionError if none."""
    kind = state.phase.kind
    if kind == "play":
        return raw if type(raw) is Card else Card.parse(raw)
    if kind == "call":
        if raw == "pass" or raw == "zero":
            return "pass" if raw == "pass" else "zero"
        if isinstance(raw, int) and not isinstance(raw, bool):
            return raw
        raise InvalidActionError(f"{shown(raw)} is not a call (1..12, \"pass\" or \"zero\")")
    raise InvalidActionError("the game is over: no action is asked for")


def apply(state: State, action: object) -> State:
    """The state after the seat to act takes ``action``; IllegalActionError if the rules forbid it."""
    phase = state.phase
    if not phase.playing:
        if phase.kind == "call":
            return _call(state, action)
        raise IllegalActionError(f"the game is over: no action {shown(action)} is allowed")
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
    played = (state.played, seat, card)
    if len(trick) < 4:
        return State(phase, tuple(masks), played, trick, state.leader, state.tricks_won,
                     seat + 1 if seat < 3 else 0, JUST_PLAYED, state.plays_seen)
    winner = trick_winner(trick, SPADES)
    won = list(state.tricks_won)
    won[winner] += 1
    new = State(phase, tuple(masks), played, (), winner, tuple(won), winner,
                (("play", seat, card), ("trick", winner, trick)), state.plays_seen)
    if mask:
        return new
    return _end_deal(new, phase.contract)


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
    if state.current:
        led = state.current[0][1] >> 4
        return IllegalActionError(f"seat {seat} played {card}: must follow {SUIT_NAMES[led]}")
    rule = state.phase.rules.options["spade_lead"]
    reason = ("spades are not broken" if rule == "after_broken"
              else "may not lead a spade while holding another suit")
    return IllegalActionError(f"seat {seat} led {card}: {reason}")


def _call(state: State, action: object) -> State:
    seat = state.to_act
    assert seat is not None
    if type(action) is str and (action == "pass" or action == "zero"):
        call: Call = action
    elif type(action) is int and 1 <= action <= 12:
        call = action
    elif isinstance(action, int) and not isinstance(action, bool) and type(action) is not Card:
        raise IllegalActionError(f"seat {seat} called {shown(action)}: a number call is 1..12")
    else:
        raise InvalidActionError(f"seat {seat} called {shown(action)}: not a call")
    phase = state.phase
    calls = phase.calls + ((seat, call),)
    partner = (seat + 2) % 4
    called = {s for s, _ in calls}
    skipped = partner if type(call) is str and partner not in called else None
    events: tuple[Event, ...] = (("call", seat, call, skipped),)
    next_seat = _next_caller(phase.deal.dealer, calls)
    if next_seat is not None:
        new_phase = Phase(phase.rules, phase.deal, calls, None, phase.totals, phase.history, "call")
        return State(new_phase, state.masks, state.played, state.current, state.leader,
                     state.tricks_won, next_seat, events, state.plays_seen)
    contract = auction_winner(phase.deal.dealer, calls)
    if contract is None:  # PASS against PASS: a void deal
        new_phase = Phase(phase.rules, phase.deal, calls, None, phase.totals, phase.history, "play")
        void = State(new_phase, state.masks, state.played, state.current, state.leader,
                     state.tricks_won, state.to_act, events, state.plays_seen)
        return _end_deal(void, None)
    new_phase = Phase(phase.rules, phase.deal, calls, contract, phase.totals, phase.history, "play")
    return State(new_phase, state.masks, state.played, state.current, state.leader,
                 state.tricks_won, state.leader, events, state.plays_seen)


def _next_caller(dealer: int, calls: Sequence[tuple[int, Call]]) -> int | None:
    """The next seat to call, skipping seats whose partner called pass or zero; None when done."""
    done = {seat for seat, _ in calls}
    done |= {(seat + 2) % 4 for seat, call in calls if call in ("pass", "zero")}
    for i in range(1, 5):
        seat = (dealer + i) % 4
        if seat not in done:
            return seat
    return None


def team_call(team: int, calls: Sequence[tuple[int, Call]]) -> tuple[str, int]:
    """A team's call from its members' calls: ("pass", 0), ("zero", 0) or ("number", n)."""
    own = [call for seat, call in calls if seat % 2 == team]
    if "pass" in own:
        return ("pass", 0)
    if "zero" in own:
        return ("zero", 0)
    return ("number", min(12, sum(int(c) for c in own)))


_STRENGTH = {"pass": 0, "zero": 1, "number": 2}


def auction_winner(dealer: int, calls: Sequence[tuple[int, Call]]) -> Contract | None:
    """The contract the calls give, or None for a void deal (both teams pass)."""
    first_team = (dealer + 1) % 2
    kinds = [team_call(team, calls) for team in (0, 1)]
    keys = [(_STRENGTH[kind], n) for kind, n in kinds]
    if keys[0] == keys[1]:
        if kinds[0][0] == "pass":
            return None
        team = first_team
    else:
        team = 0 if keys[0] > keys[1] else 1
    kind, n = kinds[team]
    return (team, kind, n)


def _end_deal(state: State, contract: Contract | None) -> State:
    """Score the deal just finished (or void), then start the next deal or end the game."""
    phase = state.phase
    rules = phase.rules
    won = state.tricks_won
    scores = [0, 0]
    if contract is not None:
        scores[contract[0]] = rules.contract_score(contract, won)
    totals = (phase.totals[0] + scores[0], phase.totals[1] + scores[1])
    summary: DealSummary = (phase.deal, phase.calls, contract, plays_in_order(state.played), won,
                            tuple(scores), totals)
    history = phase.history + (summary,)
    events = state.last_events + (DEAL_END,)
    options = rules.options
    reached = max(totals) >= options["target"] and totals[0] != totals[1]
    if reached or phase.deal.number >= options["max_deals"]:
        over = Phase(rules, phase.deal, phase.calls, contract, totals, history, None)
        return State(over, state.masks, state.played, state.current, state.leader, won, None,
                     events, state.plays_seen)
    return _start_deal(rules, deal_cards(rules, phase.deal.number + 1), totals, history, events)


# --- What a seat may know -------------------------------------------------------------------


def contract_json(contract: Contract | None) -> dict[str, Any] | None:
    """The record's and the view's form of a contract."""
    if contract is None:
        return None
    team, kind, tricks = contract
    return {"team": team, "kind": kind, "tricks": tricks}


def view(state: State, seat: int) -> dict[str, Any]:
    """Everything ``seat`` may know now: its own hand and the public state, nothing hidden.

    Values nested in a view (the options, the calls...) are shared by the views of one phase of
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
        base = {**_deal_view(phase), "calls": [[s, c] for s, c in phase.calls],
                "contract": contract_json(phase.contract), "totals": list(phase.totals)}
        phase.view_base = base
    return base


def _deal_view(phase: Phase) -> dict[str, object]:
    """The view's first fields, those fixed for the whole deal."""
    return {
        "game": NAME, "players": 4, "options": dict(phase.rules.options),
        "teams": [list(t) for t in TEAMS], "deal": phase.deal.number,
        "dealer": phase.deal.dealer, "trump_card": None, "trump": "S",
    }


def view_json(state: State, seat: int) -> str:
    """``view(state, seat)`` as compact JSON text (what orjson gives for the dict).

    The head of the text is rendered once per phase (every call makes a new phase), from the
    deal's fixed fields rendered once per deal.
    """
    phase = state.phase
    head = phase.view_head
    if head is None:
        deal = phase.deal
        deal_head = deal.view_head
        if deal_head is None:
            deal_head = deal.view_head = object_head(_deal_view(phase))
        head = phase.view_head = (f'{deal_head}"calls":{pairs_json(phase.calls)},'
                                  f'"contract":{compact_json(contract_json(phase.contract))},'
                                  f'"totals":{ints_json(phase.totals)},')
    return head + view_tail_json(state, seat)


def legal_json(state: State) -> str:
    """``legal_actions(state)`` in their wire form as a JSON list: card names, or calls."""
    legal = legal_actions(state)
    if state.phase.playing:
        return cards_json(legal)  # type: ignore[arg-type]  # cards while playing
    return _CALLS_JSON if legal is LEGAL_CALLS else values_json(legal)


_CALLS_JSON: Final = values_json(LEGAL_CALLS)


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
    if kind == "call":
        return {"type": "event", "event": "call", "seat": event[1], "call": event[2],
                "skipped": event[3]}
    if kind == "trick":
        trick: Trick = event[2]  # type: ignore[assignment]
        return {"type": "event", "event": "trick", "winner": event[1], "cards": plays_json(trick)}
    if kind == "deal_end":
        deal, calls, contract, _, won, scores, deal_totals = state.phase.history[-1]
        return {"type": "event", "event": "deal_end", "deal": deal.number,
                "calls": [[s, c] for s, c in calls], "contract": contract_json(contract),
                "tricks": list(won), "scores": list(scores), "totals": list(deal_totals)}
    deal = state.phase.deal  # deal_start
    return {"type": "deal_start", "deal": deal.number, "dealer": deal.dealer,
            "hand": names_json(state.hand(seat)), "trump_card": None, "trump": "S"}


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
    if kind == "call":
        return (f'{{"type":"event","event":"call","seat":{event[1]},"call":{value_json(event[2])},'
                f'"skipped":{value_json(event[3])}}}\n')
    if kind == "deal_end":
        deal, calls, contract, _, won, scores, deal_totals = state.phase.history[-1]
        return (f'{{"type":"event","event":"deal_end","deal":{deal.number},'
                f'"calls":{pairs_json(calls)},"contract":{_contract_text(contract)},'
                f'"tricks":{ints_json(won)},"scores":{ints_json(scores)},'
                f'"totals":{ints_json(deal_totals)}}}\n')
    deal = state.phase.deal  # deal_start
    return (f'{{"type":"deal_start","deal":{deal.number},"dealer":{deal.dealer},'
            f'"hand":{hand_json(state.masks[seat])},"trump_card":null,"trump":"S"}}\n')


def _contract_text(contract: Contract | None) -> str:
    if contract is None:
        return "null"
    team, kind, tricks = contract
    return f'{{"team":{team},"kind":"{kind}","tricks":{tricks}}}'


# --- Results and records ----------------------------------------------------------------------


def totals(state: State) -> list[int]:
    """Each team's running (final, once over) total."""
    return list(state.phase.totals)


def places(state: State) -> list[int]:
    """Each team's place: 1 for the higher total, 1 and 1 for a draw."""
    a, b = state.phase.totals
    return [1 + (b > a), 1 + (a > b)]


def record(state: State, names: Sequence[str]) -> dict[str, Any]:
    """The game record: options, seed, names and every finished deal in full (JSON-able)."""
    deals = []
    for deal, calls, contract, plays, won, scores, deal_totals in state.phase.history:
        deals.append({
            "deal": deal.number,
            "dealer": deal.dealer,
            "hands": [names_json(hand) for hand in deal.dealt],
            "trump_card": None,
            "trump": "S",
            "calls": [list(c) for c in calls],
            "contract": contract_json(contract),
            "plays": plays_json(plays),
            "tricks": list(won),
            "scores": list(scores),
            "totals": list(deal_totals),
        })
    return {
        "game": NAME,
        "players": 4,
        "options": dict(state.phase.rules.options),
        "seed": state.phase.rules.seed,
        **({} if state.phase.rules.preset is None
           else {"preset": state.phase.rules.preset.to_json()}),
        "names": list(names),
        "teams": [list(t) for t in TEAMS],
        "deals": deals,
        "scores": totals(state),
        "places": places(state),
        "complete": state.to_act is None,
    }


def replay(game_record: Mapping[str, Any]) -> State:
    """Replay a record from its seed (and preset) and actions, checking every deal, action and score."""
    preset = game_record.get("preset")
    state = new_game(4, game_record["seed"], game_record["options"],
                     preset=None if preset is None else Preset.parse(preset))
    for index, stored in enumerate(game_record["deals"]):
        where = f"deal {index + 1}"
        deal = state.phase.deal
        if state.to_act is None:
            raise ReplayError(f"{where}: the game was already over")
        expect(where, "dealer", deal.dealer, stored["dealer"])
        expect(where, "hands", [names_json(h) for h in deal.dealt], stored["hands"])
        for seat, call in stored["calls"]:
            state = replay_step(state, where, seat, call, parse_action, apply)
        if state.phase.kind == "play" and state.phase.deal is deal:
            expect(where, "contract", contract_json(state.phase.contract), stored["contract"])
        for seat, card in stored["plays"]:
            state = replay_step(state, where, seat, card, parse_action, apply)
        history = state.phase.history
        if not history or history[-1][0] is not deal:
            raise ReplayError(f"{where}: the record's calls and plays do not finish the deal")
        _, _, contract, _, won, scores, deal_totals = history[-1]
        expect(where, "contract", contract_json(contract), stored["contract"])
        expect(where, "tricks", list(won), stored["tricks"])
        expect(where, "scores", list(scores), stored["scores"])
        expect(where, "totals", list(deal_totals), stored["totals"])
    if game_record.get("complete", True) and state.to_act is not None:
        raise ReplayError("the record ends before the game does")
    if state.to_act is None:
        expect("game", "scores", totals(state), game_record["scores"])
        expect("game", "places", places(state), game_record["places"])
    return state
