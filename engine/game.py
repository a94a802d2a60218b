"""The game interface: what every game answers, so that nothing outside the engine asks its name.

A game is a module of this package (``engine.blackout``, ``engine.partnership``), its rules in its
docstring, that gives its ``GAME``, a ``Game`` registered in ``engine.GAMES``; ``engine.game(name)``
returns it. Both games are trick-taking games, made of the same core (``engine.trickgame``).
Its ``info`` (a ``GameInfo``, in the spirit of OpenSpiel's ``GameType``) says what a caller needs
to know without playing: player counts, teams, the kinds of decision, the options with their
defaults and ranges, what a score is indexed by, how seat names become entrants. The rules in words
are in docs/rules.md.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, TypeVar

from engine.chance import Preset
from engine.options import Option, OptionInfo, option_infos

T = TypeVar("T")


@dataclass(frozen=True)
class GameInfo:
    """What a game is, as data: everything the arena decides about a game without playing it."""

    name: str
    """The name a tournament file or a command line gives, e.g. ``"blackout"``."""
    title: str
    """The name in prose, e.g. ``"Blackout"``."""
    player_counts: tuple[int, ...]
    """The numbers of seats the game can be played with, ascending."""
    default_players: int
    teams: tuple[tuple[int, ...], ...] | None
    """The seats of each team (e.g. ``((0, 2), (1, 3))``), or None when each plays for itself."""
    decision_kinds: tuple[str, ...]
    """The kinds of ``act`` the game asks for, in the order a deal asks them (``bid``, ``play``)."""
    score_by: Literal["seat", "team"]
    """What the game's scores and places are indexed by."""
    option_spec: Callable[[int], Mapping[str, Option]] = field(repr=False, compare=False)
    """The options of a game with that many players (defaults and ranges may depend on it)."""
    short_options: Mapping[str, object] = field(default_factory=dict, compare=False)
    """Options for a short game (a few deals): for compliance checks and quick tests."""

    def options(self, players: int | None = None) -> tuple[OptionInfo, ...]:
        """The option schema for ``players`` seats (default: ``default_players``), in order."""
        return option_infos(self.option_spec(self.default_players if players is None else players))

    @property
    def has_teams(self) -> bool:
        """Whether the entrants of a game are teams rather than seats."""
        return self.teams is not None

    def entrant_of(self, seat: int) -> int:
        """The index of the entrant that ``seat`` plays for: its team, or the seat itself."""
        if self.teams is None:
            return seat
        return next(index for index, team in enumerate(self.teams) if seat in team)

    def entrants(self, names: Sequence[str]) -> list[str]:
        """Result entrants from seat names: the names themselves, or one per team.

        A team of copies of one bot is named after it; a mixed team ``a+b`` in seat order.
        """
        if self.teams is None:
            return list(names)
        entrants = []
        for team in self.teams:
            members = [names[seat] for seat in team]
            entrants.append(members[0] if len(set(members)) == 1 else "+".join(members))
        return entrants

    @property
    def command_counts(self) -> tuple[int, ...]:
        """How many bot commands a game accepts: one per seat, or (in a team game) one per team."""
        if self.teams is None:
            return self.player_counts
        return tuple(sorted({*self.player_counts, len(self.teams)}))

    def seats_of(self, commands: Sequence[T]) -> list[T]:
        """One command per seat: as given, or a team game's one command per team in each of its seats."""
        if self.teams is None or len(commands) != len(self.teams) \
                or len(commands) in self.player_counts:
            return list(commands)
        seats: list[T] = [commands[0]] * sum(len(team) for team in self.teams)
        for command, team in zip(commands, self.teams, strict=True):
            for seat in team:
                seats[seat] = command
        return seats


class GameState(Protocol):
    """What a caller may read from any game's state (the rest is the game's own)."""

    @property
    def to_act(self) -> int | None:
        """The seat to act; None once the game is over."""

    @property
    def kind(self) -> str | None:
        """The kind of decision asked now (one of ``GameInfo.decision_kinds``); None once over."""

    @property
    def is_over(self) -> bool:
        """Whether the game has ended."""

    @property
    def players(self) -> int:
        """The number of seats."""

    @property
    def options(self) -> dict[str, Any]:
        """The game's options, defaults filled in."""

    @property
    def deal_number(self) -> int:
        """The deal being played (1 for the first; the last one once over)."""

    def hand(self, seat: int) -> tuple[Any, ...]:
        """The cards ``seat`` holds now (hidden information: the referee's only)."""


