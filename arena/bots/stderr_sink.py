"""The stderr sink of one bot: its stderr pipe drained into a capped log file and an in-memory tail.

Letting the bot write the file itself was rejected: a RLIMIT_FSIZE cap would kill the bot for
logging, and truncating between games lets one game fill the disk. With a pipe, disk use is capped
(``log_cap`` bytes, then one "[arena] truncated" note and the rest discarded) and the arena's
memory is fixed (the last ``STDERR_TAIL_BYTES`` are kept for fault reports). The log file is opened
fresh for a new bot and appended to (under the same cap) when the bot is restarted. A sink made
with ``silent_log=False`` opens its file only when the bot first writes to stderr (its own notes
wait in memory until then): a bot that writes nothing leaves no file, which over a league's
thousands of processes is thousands of files holding one "[arena] started" line each.

With ``game_logs`` (a league's runs, ``arena.settings.GameLogs``) the log is per game: at the
start of each game the sink moves to that game's file beside the first one (``GAME-copyN`` for a
second copy of a bot at the table), opened at the game's first stderr bytes, fresh, under the
game's cap; opening it makes room in the directory first (``stderrindex.make_room``: the bot
version's oldest games dropped). So a file is opened once per game that the bot writes in, never
per decision, and a chatty bot's latest games always have their stderr.

The sink never blocks: ``drain()`` reads what the pipe holds now, a bounded number of chunks per
call, so the caller can look at its clock between calls.

Decisions (``arena.stderrindex``): while ``mark_decisions`` names a game and seat, each run
of bytes written to the log is marked in the log's side index with the decision it was read
under, the one being asked: ``len(decisions) + 1``, the referee's list of decisions made so far,
read only when bytes arrive. A mark is written only when the decision changes between bytes, so a
bot that writes nothing costs nothing per decision. The pipe is read while the arena waits for a
reply; a reply already waiting is read without looking at stderr (the fast path), so once a bot
has written to stderr (``eager``), the process layer drains it after each reply too, and what a
decision wrote is marked with it. Before a process's first bytes the arena does not look: those
may be marked with a later decision of the game than the one that wrote them.
"""

from __future__ import annotations

import contextlib
import errno
import os
from collections.abc import Sized

from arena import stderrindex
from arena.errors import BotStartError
from arena.settings import GameLogs
from arena.stderrindex import LOG_SUFFIX, Key
from arena.values.faults import STDERR_TAIL_BYTES

CHUNK = 65536
"""Bytes read from a pipe per ``os.read``."""
CHUNKS_PER_DRAIN = 16
"""Chunks ``drain()`` reads at most per call (1 MiB), so a flooding bot cannot starve the caller."""
MAX_PENDING_NOTES = 16
"""Notes kept while a log file waits for the bot's first bytes (a process's start is one)."""


