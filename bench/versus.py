"""This tree (pure, and compiled when built) against an older commit, in the same run.

Issue 22 asks for speed-ups measured against the code before it, on the same machine at the same
time: the machine is shared and noisy, so figures from different runs cannot be compared. The older
commit (``BENCH_BASELINE``, default ``BASELINE``, the last commit before issue 22) is checked out
into a temporary git worktree. Each measurement runs in a child process that imports one variant,
pinned to one CPU, the variants alternating round after round:

- ``old``: the baseline tree;
- ``pure``: this tree's Python sources;
- ``compiled``: this tree with its mypyc build (``make compiled``: ``build/compiled/<hash of the
  engine sources>``) first on the path; left out, and said so, when there is no build of these
  sources.

Each figure is the median over ``ROUNDS``; each ratio the median of the rounds' ratios. Only public
API is used (``engine.blackout``, ``play_game``, ``BotProcess``, ``run_tasks`` where each tree has it),
so any commit of the project can be the baseline.

- engine: random 4-player games of deals 1..12 through ``legal_actions`` and ``apply``, games/s,
  and against OpenSpiel's ``oh_hell`` on the same workload (``bench.engine``), measured in its own
  child in the same round.
- S: ``play_game`` with in-process stand-ins that serialise every message as the process layer
  does (orjson for dicts, the bytes as given for text), no I/O; per decision.
- T: ``play_game`` with 4 persistent C ``first_bot`` processes; per decision.
- S and T are also given in the arena process's own CPU time per decision (``time.process_time``;
  the bots' not included), which a loaded machine moves far less than wall-clock time.
- A = T - W, the arena per decision (``bench.arena``): W, first_bot's own work, is measured in the
  parent each round by replaying the bytes the arena writes (the same for every variant: the
  golden tests pin them) raw to first_bots and to echo peers.
- tournament: ``run_tasks`` with ``jobs`` 1 over 4-player Blackout games between C random bots,
  bot start-up included; games/s.

R, the raw JSON line round trip of ``bench.arena``, is measured in the parent each round, so S, T
and A are given in R.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from time import perf_counter

import orjson

from bench.arena import (
    BATCH,
    FIRST_BOT,
    GAMES,
    RawPeers,
    act_message,
    capture_writes,
    peer_command,
)

ROOT = Path(__file__).resolve().parents[1]
BASELINE = "b3337dcb35d4fd3bc8a7dac239edbeb37820c1ed"
"""The last commit of main before issue 22's work (the referee at the speed of the pipe)."""
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "5"))
TOURNAMENT_GAMES = 150

