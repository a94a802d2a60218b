"""Bot processes: start and handshake, timed requests, faults, resource limits and cleanup.

A ``BotProcess`` runs one bot program (an argv list, never a shell) in its own working directory
and its own process group, speaks shared/PROTOCOL.md to it, and turns every way the bot can fail a
request into a ``BotFaultError`` carrying a ``Fault`` (arena.bots.faults). The referee builds messages
and decides legality; this module only moves lines and keeps time. It stays usable across games:
one process plays game after game until a fault or ``restart()``.

Design choices (numbers from shared/PERFORMANCE.md):

- Start: ``subprocess.Popen(argv, cwd=..., process_group=0)`` with three pipes. No ``preexec_fn``
  (it forces a real fork, up to +44 ms from a large parent); limits are applied right after start
  with ``resource.prlimit(pid, ...)``, which costs nothing but leaves the bot a few microseconds of
  unlimited life before they apply.
- Requests: one ``os.write`` of an orjson line, ``select.poll`` on the bot's stdout, stderr and a
  pidfd of the process, non-blocking ``os.read`` into a buffer, ``find(b"\\n")``, ``orjson.loads``.
  No reader threads (a thread hand-off costs 6-78 us per round trip; poll costs about 1 us). The
  clock runs from just before the write to just after the read that completed the line; the caller
  never waits past its allowance (plus poll's 1 ms granularity; collecting a crashed bot's exit
  status may add up to 0.1 s). Ids are the arena's: a reply that arrives after its request timed
  out is recognised by its id and dropped, so a slow bot does not also earn a malformed fault.
- Lines: a reply line is capped (1 MiB by default). Past the cap the arena stops buffering,
  records a malformed fault and discards input up to the next newline: memory stays bounded
  whatever the bot prints. The caller should restart the bot after such a fault.
- Input to the bot: stdin is non-blocking; what the pipe cannot take now is kept in an outbox and
  written while polling. A bot that stops reading cannot block the arena; once its outbox passes
  the line cap it is a timeout fault ("not reading its input").
- stderr: a pipe that the arena drains in the same poll loop as stdout, into the bot's log file up
  to ``log_cap`` bytes (then one "[arena] truncated" note, the rest discarded); the last 2 KB are
  also kept in memory for fault reports. Letting the bot write the file itself was rejected: a
  RLIMIT_FSIZE cap would kill the bot for logging, and truncating between games lets one game
  fill the disk. With a pipe, disk use is capped and the arena's memory is fixed. A bot that
  floods stderr while it is not being asked anything blocks on the full pipe until its next
  request drains it: that stalls only the bot itself, never the arena.
- Limits (``Limits``): RLIMIT_AS from ``memory_mb``, RLIMIT_CPU from ``cpu_seconds``, RLIMIT_FSIZE
  from ``file_mb``, RLIMIT_CORE 0. A bot that runs out of memory dies its own way (Python: a
  MemoryError and exit 1; node: an abort): either way the arena sees a crash.
- Cleanup: ``close()`` sends ``quit``, closes stdin, waits a short grace (0.25 s) for the exit,
  then SIGKILLs the whole process group (so children a bot forked die too; while the leader is
  still unreaped, its pid cannot be reused, so the group kill cannot hit a stranger) and reaps the
  leader. Every live bot is in a module registry; ``close_all()`` closes them all at once (quit to
  all, one shared grace, kill), runs at interpreter exit, and ``install_signal_handlers()`` turns
  SIGTERM and SIGHUP into KeyboardInterrupt so that ``with`` blocks and atexit clean up. Processes
  forked from a runner (pool workers) start with an empty registry and must close their own bots
  (atexit does not run in forked pool workers: close them in a ``finally``). Not covered: a runner
  killed by SIGKILL (bots that exit on stdin EOF still go), and a bot that leaves its process group
  (setsid) on purpose.

Traffic is logged line by line at debug level on ``arena.bot.<name>``; bytes that are not UTF-8
are logged with replacement characters (and are a malformed fault if they were a reply line).
"""

from __future__ import annotations

import atexit
import logging
import os
import resource
import select
import signal
import subprocess
from collections.abc import Iterable, Mapping, Sequence
from time import perf_counter, sleep
from typing import Any, NamedTuple

