"""The arena's cost per decision against the floor: a JSON line round trip over a raw pipe.

Everything here runs pinned to one CPU (os.sched_setaffinity; every peer and bot started below
inherits it), because waking a process on the other vCPU costs 15-20x more than the round trip
itself (measured on a 2-core VM). Each figure is the median over ``REPEATS`` of the mean time per
unit (round trip, decision or game) of one batch; the batches take turns within each repeat, so a
load that drifts (the machine is shared) touches them all alike. Ratios are to R, measured in the
same run.

The floor (``measure_pipe``), against a minimal C echo peer (compiled here with ``cc``; a Python
one when there is no compiler) that answers every line carrying an id with ``{"id":N,"action":0}``:

- raw bytes: os.write of a prepared ~200-byte act line, blocking os.read of the reply.
- R, raw JSON line: the same with orjson.dumps of the act and orjson.loads of the reply: the least
  any arena must do per decision. It is the baseline every ratio is to.
- BotProcess.request: the process layer (arena.bots.process) on the same peer: id, poll, time, checks.

The issue's benchmark (``measure_games``): full default 4-player Blackout games (13 deals, 416
decisions each) through ``play_game``, the same ``GAMES`` seeds in every batch:

- T, arena with C bots: ``play_game`` with 4 persistent ``bots/c/first_bot`` processes (the first
  legal action), per decision: everything from ``game_start`` to the record, divided by the
  game's decisions: engine, views, messages, events, the process layer, the pipe, and the bot.
- The bot's own work, W. The exact bytes the arena wrote to each bot in those games (captured once
  from the process layer's debug log, with the same write boundaries) are replayed raw (os.write
  of each batch, blocking os.read of each reply) to 4 fresh first_bots (P_first) and to 4 echo
  peers (P_echo), per decision. W = P_first - P_echo: what first_bot's JSON parsing costs beyond
  a minimal reader of the same bytes.
- A = T - W, the arena per decision: what a decision costs with a bot that does nothing but read
  its input and answer. It still includes one pipe round trip of the real messages (the act with
  its full view, plus the batched events), since the floor R includes one too.
  Goal (the issue): A <= 3 R.
- S, referee + engine in process: ``play_game`` with in-process stand-ins that serialise every
  message with orjson as BotProcess does and answer the first legal action: no pipe, no process.
  T - S - P_first is then what the process layer adds over raw os.write/os.read, and
  T - S - W the arena's I/O side per decision (process layer and pipe, real messages), to set
  against R like for like.
- T0, the same as T with the bots' CPU clocks replaced by one that reads nothing: T / T0 is what
  measuring each decision's CPU time (one reading of the bot's process tree, at the reply) costs a
  decision.
  Goal (issue 19): within 1.1x.
- Python random bot: games per second of ``play_game`` with 4 persistent
  ``bots/python/random_bot.py`` processes (stdlib json), and its time per decision over R.

``python -m bench.arena profile`` prints a cProfile of ``play_game`` with 4 first_bots instead.
"""

from __future__ import annotations

import contextlib
import cProfile
import logging
import os
import pstats
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from time import perf_counter
from typing import Any

import orjson

from arena.bots.process import BotProcess, Reply
from arena.bots.shutdown import close_bots
from arena.referee.referee import play_game
from arena.settings import Clock, Limits, TimeControl

ROOT = Path(__file__).resolve().parents[1]
FIRST_BOT = ROOT / "bots" / "c" / "first_bot"
RANDOM_PY = ROOT / "bots" / "python" / "random_bot.py"
REPEATS = 7
BATCH = 4000
GAMES = 10
"""Games per batch for the arena figures (4,160 decisions)."""
PY_GAMES = 4
GOAL = 3.0
CPU_GOAL = 1.1
TIME = TimeControl(start_ms=30_000, move_ms=10_000, bank_ms=60_000)  # never binds here

Batch = Callable[[], int]
"""Runs one batch; returns how many units (round trips, decisions, games) it did."""