class Renderer(Protocol):
    """The views and event lines of one game's states, rendered for its seats in order by whoever
    keeps it (the referee: one per game), remembering what it rendered last so that a decision
    costs what changed since the one before. The states stay immutable values: the memo is here."""

    def view(self, state: Any, seat: int) -> dict[str, Any]:
        """Everything ``seat`` may know now, nothing hidden from it (JSON-able)."""

    def view_json(self, state: Any, seat: int) -> str:
        """``view(state, seat)`` as compact JSON text, the bytes orjson gives for the dict."""

    def events_json(self, state: Any, seat: int) -> str:
        """The last transition's events as ``seat`` may see them: compact JSON lines."""

    def shared_events_json(self, state: Any) -> str | None:
        """The last transition's event lines when every seat sees the same; None when not."""


class Game(Protocol):
    """One game's rules: pure functions over immutable states (``engine.trickgame.TrickGame``)."""

    @property
    def info(self) -> GameInfo:
        """What the game is."""

    def resolve_options(self, players: int, raw: Mapping[str, object] | None = None) -> dict[str, Any]:
        """Every option, ``raw`` validated (OptionError naming the option) and defaults filled in."""

    def new_game(self, players: int, seed: int, options: Mapping[str, object] | None = None, *,
                 preset: Preset | None = None) -> GameState:
        """A new game; its chance steps drawn from ``seed``, except what ``preset`` gives."""

    def legal_actions(self, state: Any) -> tuple[Any, ...]:
        """Every action the seat to act may take now (empty once the game is over)."""

    def parse_action(self, state: Any, raw: object) -> Any:
        """The action for a wire value; InvalidActionError when it is not one."""

    def apply(self, state: Any, action: Any) -> GameState:
        """The state after the seat to act takes ``action``; IllegalActionError if not allowed."""

    def view(self, state: Any, seat: int) -> dict[str, Any]:
        """Everything ``seat`` may know now, nothing hidden from it (JSON-able)."""

    def view_json(self, state: Any, seat: int) -> str:
        """``view(state, seat)`` as compact JSON text, the bytes orjson gives for the dict."""

    def legal_json(self, state: Any) -> str:
        """``legal_actions(state)`` in their wire form (``engine.wire``) as a JSON list."""

    def events(self, state: Any, seat: int) -> list[dict[str, Any]]:
        """The protocol messages the last transition produced, as ``seat`` may see them."""

    def events_json(self, state: Any, seat: int) -> str:
        """``events(state, seat)`` as compact JSON lines, each ending in a newline."""

    def shared_events_json(self, state: Any) -> str | None:
        """The last transition's event lines when every seat sees the same; None when not."""

    def deal_score_range(self, players: int, options: Mapping[str, object] | None = None
                         ) -> tuple[int, int]:
        """The lowest and the highest score one entrant can take in one deal of a game with these
        players and options."""

    def renderer(self) -> Renderer:
        """A renderer of one game's states (``view_json``, the events...) that remembers what it
        rendered last: what the referee renders a game with, one per game."""

    def totals(self, state: Any) -> list[int]:
        """The running (final, once over) scores, indexed as ``info.score_by`` says."""

    def places(self, state: Any) -> list[int]:
        """The places, 1 for first, indexed as ``info.score_by`` says."""

    def record(self, state: Any, names: Sequence[str]) -> dict[str, Any]:
        """The game record (JSON-able): everything ``replay`` needs, and every deal in full."""

    def replay(self, game_record: Mapping[str, Any]) -> GameState:
        """The final state of a record, every step checked; ReplayError when it does not replay."""

    def drawn_preset(self, players: int, seed: int, options: Mapping[str, object] | None = None,
                     deals: int | None = None) -> Preset:
        """The chance steps ``seed`` draws as a preset: the first dealer and the first ``deals``
        deals (all when None); a game given it deals just what the seed alone would."""