import orjson

from arena.bots.faults import STDERR_TAIL_BYTES, BotFaultError, Fault, FaultKind, snippet
from arena.bots.sandbox import Sandbox
from arena.errors import BotStartError
from arena.settings import Limits

PROTOCOL_VERSION = 1
GAMES = ("blackout", "partnership-blackout")
LINE_CAP = 1 << 20
"""Longest reply line accepted, in bytes (without the newline)."""
LOG_CAP = 1 << 20
"""Most bytes of a bot's stderr saved to its log file over the life of a BotProcess."""
QUIT_GRACE = 0.25
"""Seconds a bot has to exit after ``quit`` before its process group is killed."""
CRASH_GRACE = 0.1
"""Seconds to wait for a bot that closed its stdout to exit, to report its real exit status."""

_CHUNK = 65536
_STDERR_CHUNKS_PER_POLL = 16  # drain at most 1 MiB of stderr per wake-up, then look at the clock
_POLLIN = select.POLLIN
_POLLOUT = select.POLLOUT
_APPEND_NEWLINE = orjson.OPT_APPEND_NEWLINE
_DEBUG = logging.DEBUG


class Reply(NamedTuple):
    """A bot's reply to a request: the decoded JSON object and the seconds it took."""

    message: dict[str, Any]
    elapsed: float


_new_tuple = tuple.__new__