C_PEER = r"""
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
static char line[1 << 20];
int main(void) {
    while (fgets(line, sizeof line, stdin)) {
        if (strstr(line, "\"type\":\"quit\"")) return 0;
        char *id = strstr(line, "\"id\":");
        if (!id) continue;
        long n = strtol(id + 5, NULL, 10);
        if (strstr(line, "\"type\":\"hello\""))
            printf("{\"id\":%ld,\"name\":\"echo\",\"protocol\":1}\n", n);
        else
            printf("{\"id\":%ld,\"action\":0}\n", n);
        fflush(stdout);
    }
    return 0;
}
"""

PY_PEER = r"""
import os, sys
out = sys.stdout.buffer
for line in sys.stdin.buffer:
    if b'"type":"quit"' in line:
        break
    at = line.find(b'"id":')
    if at < 0:
        continue
    end = at + 5
    while line[end:end + 1].isdigit():
        end += 1
    n = line[at + 5:end]
    if b'"type":"hello"' in line:
        out.write(b'{"id":' + n + b',"name":"echo","protocol":1}\n')
    else:
        out.write(b'{"id":' + n + b',"action":0}\n')
    out.flush()
"""

HELLO = b'{"type":"hello","id":0,"protocol":1,"games":["blackout","partnership-blackout"]}\n'


def act_message(request_id: int) -> dict[str, object]:
    """An act of about 200 bytes, the size of a typical mid-deal act."""
    return {
        "type": "act", "id": request_id, "kind": "play", "legal": ["2C", "TD", "AS", "QH"],
        "view": {"deal": 3, "hand": ["2C", "TD", "AS", "QH", "5S"], "trump": "H",
                 "trick": [[0, "5H"]], "leader": 0, "tricks_won": [0, 1, 0, 0]},
        "time_ms": 950,
    }


def peer_command(workdir: Path) -> tuple[list[str], str]:
    """The echo peer's argv and a label: C when a compiler is at hand, else Python."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is not None:
        source = workdir / "echo.c"
        source.write_text(C_PEER)
        binary = workdir / "echo"
        built = subprocess.run([compiler, "-O2", "-o", str(binary), str(source)],
                               capture_output=True)
        if built.returncode == 0:
            return [str(binary)], "C"
    script = workdir / "echo.py"
    script.write_text(PY_PEER)
    return [sys.executable, "-S", str(script)], "Python"


def medians(batches: dict[str, Batch], repeats: int = REPEATS) -> dict[str, float]:
    """Median over ``repeats`` of the seconds per unit of each batch, the batches taking turns."""
    for batch in batches.values():  # warm up
        batch()
    per_unit: dict[str, list[float]] = {label: [] for label in batches}
    for _ in range(repeats):
        for label, batch in batches.items():
            began = perf_counter()
            units = batch()
            per_unit[label].append((perf_counter() - began) / units)
    return {label: statistics.median(values) for label, values in per_unit.items()}


# --- Raw peers: processes driven by plain os.write / os.read -----------------------------------


class RawPeers:
    """Bot processes spoken to over bare blocking pipes: the floor the arena is measured against."""

    def __init__(self, argv: Sequence[str], count: int) -> None:
        self.procs = [subprocess.Popen(list(argv), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                       bufsize=0) for _ in range(count)]
        self.ins = [proc.stdin.fileno() for proc in self.procs]  # type: ignore[union-attr]
        self.outs = [proc.stdout.fileno() for proc in self.procs]  # type: ignore[union-attr]
        for seat in range(count):
            os.write(self.ins[seat], HELLO)
            self.reply(seat)

    def reply(self, seat: int) -> bytes:
        """Block until a whole reply line has come from ``seat``."""
        data = os.read(self.outs[seat], 65536)
        while not data.endswith(b"\n"):
            more = os.read(self.outs[seat], 65536)
            if not more:
                raise RuntimeError(f"peer {seat} exited")
            data += more
        return data

    def replay(self, writes: Sequence[tuple[int, bytes, bool]]) -> int:
        """Write each captured batch to its seat, reading the reply after each act; acts done."""
        ins, read = self.ins, self.reply
        decisions = 0
        for seat, payload, is_act in writes:
            os.write(ins[seat], payload)
            if is_act:
                read(seat)
                decisions += 1
        return decisions

    def close(self) -> None:
        """Say quit, close the pipes, reap."""
        for proc in self.procs:
            assert proc.stdin is not None and proc.stdout is not None
            with contextlib.suppress(OSError):
                proc.stdin.write(b'{"type":"quit"}\n')
            proc.stdin.close()
            proc.stdout.close()
        for proc in self.procs:
            proc.wait(timeout=10)


class InProcessBot:
    """A stand-in for BotProcess that costs what serialising the messages costs, and no I/O."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.is_running = True
        self.last_fault = None
        self._held = bytearray()
        self._next_id = 0
        self.stalls = 0

    def hold(self, message: dict[str, Any]) -> None:
        self._held += orjson.dumps(message, option=orjson.OPT_APPEND_NEWLINE)

    def hold_line(self, data: bytes) -> None:
        self._held += data

    def send(self, message: bytes | dict[str, Any]) -> None:
        if isinstance(message, bytes):
            self._held += message
        else:
            self.hold(message)
        self._held.clear()

    def request(self, message: dict[str, Any] | bytes, timeout: float,
                clock: Clock = Clock.WALL, cap: float | None = None) -> Reply:
        rid = self._next_id
        self._next_id += 1
        if isinstance(message, bytes):  # an act the referee rendered: completed with the id
            self._held += b'%b,"id":%d}\n' % (message, rid)
            self._held.clear()
            return Reply({"id": rid, "action": first_legal(message)}, 0.0)
        message["id"] = rid
        self.hold(message)
        self._held.clear()
        return Reply({"id": rid, "action": message["legal"][0]}, 0.0)

    def stderr_tail(self) -> str:
        return ""

    def mark_stderr(self, game: str | None, seat: int, decisions: object) -> None:
        pass


