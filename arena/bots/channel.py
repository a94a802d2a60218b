"""Line I/O with one bot process: non-blocking pipes, an outbox for input, capped reply lines.

A ``Channel`` moves bytes only; it knows nothing of requests, ids or JSON. Design choices
(the figures are from the arena's performance notes):

- Reading: ``select.poll`` on the bot's stdout, its stderr and a pidfd of the process,
  non-blocking ``os.read`` into a buffer, ``find(b"\\n")``. No reader threads (a thread hand-off
  costs 6-78 us per round trip; poll costs about 1 us). The caller never waits past its deadline
  (plus poll's 1 ms granularity). stderr is drained in the same loop into the ``StderrSink``.
- Lines: a line is capped (``line_cap`` bytes). Past the cap the channel stops buffering, reports
  the line as too long and discards input up to the next newline: memory stays bounded whatever
  the bot prints.
- Writing: stdin is non-blocking; what the pipe cannot take now is kept in an outbox and written
  while polling. A bot that stops reading cannot block the arena; once its outbox passes the line
  cap the write fails ("not reading its input").

Every failure is a ``ChannelError`` carrying the fault kind, a detail, what was received of the
line, and whether the reply may still come later (so the caller can drop it when it does).
"""

from __future__ import annotations

import os
import select
import subprocess
from collections.abc import Sequence
from time import perf_counter
from typing import Protocol

from arena.bots.memory import process_tree
from arena.bots.stderr_sink import CHUNK, CHUNKS_PER_DRAIN, StderrSink
from arena.values.faults import FaultKind

NOTHING_RECEIVED = "nothing received: did the bot flush stdout after writing?"
"""Said with a timeout when not a byte of the reply arrived: the usual cause is a missing flush."""

_POLLIN = select.POLLIN
_POLLOUT = select.POLLOUT


class ChannelError(Exception):
    """A failed read or write: the fault kind, why, the bytes received so far, and late-reply hint.

    ``kind`` CRASH means the bot is gone or going (``detail`` says what it did: "exited", "closed
    its stdout"); the caller collects its exit status. ``late`` is True when the reply to the
    current request may still arrive afterwards (a timeout, an over-long line).
    """

    def __init__(self, kind: FaultKind, detail: str, received: bytes = b"",
                 late: bool = False, expired: bool = False) -> None:
        super().__init__(detail)
        self.kind = kind
        self.detail = detail
        self.received = received
        self.late = late
        self.expired = expired
        """A timeout because the deadline passed (not a bot that stopped reading its input)."""


class Deadline(Protocol):
    """What a read asks when its deadline has passed without a reply: a request's clock
    (``arena.bots.clocks``)."""

    def at_deadline(self, now: float, deadline: float) -> float:
        """The new deadline, given the time now and the one that passed: a later one (keep
        waiting), or one not after now (the read times out)."""
        ...