PROBE = r"""
import json, os, random, sys, time
tree, build, cpu, games = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
sys.path.insert(0, tree)
if build:
    sys.path.insert(0, build)
os.sched_setaffinity(0, {cpu})
import orjson
from engine import blackout
try:  # the referee's own folder since issue 41
    from arena.referee.referee import play_game
except ImportError:  # the baseline's
    from arena.game.referee import play_game
from arena.bots.process import BotProcess, Reply
try:  # the layout since closing moved out of the process module (issue 41)
    from arena.bots.shutdown import close_bots
except ImportError:  # the baseline's
    from arena.bots.process import close_bots
from arena.settings import TimeControl
assert blackout.__file__.startswith(build or tree), blackout.__file__
assert blackout.__file__.endswith(".so") == bool(build), blackout.__file__
TIME = TimeControl(start_ms=30_000, move_ms=10_000, bank_ms=60_000)

def engine_rate(count):
    rng = random.Random(1)
    choice, legal_actions, apply = rng.choice, blackout.legal_actions, blackout.apply
    start = time.perf_counter()
    for seed in range(count):
        state = blackout.new_game(4, seed, {"deals": 12})
        while state.to_act is not None:
            state = apply(state, choice(legal_actions(state)))
    return count / (time.perf_counter() - start)

def first_legal(act):
    # The first legal action of a rendered act, as a bot reading it would find it.
    start = act.index(b'"legal":[') + 9
    comma, end = act.find(b",", start), act.index(b"]", start)
    return orjson.loads(act[start:comma if 0 <= comma < end else end])

class StandIn(BotProcess):
    # What a BotProcess does with the messages, less the I/O; answers the first legal action.
    # A BotProcess never started (a compiled referee takes nothing else), taken for running.
    def __init__(self, name):
        super().__init__(name, ["true"])
        self._running = True
        self.held, self.next_id = bytearray(), 0
    def hold(self, message):
        self.held += orjson.dumps(message, option=orjson.OPT_APPEND_NEWLINE)
    def hold_line(self, data):
        self.held += data
    def send(self, message):  # a line built by arena.protocol (since issue 41), or a dict
        if isinstance(message, bytes):
            self.held += message
        else:
            self.hold(message)
        self.held.clear()
    def request(self, message, timeout, clock=None, cap=None):  # the clock: since issue 19
        rid = self.next_id; self.next_id += 1
        if isinstance(message, bytes):  # rendered by the referee (since issue 22): completed
            self.held += b'%b,"id":%d}\n' % (message, rid); self.held.clear()
            return Reply({"id": rid, "action": first_legal(message)}, 0.0)
        message["id"] = rid
        self.hold(message); self.held.clear()
        return Reply({"id": rid, "action": message["legal"][0]}, 0.0)
    def stderr_tail(self):
        return ""

def per_decision(bots, count):
    # Wall seconds per decision, and the arena process's own CPU seconds (the bots' not counted),
    # which a loaded machine moves far less than the wall clock.
    decisions = 0
    start, cpu = time.perf_counter(), time.process_time()
    for seed in range(count):
        record = play_game("blackout", bots, seed, time_control=TIME).record
        assert not record["faults"], record["faults"]
        decisions += sum(len(d["bids"]) + len(d["plays"]) for d in record["deals"])
    return ((time.perf_counter() - start) / decisions, (time.process_time() - cpu) / decisions)

def tournament_rate(count):
    try:  # the layout since the executors moved out of arena.runs
        from arena.executors.workers import run_tasks
        from arena.values.work import BotCommand, GameSpec, RunSettings
    except ImportError:  # the baseline's
        from arena.runs.batch import BotCommand, RunSettings
        from arena.runs.schedule import GameSpec
        from arena.runs.workers import run_tasks
    bot = BotCommand((sys.argv[6],))
    settings = RunSettings(bots={name: bot for name in ("c1", "c2", "c3", "c4")})
    tasks = [GameSpec(f"g{i}", "blackout", {}, ("c1", "c2", "c3", "c4"), i, round=1, table=i,
                      rotation=0) for i in range(count)]
    start = time.perf_counter()
    done = sum(1 for _ in run_tasks(tasks, settings, 1))
    return done / (time.perf_counter() - start)

engine_rate(20)
stand_ins = [StandIn(f"s{seat}") for seat in range(4)]
per_decision(stand_ins, 3)
bots = [BotProcess(f"first{seat}", [sys.argv[5]]) for seat in range(4)]
try:
    for bot in bots:
        bot.start()
    per_decision(bots, 2)
    figures = {"engine": engine_rate(60)}
    figures["S"], figures["S_cpu"] = per_decision(stand_ins, 12)
    figures["T"], figures["T_cpu"] = per_decision(bots, 12)
finally:
    close_bots(bots)
figures["tournament"] = tournament_rate(games)
print(json.dumps(figures))
"""

OPENSPIEL_PROBE = r"""
import json, os, sys
sys.path.insert(0, sys.argv[1])
os.sched_setaffinity(0, {int(sys.argv[2])})
from bench.engine import openspiel
openspiel(5)
print(json.dumps({"openspiel": openspiel(60)}))
"""


def compiled_build() -> Path | None:
    """This tree's compiled build of its current sources (``make``: ``arena.startup``'s rule), or None."""
    from arena.startup import TREE_BUILDS, sources_hash

    build = ROOT / TREE_BUILDS / sources_hash(ROOT)
    return build if build.is_dir() else None