def first_legal(act: bytes) -> object:
    """The first legal action of a rendered act, found as a bot reading it would find it."""
    start = act.index(b'"legal":[') + 9
    comma = act.find(b",", start)
    end = act.index(b"]", start)
    return orjson.loads(act[start:comma if 0 <= comma < end else end])


# --- Capturing what the arena writes ------------------------------------------------------------


class _Capture(logging.Handler):
    """Rebuilds the arena's writes from the process layer's debug log of every line it sends.

    Information messages are held and written with the next act (a request), game_start or
    game_end (sends); so a bot's lines are one write up to and including each of those.
    """

    FLUSHING = (b'{"type":"act"', b'{"type":"game_start"', b'{"type":"game_end"')

    def __init__(self, seats: dict[str, int]) -> None:
        super().__init__(logging.DEBUG)
        self.seats = seats
        self.pending: dict[int, list[bytes]] = {seat: [] for seat in seats.values()}
        self.writes: list[tuple[int, bytes, bool]] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.msg != ">> %s":
            return
        seat = self.seats[record.name.rsplit(".", 1)[1]]
        line = str(record.args[0]).encode() + b"\n"  # type: ignore[index]
        self.pending[seat].append(line)
        if line.startswith(self.FLUSHING):
            is_act = line.startswith(b'{"type":"act"')
            self.writes.append((seat, b"".join(self.pending[seat]), is_act))
            self.pending[seat].clear()


def capture_writes(bots: Sequence[BotProcess], seeds: Sequence[int],
                   ) -> list[tuple[int, bytes, bool]]:
    """Play ``seeds`` and return every write the arena made: (seat, bytes, whether an act)."""
    logger = logging.getLogger("arena.bot")
    handler = _Capture({bot.name: seat for seat, bot in enumerate(bots)})
    level, propagate = logger.level, logger.propagate
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    logger.propagate = False
    try:
        for seed in seeds:
            play_game("blackout", bots, seed, time_control=TIME)
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
        logger.propagate = propagate
    if not any(is_act for _, _, is_act in handler.writes):
        raise RuntimeError("captured no act: the process layer's debug log has changed")
    return handler.writes


