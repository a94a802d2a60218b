"""The referee: plays one game between bot processes, enforcing legality and time, recording faults.

The engine decides what is legal and keeps the hidden cards; the referee only moves messages between
the engine and the bots. Each bot gets its own seat's messages (``arena.protocol`` builds them):
``game_start``, the ``deal_start`` with its own hand, the public ``event`` messages, an ``act`` when
it is its turn, ``game_end``.

Faults (docs/protocol.md): a timeout, a malformed reply, an illegal action or a crash. After a
fault, every remaining decision of that seat in the game is made by the fallback (a legal action
drawn from a generator seeded by the game's seed, so replays replay) and the seat gets no more
messages in that game. What the fault costs is the fault policy: ``forfeit`` places the seat below
every seat without a fault; ``substitute`` lets the result stand as played. Either way the game is
finished and every other seat's result stands.
"""

from __future__ import annotations

import contextlib
import dataclasses
import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

import engine
from arena.bots.exactjson import NotJson, read_exactly
from arena.bots.process import Reply
from arena.protocol import GameMessages, game_end, with_id
from arena.records.writer import fault_entry, game_record
from arena.referee.seated import SeatedBot
from arena.settings import DEFAULT_NAMES, DEFAULT_POLICY, DEFAULT_TIME, FaultPolicy, NamesShown, TimeControl
from arena.values.faults import BotFaultError, Fault, FaultKind, TimeLimit
from engine.chance import Preset
from engine.errors import EngineError
from engine.game import Game
from engine.seeding import derive_seed

_LIMIT = re.compile(r", limit \d+ ms")
"""The allowance in a fair clock's timeout detail, which ``with_bank`` says in move and bank."""


@dataclass(frozen=True)
class GameOutcome:
    """A finished game: the full record (engine record plus faults) and the seats that faulted."""

    record: dict[str, Any]
    faulted_seats: frozenset[int]


def bot_seed(game_seed: int, seat: int) -> int:
    """The seed a seat's bot is given: derived one-way, so it tells nothing about the cards."""
    return derive_seed(game_seed, "bot", seat)


def play_game(
    game_name: str,
    bots: Sequence[SeatedBot],
    seed: int,
    options: Mapping[str, object] | None = None,
    *,
    names: Sequence[str] | None = None,
    time_control: TimeControl = DEFAULT_TIME,
    policy: FaultPolicy = DEFAULT_POLICY,
    stop_at_fault: bool = False,
    preset: Preset | None = None,
    game_id: str | None = None,
    shown: NamesShown = DEFAULT_NAMES,
) -> GameOutcome:
    """Play one game with ``bots[seat]`` in each seat; never raises for anything a bot does.

    ``stop_at_fault``: after the first fault no seat is asked again, every decision left is the
    fallback's (check-bot: the other seats are copies of the bot, which would repeat the fault,
    and a copy that hangs costs its whole allowance). ``preset``: deals given instead of drawn
    from ``seed`` (a deals file's; the record keeps them). ``game_id``: the game's id, which
    marks each decision's stderr in the bots' logs (``arena.stderrindex``). ``shown``: what
    ``game_start.names`` tells the bots (the record keeps ``names``)."""
    game = engine.game(game_name)
    players = len(bots)
    state = game.new_game(players, seed, options, preset=preset)
    names = list(names) if names is not None else [bot.name for bot in bots]
    labels = shown.labels(names)
    messages = GameMessages(game)
    referee = Referee(game, messages, bots, seed, time_control, stop_at_fault)
    stalls = [bot.stalls for bot in bots]
    for seat, bot in enumerate(bots):
        bot.mark_stderr(game_id, seat, referee.times)  # read only when the bot writes to stderr
        if not bot.is_running:
            referee.fault(seat, bot.last_fault or Fault(FaultKind.CRASH, bot.name, "is not running"),
                        state)
            continue
        referee.send(seat, messages.game_start(state, labels, seat, bot_seed(seed, seat)), state)
    referee.broadcast_events(state)
    state = referee.play(state)
    end = game_end(game.totals(state), game.places(state))
    for seat in range(players):
        referee.send(seat, end, state)
    for bot in bots:
        bot.mark_stderr(None, 0, None)
    record = game_record(game.record(state, names), faults=referee.faults, times=referee.times,
                         cpu_times=referee.cpu_times, time_control=time_control,
                         banks_left=referee.banks,
                         stalls=[bot.stalls - before for bot, before in zip(bots, stalls, strict=True)])
    return GameOutcome(record, frozenset(referee.faulted))


