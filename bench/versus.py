"""This tree against an older commit, in the same run: engine, referee, games with C bots, tournament.

Issue 22 asks for speed-ups measured against the code before it, on the same machine at the same
time: the machine is shared and noisy, so figures from different runs cannot be compared. The older
commit (``BENCH_BASELINE``, default ``BASELINE``, the last commit before issue 22) is checked out
into a temporary git worktree; each measurement runs in a child process that imports either that
tree or this one (its directory first on ``sys.path``), pinned to one CPU, the two alternating
round after round. Each figure is the median over ``ROUNDS``; each ratio the median of the
rounds' new / old ratios. Only public API is used (``engine.blackout``, ``play_game``,
``BotProcess``, ``arena.runs.workers.run_tasks``), so any commit of the project can be the baseline.

- engine: random 4-player games of deals 1..12 through ``legal_actions`` and ``apply``, games/s
  (the workload of ``bench.engine``'s OpenSpiel comparison).
- S: ``play_game`` with in-process stand-ins that serialise every message as the process layer
  does (orjson for dicts, the bytes as given for text), no I/O; us per decision.
- T: ``play_game`` with 4 persistent C ``first_bot`` processes; us per decision.
- tournament: ``run_tasks`` with ``jobs`` 1 over 4-player Blackout games between C random bots,
  bot start-up included; games/s.

R, the raw JSON line round trip of ``bench.arena``, is measured in the parent between rounds, so
S and T are also given in R.
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

from bench.arena import BATCH, RawPeers, act_message, peer_command

ROOT = Path(__file__).resolve().parents[1]
BASELINE = "b3337dcb35d4fd3bc8a7dac239edbeb37820c1ed"
"""The last commit of main before issue 22's work (the referee at the speed of the pipe)."""
ROUNDS = 5
TOURNAMENT_GAMES = 150

PROBE = r"""
import json, os, random, sys, time
tree, cpu, games = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
sys.path.insert(0, tree)
os.sched_setaffinity(0, {cpu})
import orjson
from engine import blackout
from arena.game.referee import play_game
from arena.bots.process import BotProcess, Reply, close_bots
from arena.settings import TimeControl
assert blackout.__file__.startswith(tree), blackout.__file__
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

class StandIn:
    # What a BotProcess does with the messages, less the I/O; answers the first legal action.
    def __init__(self, name):
        self.name, self.is_running, self.last_fault = name, True, None
        self.held, self.next_id = bytearray(), 0
    def hold(self, message):
        self.held += orjson.dumps(message, option=orjson.OPT_APPEND_NEWLINE)
    def hold_line(self, data):
        self.held += data
    def send(self, message):
        self.hold(message); self.held.clear()
    def request(self, message, timeout):
        message["id"] = self.next_id; self.next_id += 1
        self.hold(message); self.held.clear()
        return Reply({"id": message["id"], "action": message["legal"][0]}, 0.0)
    def stderr_tail(self):
        return ""

def per_decision(bots, count):
    decisions = 0
    start = time.perf_counter()
    for seed in range(count):
        record = play_game("blackout", bots, seed, time_control=TIME).record
        assert not record["faults"], record["faults"]
        decisions += sum(len(d["bids"]) + len(d["plays"]) for d in record["deals"])
    return (time.perf_counter() - start) / decisions

def tournament_rate(count):
    from arena.runs.batch import BotCommand, RunSettings
    from arena.runs.schedule import GameSpec
    from arena.runs.workers import run_tasks
    bot = BotCommand((sys.argv[5],))
    settings = RunSettings(bots={name: bot for name in ("c1", "c2", "c3", "c4")})
    tasks = [GameSpec(f"g{i}", "blackout", {}, ("c1", "c2", "c3", "c4"), i, round=1, table=i,
                      rotation=0) for i in range(count)]
    start = time.perf_counter()
    done = sum(1 for _ in run_tasks(tasks, settings, 1))
    return done / (time.perf_counter() - start)

engine_rate(20)
stand_ins = [StandIn(f"s{seat}") for seat in range(4)]
per_decision(stand_ins, 3)
bots = [BotProcess(f"first{seat}", [sys.argv[4]]) for seat in range(4)]
try:
    for bot in bots:
        bot.start()
    per_decision(bots, 2)
    figures = {"engine": engine_rate(60), "S": per_decision(stand_ins, 12),
               "T": per_decision(bots, 12)}
finally:
    close_bots(bots)
figures["tournament"] = tournament_rate(games)
print(json.dumps(figures))
"""


