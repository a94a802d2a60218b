"""The one way a bot is built: its build command, run in its directory, on the runner, a cluster
worker or in a league alike, confined and bounded as its bot is.

The build runs with stdin closed and stdout and stderr together in one pipe, which the arena
reads as it comes, keeping the last ``TAIL_LINES`` lines (each cut to ``LINE_BYTES``) and
counting the rest: a build that prints gigabytes costs the arena no memory. It runs in a process
group of its own that is killed when the build's own process ends, so a backgrounded child
(``sleep 45 &``) ends with it, and a child that keeps the output open cannot hold the arena.

Limits (``arena.settings.BuildLimits``), the same on every path:

- wall time (``seconds``): the build is killed past it;
- CPU time of each process (``cpu_seconds``, RLIMIT_CPU), the largest file (``file_mb``,
  RLIMIT_FSIZE), and an address-space backstop, set by ``prlimit`` before the build's first
  instruction;
- resident memory of its process tree (``memory_mb``): the arena's memory watch
  (``arena.bots.memory``) kills it past the limit;
- processes (``processes``): RLIMIT_NPROC, which counts the processes of a uid. Under a sandbox,
  where the arena is root, the build runs as a uid of its own (``arena.bots.uids``) that owns its
  bot's directory for the build (``arena.bots.buildtree.handed_to``), so the limit is its own;
  not root, it is that many more than the arena's uid runs at the start, as for a bot. Root
  without a sandbox is exempt from RLIMIT_NPROC: the memory watch then counts the build's
  processes and threads and kills it past the limit;
- what it adds to its bot's directory (``disk_mb`` bytes, ``files`` entries): the directory is
  measured every ``TREE_INTERVAL`` seconds (less often when a walk of it is slow: its walks take
  at most ``TREE_SHARE`` of the time) and at the end, and the build is killed past either.

Under a sandbox it runs in the bot's sandbox with the bot's directory writable and no network. A
failure is a ``BuildError`` (a ConfigError) naming ``where``, saying why (its exit status, the
signal and the limit behind it, or the limit the arena enforced, as data too) with the end of the
output.
"""

from __future__ import annotations

import collections
import contextlib
import enum
import os
import select
import shutil
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

from arena.botfiles.manifest import MANIFEST_DIRECTORY, Manifest
from arena.botfiles.view import check_visible
from arena.bots import buildtree, memory
from arena.bots.memory import MemoryUse
from arena.bots.registry import signal_name
from arena.bots.sandbox import PRLIMIT, hidden_hint, limit_options, signal_of_status, wrap
from arena.bots.uids import BOT_UIDS
from arena.configfile import FileChecker, check_program
from arena.errors import ConfigError
from arena.settings import DEFAULT_BUILD_LIMITS, BuildLimits
from arena.values.sandbox_settings import Sandbox, is_root_mode

TAIL_LINES = 20
"""How many of a failed build's last output lines its error shows (a compiler's error needs several)."""
LINE_BYTES = 1_200
"""The most bytes kept of one output line (an error shows 300 characters of each)."""
SHOWN_CHARACTERS = 300
TREE_INTERVAL = 0.25
"""Seconds between two measurements of the bot's directory (at least)."""
TREE_SHARE = 0.05
"""The most of the arena's time measuring the directory may take: a walk that took 40 ms waits
0.8 s before the next."""
_READ = 1 << 16


class BuildLimit(enum.Enum):
    """A limit the arena enforced by ending a build."""

    WALL = "wall"
    MEMORY = "memory"
    PROCESSES = "processes"
    DISK = "disk"
    FILES = "files"


