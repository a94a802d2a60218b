"""What the states of both games share: the fields of a deal in play, and replay checks.

A state is an immutable value split in two: a ``phase`` (the deal, its calls or bids, the totals:
what changes only between plays) and the fields a play changes (hands as bitmasks, the linked list
of plays, the trick, tricks won, whose turn). A play copies only the latter, which is what keeps
``apply`` cheap.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from engine.cards import NAME_OF, Card, cards_of
from engine.errors import IllegalActionError, InvalidActionError, ReplayError
from engine.trick import Plays, plays_in_order

JUST_PLAYED: tuple[tuple[str]] = (("play",),)
"""``last_events`` after a play that did not end a trick: the play is the head of ``played``.
Shared, so the most frequent transition allocates no event tuples."""


class TrickState:
    """One moment of a trick-taking game. Immutable: each game's ``apply`` builds a new one.

    ``to_act`` is the seat to act (None when the game is over). Hands are bitmasks (bit ``card``);
    ``hand(seat)`` gives the cards.
    """

    __slots__ = (
        "last_events",
        "leader",
        "legal",
        "masks",
        "phase",
        "played",
        "plays_seen",
        "to_act",
        "trick",
        "tricks_won",
    )

    phase: Any
    masks: tuple[int, ...]
    played: Plays
    trick: tuple[tuple[int, Card], ...]
    leader: int
    tricks_won: tuple[int, ...]
    to_act: int | None
    last_events: tuple[tuple[Any, ...], ...]
    legal: tuple[Any, ...] | None  # memo of the game's legal_actions(self), filled on first call
    plays_seen: tuple[Plays, tuple[tuple[int, str], ...]] | None
    """The last plays list a view named, carried from state to state: (its head, its names)."""

    @property
    def rules(self) -> Any:
        """The game's constants."""
        return self.phase.rules

    @property
    def deal(self) -> Any:
        """The deal being played (the last one, once the game is over)."""
        return self.phase.deal

    @property
    def deal_number(self) -> int:
        """The deal being played (1 for the first; the last one once over)."""
        number: int = self.phase.deal.number
        return number

    @property
    def kind(self) -> str | None:
        """The kind of action asked now ("bid", "call" or "play"); None once the game is over."""
        kind: str | None = self.phase.kind
        return kind

    @property
    def totals(self) -> tuple[int, ...]:
        """The totals before this deal is scored (final totals once over)."""
        totals: tuple[int, ...] = self.phase.totals
        return totals

    @property
    def history(self) -> tuple[Any, ...]:
        """The finished deals."""
        history: tuple[Any, ...] = self.phase.history
        return history

    @property
    def plays(self) -> tuple[tuple[int, Card], ...]:
        """This deal's plays so far, in order, as (seat, card)."""
        return plays_in_order(self.played)

    def hand(self, seat: int) -> tuple[Card, ...]:
        """The cards ``seat`` holds now, low to high by suit (referee only: hidden information)."""
        return cards_of(self.masks[seat])

    @property
    def players(self) -> int:
        """The number of seats."""
        players: int = self.phase.rules.players
        return players

    @property
    def options(self) -> dict[str, Any]:
        """The game's options, defaults filled in."""
        options: dict[str, Any] = self.phase.rules.options
        return options

    @property
    def seed(self) -> int:
        """The game's seed."""
        seed: int = self.phase.rules.seed
        return seed

    @property
    def is_over(self) -> bool:
        """Whether the game has ended."""
        return self.to_act is None

    def __repr__(self) -> str:
        return (f"<{type(self).__module__.rsplit('.', 1)[-1]} deal {self.deal.number} "
                f"{self.kind or 'over'} seat {self.to_act}>")


S = TypeVar("S", bound=TrickState)
_new = object.__new__


def copy_state(state: S) -> S:
    """A copy of ``state`` to change before anyone sees it (the memo of legal actions is not kept)."""
    new: S = _new(type(state))
    new.phase = state.phase
    new.masks = state.masks
    new.played = state.played
    new.trick = state.trick
    new.leader = state.leader
    new.tricks_won = state.tricks_won
    new.to_act = state.to_act
    new.last_events = state.last_events
    new.legal = None
    new.plays_seen = state.plays_seen
    return new


def plays_view(state: TrickState) -> tuple[tuple[int, str], ...]:
    """This deal's plays as ``((seat, "QS"), ...)``, extending the names the last view built.

    Views come one decision after another, so usually one play is new: naming only the new plays
    keeps a view's cost flat instead of growing with the deal.
    """
    head = state.played
    seen = state.plays_seen
    if seen is not None and seen[0] is head:
        return seen[1]
    known_head, known = seen if seen is not None else (None, ())
    new: list[tuple[int, str]] = []
    node = head
    while node is not None and node is not known_head:
        node, seat, card = node
        new.append((seat, NAME_OF[card]))
    if node is not known_head:  # the named plays belong to an earlier deal
        known = ()
    new.reverse()
    names = known + tuple(new)
    state.plays_seen = (head, names)
    return names


def names_json(cards: Sequence[Card]) -> list[str]:
    """Card names, for views and records."""
    return [NAME_OF[c] for c in cards]


def plays_json(plays: Sequence[tuple[int, Card]]) -> list[list[Any]]:
    """``[[seat, "QS"], ...]`` from (seat, card) pairs."""
    return [[seat, NAME_OF[card]] for seat, card in plays]


def replay_step(state: S, where: str, seat: int, raw: object,
                parse_action: Callable[[S, object], Any], apply: Callable[[S, Any], S]) -> S:
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
