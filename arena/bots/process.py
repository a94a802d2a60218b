"""Bot processes: one bot program, its handshake, requests with ids, faults, and shutdown.

A ``BotProcess`` runs one bot program (an argv list, never a shell) in its own working directory
and its own process group, speaks the arena's line protocol (docs/protocol.md) to it, and turns
every way the bot can fail a request into a ``BotFaultError`` carrying a ``Fault``
(arena.values.faults). The referee says what the messages hold (``arena.protocol`` builds them) and
decides legality; this layer only moves lines and has them timed. It stays usable across games:
one process plays game after game until a fault or ``restart()``.

The jobs are split by module: ``launch`` starts the program and applies its limits, ``stderr``
drains its stderr into a capped log, ``channel`` does the non-blocking line I/O, ``clocks`` times
each request (the wall, fair and CPU clocks: when it is over, what it is charged), ``replies``
reads a reply line orjson refuses, ``endings`` says how a process ended or failed its handshake,
``memory`` watches its resident memory, ``registry`` knows every live bot, ``shutdown`` closes
several at once. This module holds the life cycle (start, handshake, close) and what a request
means:

- Ids are the arena's: a reply that arrives after its request timed out is recognised by its id
  and dropped, so a slow bot does not also earn a malformed fault.
- An over-long reply line is a malformed fault; the caller should restart the bot after it.
- Replies are read by orjson; only a line it refuses is read again (``arena.bots.replies``).
- Shutdown: ``close()`` sends ``quit``, closes stdin, waits the quit grace (``Limits.quit_grace_ms``)
  for the exit while draining stderr, then SIGKILLs the whole process group (so children a bot
  forked die too; while the leader is still unreaped its pid cannot be reused, so the group kill
  cannot hit a stranger) and reaps the leader. ``exit_seconds`` says how long the exit took.

Traffic is logged line by line at debug level on ``arena.bot.<name>``; bytes that are not UTF-8
are logged with replacement characters (and are a malformed fault if they were a reply line).
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import signal
import subprocess
from collections.abc import Mapping, Sequence, Sized
from time import perf_counter
from typing import Any, Final, NamedTuple

import orjson
from mypy_extensions import mypyc_attr

from arena.bots import endings, launch, memory, registry
from arena.bots.channel import Channel, ChannelError, wait_exits
from arena.bots.clocks import CpuClock, DecisionClock, FairClock, Meter, WallClock
from arena.bots.exactjson import NotJson
from arena.bots.memory import MemoryUse
from arena.bots.registry import install_signal_handlers
from arena.bots.replies import read_again, wrong_id
from arena.bots.shutdown import close_bots
from arena.bots.stderr_sink import CHUNKS_PER_DRAIN, StderrSink
from arena.bots.uids import BOT_UIDS
from arena.errors import BotStartError, ConfigError
from arena.protocol import HELLO_GAMES, HELLO_ID, PROTOCOL_VERSION, QUIT, hello, line, with_id
from arena.settings import DEFAULT_LIMITS, Clock, GameLogs, Limits
from arena.values.faults import BotFaultError, Fault, FaultKind, snippet
from arena.values.sandbox_settings import Sandbox
from engine.errors import shown

__all__ = [
    "CRASH_GRACE", "LINE_CAP", "LOG_CAP", "QUIT_GRACE", "BotProcess", "Reply", "close_all",
    "install_signal_handlers", "live_bots",
]

LINE_CAP = 1 << 20
"""Longest reply line accepted, in bytes (without the newline)."""
LOG_CAP = 1 << 20
"""Most bytes of a bot's stderr saved to its log file over the life of a BotProcess."""
QUIT_GRACE = DEFAULT_LIMITS.quit_grace_ms / 1000
"""Seconds a bot has to exit after ``quit`` by default before its process group is killed."""
CRASH_GRACE = 0.1
"""Seconds to wait for a bot that closed its stdout to exit, to report its real exit status."""
_FAIR: Final = Clock.FAIR
_WALL: Final = Clock.WALL
_DEBUG: Final = logging.DEBUG


