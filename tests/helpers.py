"""What the test modules share: the ``arena`` command run as a real process, waiting on a
condition, the C starter bots built, bots of a test's own, leagues made in process for tests about
something else, and reading back what they wrote (a results file, a league's database, /proc).

Importable from every test module as ``helpers`` (pyproject's ``pythonpath``).
"""

from __future__ import annotations

import atexit
import contextlib
import json
import locale
import logging
import os
import selectors
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
"""The repository: the working directory the commands run from unless a test says otherwise."""

ARENA = str(Path(sys.executable).with_name("arena"))
"""The ``arena`` entry point installed next to the interpreter running the tests (the venv's)."""

C_BOT = ROOT / "bots" / "c" / "random_bot"
FIRST_BOT = ROOT / "bots" / "c" / "first_bot"
MISBEHAVING = ROOT / "tests" / "bots" / "misbehaving"

TIMEOUT = 200.0
"""Seconds a command may take before the test fails: generous for a loaded 2-core machine."""


def arena(*args: str | Path, cwd: Path = ROOT, env: Mapping[str, str] | None = None,
          timeout: float = TIMEOUT) -> subprocess.CompletedProcess[str]:
    """``arena ARGS`` as a user runs it: a process of its own, from ``cwd``, with no input (stdin
    is /dev/null), its exit status and its output as text (decoded as ``subprocess`` does)."""
    done = arena_bytes(*args, cwd=cwd, env=env, timeout=timeout)
    encoding = locale.getpreferredencoding(False)
    return subprocess.CompletedProcess(done.args, done.returncode, _text(done.stdout, encoding),
                                       _text(done.stderr, encoding))


def _text(data: bytes, encoding: str) -> str:
    return data.decode(encoding).replace("\r\n", "\n").replace("\r", "\n")


def arena_bytes(*args: str | Path, cwd: Path = ROOT, env: Mapping[str, str] | None = None,
                timeout: float = TIMEOUT) -> subprocess.CompletedProcess[bytes]:
    """``arena ARGS`` with its output as the bytes it wrote (for tests of what reaches a terminal).
    A child of this test process's fork server (tests/forkserver.py) where it can be, else a new
    interpreter: where the test gives an environment of its own, asks for ``--pure``, or with
    ARENA_TEST_FORK=0 (to compare, or to rule the server out)."""
    argv = [ARENA, *map(str, args)]
    forked = env is None and "--pure" not in argv and os.environ.get("ARENA_TEST_FORK") != "0"
    server = _fork_server() if forked else None
    if server is None:
        return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, timeout=timeout,
                              stdin=subprocess.DEVNULL, check=False)
    return server.run(argv, Path(cwd), timeout)


class _ForkServer:
    """This test process's fork server: started with the environment of its start, used while the
    environment is the same (but for pytest's own variable, which names the test)."""

    def __init__(self, directory: Path) -> None:
        self.path = str(directory / "arena.sock")
        self.env = _environment()
        log = directory / "server.log"  # its own stderr (its children write to the tests' pipes)
        with log.open("wb") as stderr:
            self.process = subprocess.Popen(
                [sys.executable, str(Path(__file__).with_name("forkserver.py")), self.path],
                cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr)
        assert self.process.stdout is not None
        if self.process.stdout.readline() != b"ready\n":
            self.process.kill()
            self.process.wait()
            said = log.read_text(errors="replace")
            shutil.rmtree(directory, ignore_errors=True)
            # Not a silent fall-back to new interpreters: a server that cannot start is a bug
            # of the tests (one went unseen in every pure run, and left a directory behind at
            # every command). ARENA_TEST_FORK=0 runs without it.
            raise RuntimeError(f"the tests' fork server did not start: {said}")

    def usable(self) -> bool:
        return self.process.poll() is None and _environment() == self.env

    def run(self, argv: list[str], cwd: Path, timeout: float) -> subprocess.CompletedProcess[bytes]:
        out_read, out_write = os.pipe()
        err_read, err_write = os.pipe()
        with open(os.devnull, "rb") as stdin, \
                socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET) as connection:
            connection.connect(self.path)
            request = {"argv": argv, "cwd": str(cwd.absolute()), "env": dict(os.environ)}
            try:
                socket.send_fds(connection, [json.dumps(request).encode()],
                                [stdin.fileno(), out_write, err_write])
            finally:
                os.close(out_write)
                os.close(err_write)
            pid = json.loads(connection.recv(1 << 16))["pid"]
            deadline = time.monotonic() + timeout
            try:
                out, err = _read_both(out_read, err_read, deadline)
                connection.settimeout(max(0.0, deadline - time.monotonic()))
                status = json.loads(connection.recv(1 << 16))["status"]
            except (TimeoutError, subprocess.TimeoutExpired):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
                raise subprocess.TimeoutExpired(argv, timeout) from None
        return subprocess.CompletedProcess(argv, status, out, err)


