"""The trick-taking game both games are: deal after deal, an auction and then tricks.

A game (``engine.blackout``, ``engine.partnership``) is its own rules: a ``Rules`` subclass that
deals, runs the auction (bids, calls), says which cards may be led and which played when void in
the suit led, scores a deal, says when the game ends and what its auction looks like in messages;
its options and its ``GameInfo``. All the rest is here, once: the state, playing a card, the flow
from deal to deal, what a seat may see, records and their replay. Each game module gives its
``GAME``, a ``TrickGame``: its own info, options and ``new_game`` with this module's functions, the
``Game`` interface the arena asks for (``engine.game``).

Every message has one rendering. An event is rendered as the JSON line a bot is sent (the
referee's hot path, ``engine.wire``); its dict form (``events``) is parsed from that line. The
view's fields fixed for a deal or a phase are dicts, and its text encodes them; the fields that
change at every play are rendered twice, a dict and text, for speed, and a test holds the two to
the same bytes (tests/engine/test_wire.py).

A state is an immutable value split in two: a ``Phase`` (the deal, its auction, the totals: what
changes only between plays) and the fields a play changes (hands as bitmasks, the linked list of
plays, the trick, tricks won, whose turn, and the legal actions, worked out as it is built). A play
builds a new state sharing the phase, which is what keeps ``apply`` cheap. Nothing writes a state,
a phase, a deal or a finished deal once it is built: what rendering one decision's view can reuse
for the next (the plays named so far, a deal's and a phase's fixed fields) is remembered outside
them, by a ``TrickRenderer`` that whoever renders a game's states in order keeps (the referee, one
per game). Cards inside a state are plain ints (``suit * 16 + rank``); what a caller
reads (``trick``, ``plays``, ``hand``) gives ``Card`` values. The classes are plain classes with
typed fields, built by their constructors, so that mypyc compiles them to native classes (``make
compiled``); a game's ``Rules`` subclass is one too.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from engine.cards import CARD_BY_VALUE, NAME_OF, RANK_BITS, SUIT_CARDS, Card, cards_of, names_of
from engine.chance import Preset, PresetDeal
from engine.errors import IllegalActionError, InvalidActionError, ReplayError, shown
from engine.game import GameInfo
from engine.trick import NO_TRUMP, SUIT_NAMES, Plays, Trick, plays_in_order, trick_winner
from engine.wire import (
    PLAY_EVENT,
    PLAY_JSON,
    card_json,
    card_name,
    cards_json,
    counts_json,
    hand_json,
    ints_json,
    object_head,
    plays_list,
    suit_json,
    suit_name,
    trick_json,
    values_json,
)

Action = int | str
"""A bid or call (int, or a word such as ``pass``) or a card (a ``Card``, itself an int)."""
Auction = tuple[tuple[int, Action], ...]
"""A deal's bids or calls so far, in order, as (seat, action)."""
Contract = tuple[int, str, int]
"""(team, "number" | "zero", tricks): what an auction that makes contracts settled."""

Event = tuple[object, ...]
"""One thing the last transition did: ``("play", seat, card)``, ``("trick", winner, trick)``, the
game's auction event (``("bid", seat, bid)``, ``("call", seat, call, skipped)``), ``("deal_end",)``,
``("deal_start",)``."""
PLAY_EVENT_KEY: Final[Event] = ("play",)
JUST_PLAYED: Final[tuple[Event, ...]] = (PLAY_EVENT_KEY,)
"""``last_events`` after a play that did not end a trick: the play is the head of ``played``.
Shared, so the most frequent transition allocates no event tuples."""
DEAL_START: Final[Event] = ("deal_start",)
DEAL_END: Final[Event] = ("deal_end",)

# --- The values: deals, phases, states -----------------------------------------------------------


class Deal:
    """The constants of one deal: its number, dealer, hand size, the hands as dealt and trump."""

    __slots__ = ("dealer", "masks", "number", "size", "trump", "trump_card", "trump_suit")

    def __init__(self, number: int, dealer: int, size: int, masks: tuple[int, ...],
                 trump_card: Card | None, trump: int | None) -> None:
        self.number: Final = number
        self.dealer: Final = dealer
        self.size: Final = size
        self.masks: Final = masks
        """Each seat's hand as dealt, as a bitmask."""
        self.trump_card: Final = trump_card
        """The card turned for trump, None when none is."""
        self.trump: Final = trump
        """The trump suit, None for a deal without trump."""
        self.trump_suit: Final[int] = NO_TRUMP if trump is None else trump

    @property
    def dealt(self) -> tuple[tuple[Card, ...], ...]:
        """Each seat's hand as dealt, low to high by suit."""
        return tuple([cards_of(mask) for mask in self.masks])