def probe(tree: Path, cpu: int) -> dict[str, float]:
    """One round of every figure, measured in a child process that imports ``tree``."""
    bots = ROOT / "bots" / "c"
    argv = [sys.executable, "-c", PROBE, str(tree), str(cpu), str(TOURNAMENT_GAMES),
            str(bots / "first_bot"), str(bots / "random_bot")]
    env = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run(argv, cwd=tree, env=env, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise RuntimeError(f"probe of {tree} failed: {done.stderr.strip()[-2000:]}")
    figures: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


def round_trip(cpu: int) -> float:
    """R: seconds per raw JSON line round trip to the C echo peer, pinned (``bench.arena``)."""
    previous = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {cpu})
    try:
        with tempfile.TemporaryDirectory() as workdir:
            argv, _ = peer_command(Path(workdir))
            peer = RawPeers(argv, 1)
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
    finally:
        os.sched_setaffinity(0, previous)


def run() -> list[str]:
    """Measure and return the report lines."""
    subprocess.run(["make", "--no-print-directory", "-C", str(ROOT / "bots" / "c")], check=True,
                   capture_output=True)
    commit = os.environ.get("BENCH_BASELINE", BASELINE)
    cpu = max(os.sched_getaffinity(0))
    with tempfile.TemporaryDirectory() as parent:
        old_tree = Path(parent) / "baseline"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "--force",
                        str(old_tree), commit], check=True, capture_output=True)
        try:
            old: list[dict[str, float]] = []
            new: list[dict[str, float]] = []
            rs: list[float] = []
            for _ in range(ROUNDS):
                old.append(probe(old_tree, cpu))
                new.append(probe(ROOT, cpu))
                rs.append(round_trip(cpu))
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(old_tree)],
                           capture_output=True)
    r = statistics.median(rs)

    def med(rows: list[dict[str, float]], key: str) -> float:
        return statistics.median(row[key] for row in rows)

    def ratio(key: str, faster_is_higher: bool) -> float:
        pairs = [(n[key] / o[key]) if faster_is_higher else (o[key] / n[key])
                 for n, o in zip(new, old, strict=True)]
        return statistics.median(pairs)

    lines = [f"this tree against {commit[:10]} (BENCH_BASELINE), pinned to CPU {cpu}, "
             f"median of {ROUNDS} alternating rounds; R = {r * 1e6:.2f} us"]
    for key, label in (("S", "S, referee + engine, no I/O"), ("T", "T, play_game, 4 C first_bots")):
        lines.append(f"  {label:34} old {med(old, key) * 1e6:6.2f} us {med(old, key) / r:4.2f} R, "
                     f"new {med(new, key) * 1e6:6.2f} us {med(new, key) / r:4.2f} R: "
                     f"{ratio(key, False):.2f}x faster")
    lines.append(f"  {'engine, deals 1..12, games/s':34} old {med(old, 'engine'):8,.0f}, "
                 f"new {med(new, 'engine'):8,.0f}: {ratio('engine', True):.2f}x")
    lines.append(f"  {'tournament --jobs 1, games/s':34} old {med(old, 'tournament'):8,.1f}, "
                 f"new {med(new, 'tournament'):8,.1f}: {ratio('tournament', True):.2f}x "
                 f"(goal >= 2x)")
    return lines


if __name__ == "__main__":
    print("\n".join(run()))
