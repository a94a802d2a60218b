"""What the states of both games share: the fields of a deal in play, and replay checks.

A state is an immutable value split in two: a ``phase`` (the deal, its calls or bids, the totals:
what changes only between plays; each game's own type) and the fields a play changes (hands as
bitmasks, the linked list of plays, the trick, tricks won, whose turn). A play builds a new state
sharing the phase, which is what keeps ``apply`` cheap.

Cards inside a state are plain ints (``suit * 16 + rank``); what a caller reads (``trick``,
``plays``, ``hand``) gives ``Card`` values. The classes are plain classes with typed fields, built
by their constructors, so that mypyc compiles them to native classes (``make compiled``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final, TypeVar

from engine.cards import CARD_BY_VALUE, NAME_OF, Card, cards_of
from engine.errors import IllegalActionError, InvalidActionError, ReplayError
from engine.trick import Plays, Trick, plays_in_order
from engine.wire import PLAY_JSON, counts_json, hand_json

Event = tuple[object, ...]
"""One thing the last transition did: ``("play", seat, card)``, ``("trick", winner, trick)``,
``("bid", seat, bid)``, ``("call", seat, call, skipped)``, ``("deal_end",)``, ``("deal_start",)``."""
PLAY_EVENT_KEY: Final[Event] = ("play",)
JUST_PLAYED: Final[tuple[Event, ...]] = (PLAY_EVENT_KEY,)
"""``last_events`` after a play that did not end a trick: the play is the head of ``played``.
Shared, so the most frequent transition allocates no event tuples."""
DEAL_START: Final[Event] = ("deal_start",)
DEAL_END: Final[Event] = ("deal_end",)

Action = int | str
"""A bid or call (int, or a word such as ``pass``) or a card (a ``Card``, itself an int)."""
PlaysSeen = tuple[Plays, tuple[tuple[int, str], ...], Plays, str]
"""What views last made of a deal's plays, carried from state to state: the head of the plays
list the dict view named and its names, and the head the JSON view rendered and its text (the
list's items without the brackets). Each half is kept up to date only by its own view."""


class TrickState:
    """One moment of a trick-taking game. Immutable: each game's ``apply`` builds a new one.

    ``to_act`` is the seat to act (None when the game is over). Hands are bitmasks (bit ``card``);
    ``hand(seat)`` gives the cards. Each game's ``State`` adds its ``phase`` and what it knows.
    """

    __slots__ = (
        "current",
        "last_events",
        "leader",
        "legal",
        "masks",
        "played",
        "plays_seen",
        "to_act",
        "tricks_won",
    )

    masks: tuple[int, ...]
    played: Plays
    current: Trick
    """The trick on the table as (seat, card) with plain int cards (``trick`` gives Cards)."""
    leader: int
    tricks_won: tuple[int, ...]
    to_act: int | None
    last_events: tuple[Event, ...]
    legal: tuple[Action, ...] | None
    """Memo of the game's ``legal_actions(self)``, filled on first call."""
    plays_seen: PlaysSeen | None
    """What the views last made of the plays list (``PlaysSeen``)."""

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


S = TypeVar("S", bound=TrickState)


def plays_view(state: TrickState) -> tuple[tuple[int, str], ...]:
    """This deal's plays as ``((seat, "QS"), ...)``, extending the names the last view built.

    Views come one decision after another, so usually one play is new: naming only the new plays
    keeps a view's cost flat instead of growing with the deal.
    """
    head = state.played
    seen = state.plays_seen
    known_head: Plays = None
    known: tuple[tuple[int, str], ...] = ()
    text_head: Plays = None
    text = ""
    if seen is not None:
        known_head, known, text_head, text = seen
        if known_head is head:
            return known
    new: list[tuple[int, str]] = []
    node = head
    while node is not None and node is not known_head:
        earlier, seat, card = node
        new.append((seat, NAME_OF[card]))
        node = earlier
    if node is not known_head:  # the named plays belong to an earlier deal
        known = ()
    new.reverse()
    names = known + tuple(new)
    state.plays_seen = (head, names, text_head, text)
    return names


def plays_text(state: TrickState) -> str:
    """This deal's plays as the items of a JSON list, ``[0,"2C"],[1,"QS"]``, extending the text
    the last JSON view rendered (as ``plays_view`` extends its names)."""
    head = state.played
    seen = state.plays_seen
    known_head: Plays = None
    known: tuple[tuple[int, str], ...] = ()
    text_head: Plays = None
    text = ""
    if seen is not None:
        known_head, known, text_head, text = seen
        if text_head is head:
            return text
    new: list[str] = []
    node = head
    while node is not None and node is not text_head:
        earlier, seat, card = node
        new.append(PLAY_JSON[seat][card])
        node = earlier
    if node is not text_head or not text:  # the rendered plays belong to an earlier deal
        text = ""
    else:
        new.append(text)
    new.reverse()
    text = ",".join(new)
    state.plays_seen = (known_head, known, head, text)
    return text


def view_tail_json(state: TrickState, seat: int) -> str:
    """The fields that end every game's view, as JSON text ending the view's object: the seat,
    its hand (empty once the game is over), the deal's plays, the trick, the leader, tricks won.

    The trick on the table is the last plays of the deal, so its text is the end of the plays'
    text: every play renders to 8 characters, ``[0,"2C"]``, with a comma between two.
    """
    hand = "[]" if state.to_act is None else hand_json(state.masks[seat])
    plays = plays_text(state)
    on_table = len(state.current)
    trick = plays[len(plays) + 1 - 9 * on_table:] if on_table else ""
    return (f'"seat":{seat},"hand":{hand},"plays":[{plays}],"trick":[{trick}],'
            f'"leader":{state.leader},"tricks_won":{counts_json(state.tricks_won)}}}')


def names_json(cards: Sequence[int]) -> list[str]:
    """Card names, for views and records."""
    return [NAME_OF[c] for c in cards]


def plays_json(plays: Sequence[tuple[int, int]]) -> list[list[int | str]]:
    """``[[seat, "QS"], ...]`` from (seat, card) pairs."""
    return [[seat, NAME_OF[card]] for seat, card in plays]


def replay_step(state: S, where: str, seat: int, raw: object,
                parse_action: Callable[[S, object], Action],
                apply: Callable[[S, object], S]) -> S:
    """One recorded action replayed: the right seat, a valid and legal action, else ReplayError."""
    if state.to_act != seat:
        raise ReplayError(f"{where}: seat {seat} acted but seat {state.to_act} was to act")
    try:
        return apply(state, parse_action(state, raw))
    except (IllegalActionError, InvalidActionError) as error:
        raise ReplayError(f"{where}: {error}") from None


def expect(where: str, what: str, computed: object, stored: object) -> None:
    """ReplayError unless a recorded value is what the rules compute."""
    if computed != stored:
        raise ReplayError(f"{where}: {what} recorded as {stored}, the rules give {computed}")