class DealResult:
    """A finished deal: the deal, its auction (and contract), its plays, tricks won by seat,
    scores and totals (by seat or by team, as the game scores)."""

    __slots__ = ("auction", "contract", "deal", "plays", "scores", "totals", "tricks")

    def __init__(self, deal: Deal, auction: Auction, contract: Contract | None,
                 plays: tuple[tuple[int, Card], ...], tricks: tuple[int, ...],
                 scores: tuple[int, ...], totals: tuple[int, ...]) -> None:
        self.deal: Final = deal
        self.auction: Final = auction
        self.contract: Final = contract
        self.plays: Final = plays
        self.tricks: Final = tricks
        self.scores: Final = scores
        self.totals: Final = totals


class Rules:
    """One game's constants and its own rules. Each game subclasses it; a method that raises
    NotImplementedError is one a game must give, the others have the plain rule."""

    __slots__ = ("auction_key", "entrants", "info", "limits_lead", "limits_void", "options",
                 "players", "preset", "seed")

    def __init__(self, info: GameInfo, auction_key: str, players: int, seed: int,
                 options: dict[str, Any], preset: Preset | None) -> None:
        self.info = info
        self.auction_key = auction_key
        """The key of a deal's bids or calls in views, events and records (``bids``, ``calls``)."""
        self.players = players
        self.entrants: int = players if info.teams is None else len(info.teams)
        """How many totals the game keeps: one per seat, or one per team."""
        self.seed = seed
        self.options = options
        self.preset = preset
        self.limits_lead = False
        """Whether ``lead_cards`` may refuse a card (else any card may be led, without asking)."""
        self.limits_void = False
        """Whether ``void_cards`` may refuse a card (else a seat void in the suit led may play any
        card, without asking)."""

    def deal(self, number: int) -> Deal:
        """Deal ``number`` (1 for the first)."""
        raise NotImplementedError

    def auction_actions(self, state: State) -> tuple[Action, ...]:
        """Every bid or call the seat to act may make."""
        raise NotImplementedError

    def parse_auction(self, raw: object) -> Action:
        """The bid or call for a wire value; InvalidActionError when it is not one."""
        raise NotImplementedError

    def auction(self, state: State, action: object) -> State:
        """The state after the seat to act bids or calls ``action`` (``after_auction``)."""
        raise NotImplementedError

    def lead_cards(self, state: State, mask: int) -> tuple[Card, ...]:
        """The cards the leader (holding ``mask``) may lead: any."""
        return cards_of(mask)

    def void_cards(self, state: State, mask: int) -> tuple[Card, ...]:
        """The cards a seat void in the suit led (holding ``mask``) may play: any."""
        return cards_of(mask)

    def play_restriction(self, state: State, seat: int, card: Card) -> str:
        """Why ``card``, in the hand of ``seat`` and following suit, is not one of its legal plays
        (the restriction of ``lead_cards`` or ``void_cards``)."""
        raise NotImplementedError

    def deal_scores(self, phase: Phase, tricks: tuple[int, ...]) -> tuple[int, ...]:
        """The finished deal's scores (``entrants`` of them), given tricks won by seat."""
        raise NotImplementedError

    def is_last_deal(self, deal: Deal, totals: tuple[int, ...]) -> bool:
        """Whether the game ends after ``deal``, with these totals."""
        raise NotImplementedError

    def deal_score_range(self) -> tuple[int, int]:
        """The lowest and the highest score one entrant can take in one deal of this game (its
        options, its deals' sizes): the bounds of ``deal_scores``, whatever is dealt and played."""
        raise NotImplementedError

    @property
    def most_deals(self) -> int:
        """The most deals a game can last."""
        raise NotImplementedError

    def places(self, phase: Phase) -> list[int]:
        """The places, 1 for first, of the totals of ``phase``."""
        raise NotImplementedError

    def auction_fields(self, auction: Auction, contract: Contract | None) -> dict[str, object]:
        """A deal's auction as views, ``deal_end`` events and records show it: the bids or calls
        (under ``auction_key``), and what else the game's auction settles."""
        raise NotImplementedError

    def auction_line(self, event: Event) -> str:
        """The JSON line of a bid's or a call's event (the game's own auction event)."""
        raise NotImplementedError

    def view_deal_fields(self, deal: Deal) -> dict[str, object]:
        """What a game's view adds about a deal after its number: nothing."""
        return {}

    def record_deal_fields(self, deal: Deal) -> dict[str, object]:
        """What a game's record adds about a deal after its dealer: nothing."""
        return {}