class Referee:
    """The referee of one game: it hands each seat its messages, asks the seat to act for its
    decision (``play``, the game's loop) and keeps the game's books: time banks, faults, the
    fallback generator."""

    def __init__(self, game: Game, messages: GameMessages, bots: Sequence[SeatedBot], seed: int,
                 time_control: TimeControl, stop_at_fault: bool = False) -> None:
        self.game = game
        self.messages = messages
        self.bots = bots
        self.move = time_control.move_ms / 1000
        self.bank = time_control.bank_ms / 1000  # seconds, like self.move
        self.clock = time_control.clock
        self.cap = time_control.wall_cap_ms / 1000
        self.banks = [self.bank] * len(bots)
        self.fallback = random.Random(derive_seed(seed, "fallback"))
        self.faulted: set[int] = set()
        self.unasked: set[int] = set()
        """Seats whose decisions the fallback makes: the faulted ones (all, after a fault, when
        the game stops at its first)."""
        self.stop_at_fault = stop_at_fault
        self.shared: list[bytes] = []
        """The event lines shown to every seat alike, in order, as the engine rendered them."""
        self.handed = [0] * len(bots)
        """How many of ``shared`` each seat's bot has been handed (``catch_up``)."""
        self.faults: list[dict[str, Any]] = []
        self.times: list[float | None] = []  # seconds of each decision in order; None: the fallback's
        self.cpu_times: list[float | None] = []  # CPU seconds of each, likewise

    def fault(self, seat: int, fault: Fault, state: Any) -> None:
        """Record ``fault`` against ``seat``; the seat plays by fallback from now on."""
        self.faulted.add(seat)
        self.unasked.update(range(len(self.bots)) if self.stop_at_fault else (seat,))
        # Every decision so far has its time recorded: their count is this one's number.
        self.faults.append(fault_entry(fault, seat, state.deal_number, len(self.times)))

    def send(self, seat: int, message: bytes, state: Any) -> None:
        """Write an information message to a seat's bot now, unless the seat has faulted."""
        if seat in self.faulted:
            return
        self.catch_up(seat)
        try:
            self.bots[seat].send(message)
        except BotFaultError as error:
            self.fault(seat, error.fault, state)

    def broadcast_events(self, state: Any) -> None:
        """Queue for every seat what the last transition showed it; written with its next message.

        Only ``deal_start`` differs between seats (each sees its own hand): otherwise the engine
        renders the events once, and the same bytes are kept in ``shared`` until each seat's next
        message hands them to its bot in one piece (``catch_up``), instead of to every bot at
        every decision.
        """
        messages = self.messages
        shared = messages.shared_events(state)
        if shared is not None:
            self.shared.append(shared)
            return
        faulted = self.faulted
        for seat, bot in enumerate(self.bots):  # a deal starts: each seat sees its own hand
            if seat not in faulted:
                self.catch_up(seat)
                bot.hold_line(messages.events(state, seat))

    def with_bank(self, seat: int, fault: Fault) -> Fault:
        """A timeout says what the limit was made of: over the CPU limit, ``move_ms`` and the bank
        left; after earlier decisions drew on the bank, that too: the bot was not allowed
        ``move_ms`` plus the whole bank, and a slow bot needs to know where its time went."""
        full = self.bank
        left = max(0.0, self.banks[seat])
        if fault.kind is not FaultKind.TIMEOUT:
            return fault
        if fault.limit is TimeLimit.CPU and fault.cpu is not None:
            fault = dataclasses.replace(
                fault, detail=f"used {fault.cpu * 1000:.0f} ms of CPU, limit "
                              f"{self.move * 1000:.0f} ms + bank {left * 1000:.0f}")
        elif fault.limit is TimeLimit.FAIR:
            fault = dataclasses.replace(fault, detail=_LIMIT.sub(
                f", limit {self.move * 1000:.0f} ms + bank {left * 1000:.0f}", fault.detail, 1))
        if full - left < 0.0005:
            return fault
        detail = (f"{fault.detail}; bank used up: {left * 1000:.0f} ms of the {full * 1000:.0f} ms "
                  f"bank were left (earlier decisions over move_ms {self.move * 1000:.0f} drew "
                  f"{(full - left) * 1000:.0f} ms)")
        return dataclasses.replace(fault, detail=detail)

    def catch_up(self, seat: int) -> None:
        """Hand the seat's bot the shared event lines it has not been handed yet."""
        shared = self.shared
        start = self.handed[seat]
        if start < len(shared):
            self.handed[seat] = len(shared)
            self.bots[seat].hold_line(b"".join(shared[start:]))

    def play(self, state: Any) -> Any:
        """Every decision from ``state`` to the end of the game; returns the final state.

        Each decision: the seat to act is handed the shared events it has not seen, then asked
        (an ``act`` with the legal actions, its view and its time); its action is applied, or the
        fallback's after a fault. The loop keeps what it uses in locals: it runs 400 times a game.
        """
        game = self.game
        messages = self.messages
        legal_actions, apply, parse_action = game.legal_actions, game.apply, game.parse_action
        bots, banks, handed, shared, unasked = (self.bots, self.banks, self.handed, self.shared,
                                                self.unasked)
        record_time = self.times.append
        record_cpu = self.cpu_times.append
        move = self.move
        clock, cap = self.clock, self.cap
        while True:
            seat = state.to_act
            if seat is None:
                return state
            if seat in unasked:
                record_time(None)
                record_cpu(None)
                state = apply(state, self.fallback.choice(legal_actions(state)))
            else:
                bot = bots[seat]
                start = handed[seat]
                if start < len(shared):  # catch_up, inline
                    handed[seat] = len(shared)
                    bot.hold_line(b"".join(shared[start:]))
                bank = banks[seat]
                allowance = move + bank if bank > 0.0 else move
                message = messages.act(state, seat, int(allowance * 1000))  # the id: the bot's
                try:
                    reply = bot.request(message, allowance, clock, cap)
                except BotFaultError as error:
                    record_time(error.fault.elapsed)
                    record_cpu(error.fault.cpu)
                    self.fault(seat, self.with_bank(seat, error.fault), state)
                    state = apply(state, self.fallback.choice(legal_actions(state)))
                else:
                    answer, elapsed, cpu, charged = reply  # one unpacking, not four lookups
                    record_time(elapsed)
                    record_cpu(cpu)
                    if charged > move:  # the bank pays what the move allowance does not
                        banks[seat] = bank - (charged - move)
                    try:
                        state = apply(state, parse_action(state, answer.get("action")))
                    except EngineError as error:
                        self.illegal(seat, bot, error, message, reply, state)
                        state = apply(state, self.fallback.choice(legal_actions(state)))
            lines = messages.shared_events(state)
            if lines is not None:
                shared.append(lines)
            else:
                self.broadcast_events(state)

    def illegal(self, seat: int, bot: SeatedBot, error: EngineError, message: bytes,
                reply: Reply, state: Any) -> None:
        """Record an illegal-action fault: the engine's verdict on the bot's reply (to the act
        ``message``, open: the process layer closed it with the reply's id).

        A reply orjson could not read as written is quoted as it came: one with a value orjson
        cannot write back (a lone surrogate, a ``LongInteger``), and one whose action orjson
        read as a float, which may be an integer beyond 64 bits: that action is read again
        exactly and judged again, so that the fault says what the bot sent."""
        answer = reply.message
        received: bytes | None = None
        if type(answer.get("action")) is float:
            with contextlib.suppress(NotJson):  # orjson read it: the exact reader does too
                exact = read_exactly(bot.reply_line)
                if type(exact) is dict:
                    received = bot.reply_line
                    error = self.verdict(state, exact.get("action")) or error
        if received is None:
            try:
                received = orjson.dumps(answer if "action" in answer else "(no action)")
            except orjson.JSONEncodeError:
                received = bot.reply_line
        sent = with_id(message, reply.message["id"])
        self.fault(seat, Fault.illegal(bot.name, str(error), sent, received, bot.stderr_tail(),
                                       reply.elapsed), state)

    def verdict(self, state: Any, action: Any) -> EngineError | None:
        """The engine's error for ``action`` in ``state``, or None if it is legal."""
        try:
            self.game.apply(state, self.game.parse_action(state, action))
        except EngineError as error:
            return error
        return None

