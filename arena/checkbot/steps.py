"""A compliance check for one bot program: take it through the protocol step by step.

``check_bot(argv)`` starts the bot, plays it against copies of itself through the real referee and
process layer, and returns one ``StepResult`` per step (it prints nothing; ``arena check-bot`` does).
The steps, and what each one proves:

1. **start and hello**: the program starts and answers ``hello`` within ``start_ms`` with the same
   id and protocol 1 (its name and the time taken are reported).
2. **play GAME**, once per game checked (both by default; the protocol has no way for a bot to say
   which games it plays): as many processes of the bot as the table has seats (the one from step
   1 and more; 4 unless ``players`` says otherwise) play a small game (Blackout with 3 deals;
   Partnership Blackout with target 20, at most 3 deals; ``options`` given override these, so a
   league checks the very game it plays) under the normal time control. It passes when the game
   ends without a fault and the bot was asked for, and legally answered, every kind of decision
   the game has (bid and play; call and play).
3. **second game in the same processes**: the processes of the first clean game in step 2 play
   another game (the other game when both passed, so a bot that keeps per-game state across
   ``game_end`` or cannot switch games is caught): a bot must stay for the next ``game_start``.
4. **unknown message types and fields**: the same processes play one more game in which every
   message carries an extra field the protocol does not define (the act's view too), and every
   ``act`` is preceded by a message of a type the protocol does not define: the bot must ignore
   both and keep answering correctly. It runs after step 3 so that a failure here is not a
   persistence failure in disguise.
5. **time limit and restart**: one ``act`` to the first process says ``time_ms`` 1 and is waited
   for 1 ms of the wall clock (``SQUEEZE_CLOCK``), whose charge the step prints. The bot either
   answers it in time (legally) or the arena records a timeout and plays that seat's remaining
   decisions itself; any other outcome (a crash, a garbled reply) fails.
   Then the arena recovers as a tournament does after a fault: it stops that process (quit, grace,
   kill of its process group) and starts a fresh one, which must answer ``hello`` again and play a
   whole game with no time bank, every decision within ``move_ms``. So the step proves that time
   is enforced on this bot, that the bot answers well inside ``move_ms`` without the bank, and
   that it survives being cut off and restarted.
6. **quit**: every process that is still running without a fault gets ``quit`` (and its stdin
   closed); each must exit by itself within the quit grace (``Limits.quit_grace_ms``, its stderr
   drained meanwhile). Only a process that had to be killed fails the step; the step reports how
   long the slowest exit took and the exit statuses. When no such process is left, a fresh one is started
   for this step alone.

When step 1 fails the rest is skipped; when no game of step 2 finishes cleanly, steps 3 to 5 are
skipped (they build on a clean game). A check's game stops at its first fault (the fallback
plays every decision left): the other seats are copies of the bot, which would only repeat it,
and a copy that hangs would cost its whole allowance again. A process that faulted is restarted
before the next step uses it, as a tournament restarts a faulted bot before its next game.
"""

from __future__ import annotations

import dataclasses
import shlex
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from time import perf_counter
from typing import Any

import engine
from arena import protocol
from arena.botfiles.view import check_visible
from arena.bots.process import BotProcess, Reply
from arena.bots.shutdown import close_bots
from arena.checkbot.tables import Table, checked_tables, expected_decisions, options_said
from arena.checkbot.words import (
    decision_counts,
    describe_game,
    fault_report,
    game_problem,
    game_stderr,
    quit_problem,
    quit_status,
    slow_decision_note,
    slowest,
    squeezed_outcome,
    start_failure,
)
from arena.errors import BotStartError, ConfigError
from arena.referee.command_game import seat_names
from arena.referee.referee import GameOutcome, play_game
from arena.settings import DEFAULT_LIMITS, DEFAULT_TIME, Clock, Limits, TimeControl
from arena.values.faults import BotFaultError, Fault, FaultKind
from arena.values.sandbox_settings import Sandbox
from engine.errors import shown

SQUEEZE_MS = 1
"""The allowance of the one tiny ``act`` in step 5, in milliseconds."""
SQUEEZE_CLOCK = Clock.WALL
"""The clock that times the tiny ``act``, whatever the check's: 1 ms of CPU would let a bot that
sleeps answer late."""