class Phase:
    """The parts of a state that change only between plays: the deal, its auction, the totals.

    Shared by every state of one deal's play, so that a play copies few fields.
    """

    __slots__ = ("auction", "contract", "deal", "history", "kind", "playing", "rules", "totals")

    def __init__(self, rules: Rules, deal: Deal, auction: Auction, contract: Contract | None,
                 totals: tuple[int, ...], history: tuple[DealResult, ...], kind: str | None) -> None:
        self.rules: Final = rules
        self.deal: Final = deal
        self.auction: Final = auction
        self.contract: Final = contract
        """What the auction settled, in a game whose auction makes a contract (else None)."""
        self.totals: Final = totals
        self.history: Final = history
        self.kind: Final = kind
        self.playing: Final[bool] = kind == "play"

    @property
    def bids(self) -> Auction:
        """The auction under Blackout's word for it."""
        return self.auction

    @property
    def calls(self) -> Auction:
        """The auction under Partnership Blackout's word for it."""
        return self.auction


class State:
    """One moment of a game: an immutable value (``apply`` builds a new one). Its fields, and those
    of its phase, deal and finished deals, are ``Final``: mypy refuses a write to one anywhere
    but its constructor, and the compiled build refuses one at run time.

    ``to_act`` is the seat to act (None when the game is over). Hands are bitmasks (bit ``card``);
    ``hand(seat)`` gives the cards.
    """

    __slots__ = (
        "current",
        "last_events",
        "leader",
        "legal",
        "masks",
        "phase",
        "played",
        "to_act",
        "tricks_won",
    )

    def __init__(self, phase: Phase, masks: tuple[int, ...], played: Plays, current: Trick,
                 leader: int, tricks_won: tuple[int, ...], to_act: int | None,
                 last_events: tuple[Event, ...]) -> None:
        self.phase: Final = phase
        self.masks: Final = masks
        self.played: Final = played
        self.current: Final = current
        """The trick on the table as (seat, card) with plain int cards (``trick`` gives Cards)."""
        self.leader: Final = leader
        self.tricks_won: Final = tricks_won
        self.to_act: Final = to_act
        self.last_events: Final = last_events
        self.legal: Final[tuple[Action, ...]] = _legal(self)
        """``legal_actions(self)``: worked out here, as the state is built (every state but the
        last of a deal is asked it: the referee sends it, ``apply`` checks an action against it)."""

    @property
    def trick(self) -> tuple[tuple[int, Card], ...]:
        """The trick on the table so far, in order, as (seat, card)."""
        return tuple([(seat, CARD_BY_VALUE[card]) for seat, card in self.current])

    @property
    def plays(self) -> tuple[tuple[int, Card], ...]:
        """This deal's plays so far, in order, as (seat, card)."""
        return plays_in_order(self.played)

    def hand(self, seat: int) -> tuple[Card, ...]:
        """The cards ``seat`` holds now, low to high by suit (referee only: hidden information)."""
        return cards_of(self.masks[seat])

    @property
    def is_over(self) -> bool:
        """Whether the game has ended."""
        return self.to_act is None

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
        """The kind of action asked now (``GameInfo.decision_kinds``); None once the game is over."""
        return self.phase.kind

    @property
    def totals(self) -> tuple[int, ...]:
        """The totals before this deal is scored (final totals once over)."""
        return self.phase.totals

    @property
    def history(self) -> tuple[DealResult, ...]:
        """The finished deals."""
        return self.phase.history

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
        return (f"<{self.phase.rules.info.name} deal {self.deal_number} {self.kind or 'over'} "
                f"seat {self.to_act}>")


# --- The game as the arena sees it ------------------------------------------------------------


