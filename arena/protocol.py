"""The bot protocol's messages as the arena sends them (docs/protocol.md): each one built here, once.

Every line the arena writes to a bot comes from this module, as bytes: ``hello``, ``game_start``,
a deal's events, ``act``, ``game_end`` and ``quit``. The process layer (``arena.bots.process``)
writes them and numbers the requests, the referee (``arena.referee.referee``) says what goes in them,
check-bot (``arena.checkbot.steps``) adds to them what the protocol does not define, and
docs/protocol.md's examples are checked against them (``tests/arena/test_protocol.py``).

- A message is one line of compact JSON (what orjson gives for its fields, in their order) ending
  in a newline; ``line`` renders one given as its fields, ``fields`` reads one back.
- A request (``hello``, ``act``) carries the arena's id, which only the process layer knows when
  it writes it. ``hello`` is the first request of a process and always has id ``HELLO_ID``. An
  ``act`` is built open, its text without the closing brace, and closed with its id by
  ``with_id`` (the id its last field): the referee has it built, the process layer closes it.
- A deal's events are the game's own text (``engine.wire``: the engine renders each event once,
  and its dict forms are parsed from that text); ``GameMessages`` takes them as the seat is to see
  them. The act's view and legal actions are the engine's text too, set in the act here.

The act and the events are built at every decision, so ``GameMessages`` binds the engine's
renderers once per game and the act is one format of four pieces: as a dict serialised by orjson
the act cost a decision more than the engine's own ``apply``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

import orjson

import engine
from engine.game import Game, GameState

PROTOCOL_VERSION: Final = 1
"""The protocol version the arena speaks (``hello``), and the one a bot must answer with."""
HELLO_ID: Final = 0
"""The id of ``hello``: the first request of every process."""
HELLO_GAMES: Final[tuple[str, ...]] = tuple(engine.GAMES)
"""The games named in ``hello`` by default: every game of the engine."""
QUIT: Final = b'{"type":"quit"}\n'
"""The last message a bot is sent; its stdin is closed after it."""

_NEWLINE: Final = orjson.OPT_APPEND_NEWLINE


def line(message: Mapping[str, Any]) -> bytes:
    """A message given as its fields, as its line: compact JSON in the fields' order, newline."""
    return orjson.dumps(message, option=_NEWLINE)


def fields(message: bytes) -> dict[str, Any]:
    """The fields of a message built here: a whole line, or an open request (``act``)."""
    parsed: dict[str, Any] = orjson.loads(message if message.endswith(b"}\n") else message + b"}")
    return parsed


def hello(games: Sequence[str] = HELLO_GAMES) -> bytes:
    """``hello``, the handshake: the protocol version and the games the bot may be asked to play;
    its id is ``HELLO_ID``."""
    return line({"type": "hello", "id": HELLO_ID, "protocol": PROTOCOL_VERSION,
                 "games": list(games)})


def game_start(game: str, options: Mapping[str, object], players: int, names: Sequence[str],
               seat: int, seed: int, teams: Sequence[Sequence[int]] | None = None) -> bytes:
    """``game_start``: the game, its options (defaults filled in), the entrants' names by seat, the
    teams where the game has them, the bot's seat and the seed of its own random generator."""
    start: dict[str, Any] = {"type": "game_start", "game": game, "options": options,
                             "players": players, "names": list(names)}
    if teams is not None:
        start["teams"] = [list(team) for team in teams]
    start["seat"] = seat
    start["seed"] = seed
    return line(start)


def with_id(request: bytes, rid: int) -> bytes:
    """An open request (``GameMessages.act``) closed with its id, the line written: the id is its
    last field."""
    return b'%b,"id":%d}\n' % (request, rid)


def game_end(scores: Sequence[int], ranks: Sequence[int]) -> bytes:
    """``game_end``: the final totals and the places (1 for first), indexed as the game's scores
    are (by seat, or by team)."""
    return line({"type": "game_end", "scores": scores, "ranks": ranks})


class GameMessages:
    """The messages of one game that depend on its state: ``game_start``, a transition's events
    and ``act``, with the engine's renderers bound once (they are asked at every decision). One
    per game: its views come from the game's ``renderer()``, which remembers the states it
    rendered last (the states are immutable values, so the memo is kept here)."""

    def __init__(self, game: Game) -> None:
        self.name = game.info.name
        self.teams = game.info.teams
        views = game.renderer()  # the game's own: it remembers what it rendered last
        self._view_json: Callable[[Any, int], str] = views.view_json
        self._legal_json: Callable[[Any], str] = game.legal_json
        self._events_json: Callable[[Any, int], str] = views.events_json
        self._shared_events_json: Callable[[Any], str | None] = views.shared_events_json

    def game_start(self, state: GameState, names: Sequence[str], seat: int, seed: int) -> bytes:
        """``game_start`` for ``seat``, whose bot seeds its generator with ``seed``."""
        return game_start(self.name, state.options, state.players, names, seat, seed, self.teams)

    def events(self, state: Any, seat: int) -> bytes:
        """The event lines of the last transition as ``seat`` sees them (a ``deal_start`` shows
        it its own hand)."""
        return self._events_json(state, seat).encode()

    def shared_events(self, state: Any) -> bytes | None:
        """The event lines of the last transition when every seat sees the same; None when not
        (a deal starts: ``events`` for each seat)."""
        text = self._shared_events_json(state)
        return None if text is None else text.encode()

    def act(self, state: Any, seat: int, time_ms: int) -> bytes:
        """``act`` for ``seat``, the seat to act, open (``with_id`` closes it): ``time_ms`` is its
        whole allowance."""
        return (f'{{"type":"act","kind":"{state.kind}","legal":{self._legal_json(state)},'
                f'"view":{self._view_json(state, seat)},"time_ms":{time_ms}').encode()