class BuildError(ConfigError):
    """A build that did not succeed: it exited with a status, was killed by a signal, went over
    a limit, or could not start. The message says which, with the end of its output."""

    def __init__(self, message: str, *, exit_code: int | None = None, signal: str | None = None,
                 limit: BuildLimit | None = None, tail: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.exit_code = exit_code
        self.signal = signal
        """The signal's name (``SIGXFSZ``) when one killed it."""
        self.limit = limit
        """The limit the arena enforced, if one ended it."""
        self.tail = tail
        """The last lines of its output."""


class OutputTail:
    """The last ``TAIL_LINES`` lines of a stream fed in chunks (before the blank lines that end
    it, up to as many again), each cut to ``LINE_BYTES``; every other line and byte is counted
    and dropped. Only a chunk's last lines are looked at one by one: a build printing hundreds of
    MB costs a few searches per chunk."""

    KEPT = 2 * TAIL_LINES
    """Lines held: the tail, and room for blank lines after it."""

    def __init__(self) -> None:
        self.lines: collections.deque[bytes] = collections.deque(maxlen=self.KEPT)
        self.partial = bytearray()
        self.total_lines = 0
        self.total_bytes = 0

    def feed(self, chunk: bytes) -> None:
        """Take the next ``chunk`` of the stream."""
        self.total_bytes += len(chunk)
        ended = chunk.count(b"\n")
        if not ended:
            self._extend(chunk)
            return
        self.total_lines += ended
        first, last = chunk.index(b"\n"), chunk.rindex(b"\n")
        self._extend(chunk[:first])
        self.lines.append(bytes(self.partial))
        self.partial.clear()
        if last > first:  # the whole lines between: only the last KEPT can be kept
            middle = chunk[first + 1:last].rsplit(b"\n", self.KEPT)
            if ended - 1 > self.KEPT:
                middle = middle[1:]  # the earlier lines, not split
            self.lines.extend(line[:LINE_BYTES] for line in middle)
        self._extend(chunk[last + 1:])

    def _extend(self, part: bytes) -> None:
        room = LINE_BYTES - len(self.partial)
        if room > 0:
            self.partial += part[:room]

    def finish(self) -> tuple[str, ...]:
        """The lines kept (an unended last one too, blank ones at the end left out), decoded and
        cut to ``SHOWN_CHARACTERS``."""
        if self.partial:
            self.lines.append(bytes(self.partial))
            self.total_lines += 1
            self.partial.clear()
        while self.lines and not self.lines[-1].strip():
            self.lines.pop()
        while len(self.lines) > TAIL_LINES:
            self.lines.popleft()
        return tuple(line.decode(errors="replace").rstrip()[:SHOWN_CHARACTERS]
                     for line in self.lines)

    @property
    def dropped_lines(self) -> int:
        """Lines not shown (after ``finish``)."""
        return self.total_lines - len(self.lines)


def run_build(build: tuple[str, ...], workdir: str, bot_dir: str, where: str,
              sandbox: Sandbox | None = None, limits: BuildLimits = DEFAULT_BUILD_LIMITS,
              check: Callable[[Path], None] | None = None) -> None:
    """Run ``build`` in ``workdir`` (absolute), in ``sandbox`` with ``bot_dir`` writable, under
    ``limits``; then ``check(bot_dir)`` if given, which sees what the build left before its
    directory is given back (an exception from it is the caller's, raised after the give-back).

    BuildError ``WHERE: exited with N; the end of its output: ...`` (``TAIL_LINES`` lines) when
    it fails, goes over a limit or cannot start; ConfigError ``WHERE: names ...`` when the
    sandbox refuses its program; a hint when the sandbox hid a program it ran.
    """
    argv = list(build)
    box = None if sandbox is None else sandbox.for_build(limits.processes)
    if box is not None:
        check_visible(box, argv, workdir, where, bot_dir)
    uid = BOT_UIDS.take() if box is not None and box.takes_uid else None
    try:
        if box is not None:
            argv = wrap(box, argv, workdir, limits.rlimits, bot_dir=bot_dir, uid=uid)
        elif os.access(PRLIMIT, os.X_OK):
            problem = _unrunnable(build[0], workdir)
            if problem is not None:  # said as Popen would, not as prlimit's exit status
                raise BuildError(f"{where}: cannot run {build[0]!r}: {problem}")
            # Root is exempt from RLIMIT_NPROC: the memory watch counts its processes instead.
            processes = None if is_root_mode() else limits.processes
            argv = [PRLIMIT, *limit_options(limits.rlimits, processes), "--", *argv]
        with buildtree.handed_to(bot_dir, uid):
            _run(argv, build, workdir, bot_dir, where, sandbox, limits)
            if check is not None:
                check(Path(bot_dir))
    finally:
        if uid is not None:
            BOT_UIDS.give_back(uid)


def build_bot(manifest: Manifest, directory: Path | None = None,
              limits: BuildLimits = DEFAULT_BUILD_LIMITS, sandbox: Sandbox | None = None,
              check: Callable[[Path], None] | None = None) -> None:
    """Run the manifest's build command in ``directory`` (default: the bot's own directory) with
    ``run_build`` under ``limits`` (in ``sandbox``, that directory writable and no
    network; ``check`` sees what it left, as ``run_build`` says), then check that the program in
    ``run`` exists. ConfigError naming the manifest, with the output's last lines; before
    anything runs, when ``sandbox`` refuses the program of ``run`` or ``build``."""
    where = FileChecker(manifest.path)
    workdir = os.path.abspath(directory if directory is not None else manifest.directory)
    if sandbox is not None:  # the build's own program is checked where it runs
        check_visible(sandbox, manifest.run, workdir, f"{manifest.path}: run", workdir)
    if manifest.build is not None:
        run_build(manifest.build, workdir, workdir, f"{manifest.path}: build", sandbox, limits,
                  check)
    check_program(where, manifest.run, workdir, "run", base_is=MANIFEST_DIRECTORY,
                  hint=": build it, or add a `build:` that makes it" if manifest.build is None
                  else ": does `build:` create it?")


def _unrunnable(program: str, workdir: str) -> str | None:
    """Why ``program`` cannot be started from ``workdir`` (a path from there, else a name on
    ``PATH``), or None."""
    if "/" not in program:
        return None if shutil.which(program) is not None else "No such file or directory"
    path = os.path.join(workdir, program)
    if not os.path.exists(path):
        return "No such file or directory"
    if os.path.isdir(path) or not os.access(path, os.X_OK):
        return "Permission denied"
    return None


def _run(argv: list[str], build: tuple[str, ...], workdir: str, bot_dir: str, where: str,
         sandbox: Sandbox | None, limits: BuildLimits) -> None:
    """Start ``argv``, read its output, watch its limits, end it; BuildError unless it succeeded."""
    started_tree = buildtree.size(bot_dir)
    try:
        proc = subprocess.Popen(argv, cwd=workdir, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                start_new_session=True)
    except OSError as error:
        raise BuildError(f"{where}: cannot run {build[0]!r}: {error.strerror or error}") from None
    if sandbox is None and not os.access(PRLIMIT, os.X_OK):
        from arena.bots.launch import apply_limits

        apply_limits(proc.pid, limits.rlimits)
    use = MemoryUse(limits.memory_mb,
                    process_limit=limits.processes if sandbox is None and is_root_mode() else None)
    memory.watch(proc.pid, use)
    tail = OutputTail()
    assert proc.stdout is not None
    output = proc.stdout.fileno()
    os.set_blocking(output, False)
    limit: BuildLimit | None = None
    try:
        limit = _wait(proc, output, tail, bot_dir, started_tree, limits, use)
    finally:  # whatever the build left behind in its group goes with it (also on Ctrl-C)
        _kill(proc, sandbox is None)
        memory.unwatch(proc.pid)
        proc.wait()
        _drain(output, tail)
        proc.stdout.close()
    code = proc.returncode
    if limit is None and code == 0:
        limit = _over(buildtree.size(bot_dir) - started_tree, limits)  # its last writes
        if limit is None:
            return
    if use.exceeded:
        limit = BuildLimit.MEMORY
    elif use.processes_exceeded:
        limit = BuildLimit.PROCESSES
    raise _failure(where, code, limit, limits, use, tail, sandbox)


def _wait(proc: subprocess.Popen[bytes], output: int, tail: OutputTail, bot_dir: str,
          started_tree: buildtree.TreeSize, limits: BuildLimits, use: MemoryUse) -> BuildLimit | None:
    """Read the build's output until its own process ends; the limit that ended it first, if one."""
    start = time.monotonic()
    deadline = start + limits.seconds
    poller = select.poll()
    poller.register(output, select.POLLIN | select.POLLHUP)
    is_open = True
    next_look = start + TREE_INTERVAL  # measured just before the start
    while True:
        now = time.monotonic()
        if now >= deadline:
            return BuildLimit.WALL
        if now >= next_look:
            limit = _over(buildtree.size(bot_dir) - started_tree, limits)
            if limit is not None:
                return limit
            walked = time.monotonic()
            next_look = walked + max(TREE_INTERVAL, (walked - now) / TREE_SHARE)
        if use.exceeded or use.processes_exceeded:
            return None  # the memory watch killed its group: said by the caller
        if proc.poll() is not None:
            return None
        wait = min(deadline, next_look) - time.monotonic()
        if not is_open:  # a child kept nothing open: wait for the build's own process
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=max(0.0, min(wait, 0.05)))
            continue
        if poller.poll(max(0, min(int(wait * 1000) + 1, 50))):
            is_open = _read(output, tail)
            if not is_open:
                poller.unregister(output)