def _read_both(out_read: int, err_read: int, deadline: float) -> tuple[bytes, bytes]:
    """Everything written to both pipes until each is closed by every process holding it, as
    ``subprocess.run(capture_output=True)`` reads; then both are closed."""
    chunks: dict[int, list[bytes]] = {out_read: [], err_read: []}
    try:
        with selectors.DefaultSelector() as selector:
            for fd in chunks:
                selector.register(fd, selectors.EVENT_READ)
            while selector.get_map():
                left = deadline - time.monotonic()
                if left <= 0:
                    raise subprocess.TimeoutExpired("arena", 0)
                for key, _ in selector.select(left):
                    data = os.read(key.fd, 1 << 16)
                    if data:
                        chunks[key.fd].append(data)
                    else:
                        selector.unregister(key.fd)
    finally:
        os.close(out_read)
        os.close(err_read)
    return b"".join(chunks[out_read]), b"".join(chunks[err_read])


def _environment() -> dict[str, str]:
    return {key: value for key, value in os.environ.items() if key != "PYTEST_CURRENT_TEST"}


_SERVERS: dict[int, _ForkServer] = {}


def _fork_server() -> _ForkServer | None:
    """This process's fork server (one per pytest-xdist process), started on first use, or None
    where the environment changed since it started; RuntimeError when it cannot start."""
    server = _SERVERS.get(os.getpid())
    if server is not None and server.usable():
        return server
    if server is not None and server.process.poll() is None:
        return None  # the environment differs: a new interpreter for this command
    directory = Path(tempfile.mkdtemp(prefix="arena-forkserver-"))
    _SERVERS[os.getpid()] = server = _ForkServer(directory)
    atexit.register(_stop, server)
    return server


def _stop(server: _ForkServer) -> None:
    """End the server (it removes its directory), as it ends when this process does."""
    assert server.process.stdin is not None
    server.process.stdin.close()
    with contextlib.suppress(subprocess.TimeoutExpired):
        server.process.wait(timeout=5)


def in_process(*args: str | Path, cwd: Path, monkeypatch: pytest.MonkeyPatch,
               capsys: pytest.CaptureFixture[str]) -> subprocess.CompletedProcess[str]:
    """``arena ARGS`` run by the entry point's ``main`` in this process, from ``cwd``: its exit
    status and output, as ``arena`` gives them. For a test's further commands where the first went
    through a real process: a process start each was most of their cost. The signal handlers
    ``main`` installs are put back."""
    from arena.cli import main

    monkeypatch.chdir(cwd)
    monkeypatch.setattr(sys, "argv", ["arena", *map(str, args)])
    handlers = {signum: signal.getsignal(signum) for signum in (signal.SIGTERM, signal.SIGHUP)}
    capsys.readouterr()
    try:
        main()
        status = 0
    except SystemExit as stop:
        status = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
    finally:
        for signum, handler in handlers.items():
            signal.signal(signum, handler)
    out, err = capsys.readouterr()
    return subprocess.CompletedProcess(["arena", *map(str, args)], status, out, err)


def start_arena(*args: str | Path, cwd: Path = ROOT, env: Mapping[str, str] | None = None,
                stdout: int | IO[bytes] | None = subprocess.PIPE,
                stderr: int | IO[bytes] | None = subprocess.PIPE) -> subprocess.Popen[str]:
    """``arena ARGS`` started and left running (to be signalled, or read as it goes); the caller
    waits for it, or kills it in a ``finally``."""
    return subprocess.Popen([ARENA, *map(str, args)], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                            stdout=stdout, stderr=stderr, text=True)