class Reply(NamedTuple):
    """A bot's reply to a request: the decoded JSON object, the wall seconds it took, the CPU
    seconds the bot's process tree used meanwhile, and the seconds charged to the bot by the
    request's clock (``arena.bots.clocks``): under ``fair`` the wall time less the time the bot
    waited for a CPU and the time the arena did (never less than the CPU time), under ``cpu`` the
    CPU time, under ``wall`` the wall time less the time the arena itself stalled."""

    message: dict[str, Any]
    elapsed: float
    cpu: float = 0.0
    charged: float = 0.0


_new_tuple = tuple.__new__


# Compiled (`make compiled`), a class is closed to subclasses written in Python unless it says so:
# check-bot's _CheckedBot and the benchmark's stand-ins are such subclasses. A no-op when pure.
@mypyc_attr(allow_interpreted_subclasses=True)
class BotProcess:
    """One bot program, started with ``start()`` and kept running across games until ``close()``.

    ``request()`` and ``send()`` raise ``BotFaultError`` on a fault; ``last_fault`` keeps the most
    recent one. After a crash the process is gone and ``request()`` raises at once until
    ``restart()``; after a timeout or a malformed reply it is still running and may be asked again,
    though the caller should restart it when the game allows.
    """

    def __init__(
        self,
        name: str,
        argv: Sequence[str],
        *,
        cwd: str | os.PathLike[str] | None = None,
        env: Mapping[str, str] | None = None,
        limits: Limits = DEFAULT_LIMITS,
        log_path: str | os.PathLike[str] | None = None,
        start_timeout: float = 10.0,
        line_cap: int = LINE_CAP,
        log_cap: int = LOG_CAP,
        games: Sequence[str] = HELLO_GAMES,
        sandbox: Sandbox | None = None,
        silent_log: bool = True,
        game_logs: GameLogs | None = None,
        copy_suffix: str = "",
    ) -> None:
        if not argv:
            raise BotStartError(f"bot '{name}': empty command")
        self.name = name
        self.argv = tuple(str(arg) for arg in argv)
        self.cwd = cwd
        self.env = env
        self.limits = limits
        self.log_path = log_path
        self.start_timeout = start_timeout
        self.line_cap = line_cap
        self.log_cap = log_cap
        self.games = tuple(games)
        self.sandbox = sandbox
        """Run inside this bubblewrap sandbox (arena.bots.sandbox); None: unconfined."""
        self.hello: dict[str, Any] | None = None
        """The bot's reply to ``hello`` (its name, protocol, perhaps version)."""
        self.last_fault: Fault | None = None
        self.returncode: int | None = None
        """Exit status of the last process once reaped (negative: killed by that signal)."""
        self.exit_seconds: float | None = None
        """Seconds from ``quit`` to the exit at the last close (None: it had to be killed)."""
        self.memory = MemoryUse(limits.memory_mb)
        """What the memory watch saw of the current process (``arena.bots.memory`` writes it)."""
        self.logger = logging.getLogger(f"arena.bot.{name}")
        self._is_logging = self.logger.isEnabledFor  # bound once: asked at every request
        self._proc: subprocess.Popen[bytes] | None = None
        self._uid: int | None = None
        """The uid its sandbox runs it as (``arena.bots.uids``), held until the process is reaped."""
        self._channel: Channel | None = None
        # game_logs: its stderr kept per game beside log_path (``arena.bots.stderr_sink``);
        # copy_suffix names a second copy's (``-copy2``)
        self._sink = StderrSink(name, log_path, log_cap, silent_log, game_logs, copy_suffix)
        self._running = False
        self._next_id = 0
        self._exchange = (b"", b"")  # the last request answered and its reply line
        self._abandoned: set[int] = set()
        self._held = bytearray()  # information messages waiting for the next write
        self._meter = Meter()
        self._wall = WallClock(self._meter)
        self._fair = FairClock(self._meter)
        self._cpu = CpuClock(self._meter)
        """The clocks a request may name (``arena.bots.clocks``), sharing the process's CPU time."""
        self.hello_cpu: float | None = None
        """CPU seconds the process tree used up to its ``hello`` reply."""

    # -- life cycle ---------------------------------------------------------------------------

    @property
    def pid(self) -> int | None:
        """Pid (and process group id) of the running process, or None."""
        return self._proc.pid if self._proc is not None else None

    @property
    def is_running(self) -> bool:
        """True between a successful start and a crash or close (a silent exit shows at next I/O)."""
        return self._running

    @property
    def stalls(self) -> int:
        """Waits for this bot that woke up over ``arena.bots.clocks.STALL`` late: the arena itself
        was not running."""
        return self._meter.stalls

    @property
    def memory_peak(self) -> int:
        """Largest resident memory of the process group seen by the memory watch, in bytes."""
        return self.memory.peak

    @property
    def memory_exceeded(self) -> bool:
        """Whether the memory watch killed the group for going over ``limits.memory_mb``."""
        return self.memory.exceeded

    @property
    def quit_grace(self) -> float:
        """Seconds this bot has to exit after ``quit`` (its limits' ``quit_grace_ms``)."""
        return self.limits.quit_grace_ms / 1000

    def start(self) -> None:
        """Start the process, apply the limits and complete the ``hello`` handshake.

        Raises BotStartError with one line naming the bot and what went wrong: a missing or
        unrunnable command, an exit before ``hello``, a garbled or wrong-id reply, no reply within
        ``start_timeout`` seconds; the end of the bot's stderr is its ``stderr_tail``, never in
        the message.
        """
        if self._proc is not None:
            raise RuntimeError(f"bot '{self.name}' is already started")
        self._next_id = 0
        self._exchange = (b"", b"")
        self._abandoned = set()
        self._held = bytearray()
        self.hello = None
        self.last_fault = None
        self.returncode = None
        self.exit_seconds = None
        self.memory = MemoryUse(self.limits.memory_mb)
        started = perf_counter()
        if self.sandbox is not None and self.sandbox.takes_uid:
            self._uid = BOT_UIDS.take()
        self._sink.mark_decisions(None, 0, None)  # what it writes while starting is no decision's
        self._sink.open_log()
        try:
            proc = launch.spawn(self.argv, self.cwd, self.env, self.sandbox, self.limits, self._uid)
        except (OSError, ConfigError) as error:
            self._sink.close_log()
            self._give_back_uid()
            if isinstance(error, ConfigError):  # the sandbox refused the program
                raise BotStartError(f"bot '{self.name}': not started in the sandbox: {error}") from None
            raise BotStartError(launch.spawn_failure(self.name, self.argv, self.cwd, error)) from None
        self._proc = proc
        self._channel = Channel(proc, self._sink, self.line_cap)
        self._meter.open(proc.pid)
        self._running = True
        _register(self, proc.pid)
        if self.sandbox is None:  # a sandbox sets them before its bot starts
            launch.apply_limits(proc.pid, self.limits)
        memory.watch(proc.pid, self.memory)
        self._sink.note(f"started {list(self.argv)} as pid {proc.pid}")
        self._next_id = HELLO_ID + 1
        try:
            remaining = self.start_timeout - (perf_counter() - started)
            answer = self._ask(hello(self.games), HELLO_ID, remaining, self._wall, None)
            self._meter.lap(fresh=True)  # its CPU from here: a launcher has started the bot by now
            self._sink.drain()  # once: a bot that logs as it starts is drained after each reply
            reply = answer.message
            self.hello_cpu = answer.cpu
        except BotFaultError as error:
            self.close(grace=0)
            raise BotStartError(endings.handshake_failure(self.name, error.fault,
                                                          self.start_timeout, self.sandbox),
                                error.fault.stderr_tail) from None
        protocol = reply.get("protocol", PROTOCOL_VERSION)
        if type(protocol) is not int or protocol != PROTOCOL_VERSION:  # 1.0 and true are not 1
            self.close(grace=0)
            raise BotStartError(
                f"bot '{self.name}': speaks protocol {shown(protocol)}, the arena speaks "
                f"{PROTOCOL_VERSION}"
            )
        self.hello = reply

    def restart(self) -> None:
        """Close the process (quit, grace, kill) and start a fresh one with a new handshake."""
        self.close()
        self.start()

    def close(self, grace: float | None = None) -> None:
        """Send ``quit``, wait up to ``grace`` seconds (default: ``quit_grace``), kill the group, reap."""
        close_bots([self], grace)

    def __enter__(self) -> BotProcess:
        if self._proc is None:
            self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<BotProcess {self.name!r} pid={self.pid} running={self._running}>"

    def begin_close(self) -> Channel | None:
        """The first step of closing: say ``quit`` (if it can be said without blocking) and close
        the bot's stdin. The channel to wait on for its exit; None when it is not started."""
        channel, proc = self._channel, self._proc
        if channel is None or proc is None:
            return None
        self._meter.waited()  # the quit grace counts this bot's waits for a CPU from here
        if self._running:
            channel.say_last(QUIT)
            self.logger.debug(">> %s", QUIT[:-1].decode())
        if proc.stdin is not None and channel.in_fd >= 0:
            channel.in_fd = -1
            with contextlib.suppress(OSError):
                proc.stdin.close()
        return channel

    def finish_close(self, exit_seconds: float | None) -> None:
        """The last step of closing (after ``begin_close`` and the wait): kill the process group
        (children too), reap the leader, keep the last stderr. ``exit_seconds``: how long it took
        to exit by itself after ``quit`` (None: it had to be killed)."""
        proc, channel = self._proc, self._channel
        if proc is None or channel is None:
            return
        self.exit_seconds = exit_seconds
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        memory.unwatch(proc.pid)  # before the reap: the memory watch must not signal it after
        registry.unregister(proc.pid)
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:  # unkillable (uninterruptible sleep): keep it registered
            self.logger.error("pid %d did not die on SIGKILL", proc.pid)
            _register(self, proc.pid)
            return
        self.returncode = proc.returncode
        self._give_back_uid()
        self._meter.close()
        self._sink.drain(limit=CHUNKS_PER_DRAIN * 4)
        # Forget each descriptor before closing it: an interrupted close can be run again.
        channel.close()
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()
        self._sink.close_log()
        self._running = False
        self._proc = None
        self._channel = None

    def _give_back_uid(self) -> None:
        if self._uid is not None:
            BOT_UIDS.give_back(self._uid)
            self._uid = None

    def waited_for_cpu(self) -> float | None:
        """The longest a thread of its process tree waited for a CPU since it was last asked (the
        quit grace gives it that time again); None when no process of it is timed."""
        return self._meter.waited()

    # -- talking ------------------------------------------------------------------------------

    def hold_line(self, data: bytes) -> None:
        """Queue message lines (``arena.protocol``'s, each ending in a newline), to be written with
        the next request, send or flush.

        One write per decision instead of one per event: every write wakes the bot, and on one
        CPU those wake-ups, not the bytes, are most of the cost of an event.
        """
        if self._is_logging(_DEBUG):
            for sent in data[:-1].split(b"\n"):
                self.logger.debug(">> %s", sent.decode("utf-8", "replace"))
        self._held += data

    def flush(self) -> None:
        """Write the held messages now (never blocks); raises BotFaultError like ``send``."""
        if not self._held:
            return
        data = bytes(self._held)
        self._held.clear()
        if not self._running:
            if self.last_fault is not None and self.last_fault.kind is FaultKind.CRASH:
                return
            raise self._fault(FaultKind.CRASH, "is not running", b"", b"", None)
        self._write(data, None)

    def send(self, message: bytes | dict[str, Any]) -> None:
        """Write a message that needs no reply (game_start, game_end, ...), after the held ones;
        never blocks. ``message`` is its line (``arena.protocol``), or its fields.

        A no-op for a bot whose crash was already reported; raises BotFaultError (crash) if the
        write finds the bot gone, or (timeout) if it has left a line cap of input unread.
        """
        if not self._running:
            if self.last_fault is not None and self.last_fault.kind is FaultKind.CRASH:
                return
            raise self._fault(FaultKind.CRASH, "is not running", b"", b"", None)
        data = message if isinstance(message, bytes) else line(message)
        if self._is_logging(_DEBUG):
            self.logger.debug(">> %s", data[:-1].decode("utf-8", "replace"))
        if self._held:
            data = b"".join((self._held, data))
            self._held.clear()
        self._write(data, None)

    def request(self, message: bytes | dict[str, Any], timeout: float,
                clock: Clock = Clock.WALL, cap: float | None = None) -> Reply:
        """Write ``message`` with a fresh ``id`` and wait for its reply line.

        ``message`` is an open request (``arena.protocol``: the referee's ``act``), closed here
        with its id, or its fields (the id is set in them).

        ``timeout`` is this request's allowance in seconds of ``clock`` (``arena.bots.clocks``),
        counted from writing the message to reading the complete reply line. Under ``wall`` that
        is wall time (less what the arena stalled); under ``fair`` the wall time less the time the
        bot waited for a CPU and the time the arena did to read the reply, never less than the CPU
        time of the bot's process tree; under ``cpu`` that CPU time alone. Under ``fair`` and
        ``cpu`` the wait ends at ``cap`` seconds of wall time whatever was charged (default
        ``arena.bots.clocks.wall_cap(timeout)``; it also bounds what a stall of the arena gives
        back). Returns the reply object, the elapsed seconds, the CPU seconds and the seconds
        charged; raises BotFaultError for a timeout, a malformed reply (not one JSON object on one
        line, a missing or wrong id, a line over ``line_cap``) or a crash.
        """
        if not self._running:
            raise self._fault(FaultKind.CRASH, "is not running", b"", b"", None)
        rid = self._next_id
        self._next_id = rid + 1
        if isinstance(message, bytes):
            data = with_id(message, rid)
        else:
            message["id"] = rid
            data = line(message)
        timer: DecisionClock = self._fair if clock is _FAIR else (
            self._wall if clock is _WALL else self._cpu)
        return self._ask(data, rid, timeout, timer, cap)

    def _ask(self, data: bytes, rid: int, timeout: float, timer: DecisionClock,
             cap: float | None) -> Reply:
        """Write the request line ``data`` (whose id is ``rid``) after the held messages, and wait
        for its reply, timed by ``timer``: what ``request`` does once the line is made."""
        debug = self._is_logging(_DEBUG)
        if debug:
            self.logger.debug(">> %s", data[:-1].decode("utf-8", "replace"))
        payload = data
        if self._held:  # the events before the request: one copy of both (bytes() + was two)
            payload = b"".join((self._held, data))
            self._held.clear()
        channel = self._channel
        assert channel is not None
        start = timer.begin(timeout, cap)
        deadline = start + timeout
        while True:
            try:
                if payload:  # written here, not through _write: one Python call less per request
                    channel.write(payload)
                    payload = b""
                    if timer.marking:  # the fair clock notes which of the bot's tasks are awake
                        timer.written()
                received = channel.read_line(deadline, start, timer)
            except ChannelError as error:
                raise self._channel_fault(error, rid, data, start, timer) from None
            elapsed = perf_counter() - start
            if debug:
                self.logger.debug("<< %s", received.decode("utf-8", "replace"))
            try:
                reply = orjson.loads(received)
            except orjson.JSONDecodeError:
                try:
                    reply = read_again(received, rid)
                except NotJson as refused:  # not `error`: compiled, a name has one type
                    raise self._fault(FaultKind.MALFORMED, str(refused), data, received,
                                      start) from None
            if type(reply) is not dict:
                raise self._fault(
                    FaultKind.MALFORMED, "reply is not a JSON object", data, received, start
                )
            got = reply.get("id")
            if type(got) is int:
                if got == rid:
                    self._exchange = (data, received)
                    sink = self._sink
                    if sink.eager:  # its stderr of this decision, if read now, marked with it
                        sink.drain(1)
                    cpu, charged = timer.charge(elapsed)
                    # Reply(...) minus a Python call
                    return _new_tuple(Reply, (reply, elapsed, cpu, charged))
                if got in self._abandoned:  # the late answer to a request that timed out
                    self._abandoned.discard(got)
                    self.logger.debug("dropped late reply to request %d", got)
                    continue
            raise self._fault(FaultKind.MALFORMED, wrong_id(reply, received, rid), data,
                              received, start)

    @property
    def reply_line(self) -> bytes:
        """The line of the last answered request's reply, as it came (a fault may quote it)."""
        return self._exchange[1]

    def illegal(self, detail: str, elapsed: float | None = None) -> Fault:
        """Record an ILLEGAL fault (the referee's verdict) on the last answered request.

        The fault carries that request and its reply line like the faults this layer raises;
        ``detail`` says why, e.g. the engine's "seat 2 played 9H: must follow spades".
        """
        sent, line = self._exchange
        self.last_fault = Fault.illegal(self.name, detail, sent, line, self.stderr_tail(), elapsed)
        return self.last_fault

    @property
    def stderr_written(self) -> tuple[int, int]:
        """Bytes and lines the bot has written to stderr so far, over its restarts (what was read
        of it: the pipe is drained while the arena waits, and when the process is closed)."""
        return self._sink.written, self._sink.lines_written

    def stderr_tail(self) -> str:
        """The last ~2 KB the bot wrote to stderr (also after its log file was capped)."""
        return self._sink.text()

    def mark_stderr(self, game: str | None, seat: int, decisions: Sized | None) -> None:
        """Mark what the bot writes to stderr from now on with its decision in ``game`` at
        ``seat`` (``len(decisions) + 1``, read when bytes arrive; the referee's list of the
        game's decisions so far), in its log's index (``arena.stderrindex``); None: with
        no decision (after the game)."""
        self._sink.mark_decisions(game, seat, decisions)

    # -- faults -------------------------------------------------------------------------------

    def _write(self, data: bytes, start: float | None) -> None:
        channel = self._channel
        assert channel is not None
        try:
            channel.write(data)
        except ChannelError as error:
            raise self._channel_fault(error, self._next_id - 1, data, start) from None

    def _channel_fault(self, error: ChannelError, rid: int, sent: bytes,
                       start: float | None, timer: DecisionClock | None = None) -> BotFaultError:
        if error.kind is FaultKind.CRASH:
            return self._crash(error.detail, sent, error.received, start)
        if error.late:  # its answer may still come: drop it then
            self._abandoned.add(rid)
        if error.expired and start is not None and timer is not None:
            cpu, detail, limit = timer.timed_out(bool(error.received))
            return self._fault(FaultKind.TIMEOUT, detail, sent, error.received, start, cpu=cpu,
                               limit=limit)
        return self._fault(error.kind, error.detail, sent, error.received, start)

    def _fault(self, kind: FaultKind, detail: str, sent: bytes, received: bytes,
               start: float | None, elapsed: float | None = None, **ending: Any) -> BotFaultError:
        """Record and return (for raising) a fault; ``start`` is when the request was written."""
        if elapsed is None and start is not None:
            elapsed = perf_counter() - start
        self._sink.drain()
        fault = Fault(
            kind=kind,
            bot=self.name,
            detail=detail,
            sent=snippet(sent.rstrip(b"\n")),
            received=snippet(received),
            stderr_tail=self.stderr_tail(),
            elapsed=elapsed,
            **ending,
        )
        self.last_fault = fault
        self.logger.debug("fault: %s", fault)
        return BotFaultError(fault)

    def _crash(self, what: str, sent: bytes, received: bytes, start: float | None) -> BotFaultError:
        """The bot stopped talking: collect its exit status (killing its group) for the report."""
        elapsed = None if start is None else perf_counter() - start
        channel = self._channel
        exited = channel is not None and wait_exits([channel], CRASH_GRACE)[0] is not None
        self.begin_close()
        self.finish_close(None)
        detail, ending = endings.crash(what, self.returncode, exited, self.memory, self.limits,
                                       self.sandbox is not None)
        return self._fault(FaultKind.CRASH, detail, sent, received, None, elapsed, **ending)


def live_bots() -> list[BotProcess]:
    """Every bot process this process started and has not closed yet."""
    return [bot for bot in registry.registered() if isinstance(bot, BotProcess)]


def close_all(grace: float | None = None) -> None:
    """Close every live bot of this process at once (see ``close_bots``)."""
    close_bots(live_bots(), grace)


_atexit_installed = False


def _register(bot: BotProcess, pid: int) -> None:
    """Register a started bot, and close every live bot at interpreter exit (installed once)."""
    global _atexit_installed
    registry.register(bot, pid)
    if not _atexit_installed:
        atexit.register(_close_all_at_exit)
        _atexit_installed = True


def _close_all_at_exit() -> None:
    if not registry.LIVE:
        return
    try:  # a second Ctrl-C must not cut the cleanup short
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    except ValueError:  # not the main thread
        pass
    close_all()