def _read(output: int, tail: OutputTail, most: int = 64) -> bool:
    """Feed ``tail`` what the pipe holds now (at most ``most`` reads); False at its end."""
    for _ in range(most):
        try:
            chunk = os.read(output, _READ)
        except BlockingIOError:
            return True
        except OSError:
            return False
        if not chunk:
            return False
        tail.feed(chunk)
    return True


def _drain(output: int, tail: OutputTail) -> None:
    """What the build wrote before it ended (a process it left behind may keep the pipe open:
    its output after that is not waited for)."""
    with contextlib.suppress(OSError):
        _read(output, tail)


def _over(grown: buildtree.TreeSize, limits: BuildLimits) -> BuildLimit | None:
    if grown.bytes > limits.disk_mb << 20:
        return BuildLimit.DISK
    if grown.entries > limits.files:
        return BuildLimit.FILES
    return None


def _kill(proc: subprocess.Popen[bytes], whole_tree: bool) -> None:
    """SIGKILL the build's process group (a sandbox's whole PID namespace goes with bwrap), and
    without a sandbox every process of its tree, those that left its group too."""
    stragglers = list(memory.process_tree(proc.pid)) if whole_tree else []
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    for pid in stragglers:
        if pid != proc.pid:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)


def _failure(where: str, code: int | None, limit: BuildLimit | None, limits: BuildLimits,
             use: MemoryUse, tail: OutputTail, sandbox: Sandbox | None) -> BuildError:
    """The BuildError of a build that ended with ``code`` (or was ended by ``limit``)."""
    killed = None
    if code is not None and code < 0:
        killed = -code
    elif sandbox is not None:
        killed = signal_of_status(code)
    name = None if killed is None else signal_name(killed)
    if limit is BuildLimit.WALL:
        what = f"did not finish within {limits.seconds} s (its time limit)"
    elif limit is BuildLimit.MEMORY:
        what = (f"memory limit {limits.memory_mb} MB exceeded (peak "
                f"{memory.megabytes_over(use.peak)} MB)")
    elif limit is BuildLimit.PROCESSES:
        what = f"process limit exceeded (more than {limits.processes} processes and threads)"
    elif limit is BuildLimit.DISK:
        what = f"wrote more than {limits.disk_mb} MB into its bot's directory (its disk limit)"
    elif limit is BuildLimit.FILES:
        what = (f"made more than {limits.files:,} files and directories in its bot's directory "
                f"(its limit)")
    elif name is not None:
        what = f"killed by signal {name}{_limit_hint(killed, limits)}"
    else:
        what = f"exited with {code}"
    lines = tail.finish()
    exit_code = code if code is not None and code >= 0 and name is None else None
    if not lines:
        return BuildError(f"{where}: {what} and printed nothing", exit_code=exit_code,
                          signal=name, limit=limit)
    hint = "" if sandbox is None else hidden_hint("\n".join(lines), sandbox)
    dropped = tail.dropped_lines
    shown = "".join(f"\n  | {line}" for line in lines)
    if dropped:
        shown = f"\n  ({dropped:,} earlier lines, {tail.total_bytes:,} bytes in all, not kept){shown}"
    return BuildError(f"{where}: {what}{hint}; the end of its output:{shown}", exit_code=exit_code,
                      signal=name, limit=limit, tail=lines)


def _limit_hint(signum: int | None, limits: BuildLimits) -> str:
    if signum == signal.SIGXCPU:
        return f" (its CPU limit, {limits.cpu_seconds} s per process)"
    if signum == signal.SIGXFSZ:
        return f" (its file size limit, {limits.file_mb} MB)"
    return ""