UNKNOWN_FIELD = "x_check_bot"
UNKNOWN_VALUE: dict[str, object] = {
    "about": "an unknown field: bots must ignore it",
    "values": [1, -2.5, True, None, "}", {"nested": []}],
}
UNKNOWN_MESSAGE: dict[str, object] = {"type": "x_check_bot_note", UNKNOWN_FIELD: UNKNOWN_VALUE}
"""A message of a type the protocol does not define (and asks no reply)."""

START = "start and hello"
PERSISTENCE = "second game in the same processes"
UNKNOWN = "unknown message types and fields"
TIME = "time limit and restart"
QUIT = "quit"
"""The names of the steps (step 2 is ``play GAME``, once per game)."""

Verdict = tuple[bool, str, str]
"""A step's outcome: passed, its detail, the bot's stderr behind a failure (``StepResult``)."""

SLOW_CHECK_SECONDS = 60.0
"""A check expected to take longer than this says so early (``on_note``)."""
ANSWERS_BEFORE_ESTIMATE = 8
"""Answers timed before the check's length is estimated from them."""


@dataclass(frozen=True)
class StepResult:
    """One step of the check: its name, whether it passed (or was skipped), why, and how long.

    ``stderr``: the end of what the bot wrote to stderr before the failure the detail reports
    (the first fault's, or the failed start's). It is the bot's author's to read (check-bot shows
    it, ``arena.checkbot.words.stderr_lines``; a league keeps it in the submission's report, its
    owner's), and never part of ``detail``, which a league's rejection reason is made from."""

    name: str
    passed: bool
    detail: str
    seconds: float
    skipped: bool = False
    stderr: str = ""

    @property
    def status(self) -> str:
        """``PASS``, ``FAIL`` or ``SKIP``."""
        if self.skipped:
            return "SKIP"
        return "PASS" if self.passed else "FAIL"


@dataclass(frozen=True)
class StderrWritten:
    """What the bot's processes wrote to stderr over the whole check: ``size`` bytes in ``lines``
    lines from ``processes`` of them, and ``tail`` the end of what the one that wrote most wrote.
    A bot's author reads it (check-bot shows it, passing or not), as ``StepResult.stderr``."""

    size: int
    lines: int
    processes: int
    tail: str


def bot_argv(words: Sequence[str]) -> list[str]:
    """The bot's argv from the command-line words: one word is split like a shell, several are kept.

    ConfigError when there are none (or one that is empty or badly quoted).
    """
    example = "e.g. arena check-bot python3 bots/python/random_bot.py"
    if not words:
        raise ConfigError(f"check-bot: no bot command given ({example})")
    if len(words) > 1:
        return list(words)
    try:
        argv = shlex.split(words[0])
    except ValueError as error:
        raise ConfigError(f"bot command {words[0]!r}: {error}") from None
    if not argv:
        raise ConfigError(f"check-bot: the bot command is empty ({example})")
    return argv


def check_bot(
    argv: Sequence[str],
    *,
    games: Sequence[str] | None = None,
    seed: int = 1,
    time_control: TimeControl = DEFAULT_TIME,
    limits: Limits = DEFAULT_LIMITS,
    on_step: Callable[[StepResult], None] | None = None,
    workdir: str | None = None,
    sandbox: Sandbox | None = None,
    on_note: Callable[[str], None] | None = None,
    players: int | None = None,
    options: Mapping[str, object] | None = None,
    on_stderr: Callable[[StderrWritten], None] | None = None,
) -> list[StepResult]:
    """Take the bot ``argv`` through every step of the check; the results in order.

    ``games`` limits step 2 to those games (default: all). ``players`` seats every game's table
    (default ``PLAYERS``) and ``options`` (a game option by name, the values as given on a command
    line) override the short game's (``GameInfo.short_options``), checked by each game's own
    rules: a bad one is a ConfigError naming it. ``on_step`` is called with each result
    as soon as its step ends. ``workdir``: the bot's working directory (a bot
    directory's). Raises ConfigError / OptionError for bad input before starting
    anything (also when ``sandbox`` refuses its program); nothing the bot does raises. With
    ``sandbox`` every process of the bot runs in it.

    ``on_note`` gets what is worth knowing beyond PASS and FAIL: early, that the check will take
    minutes (the bot's answers so far times the decisions the check asks for); at the end, that
    the slowest decision took over half of ``move_ms`` (a loaded machine turns that into
    timeouts). ``on_stderr`` gets, once every process is closed, what they wrote to stderr
    (``StderrWritten``).
    """
    argv = list(argv)
    if not argv:
        raise ConfigError("check-bot: no bot command given")
    tables = checked_tables(games, players, options or {})
    if sandbox is not None:  # a program the sandbox hides is bad input, not a failed step
        check_visible(sandbox, argv, workdir, "check-bot")
    check = _Check(argv, tables, seed, time_control, limits, on_step, sandbox)
    check.workdir = workdir
    check.on_note = on_note
    try:
        check.run()
    finally:
        check.close_everything()
    if on_stderr is not None:
        on_stderr(check.stderr_written())
    slow = slow_decision_note(check.answered, time_control.move_ms)
    if slow is not None and on_note is not None:
        on_note(slow)
    return check.results