class TrickGame:
    """One trick-taking game as the ``Game`` interface (``engine.game``) gives it: the game's own
    ``info``, options and ``new_game`` (its module's), and this module's functions over its states,
    which are the same for every game."""

    __slots__ = ("apply", "events", "events_json", "info", "legal_actions", "legal_json",
                 "new_game", "parse_action", "places", "record", "resolve_options",
                 "shared_events_json", "totals", "view", "view_json")

    def __init__(self, info: GameInfo,
                 resolve_options: Callable[..., dict[str, Any]],
                 new_game: Callable[..., State]) -> None:
        self.info = info
        self.resolve_options = resolve_options
        self.new_game = new_game
        # Functions, not methods: the referee calls them at every decision.
        self.legal_actions = legal_actions
        self.parse_action = parse_action
        self.apply = apply
        self.view = view
        self.view_json = view_json
        self.legal_json = legal_json
        self.events = events
        self.events_json = events_json
        self.shared_events_json = shared_events_json
        self.totals = totals
        self.places = places
        self.record = record

    def replay(self, game_record: Mapping[str, Any]) -> State:
        """The final state of a record, every step checked (``replay``)."""
        return replay(self.new_game, game_record)

    def renderer(self) -> TrickRenderer:
        """A renderer of one game's states, remembering what it rendered last (``TrickRenderer``)."""
        return TrickRenderer()

    def deal_score_range(self, players: int, options: Mapping[str, object] | None = None
                         ) -> tuple[int, int]:
        """The lowest and the highest score one entrant can take in one deal of a game with these
        players and options (``Rules.deal_score_range``); OptionError for options it refuses."""
        return self.new_game(players, 0, options).rules.deal_score_range()

    def drawn_preset(self, players: int, seed: int, options: Mapping[str, object] | None = None,
                     deals: int | None = None) -> Preset:
        """The chance steps ``seed`` draws, as a preset: the first dealer and the first ``deals``
        deals (every deal the game can last when None, or when it lasts fewer)."""
        rules = self.new_game(players, seed, options).rules
        count = rules.most_deals if deals is None else min(deals, rules.most_deals)
        dealt = [rules.deal(number) for number in range(1, count + 1)]
        return Preset(dealt[0].dealer, tuple(PresetDeal(deal.dealt, deal.trump_card)
                                             for deal in dealt))

    def __repr__(self) -> str:
        return f"<game {self.info.name}>"


# --- Playing ----------------------------------------------------------------------------------


def start_game(rules: Rules) -> State:
    """A new game of ``rules``: its first deal, every total 0."""
    zeros = (0,) * rules.entrants
    return _start_deal(rules, rules.deal(1), zeros, (), ())


def _start_deal(rules: Rules, deal: Deal, totals: tuple[int, ...],
                history: tuple[DealResult, ...], events: tuple[Event, ...]) -> State:
    first = (deal.dealer + 1) % rules.players
    phase = Phase(rules, deal, (), None, totals, history, rules.info.decision_kinds[0])
    return State(phase, deal.masks, None, (), first, (0,) * rules.players, first,
                 events + (DEAL_START,))


def legal_actions(state: State) -> tuple[Action, ...]:
    """Every action the seat to act may take now (empty when the game is over)."""
    return state.legal


def _legal(state: State) -> tuple[Action, ...]:
    """The legal actions of ``state``, which is being built (its other fields are set)."""
    seat = state.to_act
    if seat is None:
        return ()
    phase = state.phase
    legal: tuple[Action, ...]
    if phase.playing:
        mask: int = state.masks[seat]
        current = state.current
        rules = phase.rules
        if current:
            led = current[0][1] >> 4
            legal = SUIT_CARDS[led][(mask >> (led << 4)) & RANK_BITS]
            if not legal:
                legal = rules.void_cards(state, mask) if rules.limits_void else cards_of(mask)
        else:
            legal = rules.lead_cards(state, mask) if rules.limits_lead else cards_of(mask)
    else:
        legal = phase.rules.auction_actions(state)
    return legal


def parse_action(state: State, raw: object) -> Action:
    """The engine action for a wire value (a bid or call, a card's name); InvalidActionError if none."""
    phase = state.phase
    if phase.playing:
        return raw if type(raw) is Card else Card.parse(raw)
    if phase.kind is None:
        raise InvalidActionError("the game is over: no action is asked for")
    return phase.rules.parse_auction(raw)