def wait_for(condition: Callable[[], object], timeout: float = 120.0,
             what: str = "the condition") -> None:
    """Return as soon as ``condition()`` is true; fail once ``timeout`` seconds have passed without
    it (a ceiling for a loaded machine, never a wait in itself). Looks every 50 ms."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(0.05)


def build_c_bots() -> Path:
    """The C starter bots built (``make -C bots/c``, as ``make test`` builds them); their
    directory."""
    subprocess.run(["make", "--no-print-directory", "-C", str(ROOT / "bots" / "c")], check=True,
                   capture_output=True, timeout=120)
    return ROOT / "bots" / "c"


def own_bot(parent: Path, name: str = "mine", program: Path = C_BOT,
            version: str | None = None) -> Path:
    """A bot directory of the user's own, ``parent/NAME-src``: a copy of ``program`` with a
    bot.yaml (the C random bot by default: its check takes milliseconds; a Python program runs
    with python3, and a misbehaving one gets the protocol module it imports)."""
    directory = parent / f"{name}-src"
    directory.mkdir()
    is_python = program.suffix == ".py"
    shutil.copy2(program, directory / ("bot.py" if is_python else "bot"))
    if program.parent == MISBEHAVING:
        shutil.copy(MISBEHAVING / "_protocol.py", directory)
    lines = [f"name: {name}", "run: python3 bot.py" if is_python else "run: ./bot"]
    if version is not None:
        lines.append(f"version: '{version}'")
    (directory / "bot.yaml").write_text("\n".join(lines) + "\n")
    return directory


def new_league(path: Path, game: str = "blackout", players: int | None = 3,
               options: Mapping[str, str] | None = None, sandbox: str = "none") -> Path:
    """A league made in process, as ``arena league init PATH --game GAME --players N -o K=V``
    makes it, for tests about what comes after (the command itself is tested through the CLI in
    tests/arena/league/test_league.py and the matrix)."""
    from arena.league.config import LeagueSettings
    from arena.league.store import Store
    from arena.settings import SandboxMode
    from arena.spec import PlaySettings

    settings = LeagueSettings.checked(game, players, dict(options or {}),
                                      PlaySettings(sandbox=SandboxMode(sandbox)))
    Store.create(path, settings.stored()).close()
    return path


def submitted(league: Path, bot: Path) -> None:
    """``bot`` submitted in process, as ``arena league submit`` does it; it must be accepted."""
    from arena.league.submit import submit

    submission = submit(league, bot)
    assert submission.accepted, "\n".join([submission.reason, *submission.report])


def query(league: Path, sql: str, *values: object) -> list[tuple[object, ...]]:
    """The rows of ``sql`` (with ``values``) in the league's database, read-only, apart from any
    connection the arena holds (a run or a server may be writing)."""
    from arena.league.database import DATABASE

    db = sqlite3.connect(f"file:{league / DATABASE}?mode=ro", uri=True, timeout=30)
    try:
        return db.execute(sql, values).fetchall()
    finally:
        db.close()


def played_tournament(directory: Path, name: str, bots: Mapping[str, str], *,
                      game: str = "blackout", players: int | None = None,
                      options: Mapping[str, object], rounds: int, seed: int,
                      jobs: int = 1) -> Path:
    """A tournament of ``bots`` (name: command) played in process into ``directory/name``, its
    file ``directory/name.yaml`` (a generous time control: what the tests read is the games,
    not the clock); the results directory."""
    import yaml

    from arena.runs.runner import run_tournament

    described: dict[str, object] = {"name": name, "game": game}
    if players is not None:
        described["players"] = players
    described |= {"options": dict(options), "rounds": rounds, "seed": seed,
                  "time": {"move_ms": 5000, "bank_ms": 20000, "start_ms": 20000},
                  "bots": [{"name": bot, "cmd": command} for bot, command in bots.items()]}
    file = directory / f"{name}.yaml"
    file.write_text(yaml.safe_dump(described, sort_keys=False))
    out = directory / name
    run_tournament(file, out=out, jobs=jobs, resamples=0, progress_stream=None)
    return out


def result_lines(results: Path) -> list[dict[str, Any]]:
    """Every line of the ``games.jsonl`` in the results directory ``results``, parsed, in order."""
    import orjson

    return [orjson.loads(line) for line in (results / "games.jsonl").read_bytes().splitlines()]


def proc_state(pid: int) -> str | None:
    """The process state letter from /proc (None when the pid no longer exists)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return None


def option_range(param: Any) -> tuple[Any, Any]:
    """A command line option's bounds: on the option (typer 0.29), or on its click type (an IntRange,
    typer 0.28 and before)."""
    if hasattr(param, "min"):
        return param.min, param.max
    return getattr(param.type, "min", None), getattr(param.type, "max", None)


class SentLines(logging.Handler):
    """Every line the process layer logs as written (``>> line``), by bot name."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: dict[str, list[str]] = {}

    def emit(self, record: logging.LogRecord) -> None:
        if record.msg == ">> %s":
            name = record.name.removeprefix("arena.bot.")
            self.lines.setdefault(name, []).append(str(record.args[0]))  # type: ignore[index]


@contextmanager
def sent_lines() -> Iterator[SentLines]:
    """The lines written to each bot meanwhile, from the process layer's debug log."""
    logger = logging.getLogger("arena.bot")
    handler = SentLines()
    level, propagate = logger.level, logger.propagate
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    logger.propagate = False
    try:
        yield handler
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
        logger.propagate = propagate