def _answers(bots: Sequence[_CheckedBot]) -> list[float]:
    """The seconds each answer of ``bots`` took in the game they last played."""
    return [seconds for bot in bots for seconds in bot.answer_seconds]


def _minutes(seconds: float) -> str:
    return f"{seconds / 60:.0f} minutes" if seconds >= 90 else f"{seconds:.0f} s"


def _said(value: object) -> str:
    """A field of the hello reply as the check quotes it: a string whole (its repr, escaped), any
    other JSON briefly (``shown``: it may be a number of 4,000 digits, or nested 1,000 deep)."""
    return repr(value) if isinstance(value, str) else shown(value)


class _CheckedBot(BotProcess):
    """A bot process that times its answers and can add unknown fields and messages (step 4) or
    squeeze one ``act`` to a tiny allowance (step 5). Everything else is the normal process layer.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.noisy = False
        self.squeeze_next_act = False
        self.squeezed: Fault | Reply | None = None
        """The outcome of the squeezed act: its reply, or the fault it raised."""
        self.answer_seconds: list[float] = []
        """The seconds each ``act`` of the current game took to answer."""
        self.needs_restart = False
        """It faulted in its last game: restart it before the next (as a tournament does)."""
        self.on_answer: Callable[[float], None] | None = None
        """Told the seconds of every answered act (the check's estimate of its own length)."""

    def start(self) -> None:
        self.needs_restart = False
        super().start()

    def send(self, message: bytes | dict[str, Any]) -> None:
        super().send(_noisy(message) if self.noisy else message)

    def hold_line(self, data: bytes) -> None:
        if self.noisy:  # the referee's events: one message a line
            data = b"".join([_noisy(sent) for sent in data.splitlines(keepends=True)])
        super().hold_line(data)

    def request(self, message: bytes | dict[str, Any], timeout: float,
                clock: Clock = Clock.WALL, cap: float | None = None) -> Reply:
        # The referee's act comes open (arena.protocol): read here, so that the check can change
        # its fields
        fields = protocol.fields(message) if isinstance(message, bytes) else message
        is_act = fields.get("type") == "act"
        squeeze = is_act and self.squeeze_next_act
        if is_act and self.noisy:
            self.hold_line(protocol.line(UNKNOWN_MESSAGE))  # written with the act, just before it
            fields[UNKNOWN_FIELD] = UNKNOWN_VALUE
            fields["view"] = {**fields["view"], UNKNOWN_FIELD: UNKNOWN_VALUE}
        if squeeze:
            self.squeeze_next_act = False
            fields["time_ms"] = SQUEEZE_MS
            timeout = cap = SQUEEZE_MS / 1000
            clock = SQUEEZE_CLOCK
        try:
            reply = super().request(fields, timeout, clock, cap)
        except BotFaultError as error:
            if squeeze:
                self.squeezed = error.fault
            raise
        if squeeze:
            self.squeezed = reply
        if is_act:
            self.answer_seconds.append(reply.charged)  # what move_ms is measured against
            if self.on_answer is not None:
                self.on_answer(reply.elapsed)
        return reply


def _noisy(message: bytes | dict[str, Any]) -> bytes:
    """A message's line with a field the protocol does not define (step 4)."""
    fields = protocol.fields(message) if isinstance(message, bytes) else message
    return protocol.line({**fields, UNKNOWN_FIELD: UNKNOWN_VALUE})


class _NotStarted(Exception):
    """A process of the bot could not be started; the message says why, ``stderr_tail`` what the
    bot wrote meanwhile."""

    def __init__(self, message: str, stderr_tail: str) -> None:
        super().__init__(message)
        self.stderr_tail = stderr_tail


class _Check:
    """The state of one check: the bot's processes, the seeds used so far, the results."""

    def __init__(self, argv: list[str], tables: Mapping[str, Table], seed: int,
                 time_control: TimeControl, limits: Limits,
                 on_step: Callable[[StepResult], None] | None,
                 sandbox: Sandbox | None = None) -> None:
        self.argv = argv
        self.tables = tables
        self.games = list(tables)
        self.seed = seed
        self.time_control = time_control
        self.limits = limits
        self.on_step = on_step
        self.name = seat_names([argv])[0]
        self.processes: list[_CheckedBot] = []
        self.results: list[StepResult] = []
        self.games_played = 0
        self.workdir: str | None = None
        self.sandbox = sandbox
        self.on_note: Callable[[str], None] | None = None
        self.answered: list[float] = []
        """Seconds of every act answered in the check, for its notes."""
        self.estimated = False

    # -- the steps ------------------------------------------------------------------------------

    def run(self) -> None:
        first = self.step_start()
        if first is None:
            for name in [f"play {game}" for game in self.games] + [PERSISTENCE, UNKNOWN, TIME, QUIT]:
                self.skip(name, "the bot did not start")
            return
        clean: list[tuple[str, list[_CheckedBot]]] = []
        for game in self.games:
            bots = self.step_game(game, first)
            first = None
            if bots is not None:
                clean.append((game, bots))
        if not clean:
            for name in (PERSISTENCE, UNKNOWN, TIME):
                self.skip(name, "no game above passed, and this step builds on one")
        else:
            game, bots = clean[0]
            second = clean[1][0] if len(clean) > 1 else game
            self.guarded(PERSISTENCE, bots, lambda: self.step_persistence(second, bots))
            self.guarded(UNKNOWN, bots, lambda: self.step_unknown(game, bots))
            self.guarded(TIME, bots, lambda: self.step_time(game, bots))
        self.step_quit()

    def step_start(self) -> _CheckedBot | None:
        """Step 1: start one process and complete the handshake."""
        bot = self.new_bot()
        started = perf_counter()
        try:
            bot.start()
        except BotStartError as error:
            self.report(START, False, start_failure(bot, error), started, error.stderr_tail)
            return None
        hello = bot.hello or {}
        name = hello.get("name")
        said = [f"name {_said(name)}" if isinstance(name, str) else
                f"name {_said(name)} (not text)" if "name" in hello else "no name given"]
        if "protocol" in hello:
            said.append(f"protocol {_said(hello['protocol'])}")
        else:
            said.append("protocol not stated (taken as 1)")
        if "version" in hello:
            said.append(f"version {_said(hello['version'])}")
        self.report(START, True, ", ".join(said), started)
        return bot

    def step_game(self, game: str, first: _CheckedBot | None) -> list[_CheckedBot] | None:
        """Step 2: a process per seat plays one game; the processes when it was clean, else None."""
        step = f"play {game}"
        started = perf_counter()
        bots = [first] if first is not None else []
        table = self.tables[game]
        try:
            while len(bots) < table.players:
                bots.append(self.started_bot(f"seat {len(bots)}"))
        except _NotStarted as error:
            self.report(step, False, str(error), started, error.stderr_tail)
            return None
        outcome = self.play(game, bots)
        problem = game_problem(outcome)
        if problem is None:
            problem = self.missing_kinds(game, outcome.record)
        if problem is not None:
            self.report(step, False, problem, started, game_stderr(outcome))
            return None
        self.report(step, True, f"{table.players} processes, {options_said(game, table)}: "
                    f"{describe_game(outcome.record, _answers(bots))}", started)
        return bots

    def step_persistence(self, game: str, bots: list[_CheckedBot]) -> Verdict:
        """Step 3: the same processes play another game."""
        outcome = self.play(game, bots)
        problem = game_problem(outcome)
        if problem is not None:
            crashed = any(f["kind"] == FaultKind.CRASH.value for f in outcome.record["faults"])
            hint = ("\n(a bot must stay for the next game_start after game_end, and reset its "
                    "per-game state there)") if crashed else ""
            return False, problem + hint, game_stderr(outcome)
        return True, (f"the same {len(bots)} processes played {game}: "
                      f"{describe_game(outcome.record, _answers(bots))}"), ""

    def step_unknown(self, game: str, bots: list[_CheckedBot]) -> Verdict:
        """Step 4: a game with an unknown field in every message and an unknown message per act."""
        for bot in bots:
            bot.noisy = True
        try:
            outcome = self.play(game, bots)
        finally:
            for bot in bots:
                bot.noisy = False
        acts = sum(len(bot.answer_seconds) for bot in bots)
        what = (f"every message carried an unknown field {UNKNOWN_FIELD!r} (the act's view too) "
                f"and each act came after a message of unknown type {UNKNOWN_MESSAGE['type']!r}")
        problem = game_problem(outcome)
        if problem is not None:
            return False, f"{problem}\nin a game where {what}", game_stderr(outcome)
        return True, f"{what}: all {acts} acts answered legally, no faults", ""

    def step_time(self, game: str, bots: list[_CheckedBot]) -> Verdict:
        """Step 5: one act squeezed to 1 ms, then a restart and a game with no time bank."""
        bot = bots[0]
        bot.squeezed = None
        bot.squeeze_next_act = True
        outcome = self.play(game, bots)
        bot.squeeze_next_act = False
        squeezed = bot.squeezed
        timed_out = isinstance(squeezed, Fault) and squeezed.kind is FaultKind.TIMEOUT
        others = [f for f in outcome.record["faults"]
                  if not (timed_out and f["seat"] == 0 and f["kind"] == FaultKind.TIMEOUT.value)]
        if others:
            return (False, f"with one act of time_ms {SQUEEZE_MS}: {fault_report(others, outcome.record)}",
                    others[0]["stderr_tail"])
        if squeezed is None:
            return False, f"seat 0 was never asked to act in {game}", ""
        first = squeezed_outcome(squeezed, SQUEEZE_MS, SQUEEZE_CLOCK)
        started = perf_counter()
        try:
            bot.restart()
        except BotStartError as error:
            return (False, f"{first}; then the restart failed: {start_failure(bot, error)}",
                    error.stderr_tail)
        restart_ms = (perf_counter() - started) * 1000
        strict = dataclasses.replace(self.time_control, bank_ms=0)
        outcome = self.play(game, bots, strict)
        move_ms = strict.move_ms
        problem = game_problem(outcome)
        if problem is not None:
            return False, (f"{first}; restarted in {restart_ms:.0f} ms; then in a game with no "
                           f"time bank (move_ms {move_ms}): {problem}"), game_stderr(outcome)
        return True, (f"{first}; the process was restarted (hello in {restart_ms:.0f} ms) and "
                      f"then played a game with no time bank, every answer within move_ms "
                      f"{move_ms} ({slowest(_answers(bots))})"), ""

    def step_quit(self) -> None:
        """Step 6: quit every clean running process; each must exit by itself within the grace."""
        started = perf_counter()
        running = [bot for bot in self.processes if bot.is_running and not bot.needs_restart]
        faulted = [bot for bot in self.processes if bot.is_running and bot.needs_restart]
        close_bots(faulted, grace=0)
        note = ""
        if not running:
            try:
                running = [self.started_bot("a fresh process")]
            except _NotStarted as error:
                self.report(QUIT, False, str(error), started, error.stderr_tail)
                return
            note = " (a fresh process: none was left running without a fault)"
        started = perf_counter()
        close_bots(running)
        grace_ms = self.limits.quit_grace_ms
        problems = [quit_problem(bot.returncode, bot.exit_seconds, grace_ms) for bot in running]
        failed = [p for p in problems if p is not None]
        if failed:
            self.report(QUIT, False, f"{len(failed)} of {len(running)} processes: {failed[0]}{note}",
                        started)
        else:
            every = "the process" if len(running) == 1 else f"each of the {len(running)} processes"
            slowest_exit = max(bot.exit_seconds or 0.0 for bot in running) * 1000
            statuses = sorted({quit_status(bot.returncode) for bot in running})
            self.report(QUIT, True, f"{every} exited by itself within the quit grace of "
                        f"{grace_ms} ms (slowest exit {slowest_exit:.0f} ms after quit; "
                        f"{', '.join(statuses)}){note}", started)

    # -- helpers --------------------------------------------------------------------------------

    def guarded(self, name: str, bots: list[_CheckedBot], body: Callable[[], Verdict]) -> None:
        """Run a step that plays on existing processes, restarting first those that faulted."""
        started = perf_counter()
        for bot in bots:
            if bot.needs_restart or not bot.is_running:
                try:
                    bot.restart()
                except BotStartError as error:
                    self.skip(name, f"could not restart the bot after the failure above: "
                              f"{start_failure(bot, error)}", started, error.stderr_tail)
                    return
        passed, detail, stderr = body()
        self.report(name, passed, detail, started, stderr)

    def new_bot(self) -> _CheckedBot:
        bot = _CheckedBot(self.name, self.argv, cwd=self.workdir, limits=self.limits,
                          start_timeout=self.time_control.start_ms / 1000, sandbox=self.sandbox)
        bot.on_answer = self.answer
        self.processes.append(bot)
        return bot

    def answer(self, seconds: float) -> None:
        """Time one answer; once enough are in, say early when the whole check will be long."""
        self.answered.append(seconds)
        if self.estimated or len(self.answered) < ANSWERS_BEFORE_ESTIMATE:
            return
        self.estimated = True
        mean = sum(self.answered) / len(self.answered)
        decisions = expected_decisions(self.tables, self.seed)
        left = mean * max(0, decisions - len(self.answered))
        if left > SLOW_CHECK_SECONDS and self.on_note is not None:
            hint = "--game checks one game; " if len(self.games) > 1 else ""
            self.on_note(f"note: this check will take about {_minutes(left)} more: the bot has "
                         f"taken {mean * 1000:.0f} ms a decision so far, and the check asks for "
                         f"about {decisions} decisions ({hint}--move-ms does not shorten a "
                         f"bot's thinking)")

    def started_bot(self, what: str) -> _CheckedBot:
        bot = self.new_bot()
        try:
            bot.start()
        except BotStartError as error:
            raise _NotStarted(f"could not start {what}: {start_failure(bot, error)}",
                              error.stderr_tail) from None
        return bot

    def play(self, game: str, bots: list[_CheckedBot],
             time_control: TimeControl | None = None) -> GameOutcome:
        """One game on ``bots`` with the next seed of this check."""
        for bot in bots:
            bot.answer_seconds = []
        seed = self.seed + self.games_played
        self.games_played += 1
        outcome = play_game(game, bots, seed, dict(self.tables[game].options),
                            time_control=time_control or self.time_control, stop_at_fault=True)
        for seat in outcome.faulted_seats:
            bots[seat].needs_restart = True
        return outcome

    def missing_kinds(self, game: str, record: Mapping[str, Any]) -> str | None:
        counts = decision_counts(record)
        missing = [kind for kind in engine.game(game).info.decision_kinds if not counts.get(kind)]
        if not missing:
            return None
        return (f"the game never asked for a {' or '.join(missing)} decision, so it is unchecked "
                f"(try another --seed)")

    def report(self, name: str, passed: bool, detail: str, started: float,
               stderr: str = "") -> None:
        self.add(StepResult(name, passed, detail, perf_counter() - started, stderr=stderr))

    def skip(self, name: str, reason: str, started: float | None = None,
             stderr: str = "") -> None:
        seconds = 0.0 if started is None else perf_counter() - started
        self.add(StepResult(name, False, reason, seconds, skipped=True, stderr=stderr))

    def add(self, result: StepResult) -> None:
        self.results.append(result)
        if self.on_step is not None:
            self.on_step(result)

    def stderr_written(self) -> StderrWritten:
        """What every process of the check wrote to stderr, with the end of the most's."""
        wrote = {bot: bot.stderr_written for bot in self.processes if bot.stderr_written[0]}
        if not wrote:
            return StderrWritten(0, 0, 0, "")
        most = max(wrote, key=lambda bot: wrote[bot][0])
        return StderrWritten(sum(size for size, _ in wrote.values()),
                             sum(lines for _, lines in wrote.values()), len(wrote),
                             most.stderr_tail())

    def close_everything(self) -> None:
        close_bots([bot for bot in self.processes if bot.pid is not None], grace=0)