class StderrSink:
    """Drains one bot's stderr pipe into its log file (capped) and keeps the last bytes in memory."""

    __slots__ = ("_copy", "_decisions", "_game", "_index_fd", "_index_full", "_index_size",
                 "_log_failed", "_log_game", "_log_started", "_log_wanted", "_marked",
                 "_pending_notes", "_seat", "eager", "fd", "full_reads", "game_logs", "log_cap",
                 "log_fd", "log_path", "log_size", "name", "newlines", "open_line", "silent_log",
                 "tail", "written")

    def __init__(self, name: str, log_path: str | os.PathLike[str] | None, log_cap: int,
                 silent_log: bool = True, game_logs: GameLogs | None = None,
                 copy_suffix: str = "") -> None:
        self.name = name
        self.game_logs = game_logs
        """Whether (and how) the log is kept per game; None: one log for the process."""
        self._copy = copy_suffix
        self._log_game: str | None = None
        """The game whose log ``log_path`` is (``game_logs``), or None: the process's first."""
        self.log_path = log_path
        self.log_cap = log_cap
        self.silent_log = silent_log
        """Whether a process that writes nothing to stderr gets a log file all the same."""
        self._log_wanted = False
        self._pending_notes: list[str] = []
        self.fd = -1
        """The read end of the bot's stderr pipe (non-blocking), or -1 between processes."""
        self.log_fd = -1
        self.log_size = 0
        self.tail = b""
        self.written = 0
        """Bytes the bot has written to stderr, all of them (the log's cap does not stop the count)."""
        self.newlines = 0
        self.full_reads = 0
        """Reads that found at least a whole chunk waiting: the pipe was full, so the bot, if it
        was writing, was blocked on the arena's reading, not on its own work."""
        self.open_line = False
        """Whether its last byte so far ended no line (``lines_written`` counts that line too)."""
        self._log_started = False
        self._log_failed = False
        self._decisions: Sized | None = None
        """The game's decisions made so far while a game is marked (``mark_decisions``)."""
        self._game: str | None = None
        self._seat = 0
        self._marked: Key | None = None
        """What the last mark in the index says of the bytes that follow (None: no decision's,
        as they all are before the first mark)."""
        self._index_fd = -1
        self._index_size = 0
        self._index_full = False
        self.eager = False
        """Whether the bot has written to its log: its stderr is then drained after each reply
        too (``arena.bots.process``), so that each decision's bytes are marked with it."""

    def mark_decisions(self, game: str | None, seat: int, decisions: Sized | None) -> None:
        """Mark what the bot writes from now on with its decision in ``game`` (its id) at
        ``seat``: ``len(decisions) + 1`` when the bytes are read. None: mark nothing (the bytes
        then belong to no decision). What the pipe holds already (written after the bot's last
        reply, between games) is drained first, as no decision's; at a new game's first decision
        whatever the bot wrote, eager or not: bytes of the game before (a bot not yet eager is
        drained only while the arena waits on it, and a reply can come first) belong to its log,
        not the new one's."""
        self._decisions = None
        switching = self.game_logs is not None and game is not None \
            and game != self._log_game and self.log_path is not None
        if self.eager or switching:
            self.drain()
        if switching:
            assert self.game_logs is not None and game is not None
            self._to_game_log(game, self.game_logs)
        self._game, self._seat, self._decisions = game, seat, decisions

    def _to_game_log(self, game: str, logs: GameLogs) -> None:
        """Write from now on to ``game``'s own log, opened (fresh) at its first bytes."""
        assert self.log_path is not None
        running = self.fd >= 0
        self.close_log()
        directory = os.path.dirname(os.fspath(self.log_path))
        self.log_path = os.path.join(directory, f"{game}{self._copy}{LOG_SUFFIX}")
        self.log_cap = logs.game_cap
        self._log_game = game
        self._log_started = self._log_failed = False
        self.log_size = 0
        self._log_wanted = running
    def open_log(self) -> None:
        """Open the log file: fresh the first time, appended to (same cap) on restarts; without
        ``silent_log``, only make sure it can be written, and open it at the first stderr bytes.
        BotStartError when it cannot be."""
        if self.log_path is None or self.log_fd >= 0 or self._log_failed:
            return
        try:
            directory = os.path.dirname(os.fspath(self.log_path))
            if not self.silent_log:  # its directory too is made at the first bytes
                existing = directory or "."
                while not os.path.exists(existing) and os.path.dirname(existing) != existing:
                    existing = os.path.dirname(existing) or "."
                if not os.path.isdir(existing):
                    raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR))
                if not os.access(existing, os.W_OK | os.X_OK):
                    raise PermissionError(errno.EACCES, os.strerror(errno.EACCES))
                self._log_wanted = True
                return
            if directory:
                os.makedirs(directory, exist_ok=True)
            self._open_file()
        except OSError as error:
            raise BotStartError(
                f"bot '{self.name}': cannot open its log file '{self.log_path}': {error.strerror}"
            ) from None

    def _open_file(self) -> None:
        assert self.log_path is not None
        flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND
        directory = os.path.dirname(os.fspath(self.log_path))
        if directory:
            os.makedirs(directory, exist_ok=True)
        if self.game_logs is not None and not self._log_started:
            logs = self.game_logs
            stderrindex.make_room(os.path.dirname(os.fspath(self.log_path)),
                                  os.path.basename(os.fspath(self.log_path)), logs.game_cap,
                                  logs.budget, logs.games)
        if not self._log_started:
            flags |= os.O_TRUNC
            with contextlib.suppress(FileNotFoundError):  # an earlier run's index: not this log's
                os.unlink(stderrindex.index_path(self.log_path))
        self.log_fd = os.open(self.log_path, flags, 0o644)
        self._log_started = True
        if flags & os.O_TRUNC:
            self._marked, self._index_size, self._index_full = None, 0, False
        self.log_size = os.fstat(self.log_fd).st_size

    def _open_on_first_bytes(self) -> None:
        """The deferred open (``silent_log=False``), then the notes that waited for it. A file that
        cannot be opened now goes unwritten: a game never fails for its log."""
        self._log_wanted = False
        try:
            self._open_file()
        except OSError:
            self._pending_notes.clear()
            return
        notes, self._pending_notes = self._pending_notes, []
        for text in notes:
            self.note(text)

    def close_log(self) -> None:
        """Close the log file (the pipe belongs to the process and is closed with it)."""
        self._log_wanted = False
        self._pending_notes.clear()  # a process that said nothing: its notes need no file
        self._decisions = None
        log_fd, self.log_fd = self.log_fd, -1
        if log_fd >= 0:
            os.close(log_fd)
        index_fd, self._index_fd = self._index_fd, -1
        if index_fd >= 0:
            os.close(index_fd)

    def drain(self, limit: int = CHUNKS_PER_DRAIN) -> bool:
        """Move up to ``limit`` chunks of stderr into the log and the tail; False at end of file."""
        fd = self.fd
        if fd < 0:
            return False
        for _ in range(limit):
            try:
                data = os.read(fd, CHUNK)
            except BlockingIOError:
                return True
            except OSError:
                return False
            if not data:
                return False
            if self._log_wanted:
                self._open_on_first_bytes()
            self.written += len(data)
            if len(data) == CHUNK:
                self.full_reads += 1
            self.newlines += data.count(b"\n")
            self.open_line = not data.endswith(b"\n")
            if len(data) >= STDERR_TAIL_BYTES:
                self.tail = data[-STDERR_TAIL_BYTES:]
            else:
                self.tail = (self.tail + data)[-STDERR_TAIL_BYTES:]
            if self.log_fd >= 0 and self.log_size <= self.log_cap:
                room = self.log_cap - self.log_size
                if room:
                    self.eager = True
                    decisions = self._decisions
                    if decisions is not None:
                        self._mark((self._game, self._seat, len(decisions) + 1))
                    elif self._marked is not None:
                        self._mark(None)
                    self._write(data[:room])
                if len(data) > room:  # the note takes the size past the cap: nothing more is written
                    decisions = self._decisions
                    if decisions is not None:  # the replay says where it was cut
                        self._mark((self._game, self._seat, len(decisions) + 1), cut=True)
                    self.note(f"truncated: stderr over {self.log_cap} bytes, the rest is discarded",
                              force=True)
        return True

    def note(self, text: str, force: bool = False) -> None:
        """A line of the arena's own in the log file (within the cap unless forced); kept until
        the file is opened when that waits for the bot's first bytes."""
        if self._log_wanted and not force and len(self._pending_notes) < MAX_PENDING_NOTES:
            self._pending_notes.append(text)
        if self.log_fd < 0:
            return
        data = (("\n" if self.log_size else "") + f"[arena] {text}\n").encode()
        if force or self.log_size + len(data) <= self.log_cap:
            if self._marked is not None:  # the arena's words are no decision's
                self._mark(None)
            self._write(data)

    def _mark(self, key: Key | None, cut: bool = False) -> None:
        """Say in the index that the log's bytes from here on are ``key``'s, unless it says so
        already; ``cut``: that the log was cut at ``key``'s decision (what follows is no
        decision's). The index is capped like the log; the mark that would pass the cap is
        replaced by one saying the rest is no decision's, the last one written."""
        if (key == self._marked and not cut) or self._index_full:
            return
        self._marked = None if cut else key
        line = stderrindex.entry(self.log_size, key, cut)
        if self._index_size + len(line) > self.log_cap:
            self._index_full = True
            line = stderrindex.entry(self.log_size, None)
        try:
            if self._index_fd < 0:
                assert self.log_path is not None
                self._index_fd = os.open(stderrindex.index_path(self.log_path),
                                         os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
                self._index_size = os.fstat(self._index_fd).st_size
            self._index_size += os.write(self._index_fd, line)
        except OSError:  # a full disk: the log goes on without marks from here
            self._index_full = True

    def _write(self, data: bytes) -> None:
        """Append to the log; a log that cannot be written (a full disk) is given up, not the game:
        the tail in memory is kept for fault reports, and the results' own writer says the rest."""
        try:
            self.log_size += os.write(self.log_fd, data)
        except OSError:
            self.close_log()
            self._log_failed = True  # not reopened when the bot restarts either

    @property
    def lines_written(self) -> int:
        """Lines the bot has written to stderr, a last one without its newline included."""
        return self.newlines + self.open_line

    def text(self) -> str:
        """The last ~2 KB the bot wrote to stderr, decoded (undecodable bytes replaced)."""
        return self.tail.decode("utf-8", "replace")