def apply(state: State, action: object) -> State:
    """The state after the seat to act takes ``action``; IllegalActionError if the rules forbid it."""
    phase = state.phase
    if not phase.playing:
        if phase.kind is not None:
            return phase.rules.auction(state, action)
        raise IllegalActionError(f"the game is over: no action {shown(action)} is allowed")
    # Playing a card: the hot path, kept in one function.
    seat = state.to_act
    assert seat is not None
    legal = state.legal
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
                     seat + 1 if seat + 1 < players else 0, JUST_PLAYED)
    winner = trick_winner(trick, phase.deal.trump_suit)
    won = list(state.tricks_won)
    won[winner] += 1
    new = State(phase, tuple(masks), played, (), winner, tuple(won), winner,
                (("play", seat, card), ("trick", winner, trick)))
    if mask:
        return new
    return end_deal(new)


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
        if card >> 4 != led and any(c >> 4 == led for c in hand):
            return IllegalActionError(f"seat {seat} played {card}: must follow {SUIT_NAMES[led]}")
    return IllegalActionError(state.phase.rules.play_restriction(state, seat, card))


def after_auction(state: State, auction: Auction, contract: Contract | None, kind: str,
                  to_act: int, events: tuple[Event, ...]) -> State:
    """The state after a bid or call: the auction so far (and its contract, once settled), the
    kind of decision asked next and of whom, and the events of the bid or call."""
    phase = state.phase
    new_phase = Phase(phase.rules, phase.deal, auction, contract, phase.totals, phase.history, kind)
    return State(new_phase, state.masks, state.played, state.current, state.leader,
                 state.tricks_won, to_act, events)


def end_deal(state: State) -> State:
    """Score the deal finished in ``state`` (its tricks played, or void), then start the next
    deal or end the game."""
    phase = state.phase
    rules = phase.rules
    won = state.tricks_won
    scores = rules.deal_scores(phase, won)
    totals = tuple([total + score for total, score in zip(phase.totals, scores, strict=True)])
    result = DealResult(phase.deal, phase.auction, phase.contract, plays_in_order(state.played),
                        won, scores, totals)
    history = phase.history + (result,)
    events = state.last_events + (DEAL_END,)
    if rules.is_last_deal(phase.deal, totals):
        over = Phase(rules, phase.deal, phase.auction, phase.contract, totals, history, None)
        return State(over, state.masks, state.played, state.current, state.leader, won, None,
                     events)
    return _start_deal(rules, rules.deal(phase.deal.number + 1), totals, history, events)


# --- What a seat may know -------------------------------------------------------------------