class Channel:
    """The pipes of one running bot process: write lines to stdin, read lines from stdout."""

    __slots__ = ("buf", "err_fd", "in_fd", "line_cap", "out_fd", "outbox", "pid", "pid_fd",
                 "poller", "sink", "skipping")

    def __init__(self, proc: subprocess.Popen[bytes], sink: StderrSink, line_cap: int) -> None:
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        self.pid = proc.pid
        self.sink = sink
        self.line_cap = line_cap
        self.buf = b""
        self.skipping = False  # discarding the rest of an over-long line
        self.outbox = bytearray()
        self.in_fd = proc.stdin.fileno()
        self.out_fd = proc.stdout.fileno()
        self.err_fd = sink.fd = proc.stderr.fileno()
        for fd in (self.in_fd, self.out_fd, self.err_fd):
            os.set_blocking(fd, False)
        try:
            self.pid_fd = os.pidfd_open(proc.pid)
        except (AttributeError, OSError):  # no pidfd: a crash shows as stdout EOF instead
            self.pid_fd = -1
        self.poller = select.poll()
        self.poller.register(self.out_fd, _POLLIN)
        self.poller.register(self.err_fd, _POLLIN)
        if self.pid_fd >= 0:
            self.poller.register(self.pid_fd, _POLLIN)

    def write(self, data: bytes) -> None:
        """Write ``data`` now or queue what the pipe cannot take; never blocks."""
        if self.outbox:
            self.outbox += data
            self.flush_outbox()
            if len(self.outbox) > self.line_cap:
                raise ChannelError(FaultKind.TIMEOUT,
                                   f"is not reading its input ({len(self.outbox)} bytes unread)",
                                   late=True)
            return
        try:
            written = os.write(self.in_fd, data)
        except BlockingIOError:
            written = 0
        except (BrokenPipeError, ConnectionResetError):
            raise ChannelError(FaultKind.CRASH, "closed its stdin") from None
        if written < len(data):
            self.outbox += data[written:]
            self.poller.register(self.in_fd, _POLLOUT)

    def flush_outbox(self) -> None:
        """Write what the pipe takes now; stdin is polled for room exactly while this is not empty."""
        if not self.outbox:
            return
        while self.outbox:
            try:
                written = os.write(self.in_fd, self.outbox)
            except BlockingIOError:
                return
            except OSError:  # the reader is gone: stdout EOF or the pidfd reports the crash
                self.outbox.clear()
                break
            del self.outbox[:written]
        self.poller.unregister(self.in_fd)

    def say_last(self, line: bytes) -> None:
        """Write ``line`` (``quit``) if the pipe takes it whole without blocking; else drop it."""
        if self.in_fd < 0:
            return
        try:
            self.flush_outbox()
            if not self.outbox:
                os.write(self.in_fd, line)
        except OSError:
            pass

    def read_line(self, deadline: float, start: float, clock: Deadline | None = None) -> bytes:
        """The next complete line from stdout (newline removed); ChannelError on any failure.

        ``start`` is when the request was written: a timeout names the allowance it had.
        ``clock`` may move the deadline when it passes (a CPU clock, an arena that stalled).
        """
        buf = self.buf
        scan = 0
        out_fd = self.out_fd
        exited = False
        if not buf and not self.skipping:
            # Pinned to one CPU with its bot, the write of the request has usually run the bot
            # already (the woken reader preempts the writer), so its reply is waiting: read it
            # without a poll first. stderr and the exit are seen at the next poll, as before.
            try:
                buf = os.read(out_fd, CHUNK)
            except BlockingIOError:
                pass
            else:
                if not buf:
                    raise ChannelError(FaultKind.CRASH, "closed its stdout", buf)
        while True:
            if buf:
                if self.skipping:  # the rest of an over-long line
                    end = buf.find(b"\n")
                    if end < 0:
                        buf = b""
                    else:
                        buf = buf[end + 1:]
                        self.skipping = False
                    scan = 0
                    continue
                end = buf.find(b"\n", scan)
                if end >= 0:
                    self.buf = buf[end + 1:]
                    if end > self.line_cap:
                        raise ChannelError(FaultKind.MALFORMED, f"line over {self.line_cap} bytes",
                                           buf[:end], late=True)
                    return buf[:end]
                if len(buf) > self.line_cap:
                    self.buf = b""
                    self.skipping = True
                    raise ChannelError(FaultKind.MALFORMED, f"line over {self.line_cap} bytes",
                                       buf, late=True)
                scan = len(buf)
            if exited:  # the process is gone and all it wrote has been read
                self.buf = buf
                raise ChannelError(FaultKind.CRASH, "exited", buf)
            now = perf_counter()
            remaining = deadline - now
            if remaining <= 0 and clock is not None:
                deadline = clock.at_deadline(now, deadline)
                remaining = deadline - now
            if remaining <= 0:
                self.buf = buf
                if self._stdout_abandoned():  # no EOF came, but nothing of the bot's can write
                    raise ChannelError(FaultKind.CRASH, "closed its stdout", buf)
                allowance = max(0.0, deadline - start)
                detail = f"no reply within {allowance * 1000:.0f} ms"
                if not buf:
                    detail = f"{detail} ({NOTHING_RECEIVED})"
                raise ChannelError(FaultKind.TIMEOUT, detail, buf, late=True, expired=True)
            for fd, _ in self.poller.poll(int(remaining * 1000) + 1):
                if fd == out_fd:
                    try:
                        data = os.read(out_fd, CHUNK)
                    except BlockingIOError:
                        continue
                    if not data:
                        self.buf = buf
                        raise ChannelError(FaultKind.CRASH, "closed its stdout", buf)
                    buf += data
                elif fd == self.err_fd:
                    if not self.sink.drain():
                        self.poller.unregister(fd)
                elif fd == self.pid_fd:
                    # Read what it wrote before exiting, then report the crash.
                    self.poller.unregister(fd)
                    exited = True
                    buf += _read_available(out_fd)
                else:
                    self.flush_outbox()

    def _stdout_abandoned(self) -> bool:
        """Whether the bot closed its stdout although the pipe has not reached EOF.

        Under bubblewrap the sandbox's own processes (``bwrap``, outside and as pid 1 inside)
        keep a copy of the pipe's write end, so a bot that closes its stdout gives no EOF and
        would be a timeout ("flush?") where, unsandboxed, it is a crash. So: does any process of
        the bot's tree other than bwrap still hold the write end? Not knowing (a process whose
        descriptors cannot be read) counts as holding it.
        """
        try:
            pipe = f"pipe:[{os.fstat(self.out_fd).st_ino}]"
        except OSError:
            return False
        for pid in process_tree(self.pid):
            try:
                if _read_file(f"/proc/{pid}/comm").strip() == b"bwrap":
                    continue
                for fd in os.listdir(f"/proc/{pid}/fd"):
                    if os.readlink(f"/proc/{pid}/fd/{fd}") == pipe:
                        return False
            except PermissionError:
                return False
            except OSError:  # exited meanwhile, or the descriptor was closed while listed
                continue
        return True

    def close(self) -> None:
        """Forget the descriptors this channel owns (the pidfd; the pipes close with the process)."""
        self.in_fd = self.out_fd = self.err_fd = self.sink.fd = -1
        pid_fd, self.pid_fd = self.pid_fd, -1
        if pid_fd >= 0:
            os.close(pid_fd)