def probe(tree: Path, build: Path | None, cpu: int) -> dict[str, float]:
    """One round of every figure, measured in a child process that imports ``tree`` (and
    ``build`` first, when given)."""
    bots = ROOT / "bots" / "c"
    argv = [sys.executable, "-c", PROBE, str(tree), str(build or ""), str(cpu),
            str(TOURNAMENT_GAMES), str(bots / "first_bot"), str(bots / "random_bot")]
    return _child(argv, tree)


def openspiel_probe(cpu: int) -> float | None:
    """OpenSpiel's games/s on the engine workload, in a child pinned like the others; None when
    open-spiel is not installed."""
    try:
        figures = _child([sys.executable, "-c", OPENSPIEL_PROBE, str(ROOT), str(cpu)], ROOT)
    except RuntimeError:
        return None
    rate = figures.get("openspiel")
    return None if rate is None else float(rate)


def _child(argv: list[str], cwd: Path) -> dict[str, float]:
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=900)
    if done.returncode != 0:
        raise RuntimeError(f"probe {argv[3:5]} failed: {done.stderr.strip()[-2000:]}")
    figures: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


class Floor:
    """What the parent measures each round: R, and first_bot's own work W on the arena's bytes."""

    def __init__(self, workdir: Path) -> None:
        from arena.bots.process import BotProcess
        from arena.bots.shutdown import close_bots

        self.echo_argv, _ = peer_command(workdir)
        bots = [BotProcess(f"first{seat}", [str(FIRST_BOT)]) for seat in range(4)]
        try:
            for bot in bots:
                bot.start()
            self.writes = capture_writes(bots, range(GAMES))
        finally:
            close_bots(bots)

    def round_trip(self) -> float:
        """R: seconds per raw JSON line round trip to the C echo peer (``bench.arena``)."""
        peer = RawPeers(self.echo_argv, 1)
        try:
            message = act_message(0)
            samples = []
            for _ in range(5):
                began = perf_counter()
                for request_id in range(BATCH):
                    message["id"] = request_id
                    os.write(peer.ins[0], orjson.dumps(message, option=orjson.OPT_APPEND_NEWLINE))
                    orjson.loads(os.read(peer.outs[0], 65536))
                samples.append((perf_counter() - began) / BATCH)
            return statistics.median(samples)
        finally:
            peer.close()

    def bot_work(self) -> float:
        """W: seconds per decision first_bot spends beyond an echo peer reading the same bytes."""
        first = RawPeers([str(FIRST_BOT)], 4)
        echo = RawPeers(self.echo_argv, 4)
        try:
            samples = []
            for _ in range(3):
                began = perf_counter()
                decisions = first.replay(self.writes)
                middle = perf_counter()
                echo.replay(self.writes)
                samples.append(((middle - began) - (perf_counter() - middle)) / decisions)
            return statistics.median(samples)
        finally:
            first.close()
            echo.close()