def play_games(bots: Sequence[Any], seeds: Sequence[int]) -> int:
    """Play 4-player Blackout games, one per seed; the number of decisions played."""
    decisions = 0
    for seed in seeds:
        record = play_game("blackout", bots, seed, time_control=TIME).record
        if record["faults"]:
            raise RuntimeError(f"a bot faulted in the benchmark: {record['faults'][0]}")
        decisions += sum(len(deal["bids"]) + len(deal["plays"]) for deal in record["deals"])
    return decisions


# --- The measurements ---------------------------------------------------------------------------


def measure_pipe(argv: list[str]) -> dict[str, Batch]:
    """Batches for the floor: bare pipe with prepared bytes, bare pipe with orjson both ways,
    BotProcess.request; each on its own copy of the echo peer (closed by the returned closer)."""
    raw = RawPeers(argv, 1)
    write_fd, read_fd = raw.ins[0], raw.outs[0]
    prepared = orjson.dumps(act_message(1), option=orjson.OPT_APPEND_NEWLINE)
    raw_message = act_message(0)
    bot_message = act_message(0)
    bot = BotProcess("echo", argv, limits=Limits())
    bot.start()
    _CLOSERS.append(raw.close)
    _CLOSERS.append(bot.close)

    def raw_bytes() -> int:
        for _ in range(BATCH):
            os.write(write_fd, prepared)
            os.read(read_fd, 65536)
        return BATCH

    def json_line() -> int:
        for request_id in range(BATCH):
            raw_message["id"] = request_id
            os.write(write_fd, orjson.dumps(raw_message, option=orjson.OPT_APPEND_NEWLINE))
            reply = orjson.loads(os.read(read_fd, 65536))
            assert reply["id"] == request_id
        return BATCH

    def requests() -> int:
        for _ in range(BATCH):
            bot.request(bot_message, 5.0)
        return BATCH

    return {"raw": raw_bytes, "line": json_line, "layer": requests}


def measure_games(echo_argv: list[str]) -> tuple[dict[str, Batch], float]:
    """Batches for the issue's benchmark (see the module docstring): T, P_first, P_echo, S, Python;
    and the decisions per game."""
    seeds = range(GAMES)
    first = [BotProcess(f"first{seat}", [str(FIRST_BOT)]) for seat in range(4)]
    python = [BotProcess(f"random{seat}", [sys.executable, "-S", str(RANDOM_PY)])
              for seat in range(4)]
    unclocked = [BotProcess(f"unclocked{seat}", [str(FIRST_BOT)]) for seat in range(4)]
    _CLOSERS.append(lambda: close_bots(first + python + unclocked))
    for bot in first + python + unclocked:
        bot.start()
    for bot in unclocked:
        assert bot._meter.tree is not None
        bot._meter.tree.close()
        bot._meter.tree = NoClock()  # type: ignore[assignment]
    writes = capture_writes(first, seeds)
    first_peers = RawPeers([str(FIRST_BOT)], 4)
    _CLOSERS.append(first_peers.close)
    echo_peers = RawPeers(echo_argv, 4)
    _CLOSERS.append(echo_peers.close)
    stand_ins = [InProcessBot(f"stand-in{seat}") for seat in range(4)]

    def python_games() -> int:
        play_games(python, range(PY_GAMES))
        return PY_GAMES

    batches: dict[str, Batch] = {
        "arena": lambda: play_games(first, seeds),
        "unclocked": lambda: play_games(unclocked, seeds),
        "first": lambda: first_peers.replay(writes),
        "echo": lambda: echo_peers.replay(writes),
        "referee": lambda: play_games(stand_ins, seeds),
        "python": python_games,
    }
    return batches, sum(is_act for _, _, is_act in writes) / GAMES


class NoClock:
    """A bot's CPU clock that reads nothing (T0): what is left of T is all but the CPU readings."""

    def read(self, fresh: bool = False) -> float:
        return 0.0

    def is_working(self) -> bool:
        return False

    def close(self) -> None:
        pass


_CLOSERS: list[Callable[[], None]] = []