_LIVE: dict[int, BotProcess] = {}
"""Every running bot of this process, by pid (children forked from here start empty)."""


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
        limits: Limits = Limits(),  # noqa: B008 (frozen, so one shared default is safe)
        log_path: str | os.PathLike[str] | None = None,
        start_timeout: float = 10.0,
        line_cap: int = LINE_CAP,
        log_cap: int = LOG_CAP,
        games: Sequence[str] = GAMES,
        sandbox: Sandbox | None = None,
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
        self.logger = logging.getLogger(f"arena.bot.{name}")
        self._proc: subprocess.Popen[bytes] | None = None
        self._running = False
        self._tail = b""
        self._log_fd = -1
        self._log_size = 0
        self._log_started = False
        self._reset_io()

    def _reset_io(self) -> None:
        self._next_id = 0
        self._exchange = (b"", b"")  # the last request answered and its reply line
        self._abandoned: set[int] = set()
        self._buf = b""
        self._skipping = False
        self._outbox = bytearray()
        self._held = bytearray()  # information messages waiting for the next write
        self._in_fd = self._out_fd = self._err_fd = self._pid_fd = -1
        self._poller = select.poll()

    # -- life cycle ---------------------------------------------------------------------------

    @property
    def pid(self) -> int | None:
        """Pid (and process group id) of the running process, or None."""
        return self._proc.pid if self._proc is not None else None

    @property
    def is_running(self) -> bool:
        """True between a successful start and a crash or close (a silent exit shows at next I/O)."""
        return self._running

    def start(self) -> None:
        """Start the process, apply the limits and complete the ``hello`` handshake.

        Raises BotStartError with one line naming the bot and what went wrong: a missing or
        unrunnable command, an exit before ``hello``, a garbled or wrong-id reply, no reply within
        ``start_timeout`` seconds.
        """
        if self._proc is not None:
            raise RuntimeError(f"bot '{self.name}' is already started")
        self._reset_io()
        self.hello = None
        self.last_fault = None
        self.returncode = None
        started = perf_counter()
        self._spawn()
        proc = self._proc
        assert proc is not None
        self._log_arena_note(f"started {list(self.argv)} as pid {proc.pid}")
        hello = {"type": "hello", "id": 0, "protocol": PROTOCOL_VERSION, "games": list(self.games)}
        try:
            remaining = self.start_timeout - (perf_counter() - started)
            reply = self.request(hello, remaining).message
        except BotFaultError as error:
            self.close(grace=0)
            raise BotStartError(self._handshake_failure(error.fault)) from None
        protocol = reply.get("protocol", PROTOCOL_VERSION)
        if protocol != PROTOCOL_VERSION:
            self.close(grace=0)
            raise BotStartError(
                f"bot '{self.name}': speaks protocol {protocol!r}, the arena speaks "
                f"{PROTOCOL_VERSION}"
            )
        self.hello = reply

    def _spawn(self) -> None:
        command = list(self.argv)
        if self.sandbox is not None:  # still one process with three pipes to this layer
            command = self.sandbox.wrap(command, self.cwd, self.limits, self.env)
        self._open_log()
        try:
            proc = subprocess.Popen(
                command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=self.cwd,
                env=self.env,
                process_group=0,
                bufsize=0,
            )
        except OSError as error:
            self._close_log()
            raise BotStartError(self._spawn_failure(command, error)) from None
        self._proc = proc
        self._running = True
        _register(self)
        _apply_limits(proc.pid, self.limits)
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        self._in_fd = proc.stdin.fileno()
        self._out_fd = proc.stdout.fileno()
        self._err_fd = proc.stderr.fileno()
        for fd in (self._in_fd, self._out_fd, self._err_fd):
            os.set_blocking(fd, False)
        try:
            self._pid_fd = os.pidfd_open(proc.pid)
        except (AttributeError, OSError):  # no pidfd: a crash shows as stdout EOF instead
            self._pid_fd = -1
        self._poller.register(self._out_fd, _POLLIN)
        self._poller.register(self._err_fd, _POLLIN)
        if self._pid_fd >= 0:
            self._poller.register(self._pid_fd, _POLLIN)

    def _open_log(self) -> None:
        """Open the log file: fresh for a new BotProcess, appended to (same cap) on restarts."""
        if self.log_path is None or self._log_fd >= 0:
            return
        flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND
        if not self._log_started:
            flags |= os.O_TRUNC
        try:
            directory = os.path.dirname(os.fspath(self.log_path))
            if directory:
                os.makedirs(directory, exist_ok=True)
            self._log_fd = os.open(self.log_path, flags, 0o644)
        except OSError as error:
            raise BotStartError(
                f"bot '{self.name}': cannot open its log file '{self.log_path}': {error.strerror}"
            ) from None
        self._log_started = True
        self._log_size = os.fstat(self._log_fd).st_size

    def _close_log(self) -> None:
        log_fd, self._log_fd = self._log_fd, -1
        if log_fd >= 0:
            os.close(log_fd)

    def _spawn_failure(self, command: list[str], error: OSError) -> str:
        where = f"bot '{self.name}': cannot start {command}"
        missing = error.filename if error.filename is not None else command[0]
        if self.cwd is not None and os.fspath(missing) == os.fspath(self.cwd):
            if isinstance(error, FileNotFoundError):
                return f"{where}: no such working directory '{self.cwd}'"
            return f"{where}: working directory '{self.cwd}': {error.strerror}"
        if isinstance(error, FileNotFoundError):
            return f"{where}: no such file '{missing}'"
        if isinstance(error, PermissionError):
            return f"{where}: '{missing}' is not executable"
        return f"{where}: {error.strerror or error}"

    def _handshake_failure(self, fault: Fault) -> str:
        where = f"bot '{self.name}'"
        last_line = _last_line(fault.stderr_tail)
        said = f" (stderr: {snippet(last_line, 120)})" if last_line else ""
        if fault.kind is FaultKind.TIMEOUT:
            return f"{where}: no hello reply within {self.start_timeout * 1000:.0f} ms{said}"
        if fault.kind is FaultKind.CRASH:
            return f"{where}: exited before replying to hello: {fault.detail}{said}"
        return f"{where}: bad hello reply: {fault.detail}: {fault.received!r}"

    def restart(self) -> None:
        """Close the process (quit, grace, kill) and start a fresh one with a new handshake."""
        self.close()
        self.start()

    def close(self, grace: float = QUIT_GRACE) -> None:
        """Send ``quit``, wait up to ``grace`` seconds, then kill the process group and reap."""
        if self._proc is None:
            return
        self._begin_close()
        self._wait_exit(grace)
        self._finish_close()

    def __enter__(self) -> BotProcess:
        if self._proc is None:
            self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<BotProcess {self.name!r} pid={self.pid} running={self._running}>"

    def _begin_close(self) -> None:
        """Say ``quit`` (if it can be said without blocking) and close the bot's stdin."""
        if self._running and self._in_fd >= 0:
            try:
                self._flush_outbox()
                if not self._outbox:
                    os.write(self._in_fd, b'{"type":"quit"}\n')
                    self.logger.debug('>> {"type":"quit"}')
            except OSError:
                pass
        if self._proc is not None and self._proc.stdin is not None:
            try:
                self._proc.stdin.close()
            except OSError:
                pass
            self._in_fd = -1

    def _finish_close(self) -> None:
        """Kill the process group (children too), reap the leader, keep the last stderr."""
        proc = self._proc
        if proc is None:
            return
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:  # unkillable (uninterruptible sleep): leave it registered
            self.logger.error("pid %d did not die on SIGKILL", proc.pid)
            return
        self.returncode = proc.returncode
        self._drain_stderr(limit=_STDERR_CHUNKS_PER_POLL * 4)
        # Forget each descriptor before closing it: an interrupted close can be run again.
        self._in_fd = self._out_fd = self._err_fd = -1
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()
        pid_fd, self._pid_fd = self._pid_fd, -1
        if pid_fd >= 0:
            os.close(pid_fd)
        self._close_log()
        self._running = False
        self._proc = None
        _LIVE.pop(proc.pid, None)

    def _wait_exit(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for the leader to exit (without reaping it); drain stderr."""
        proc = self._proc
        if proc is None:
            return True
        if self._pid_fd < 0:
            deadline = perf_counter() + timeout
            while not _has_exited(proc.pid):
                if perf_counter() >= deadline:
                    return False
                self._drain_stderr()
                sleep(0.005)
            return True
        poller = select.poll()
        poller.register(self._pid_fd, _POLLIN)
        if self._err_fd >= 0:
            poller.register(self._err_fd, _POLLIN)
        deadline = perf_counter() + timeout
        while True:
            remaining = deadline - perf_counter()
            events = poller.poll(int(remaining * 1000) + 1 if remaining > 0 else 0)
            for fd, _ in events:
                if fd == self._pid_fd:
                    return True
                if not self._drain_stderr():
                    poller.unregister(fd)
            if remaining <= 0:
                return False

    # -- talking ------------------------------------------------------------------------------

    def hold(self, message: dict[str, Any]) -> None:
        """Queue an information message, to be written with the next request, send or flush.

        One write per decision instead of one per event: every write wakes the bot, and on one
        CPU those wake-ups, not the bytes, are most of the cost of an event.
        """
        data = orjson.dumps(message, option=_APPEND_NEWLINE)
        if self.logger.isEnabledFor(_DEBUG):
            self.logger.debug(">> %s", data[:-1].decode("utf-8", "replace"))
        self._held += data

    def hold_line(self, data: bytes) -> None:
        """Queue an already serialised message line (ending in a newline), as ``hold`` does."""
        if self.logger.isEnabledFor(_DEBUG):
            self.logger.debug(">> %s", data[:-1].decode("utf-8", "replace"))
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

    def send(self, message: dict[str, Any]) -> None:
        """Write a message that needs no reply (game_start, event, ...); never blocks.

        A no-op for a bot whose crash was already reported; raises BotFaultError (crash) if the
        write finds the bot gone, or (timeout) if it has left a line cap of input unread.
        """
        if not self._running:
            if self.last_fault is not None and self.last_fault.kind is FaultKind.CRASH:
                return
            raise self._fault(FaultKind.CRASH, "is not running", b"", b"", None)
        data = orjson.dumps(message, option=_APPEND_NEWLINE)
        if self.logger.isEnabledFor(_DEBUG):
            self.logger.debug(">> %s", data[:-1].decode("utf-8", "replace"))
        if self._held:
            data = bytes(self._held) + data
            self._held.clear()
        self._write(data, None)

    def request(self, message: dict[str, Any], timeout: float) -> Reply:
        """Write ``message`` with a fresh ``id`` (set in the dict) and wait for its reply line.

        ``timeout`` is this request's allowance in seconds, measured from writing the message to
        reading the complete reply line. Returns the reply object and the elapsed seconds; raises
        BotFaultError for a timeout, a malformed reply (not one JSON object on one line, a missing
        or wrong id, a line over ``line_cap``) or a crash.
        """
        if not self._running:
            raise self._fault(FaultKind.CRASH, "is not running", b"", b"", None)
        rid = self._next_id
        self._next_id = rid + 1
        message["id"] = rid
        data = orjson.dumps(message, option=_APPEND_NEWLINE)
        debug = self.logger.isEnabledFor(_DEBUG)
        if debug:
            self.logger.debug(">> %s", data[:-1].decode("utf-8", "replace"))
        payload = data
        if self._held:
            payload = bytes(self._held) + data
            self._held.clear()
        start = perf_counter()
        self._write(payload, start)
        deadline = start + timeout
        while True:
            line = self._read_line(deadline, data, start, rid)
            elapsed = perf_counter() - start
            if debug:
                self.logger.debug("<< %s", line.decode("utf-8", "replace"))
            try:
                reply = orjson.loads(line)
            except orjson.JSONDecodeError:
                raise self._fault(
                    FaultKind.MALFORMED, "reply is not JSON", data, line, start
                ) from None
            if type(reply) is not dict:
                raise self._fault(
                    FaultKind.MALFORMED, "reply is not a JSON object", data, line, start
                )
            got = reply.get("id")
            if type(got) is int:
                if got == rid:
                    self._exchange = (data, line)
                    return _new_tuple(Reply, (reply, elapsed))  # Reply(...) minus a Python call
                if got in self._abandoned:  # the late answer to a request that timed out
                    self._abandoned.discard(got)
                    self.logger.debug("dropped late reply to request %d", got)
                    continue
            detail = "reply has no id" if got is None else f"reply has id {got!r}"
            raise self._fault(
                FaultKind.MALFORMED, f"{detail}, expected {rid}", data, line, start
            )

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
        return self._tail.decode("utf-8", "replace")

    # -- I/O internals ------------------------------------------------------------------------

    def _write(self, data: bytes, start: float | None) -> None:
        if self._outbox:
            self._outbox += data
            self._flush_outbox()
            if len(self._outbox) > self.line_cap:
                # If a request was being written, its answer may still come: drop it then.
                self._abandoned.add(self._next_id - 1)
                raise self._fault(
                    FaultKind.TIMEOUT,
                    f"is not reading its input ({len(self._outbox)} bytes unread)",
                    data, b"", start,
                )
            return
        try:
            written = os.write(self._in_fd, data)
        except BlockingIOError:
            written = 0
        except (BrokenPipeError, ConnectionResetError):
            raise self._crash("closed its stdin", data, b"", start) from None
        if written < len(data):
            self._outbox += data[written:]
            self._poller.register(self._in_fd, _POLLOUT)

    def _flush_outbox(self) -> None:
        """Write what the pipe takes now; stdin is polled for room exactly while this is not empty."""
        if not self._outbox:
            return
        while self._outbox:
            try:
                written = os.write(self._in_fd, self._outbox)
            except BlockingIOError:
                return
            except OSError:  # the reader is gone: stdout EOF or the pidfd reports the crash
                self._outbox.clear()
                break
            del self._outbox[:written]
        self._poller.unregister(self._in_fd)

    def _read_line(self, deadline: float, sent: bytes, start: float, rid: int) -> bytes:
        """The next complete line from stdout (newline removed), or a fault."""
        buf = self._buf
        scan = 0
        out_fd = self._out_fd
        exited = False
        while True:
            if buf:
                if self._skipping:  # the rest of an over-long line
                    end = buf.find(b"\n")
                    if end < 0:
                        buf = b""
                    else:
                        buf = buf[end + 1:]
                        self._skipping = False
                        self.logger.debug("skipped the rest of an over-long line")
                    scan = 0
                    continue
                end = buf.find(b"\n", scan)
                if end >= 0:
                    self._buf = buf[end + 1:]
                    if end > self.line_cap:
                        self._abandoned.add(rid)
                        raise self._fault(FaultKind.MALFORMED, f"line over {self.line_cap} bytes",
                                          sent, buf[:end], start)
                    return buf[:end]
                if len(buf) > self.line_cap:
                    self._buf = b""
                    self._skipping = True
                    self._abandoned.add(rid)
                    raise self._fault(
                        FaultKind.MALFORMED, f"line over {self.line_cap} bytes", sent, buf, start
                    )
                scan = len(buf)
            if exited:  # the process is gone and all it wrote has been read
                self._buf = buf
                raise self._crash("exited", sent, buf, start)
            remaining = deadline - perf_counter()
            if remaining <= 0:
                self._buf = buf
                self._abandoned.add(rid)
                allowance = max(0.0, deadline - start)
                raise self._fault(FaultKind.TIMEOUT, f"no reply within {allowance * 1000:.0f} ms",
                                  sent, buf, start)
            for fd, _ in self._poller.poll(int(remaining * 1000) + 1):
                if fd == out_fd:
                    try:
                        data = os.read(out_fd, _CHUNK)
                    except BlockingIOError:
                        continue
                    if not data:
                        self._buf = buf
                        raise self._crash("closed its stdout", sent, buf, start)
                    buf += data
                elif fd == self._err_fd:
                    if not self._drain_stderr():
                        self._poller.unregister(fd)
                elif fd == self._pid_fd:
                    # Read what it wrote before exiting, then report the crash.
                    self._poller.unregister(fd)
                    exited = True
                    buf += _read_available(out_fd)
                else:
                    self._flush_outbox()

    def _drain_stderr(self, limit: int = _STDERR_CHUNKS_PER_POLL) -> bool:
        """Move up to ``limit`` chunks of stderr into the log; False at end of file."""
        if self._err_fd < 0:
            return False
        for _ in range(limit):
            try:
                data = os.read(self._err_fd, _CHUNK)
            except BlockingIOError:
                return True
            except OSError:
                return False
            if not data:
                return False
            if len(data) >= STDERR_TAIL_BYTES:
                self._tail = data[-STDERR_TAIL_BYTES:]
            else:
                self._tail = (self._tail + data)[-STDERR_TAIL_BYTES:]
            if self._log_fd >= 0 and self._log_size <= self.log_cap:
                room = self.log_cap - self._log_size
                if room:
                    self._log_size += os.write(self._log_fd, data[:room])
                if len(data) > room:  # the note takes the size past the cap: nothing more is written
                    self._log_arena_note(f"truncated: stderr over {self.log_cap} bytes, "
                                         "the rest is discarded", force=True)
        return True

    def _log_arena_note(self, note: str, force: bool = False) -> None:
        """A line of the arena's own in the bot's log file (within the cap unless forced)."""
        if self._log_fd < 0:
            return
        line = ("\n" if self._log_size else "") + f"[arena] {note}\n"
        data = line.encode()
        if force or self._log_size + len(data) <= self.log_cap:
            os.write(self._log_fd, data)
            self._log_size += len(data)

    # -- faults -------------------------------------------------------------------------------

    def _fault(self, kind: FaultKind, detail: str, sent: bytes, received: bytes,
               start: float | None, elapsed: float | None = None) -> BotFaultError:
        """Record and return (for raising) a fault; ``start`` is when the request was written."""
        if elapsed is None and start is not None:
            elapsed = perf_counter() - start
        self._drain_stderr()
        fault = Fault(
            kind=kind,
            bot=self.name,
            detail=detail,
            sent=snippet(sent.rstrip(b"\n")),
            received=snippet(received),
            stderr_tail=self.stderr_tail(),
            elapsed=elapsed,
        )
        self.last_fault = fault
        self.logger.debug("fault: %s", fault)
        return BotFaultError(fault)

    def _crash(self, what: str, sent: bytes, received: bytes, start: float | None) -> BotFaultError:
        """The bot stopped talking: collect its exit status (killing its group) for the report."""
        elapsed = None if start is None else perf_counter() - start
        exited = self._wait_exit(CRASH_GRACE)
        self._begin_close()
        self._finish_close()
        status = self.returncode
        if status is None:
            detail = f"{what} and could not be killed"
        elif not exited:
            detail = f"{what} but kept running (killed)"
        elif status >= 0:
            detail = f"exited with code {status}"
        else:
            detail = f"killed by signal {_signal_name(-status)}{self._limit_hint(-status)}"
        return self._fault(FaultKind.CRASH, detail, sent, received, None, elapsed)

    def _limit_hint(self, signum: int) -> str:
        if signum == signal.SIGXCPU and self.limits.cpu_seconds is not None:
            return f" (CPU limit {self.limits.cpu_seconds} s)"
        if signum == signal.SIGXFSZ and self.limits.file_mb is not None:
            return f" (file size limit {self.limits.file_mb} MB)"
        return ""


def _read_available(fd: int) -> bytes:
    """Whatever can be read from ``fd`` right now without blocking (up to a few chunks)."""
    chunks = []
    for _ in range(_STDERR_CHUNKS_PER_POLL):
        try:
            data = os.read(fd, _CHUNK)
        except (BlockingIOError, OSError):
            break
        if not data:
            break
        chunks.append(data)
    return b"".join(chunks)


def _has_exited(pid: int) -> bool:
    """True once ``pid`` (our child) has exited, without reaping it."""
    try:
        result = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:
        return True
    return result is not None


def _signal_name(signum: int) -> str:
    try:
        return signal.Signals(signum).name
    except ValueError:
        return str(signum)


def _last_line(text: str) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    return lines[-1].strip() if lines else ""


def _apply_limits(pid: int, limits: Limits) -> None:
    """Set the bot's resource limits (soft = hard, so it cannot raise them back)."""
    wanted = [(resource.RLIMIT_CORE, 0)]
    if limits.memory_mb is not None:
        wanted.append((resource.RLIMIT_AS, limits.memory_mb << 20))
    if limits.file_mb is not None:
        wanted.append((resource.RLIMIT_FSIZE, limits.file_mb << 20))
    try:
        for which, value in wanted:
            _lower_limit(pid, which, value, value)
        if limits.cpu_seconds is not None:
            # SIGXCPU at the soft limit lets the bot say why; SIGKILL a second later.
            _lower_limit(pid, resource.RLIMIT_CPU, limits.cpu_seconds, limits.cpu_seconds + 1)
    except ProcessLookupError:  # it already exited: the handshake reports that
        pass


def _lower_limit(pid: int, which: int, soft: int, hard: int) -> None:
    _, current_hard = resource.prlimit(pid, which)
    if current_hard != resource.RLIM_INFINITY:  # an unprivileged arena cannot raise a hard limit
        soft, hard = min(soft, current_hard), min(hard, current_hard)
    resource.prlimit(pid, which, (soft, hard))


# -- the registry, exit and signal handling ---------------------------------------------------

_atexit_installed = False


def _register(bot: BotProcess) -> None:
    global _atexit_installed
    assert bot.pid is not None
    _LIVE[bot.pid] = bot
    if not _atexit_installed:
        atexit.register(_close_all_at_exit)
        _atexit_installed = True


def _forget_inherited_bots() -> None:
    """In a forked child: the parent's bots are the parent's to close."""
    _LIVE.clear()


os.register_at_fork(after_in_child=_forget_inherited_bots)


def live_bots() -> list[BotProcess]:
    """Every bot process this process started and has not closed yet."""
    return list(_LIVE.values())


def close_all(grace: float = QUIT_GRACE) -> None:
    """Close every live bot of this process at once (see ``close_bots``)."""
    close_bots(live_bots(), grace)


def close_bots(bots: Iterable[BotProcess], grace: float = QUIT_GRACE) -> None:
    """Close several bots at once: ``quit`` to all, one shared grace, then kill every group."""
    bots = list(bots)
    for bot in bots:
        bot._begin_close()
    deadline = perf_counter() + grace
    for bot in bots:
        bot._wait_exit(max(0.0, deadline - perf_counter()))
    for bot in bots:
        bot._finish_close()


def _close_all_at_exit() -> None:
    if not _LIVE:
        return
    try:  # a second Ctrl-C must not cut the cleanup short
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    except ValueError:  # not the main thread
        pass
    close_all()


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt(f"received {_signal_name(signum)}")


def install_signal_handlers() -> None:
    """Make SIGTERM and SIGHUP interrupt the runner like Ctrl-C (KeyboardInterrupt).

    The exception unwinds ``with`` blocks (closing their bots); whatever is still live is closed
    at interpreter exit. Call once from the main thread of the runner (the CLI does).
    """
    signal.signal(signal.SIGTERM, _interrupt)
    signal.signal(signal.SIGHUP, _interrupt)