def run() -> list[str]:
    """Measure and return the report lines."""
    subprocess.run(["make", "--no-print-directory", "-C", str(ROOT / "bots" / "c")], check=True,
                   capture_output=True)
    commit = os.environ.get("BENCH_BASELINE", BASELINE)
    cpus = os.sched_getaffinity(0)
    cpu = max(cpus)
    build = compiled_build()
    rows: dict[str, list[dict[str, float]]] = {"old": [], "pure": [], "compiled": []}
    spiel: list[float] = []
    rs: list[float] = []
    ws: list[float] = []
    os.sched_setaffinity(0, {cpu})  # the peers and bots started here inherit it
    try:
        with tempfile.TemporaryDirectory() as parent:
            old_tree = Path(parent) / "baseline"
            subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "--force",
                            str(old_tree), commit], check=True, capture_output=True)
            variants: dict[str, tuple[Path, Path | None]] = {"old": (old_tree, None),
                                                             "pure": (ROOT, None)}
            if build is not None:
                variants["compiled"] = (ROOT, build)
            try:
                floor = Floor(Path(parent))
                for _ in range(ROUNDS):
                    for name, (tree, variant_build) in variants.items():
                        rows[name].append(probe(tree, variant_build, cpu))
                    rate = openspiel_probe(cpu)
                    if rate is not None:
                        spiel.append(rate)
                    rs.append(floor.round_trip())
                    ws.append(floor.bot_work())
            finally:
                subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force",
                                str(old_tree)], capture_output=True)
    finally:
        os.sched_setaffinity(0, cpus)
    r = statistics.median(rs)
    w = statistics.median(ws)

    def med(name: str, key: str) -> float:
        return statistics.median(row[key] for row in rows[name])

    def med_a(name: str) -> float:
        return statistics.median(row["T"] - work for row, work in zip(rows[name], ws, strict=True))

    def in_r(name: str, key: str) -> float:
        if key == "A":
            return statistics.median((row["T"] - work) / line
                                     for row, work, line in zip(rows[name], ws, rs, strict=True))
        return statistics.median(row[key] / line for row, line in zip(rows[name], rs, strict=True))

    def ratio(name: str, key: str, faster_is_higher: bool) -> float:
        pairs = [(n[key] / o[key]) if faster_is_higher else (o[key] / n[key])
                 for n, o in zip(rows[name], rows["old"], strict=True)]
        return statistics.median(pairs)

    names = list(variants)
    lines = [f"variants {', '.join(names)} (old: {commit[:10]}, BENCH_BASELINE); pinned to CPU {cpu}; "
             f"medians of {ROUNDS} alternating rounds; R = {r * 1e6:.2f} us, W = {w * 1e6:.2f} us"]
    if build is None:
        lines.append("  (no compiled build of these sources: `make` builds one to measure it)")
    goals = {"S": "goal <= 1.5 R", "A": "goal <= 3 R", "T": ""}
    for key, label in (("S", "S, referee + engine, no I/O"), ("T", "T, play_game, 4 C first_bots"),
                       ("A", "A = T - W, arena per decision")):
        cells = []
        for name in names:
            seconds = med_a(name) if key == "A" else med(name, key)
            cells.append(f"{name} {seconds * 1e6:5.2f} us {in_r(name, key):4.2f} R")
        lines.append(f"  {label:31} {'; '.join(cells)}  {goals[key]}")
    lines.append(f"  {'arena CPU per decision: S; T':31} "
                 + "; ".join(f"{name} {med(name, 'S_cpu') * 1e6:5.2f}; {med(name, 'T_cpu') * 1e6:5.2f} us"
                             for name in names))
    lines.append(f"  {'engine, deals 1..12, games/s':31} "
                 + "; ".join(f"{name} {med(name, 'engine'):6,.0f}" for name in names)
                 + (f"; openspiel {statistics.median(spiel):6,.0f}" if spiel else ""))
    if spiel:
        def against_spiel(name: str) -> float:
            return statistics.median(row["engine"] / rate
                                     for row, rate in zip(rows[name], spiel, strict=True))

        lines.append(f"  {'engine / openspiel':31} "
                     + "; ".join(f"{name} {against_spiel(name):.2f}x" for name in names)
                     + "  goal >= 2x")
    lines.append(f"  {'tournament --jobs 1, games/s':31} "
                 + "; ".join(f"{name} {med(name, 'tournament'):6,.1f}" for name in names))
    if "compiled" in names:  # issue 32: the build users run against pure Python, same rounds
        pairs = [compiled["tournament"] / pure["tournament"]
                 for compiled, pure in zip(rows["compiled"], rows["pure"], strict=True)]
        ratio_now = statistics.median(pairs)
        lines.append(f"  compiled / pure: tournament --jobs 1 {ratio_now:.2f}x games/s "
                     f"({'meets' if ratio_now >= 1.3 else 'MISSES'} the goal >= 1.3x)")
    for name in names[1:]:
        lines.append(f"  {name} / old: S {ratio(name, 'S', False):.2f}x faster (CPU "
                     f"{ratio(name, 'S_cpu', False):.2f}x), T {ratio(name, 'T', False):.2f}x (arena "
                     f"CPU {ratio(name, 'T_cpu', False):.2f}x), engine {ratio(name, 'engine', True):.2f}x, "
                     f"tournament --jobs 1 {ratio(name, 'tournament', True):.2f}x (goal >= 2x)")
    return lines


if __name__ == "__main__":
    print("\n".join(run()))