def _close_all() -> None:
    while _CLOSERS:
        try:
            _CLOSERS.pop()()
        except Exception as error:  # a cleanup failure must not hide the figures
            print(f"bench.arena: cleanup: {error!r}", file=sys.stderr)


def _built() -> None:
    if not FIRST_BOT.exists():
        subprocess.run(["make", "--no-print-directory", "-C", str(FIRST_BOT.parent)], check=True,
                       capture_output=True)


def run() -> list[str]:
    """Measure and return the lines to print."""
    _built()
    cpus = os.sched_getaffinity(0)
    cpu = max(cpus)
    os.sched_setaffinity(0, {cpu})  # the peers and bots started below inherit it
    try:
        with tempfile.TemporaryDirectory() as workdir:
            argv, language = peer_command(Path(workdir))
            try:
                games, decisions = measure_games(argv)
                figures = medians({**measure_pipe(argv), **games})
            finally:
                _close_all()
    finally:
        os.sched_setaffinity(0, cpus)
    raw, line, layer = figures["raw"], figures["line"], figures["layer"]
    arena, first, echo = figures["arena"], figures["first"], figures["echo"]
    referee, python = figures["referee"], figures["python"]
    unclocked = figures["unclocked"]
    cpu_verdict = "meets" if arena <= CPU_GOAL * unclocked else "MISSES"
    work = first - echo
    overhead = arena - work
    layer_extra = arena - referee - first
    verdict = "meets" if overhead <= GOAL * line else "MISSES"

    def us(seconds: float) -> str:
        return f"{seconds * 1e6:6.2f} us  {seconds / line:5.2f}x"

    return [
        f"arena: everything pinned to CPU {cpu}, {language} echo peer; median of {REPEATS}; "
        f"ratios to R",
        f"  pipe round trip ({BATCH} per batch):",
        f"    raw bytes                              {us(raw)}",
        f"    R = raw JSON line (orjson)             {us(line)}  (baseline)",
        f"    BotProcess.request                     {us(layer)}",
        f"  per decision, full 4-player Blackout ({GAMES} games, {decisions:.0f} decisions each):",
        f"    T = play_game, 4 C first_bots          {us(arena)}  "
        f"({1 / (arena * decisions):,.0f} games/s)",
        f"    T0 = T without reading CPU time        {us(unclocked)}  "
        f"(T / T0 = {arena / unclocked:.3f}: {cpu_verdict} the goal <= {CPU_GOAL})",
        f"    P_first = same bytes raw to first_bot  {us(first)}",
        f"    P_echo  = same bytes raw to echo peer  {us(echo)}",
        f"    W = P_first - P_echo (first_bot's own) {us(work)}",
        f"    S = referee + engine, no I/O           {us(referee)}",
        f"    T - S - P_first (process layer extra)  {us(layer_extra)}",
        f"    T - S - W (the arena's I/O side)       {us(arena - referee - work)}",
        f"    A = T - W, arena per decision          {us(overhead)}  "
        f"({verdict} the goal A <= {GOAL:.0f} R)",
        f"  Python random bot, 4 processes: {1 / python:,.1f} games/s "
        f"({python / decisions * 1e6:.1f} us per decision, {python / decisions / line:.1f}x R)",
    ]


def profile(games: int = 100, top: int = 25) -> None:
    """Print where ``play_game`` spends its time with 4 first_bots (cProfile, by own time)."""
    _built()
    cpus = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {max(cpus)})
    bots = [BotProcess(f"first{seat}", [str(FIRST_BOT)]) for seat in range(4)]
    try:
        for bot in bots:
            bot.start()
        play_games(bots, range(10))
        profiler = cProfile.Profile()
        profiler.enable()
        play_games(bots, range(games))
        profiler.disable()
    finally:
        close_bots(bots)
        os.sched_setaffinity(0, cpus)
    pstats.Stats(profiler).sort_stats("tottime").print_stats(top)


if __name__ == "__main__":
    if sys.argv[1:] == ["profile"]:
        profile()
    else:
        print("\n".join(run()))
