"""Bot processes: one bot program, its handshake, timed requests with ids, faults, and shutdown.

A ``BotProcess`` runs one bot program (an argv list, never a shell) in its own working directory
and its own process group, speaks the arena's line protocol (docs/protocol.md) to it, and turns
every way the bot can fail a request into a ``BotFaultError`` carrying a ``Fault``
(arena.bots.faults). The referee says what the messages hold (``arena.protocol`` builds them) and
decides legality; this layer only moves lines and keeps time. It stays usable across games:
one process plays game after game until a fault or ``restart()``.

The jobs are split by module: ``launch`` starts the program and applies its limits, ``stderr``
drains its stderr into a capped log, ``channel`` does the non-blocking line I/O, ``memory`` watches
its resident memory, ``registry`` knows every live bot and closes them at exit. This module holds
what a request means:

- The clock runs from just before the write to just after the read that completed the line; the
  caller never waits past its allowance (plus poll's 1 ms granularity; collecting a crashed bot's
  exit status may add up to 0.1 s) in the time of the request's clock. Under ``fair`` and ``cpu``,
  when the allowance has passed in wall time, what the bot was charged decides: under ``fair`` the
  wall time less the time it waited for a CPU (``arena.bots.cputime``: the run-queue delay of its
  threads, and of the arena's own thread), never less than its CPU time; under ``cpu`` its CPU
  time. Under the allowance, the wait goes on, up to the wall cap. Every reply carries the CPU
  time the bot's process tree used since its previous reply: read once per request, just after
  the reply (and at the deadline), not at the write: one reading per decision instead of two,
  and what a bot does between two requests (the messages in between, pondering) counts toward
  the next. A wait that woke up much later than its deadline (``STALL``: the arena itself was
  not running) is counted in ``stalls`` and the bot is given that time again.
- Ids are the arena's: a reply that arrives after its request timed out is recognised by its id
  and dropped, so a slow bot does not also earn a malformed fault.
- An over-long reply line is a malformed fault; the caller should restart the bot after it.
- Replies are read by orjson; only a line it refuses is read again, by the exact reader
  (``arena.bots.exactjson``), before it is called malformed: valid JSON orjson does not take (a
  lone surrogate escape, an integer too long for a float) is read, and what is wrong with it said
  by whoever judges it. Ids compare as exact integers: ``17.0``, ``true`` and an integer beyond 64
  bits (which orjson reads as a float) are not id 17.
- A UTF-8 byte-order mark before the first reply (``hello``) is ignored, as ``\\r\\n`` line ends
  are; it is looked for only when that first line fails to parse, so requests pay nothing for it.
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
import threading
from collections.abc import Iterable, Mapping, Sequence, Sized
from time import perf_counter
from typing import Any, NamedTuple

import orjson
from mypy_extensions import mypyc_attr

from arena.bots import launch, memory, registry
from arena.bots.channel import NOTHING_RECEIVED, Channel, ChannelError, wait_exits
from arena.bots.cputime import ARENA_MARK_SECONDS, ARENA_WAITS, TreeClock, arena_wait
from arena.bots.exactjson import NotJson, read_exactly
from arena.bots.faults import BotFaultError, Fault, FaultKind, TimeLimit, snippet
from arena.bots.memory import MemoryUse
from arena.bots.registry import install_signal_handlers, signal_name
from arena.bots.sandbox import Sandbox, signal_of_status, start_hint
from arena.bots.stderr import CHUNKS_PER_DRAIN, StderrSink
from arena.bots.uids import BOT_UIDS
from arena.errors import BotStartError, ConfigError
from arena.protocol import HELLO_GAMES, HELLO_ID, PROTOCOL_VERSION, QUIT, hello, line, with_id
from arena.settings import DEFAULT_LIMITS, Clock, Limits
from engine.errors import shown

__all__ = [
    "CRASH_GRACE", "LINE_CAP", "LOG_CAP", "QUIT_GRACE", "BotProcess", "Reply", "close_all",
    "close_bots", "install_signal_handlers", "live_bots",
]

LINE_CAP = 1 << 20
"""Longest reply line accepted, in bytes (without the newline)."""
LOG_CAP = 1 << 20
"""Most bytes of a bot's stderr saved to its log file over the life of a BotProcess."""
QUIT_GRACE = DEFAULT_LIMITS.quit_grace_ms / 1000
"""Seconds a bot has to exit after ``quit`` by default before its process group is killed."""
CRASH_GRACE = 0.1
"""Seconds to wait for a bot that closed its stdout to exit, to report its real exit status."""
STALL = 0.025
"""Seconds past its deadline after which a wait counts as having woken up late: the arena itself
was not running (poll's granularity and a busy machine's wake-up latency stay below it)."""
QUICK = 0.001
"""Under ``clock: fair``, a reply within this many seconds is charged its wall time (at least its
CPU time) without reading the waits, as long as they were read under ``FRESH`` seconds before
the request: a wait read later may then take in at most that much from before the request.
Below a millisecond the charge moves no bank, and reading the bot's and the arena's waits at
every reply would cost a microsecond-fast bot's decision a quarter more."""
FRESH = 0.005
"""See ``QUICK``; ``arena.bots.cputime.ARENA_MARK_SECONDS`` is the arena's own."""
CONFIRM = 0.005
"""Under ``clock: fair``, seconds until a decision that seems over its allowance while a thread of
the bot is runnable is looked at again (``_at_deadline``): the bot's wait for a CPU, if it is
waiting, is counted by then, or bounded by this."""
BLOCKED_HINT = "blocked on input, or the reply is not flushed"
"""Said with a timeout that used little CPU and received nothing: the bot was waiting, not working."""