class TrickRenderer:
    """What one game's states render to for its seats, views and event lines, remembering what it
    rendered last so that the next decision's view costs what changed, not the whole deal: the
    fields fixed for the deal and for the phase, the deal's plays named (``view``) and rendered
    (``view_json``) so far, and the last ``deal_end`` line (every seat is sent it).

    The states are immutable values and hold no such memo: a renderer is the cache, kept by
    whoever renders one game's states in order (the referee keeps one per game). Each memo is of
    the last thing rendered, recognised by identity, so a renderer given states out of order or
    of another game renders them right and only remembers less. The module's ``view``,
    ``view_json``, ``events_json`` and ``shared_events_json`` render with a fresh one.

    Values nested in a view (the options, the bids...) are shared by the views one renderer
    makes of one phase of a deal: read them, do not change them.
    """

    __slots__ = ("base", "base_phase", "deal", "deal_head", "head", "head_phase", "named",
                 "named_head", "result", "result_line", "text", "text_head")

    def __init__(self) -> None:
        self.base_phase: Phase | None = None
        self.base: dict[str, object] = {}
        """The view's fields fixed for ``base_phase``."""
        self.head_phase: Phase | None = None
        self.head = ""
        """The head of the JSON text of ``head_phase``'s views: the fields fixed for the phase."""
        self.deal: Deal | None = None
        self.deal_head = ""
        """The head of the JSON text of ``deal``'s views: the fields fixed for the deal."""
        self.named_head: Plays = None
        self.named: tuple[tuple[int, str], ...] = ()
        """The plays up to ``named_head``, named: ``((seat, "QS"), ...)``."""
        self.text_head: Plays = None
        self.text = ""
        """The plays up to ``text_head`` as the items of a JSON list, ``[0,"2C"],[1,"QS"]``."""
        self.result: DealResult | None = None
        self.result_line = ""
        """The ``deal_end`` line of ``result``."""

    def view(self, state: State, seat: int) -> dict[str, Any]:
        """Everything ``seat`` may know now: its own hand and the public state, nothing hidden.

        The fields after the phase's are rendered again by ``view_json``, for speed: a test holds
        the two to the same bytes.
        """
        phase = state.phase
        if phase is not self.base_phase:
            self.base = {**_deal_view(phase.rules, phase.deal), **_phase_view(phase)}
            self.base_phase = phase
        return {
            **self.base,
            "seat": seat,
            "hand": [] if state.to_act is None else names_of(state.masks[seat]),
            "plays": self._plays_named(state.played),
            "trick": plays_list(state.current),
            "leader": state.leader,
            "tricks_won": list(state.tricks_won),
        }

    def view_json(self, state: State, seat: int) -> str:
        """``view(state, seat)`` as compact JSON text (what orjson gives for the dict).

        The head of the text is encoded once per phase (every bid or call makes a new phase)
        from the phase's fields as ``view`` holds them, after the deal's fixed fields, encoded
        once per deal. The rest ends every view: the trick on the table is the last plays of the
        deal, so its text is the end of the plays' text (every play renders to 8 characters,
        ``[0,"2C"]``, with a comma between two).
        """
        phase = state.phase
        if phase is not self.head_phase:
            deal = phase.deal
            if deal is not self.deal:
                self.deal_head = object_head(_deal_view(phase.rules, deal))
                self.deal = deal
            self.head = self.deal_head + object_head(_phase_view(phase))[1:]
            self.head_phase = phase
        hand = "[]" if state.to_act is None else hand_json(state.masks[seat])
        plays = self._plays_text(state.played)
        on_table = len(state.current)
        trick = plays[len(plays) + 1 - 9 * on_table:] if on_table else ""
        return (f'{self.head}"seat":{seat},"hand":{hand},"plays":[{plays}],"trick":[{trick}],'
                f'"leader":{state.leader},"tricks_won":{counts_json(state.tricks_won)}}}')

    def _plays_named(self, head: Plays) -> tuple[tuple[int, str], ...]:
        """The deal's plays up to ``head`` as ``((seat, "QS"), ...)``, extending the names of the
        last view.

        Views come one decision after another, so usually one play is new: naming only the new
        plays keeps a view's cost flat instead of growing with the deal.
        """
        known_head = self.named_head
        known = self.named
        if known_head is head:
            return known
        new: list[tuple[int, str]] = []
        node = head
        while node is not None and node is not known_head:
            earlier, seat, card = node
            new.append((seat, NAME_OF[card]))
            node = earlier
        if node is not known_head:  # the named plays belong to another deal, or come later
            known = ()
        new.reverse()
        names = known + tuple(new)
        self.named_head = head
        self.named = names
        return names

    def _plays_text(self, head: Plays) -> str:
        """The deal's plays up to ``head`` as the items of a JSON list, ``[0,"2C"],[1,"QS"]``,
        extending the text of the last JSON view (as ``_plays_named`` extends its names, in a
        loop of its own: this one runs at every decision)."""
        text_head = self.text_head
        text = self.text
        if text_head is head:
            return text
        new: list[str] = []
        node = head
        while node is not None and node is not text_head:
            earlier, seat, card = node
            new.append(PLAY_JSON[seat][card])
            node = earlier
        if node is not text_head or not text:  # the rendered plays belong to another deal
            text = ""
        else:
            new.append(text)
        new.reverse()
        text = ",".join(new)
        self.text_head = head
        self.text = text
        return text

    def events_json(self, state: State, seat: int) -> str:
        """The protocol messages the last transition produced, as ``seat`` may see them: JSON
        lines, each ending in a newline."""
        return "".join([self._event_line(state, event, seat) for event in state.last_events])

    def shared_events_json(self, state: State) -> str | None:
        """The JSON lines of the last transition's events when every seat sees the same (None
        when a deal starts: each seat sees its own hand)."""
        last = state.last_events
        if last is JUST_PLAYED:  # the most frequent transition: one play, a line from a table
            node = state.played
            assert node is not None
            return PLAY_EVENT[node[1]][node[2]]
        if last[-1] is DEAL_START:
            return None
        return "".join([self._event_line(state, event, 0) for event in last])

    def _event_line(self, state: State, event: Event, seat: int) -> str:
        """One event's JSON line, as ``seat`` sees it."""
        kind = event[0]
        if kind == "play":
            seat_played, card = _played(state, event)
            return PLAY_EVENT[seat_played][card]
        if kind == "trick":
            trick: Trick = event[2]  # type: ignore[assignment]
            return f'{{"type":"event","event":"trick","winner":{event[1]},"cards":{trick_json(trick)}}}\n'
        phase = state.phase
        if kind == "deal_end":
            result = phase.history[-1]
            if result is not self.result:
                self.result_line = _deal_end_line(phase.rules, result)
                self.result = result
            return self.result_line
        if kind == "deal_start":
            deal = phase.deal
            return (f'{{"type":"deal_start","deal":{deal.number},"dealer":{deal.dealer},'
                    f'"hand":{hand_json(state.masks[seat])},"trump_card":{card_json(deal.trump_card)},'
                    f'"trump":{suit_json(deal.trump)}}}\n')
        return phase.rules.auction_line(event)