def wait_exits(channels: Sequence[Channel], timeout: float) -> list[float | None]:
    """Wait up to ``timeout`` seconds for the processes to exit, draining their stderr meanwhile.

    Returns, per channel, the seconds after the call at which its process was seen to exit (it is
    not reaped), or None if it was still running at the end. All the stderr pipes are drained in
    one poll loop at full speed, so a bot writing a large log while it shuts down is never blocked
    on a full pipe, whichever bot the others are waiting for.
    """
    began = perf_counter()
    exited: list[float | None] = [None] * len(channels)
    poller = select.poll()
    by_fd: dict[int, tuple[int, bool]] = {}  # fd -> (index, is the pidfd)
    unwatched = []  # no pidfd: checked with waitid every few ms
    for index, channel in enumerate(channels):
        if channel.pid_fd >= 0:
            by_fd[channel.pid_fd] = (index, True)
            poller.register(channel.pid_fd, _POLLIN)
        else:
            unwatched.append(index)
        if channel.err_fd >= 0:
            by_fd[channel.err_fd] = (index, False)
            poller.register(channel.err_fd, _POLLIN)
    deadline = began + timeout
    waiting = len(channels)
    while waiting:
        for index in unwatched:
            if exited[index] is None and _has_exited(channels[index].pid):
                exited[index] = perf_counter() - began
                waiting -= 1
        remaining = deadline - perf_counter()
        wait_ms = int(remaining * 1000) + 1 if remaining > 0 else 0
        if unwatched:
            wait_ms = min(wait_ms, 5)
        for fd, _ in poller.poll(wait_ms):
            index, is_pid_fd = by_fd[fd]
            if is_pid_fd:
                poller.unregister(fd)
                exited[index] = perf_counter() - began
                waiting -= 1
            elif not channels[index].sink.drain():
                poller.unregister(fd)
        if remaining <= 0:
            break
    return exited


def _has_exited(pid: int) -> bool:
    """True once ``pid`` (our child) has exited, without reaping it."""
    try:
        result = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:
        return True
    return result is not None


def _read_available(fd: int) -> bytes:
    """Whatever can be read from ``fd`` right now without blocking (up to a few chunks)."""
    chunks = []
    for _ in range(CHUNKS_PER_DRAIN):
        try:
            data = os.read(fd, CHUNK)
        except (BlockingIOError, OSError):
            break
        if not data:
            break
        chunks.append(data)
    return b"".join(chunks)


def _read_file(path: str) -> bytes:
    with open(path, "rb") as handle:
        return handle.read(4096)