_FAIR = Clock.FAIR
_thread_id = threading.get_ident
_CPU = Clock.CPU
_BOM = b"\xef\xbb\xbf"
_DEBUG = logging.DEBUG


class Reply(NamedTuple):
    """A bot's reply to a request: the decoded JSON object, the wall seconds it took, the CPU
    seconds the bot's process tree used meanwhile, and the seconds charged to the bot by the
    request's clock: under ``fair`` the wall time less the time the bot waited for a CPU and the
    time the arena did (never less than the CPU time), under ``cpu`` the CPU time, under
    ``wall`` the wall time less the time the arena itself stalled."""

    message: dict[str, Any]
    elapsed: float
    cpu: float = 0.0
    charged: float = 0.0


def wall_cap(allowance: float) -> float:
    """The default wall cap of a request with ``allowance`` seconds: 10 x, and at least 5 s."""
    return max(5.0, 10 * allowance)


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
        self._sink = StderrSink(name, log_path, log_cap, silent_log)
        self._running = False
        self._next_id = 0
        self._exchange = (b"", b"")  # the last request answered and its reply line
        self._abandoned: set[int] = set()
        self._held = bytearray()  # information messages waiting for the next write
        self._tree: TreeClock | None = None
        self.stalls = 0
        """Waits for this bot that woke up over ``STALL`` late: the arena was not running."""
        self.hello_cpu: float | None = None
        """CPU seconds the process tree used up to its ``hello`` reply."""
        self._cpu_start = 0.0
        """The tree's CPU time when the bot last replied: a request's CPU time counts from there."""
        self._asked: tuple[int, float, float, Clock, float | None, int] = (
            -1, 0.0, 0.0, Clock.WALL, None, 0)
        """The request being waited for: its id, when it was written, its allowance, its clock,
        its wall cap (None: ``wall_cap`` of the allowance), and under ``fair`` the arena thread's
        run-queue delay (ns) at its start. One tuple, stored once per request: what only a passed
        deadline reads costs it nothing."""
        self._judged = -1
        """The id of the last request whose deadline passed; ``_stalled`` and ``_limit`` are its."""
        self._stalled = 0.0
        """Seconds the arena stalled past that request's deadlines."""
        self._waited = 0.0
        """Under ``fair``: seconds the bot waited for a CPU during that request, up to its last
        deadline (``TreeClock.waited``)."""
        self._arena_mark = 0
        """Under ``fair``: the arena thread's run-queue delay (ns) at that request's last
        deadline: what it waits after that is its wait to read the reply."""
        self._limit: TimeLimit | None = None
        """The limit that ended that request, if one did."""
        self._on_deadline = self._at_deadline  # bound once, not at every request

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
        self._tree = TreeClock(proc.pid)
        self._cpu_start = 0.0  # the process's CPU clocks count from its start
        self._running = True
        _register(self, proc.pid)
        if self.sandbox is None:  # a sandbox sets them before its bot starts
            launch.apply_limits(proc.pid, self.limits)
        memory.watch(proc.pid, self.memory)
        self._sink.note(f"started {list(self.argv)} as pid {proc.pid}")
        self._next_id = HELLO_ID + 1
        try:
            remaining = self.start_timeout - (perf_counter() - started)
            answer = self._ask(hello(self.games), HELLO_ID, remaining, Clock.WALL, None)
            self._cpu_start = self._tree.read(fresh=True)  # a launcher has started the bot by now
            self._sink.drain()  # once: a bot that logs as it starts is drained after each reply
            reply = answer.message
            self.hello_cpu = answer.cpu
        except BotFaultError as error:
            self.close(grace=0)
            raise BotStartError(self._handshake_failure(error.fault),
                                error.fault.stderr_tail) from None
        protocol = reply.get("protocol", PROTOCOL_VERSION)
        if type(protocol) is not int or protocol != PROTOCOL_VERSION:  # 1.0 and true are not 1
            self.close(grace=0)
            raise BotStartError(
                f"bot '{self.name}': speaks protocol {shown(protocol)}, the arena speaks "
                f"{PROTOCOL_VERSION}"
            )
        self.hello = reply

    def _handshake_failure(self, fault: Fault) -> str:
        """Why the handshake failed, in the arena's words: what the bot wrote to stderr is not
        quoted (it is the fault's ``stderr_tail``); a hint made from it only classifies it."""
        where = f"bot '{self.name}'"
        if fault.kind is FaultKind.TIMEOUT:
            return (f"{where}: no hello reply within {self.start_timeout * 1000:.0f} ms"
                    f"{_timeout_note(fault)}")
        if fault.kind is FaultKind.CRASH:
            hint = start_hint(fault.stderr_tail) if self.sandbox is not None else ""
            return f"{where}: exited before replying to hello: {fault.detail}{hint}"
        return f"{where}: bad hello reply: {fault.detail}: {fault.received!r}"

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
        if self._tree is not None:  # the quit grace counts this bot's waits for a CPU from here
            with contextlib.suppress(OSError):
                self._tree.waited(fresh=True)
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
        if self._tree is not None:
            self._tree.close()
            self._tree = None
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

        ``timeout`` is this request's allowance in seconds of ``clock``, counted from writing the
        message to reading the complete reply line. Under ``wall`` that is wall time (less what the
        arena stalled); under ``fair`` the wall time less the time the bot waited for a CPU and the
        time the arena did to read the reply, never less than the CPU time of the bot's process
        tree; under ``cpu`` that CPU time alone. Under ``fair`` and ``cpu`` the wait ends at ``cap``
        seconds of wall time whatever was charged (default ``wall_cap(timeout)``; it also bounds
        what a stall of the arena gives back). Returns the reply object, the elapsed seconds, the
        CPU seconds and the seconds charged; raises BotFaultError for a timeout, a malformed reply
        (not one JSON object on one line, a missing or wrong id, a line over ``line_cap``) or a
        crash.
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
        return self._ask(data, rid, timeout, clock, cap)

    def _ask(self, data: bytes, rid: int, timeout: float, clock: Clock,
             cap: float | None) -> Reply:
        """Write the request line ``data`` (whose id is ``rid``) after the held messages, and wait
        for its reply: what ``request`` does once the line is made."""
        debug = self._is_logging(_DEBUG)
        if debug:
            self.logger.debug(">> %s", data[:-1].decode("utf-8", "replace"))
        payload = data
        if self._held:  # the events before the request: one copy of both (bytes() + was two)
            payload = b"".join((self._held, data))
            self._held.clear()
        channel = self._channel
        tree = self._tree
        assert channel is not None and tree is not None
        cpu_start = self._cpu_start
        start = perf_counter()
        deadline = start + timeout
        arena = None
        mark = 0
        if clock is _FAIR:
            arena = ARENA_WAITS.get(_thread_id()) or arena_wait()
            mark = arena.delay if start - arena.at <= ARENA_MARK_SECONDS else arena.read()
            if not tree.tracking or start - tree.waits_read > FRESH:
                # Its waits from now: not those of the messages it woke for between two requests
                # (game_end, game_start), which a loaded machine makes tens of milliseconds.
                tree.waited()
        self._asked = (rid, start, timeout, clock, cap, mark)
        while True:
            try:
                if payload:  # written here, not through _write: one Python call less per request
                    channel.write(payload)
                    payload = b""
                received = channel.read_line(deadline, start, self._on_deadline)
            except ChannelError as error:
                raise self._channel_fault(error, rid, data, start) from None
            elapsed = perf_counter() - start
            if debug:
                self.logger.debug("<< %s", received.decode("utf-8", "replace"))
            try:
                reply = orjson.loads(received)
            except orjson.JSONDecodeError:
                reply = self._read_again(received, rid, data, start)
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
                    used = self._cpu_start = tree.read()
                    cpu = used - cpu_start
                    if arena is not None and elapsed < QUICK and self._judged != rid and \
                            start - tree.waits_read < FRESH:
                        # fair, a quick reply: the waits are read now and then, not every time
                        charged = elapsed if elapsed > cpu else cpu
                    elif arena is not None:  # fair: the wall time less the waits for a CPU
                        waited = tree.waited()
                        mark = self._asked[5]
                        if self._judged == rid:
                            waited += self._waited
                            mark = self._arena_mark
                        # The arena's wait since it last looked: its wait to read the reply. A
                        # wait (or a late wake-up) before that fell while the bot slept or
                        # worked, its own time, and is not taken off.
                        charged = elapsed - waited - (arena.read() - mark) / 1e9
                        if charged < cpu:
                            charged = cpu
                    elif clock is _CPU:
                        charged = cpu
                    elif self._judged == rid:  # a deadline passed: the arena may have stalled
                        charged = elapsed - self._stalled
                    else:
                        charged = elapsed
                    # Reply(...) minus a Python call
                    return _new_tuple(Reply, (reply, elapsed, cpu, charged))
                if got in self._abandoned:  # the late answer to a request that timed out
                    self._abandoned.discard(got)
                    self.logger.debug("dropped late reply to request %d", got)
                    continue
            raise self._id_fault(reply, received, rid, data, start)

    def _at_deadline(self, now: float, deadline: float) -> float:
        """The request's new deadline when its deadline has passed (not after ``now``: time out).

        A wait that woke up over ``STALL`` late is counted; under ``wall`` the bot is given the
        time the arena was not running. Under ``fair`` the time charged so far decides (the wall
        time less the bot's waits for a CPU, at least the CPU time: the arena's own lateness
        here fell in the bot's time, and the arena's wait to read a reply is taken off at the
        reply), under
        ``cpu`` the CPU time: under the allowance, wait for what is left of it (at least 2 ms),
        up to the cap.
        """
        rid, start, timeout, clock, cap, _ = self._asked
        if self._judged != rid:  # this request's first deadline
            self._judged, self._stalled, self._waited, self._limit = rid, 0.0, 0.0, None
        cap_at = start + (cap if cap is not None else wall_cap(timeout))
        late = now - deadline
        if late > STALL:
            self.stalls += 1
            self._stalled += late
        if now >= cap_at:
            self._limit = TimeLimit.WALL if clock is Clock.WALL else TimeLimit.WALL_CAP
            return now
        if clock is not Clock.WALL:
            assert self._tree is not None
            used = self._tree.read(fresh=True) - self._cpu_start
            if clock is _FAIR:
                tree = self._tree
                waited, unseen = tree.settle()
                self._waited += waited
                self._arena_mark = arena_wait().read()  # the arena's wait to here is not the bot's
                charged = now - start - self._waited
                if charged >= timeout and used < timeout and (
                        unseen is None or charged - unseen < timeout):
                    # Over, unless a wait for a CPU is going on (the kernel counts a wait when it
                    # ends): judged once what may be unseen cannot bring it under; until then
                    # looked at again shortly (a runnable task runs within the scheduler's latency).
                    return min(cap_at, now + CONFIRM)
                used = max(used, charged)
            if used >= timeout:
                self._limit = TimeLimit.FAIR if clock is _FAIR else TimeLimit.CPU
                return now
            return min(cap_at, now + max(0.002, timeout - used))
        if late > STALL:
            return min(cap_at, now + late)
        self._limit = TimeLimit.WALL
        return now

    def _timeout_fault(self, error: ChannelError, sent: bytes, start: float) -> BotFaultError:
        """The fault of a request whose deadline passed: which limit, the CPU used, and a hint
        where the bot is waiting rather than working (no thread of its tree runnable): then the
        reply was not flushed, or not written at all. Under ``fair`` it says how the time charged
        was spent: CPU, and sleeping or waiting (and the wait for a CPU that was not charged)."""
        assert self._tree is not None
        total = self._tree.read(fresh=True)
        cpu, self._cpu_start = max(0.0, total - self._cpu_start), total
        rid, _, timeout, clock, cap, _ = self._asked
        limit = (self._limit if self._judged == rid else None) or TimeLimit.WALL
        used = f"{cpu * 1000:.0f} ms of CPU"
        if limit is TimeLimit.CPU:
            detail = f"used {used}, limit {timeout * 1000:.0f} ms"
        elif limit is TimeLimit.FAIR:
            slept = timeout - cpu
            asleep = f" and {slept * 1000:.0f} ms asleep or waiting" if slept >= 0.0005 else ""
            detail = f"used {used}{asleep}, limit {timeout * 1000:.0f} ms"
            if asleep and self._waited >= 0.001:
                detail += f" (not charged: {self._waited * 1000:.0f} ms waiting for a CPU)"
        elif limit is TimeLimit.WALL_CAP:
            wall = cap if cap is not None else wall_cap(timeout)
            detail = f"no reply in {wall:g} s of wall time while using {used}"
            if clock is _FAIR:
                detail += (f" and waiting {self._waited:.1f} s for a CPU (the machine is "
                           f"overloaded)")
        else:
            detail = f"no reply within {timeout * 1000:.0f} ms, using {used}"
        if limit is not TimeLimit.CPU and not self._tree.is_working():
            if not error.received:
                detail += f": {BLOCKED_HINT}" if limit is not TimeLimit.WALL else \
                    f" ({NOTHING_RECEIVED})"
            else:
                detail += ": the reply line has no end yet: is the newline written and flushed?"
        return self._fault(FaultKind.TIMEOUT, detail, sent, error.received, start, cpu=cpu,
                           limit=limit)

    def _read_again(self, line: bytes, rid: int, sent: bytes, start: float) -> Any:
        """A reply line orjson refused, read by the exact reader (``arena.bots.exactjson``), which
        takes the valid JSON orjson does not (a lone surrogate escape, an integer too long for a
        float) and skips a byte-order mark before the first reply; the malformed fault, saying
        why, when it is not JSON the arena reads."""
        try:
            return read_exactly(_without_bom(line, rid))
        except NotJson as error:
            raise self._fault(FaultKind.MALFORMED, str(error), sent, line, start) from None

    def _id_fault(self, reply: dict[str, Any], line: bytes, rid: int, sent: bytes,
                  start: float) -> BotFaultError:
        """The fault of a reply whose id is not the request's, with the id as the bot wrote it:
        an integer orjson read as a float (beyond 64 bits) is read again exactly."""
        got = reply.get("id")
        if type(got) is float:
            with contextlib.suppress(NotJson):
                again = read_exactly(_without_bom(line, rid))
                got = again.get("id") if type(again) is dict else got
        if "id" not in reply:
            detail = "reply has no id"
        elif isinstance(got, int) and not isinstance(got, bool):  # a LongInteger too
            detail = f"reply has id {shown(got)}"
        else:  # 17.0, true, "17": not the integer the arena sent
            detail = f"reply has id {shown(got)} (not an integer)"
        return self._fault(FaultKind.MALFORMED, f"{detail}, expected {rid}", sent, line, start)

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

    def stderr_tail(self) -> str:
        """The last ~2 KB the bot wrote to stderr (also after its log file was capped)."""
        return self._sink.text()

    def mark_stderr(self, game: str | None, seat: int, decisions: Sized | None) -> None:
        """Mark what the bot writes to stderr from now on with its decision in ``game`` at
        ``seat`` (``len(decisions) + 1``, read when bytes arrive; the referee's list of the
        game's decisions so far), in its log's index (``arena.bots.stderrindex``); None: with
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
                       start: float | None) -> BotFaultError:
        if error.kind is FaultKind.CRASH:
            return self._crash(error.detail, sent, error.received, start)
        if error.late:  # its answer may still come: drop it then
            self._abandoned.add(rid)
        if error.expired and start is not None:
            return self._timeout_fault(error, sent, start)
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
        status = self.returncode
        killed_inside = signal_of_status(status) if self.sandbox is not None else None
        if killed_inside is not None:  # bwrap exits with 128 + N for a bot killed by signal N
            status = -killed_inside
        ending: dict[str, Any] = {}
        if status is not None and status >= 0:
            ending["exit_code"] = status
        elif status is not None:
            ending["signal"] = signal_name(-status)
        if self.memory_exceeded:
            ending["memory_peak_mb"] = memory.megabytes_over(self.memory_peak)
            detail = f"memory limit {self.limits.memory_mb} MB exceeded"
        elif status is None:
            detail = f"{what} and could not be killed"
        elif not exited:
            detail = f"{what} but kept running (killed)"
        elif status >= 0:
            detail = f"exited with code {status}"
        else:
            detail = f"killed by signal {signal_name(-status)}{self._limit_hint(-status)}"
        return self._fault(FaultKind.CRASH, detail, sent, received, None, elapsed, **ending)

    def _limit_hint(self, signum: int) -> str:
        if signum == signal.SIGXCPU and self.limits.cpu_seconds is not None:
            return f" (CPU limit {self.limits.cpu_seconds} s)"
        if signum == signal.SIGXFSZ and self.limits.file_mb is not None:
            return f" (file size limit {self.limits.file_mb} MB)"
        return ""


def live_bots() -> list[BotProcess]:
    """Every bot process this process started and has not closed yet."""
    return [bot for bot in registry.registered() if isinstance(bot, BotProcess)]


def close_all(grace: float | None = None) -> None:
    """Close every live bot of this process at once (see ``close_bots``)."""
    close_bots(live_bots(), grace)


def close_bots(bots: Iterable[BotProcess], grace: float | None = None) -> None:
    """Close several bots at once: ``quit`` to all, one shared grace during which all their stderr
    pipes keep being drained, then SIGKILL to every process group.

    ``grace`` is in seconds; None gives each bot its own ``quit_grace`` (its limits' setting).
    """
    closing = [(bot, channel) for bot in bots if (channel := bot.begin_close()) is not None]
    if not closing:
        return
    timeout = max(bot.quit_grace for bot, _ in closing) if grace is None else grace
    exits = wait_exits([channel for _, channel in closing], timeout)
    _give_back_waits(closing, exits, timeout)
    for (bot, _), seconds in zip(closing, exits, strict=True):
        bot.finish_close(seconds)


QUIT_WAIT_CAP = 10
"""A quit grace grows by the bot's waits for a CPU up to this many times the grace in all."""


def _give_back_waits(closing: Sequence[tuple[BotProcess, Channel]], exits: list[float | None],
                     timeout: float) -> None:
    """Bots still running when the grace ends are given the time they waited for a CPU during
    it, as the fair clock gives a decision, and waited for again (``exits`` is updated): on a
    loaded machine a bot that exits cleanly must not be killed, and faulted by check-bot, for
    the CPU it did not get. A bot that does not exit (it ignores ``quit``, it spins) waits no
    more than its grace, plus its waits, up to ``QUIT_WAIT_CAP`` times the grace."""
    spent = timeout
    while spent < QUIT_WAIT_CAP * timeout:
        late = [index for index, seconds in enumerate(exits)
                if seconds is None and closing[index][0]._tree is not None]
        if not late:
            return
        owed = 0.0
        for index in late:
            tree = closing[index][0]._tree
            assert tree is not None
            with contextlib.suppress(OSError):
                owed = max(owed, tree.waited(fresh=True))
        if owed < 0.005:  # it had the CPU it needed: the grace was its own
            return
        extra = min(owed, QUIT_WAIT_CAP * timeout - spent)
        more = wait_exits([closing[index][1] for index in late], extra)
        for index, seconds in zip(late, more, strict=True):
            if seconds is not None:
                exits[index] = spent + seconds
        spent += extra


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


def _without_bom(line: bytes, rid: int) -> bytes:
    """A reply line without the UTF-8 byte-order mark a first reply (``hello``, id 0) may have."""
    return line[len(_BOM):] if rid == HELLO_ID and line.startswith(_BOM) else line


def _timeout_note(fault: Fault) -> str:
    """`` (used N ms of CPU: HINT)`` for a timed-out hello: the hint where the bot was waiting."""
    if fault.cpu is None:
        return ""
    hint = f": {BLOCKED_HINT}" if "flush" in fault.detail or BLOCKED_HINT in fault.detail else ""
    return f" (used {fault.cpu * 1000:.0f} ms of CPU{hint})"