def view(state: State, seat: int) -> dict[str, Any]:
    """Everything ``seat`` may know now: its own hand and the public state, nothing hidden
    (``TrickRenderer.view``, rendered afresh)."""
    return TrickRenderer().view(state, seat)


def view_json(state: State, seat: int) -> str:
    """``view(state, seat)`` as compact JSON text, the bytes orjson gives for the dict
    (``TrickRenderer.view_json``, rendered afresh)."""
    return TrickRenderer().view_json(state, seat)


def _deal_view(rules: Rules, deal: Deal) -> dict[str, object]:
    """The view's first fields, those fixed for the whole deal."""
    info = rules.info
    return {"game": info.name, "players": rules.players, "options": dict(rules.options),
            **_teams(info), "deal": deal.number, **rules.view_deal_fields(deal),
            "dealer": deal.dealer, "trump_card": card_name(deal.trump_card),
            "trump": suit_name(deal.trump)}


def _phase_view(phase: Phase) -> dict[str, object]:
    """The view's fields fixed for a phase: the auction so far, the totals."""
    return {**phase.rules.auction_fields(phase.auction, phase.contract),
            "totals": list(phase.totals)}


def _teams(info: GameInfo) -> dict[str, object]:
    """``{"teams": [[0, 2], [1, 3]]}`` in a team game's views and records; nothing otherwise."""
    return {} if info.teams is None else {"teams": [list(team) for team in info.teams]}


_AUCTION_JSON: Final[dict[tuple[Action, ...], str]] = {}


def legal_json(state: State) -> str:
    """``legal_actions(state)`` in their wire form as a JSON list: card names, or bids or calls
    (a game has few distinct lists of those, each remembered)."""
    legal = state.legal
    if state.phase.playing:
        return cards_json(legal)  # type: ignore[arg-type]  # cards while playing
    text = _AUCTION_JSON.get(legal)
    if text is None:
        text = _AUCTION_JSON[legal] = values_json(legal)
    return text


def events(state: State, seat: int) -> list[dict[str, Any]]:
    """The protocol messages the last transition produced, as ``seat`` may see them: the lines of
    ``events_json``, parsed."""
    return [json.loads(line) for line in events_json(state, seat).splitlines()]


def events_json(state: State, seat: int) -> str:
    """The protocol messages the last transition produced, as ``seat`` may see them: JSON lines,
    each ending in a newline (``TrickRenderer.events_json``, rendered afresh)."""
    return TrickRenderer().events_json(state, seat)


def shared_events_json(state: State) -> str | None:
    """The JSON lines of the last transition's events when every seat sees the same; None when a
    deal starts (``TrickRenderer.shared_events_json``, rendered afresh)."""
    return TrickRenderer().shared_events_json(state)


def _deal_end_line(rules: Rules, result: DealResult) -> str:
    """The ``deal_end`` event's line."""
    auction = object_head(rules.auction_fields(result.auction, result.contract))[1:]
    return (f'{{"type":"event","event":"deal_end","deal":{result.deal.number},'
            f'{auction}"tricks":{ints_json(result.tricks)},"scores":{ints_json(result.scores)},'
            f'"totals":{ints_json(result.totals)}}}\n')


def _played(state: State, event: Event) -> tuple[int, int]:
    """(seat, card) of a play event (the shared one stands for the head of ``played``)."""
    if event is PLAY_EVENT_KEY:
        node = state.played
        assert node is not None
        return node[1], node[2]
    seat: int = event[1]  # type: ignore[assignment]
    card: int = event[2]  # type: ignore[assignment]
    return seat, card


# --- Results and records ----------------------------------------------------------------------


def totals(state: State) -> list[int]:
    """The running (final, once over) totals, by seat or by team as the game scores."""
    return list(state.phase.totals)


def places(state: State) -> list[int]:
    """The places, 1 for first, by seat or by team as the game scores."""
    return state.phase.rules.places(state.phase)


def record(state: State, names: Sequence[str]) -> dict[str, Any]:
    """The game record: options, seed, names and every finished deal in full (JSON-able)."""
    rules = state.phase.rules
    return {
        "game": rules.info.name,
        "players": rules.players,
        "options": dict(rules.options),
        "seed": rules.seed,
        **({} if rules.preset is None else {"preset": rules.preset.to_json()}),
        "names": list(names),
        **_teams(rules.info),
        "deals": [_deal_record(rules, result) for result in state.phase.history],
        "scores": totals(state),
        "places": places(state),
        "complete": state.to_act is None,
    }


def _deal_record(rules: Rules, result: DealResult) -> dict[str, Any]:
    deal = result.deal
    return {
        "deal": deal.number,
        "dealer": deal.dealer,
        **rules.record_deal_fields(deal),
        "hands": [names_of(mask) for mask in deal.masks],
        "trump_card": card_name(deal.trump_card),
        "trump": suit_name(deal.trump),
        **rules.auction_fields(result.auction, result.contract),
        "plays": plays_list(result.plays),
        "tricks": list(result.tricks),
        "scores": list(result.scores),
        "totals": list(result.totals),
    }


def replay(new_game: Callable[..., State], game_record: Mapping[str, Any]) -> State:
    """Replay a record from its seed (and preset) and actions, checking every deal, action and
    score; ``new_game`` is the game's."""
    preset = game_record.get("preset")
    state = new_game(len(game_record["names"]), game_record["seed"], game_record["options"],
                     preset=None if preset is None else Preset.parse(preset))
    rules = state.phase.rules
    for index, stored in enumerate(game_record["deals"]):
        where = f"deal {index + 1}"
        deal = state.phase.deal
        if state.to_act is None:
            raise ReplayError(f"{where}: the game was already over")
        _expect(where, "dealer", deal.dealer, stored["dealer"])
        _expect(where, "hands", [names_of(mask) for mask in deal.masks], stored["hands"])
        _expect(where, "trump_card", card_name(deal.trump_card), stored["trump_card"])
        for seat, action in stored[rules.auction_key]:
            state = _replay_step(state, where, seat, action)
        for seat, card in stored["plays"]:
            state = _replay_step(state, where, seat, card)
        history = state.phase.history
        if not history or history[-1].deal is not deal:
            raise ReplayError(f"{where}: the record's {rules.auction_key} and plays do not "
                              f"finish the deal")
        result = history[-1]
        for key, value in rules.auction_fields(result.auction, result.contract).items():
            _expect(where, key, value, stored[key])
        _expect(where, "tricks", list(result.tricks), stored["tricks"])
        _expect(where, "scores", list(result.scores), stored["scores"])
        _expect(where, "totals", list(result.totals), stored["totals"])
    if game_record.get("complete", True) and state.to_act is not None:
        raise ReplayError("the record ends before the game does")
    if state.to_act is None:
        _expect("game", "scores", totals(state), game_record["scores"])
        _expect("game", "places", places(state), game_record["places"])
    return state


def _replay_step(state: State, where: str, seat: int, raw: object) -> State:
    """One recorded action replayed: the right seat, a valid and legal action, else ReplayError."""
    if state.to_act != seat:
        raise ReplayError(f"{where}: seat {seat} acted but seat {state.to_act} was to act")
    try:
        return apply(state, parse_action(state, raw))
    except (IllegalActionError, InvalidActionError) as error:
        raise ReplayError(f"{where}: {error}") from None


def _expect(where: str, what: str, computed: object, stored: object) -> None:
    """ReplayError unless a recorded value is what the rules compute."""
    if computed != stored:
        raise ReplayError(f"{where}: {what} recorded as {stored}, the rules give {computed}")
