"""The collusion audit validated both ways, on real games (docs/audit.md), as many independent
seeds as fit in a time budget:

- **false alarms**: round-robins of six honest bots (the greedy bot at noise 0, 0.1, 0.2 and 0.3,
  the random bot, the search bot at 4 samples a decision, to keep a seed cheap) at tables of
  four, the kingmaker field's shape; each seed is audited after 60, 120 and 180 games, and a run
  counts as a false alarm where the audit flags any pair (the goal: at most 5% of runs);
- **detection**: four greedy bots, a greedy copy named ``partner`` and the kingmaker helper
  (``tests/bots/kingmaker_bot.py``); each seed is audited after every 60 games up to 300: the share
  of seeds that flag (partner, helper), and how many flag any other pair.

``python -m bench audit``; ``AUDIT_BENCH_SECONDS`` (default 600) is the whole budget, shared 2 to 1
between the two parts; a seed started is finished. ``AUDIT_BENCH_KINGMAKER_ROUNDS=N`` audits the
kingmaker's seeds up to N rounds (default 5), and ``AUDIT_BENCH_ONLY=kingmaker`` (or ``honest``)
runs that part alone, on the whole budget. Games are played one at a time by ``arena
run`` into a temporary directory (start it under ``nice``).
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from arena.ratings.audit import Audit, audit
from arena.records.reader import ReadNotes, read_audit_inputs
from arena.runs.runner import run_tournament

ROOT = Path(__file__).resolve().parents[1]
SECONDS = float(os.environ.get("AUDIT_BENCH_SECONDS", "600"))
PYTHON = f"{sys.executable} -S"
GREEDY = f"{PYTHON} {ROOT}/bots/python/greedy_bot.py"
HONEST = [("greedy", GREEDY), ("greedy-n10", f"{GREEDY} --noise 0.1"),
          ("greedy-n20", f"{GREEDY} --noise 0.2"), ("greedy-n30", f"{GREEDY} --noise 0.3"),
          ("random", f"{PYTHON} {ROOT}/bots/python/random_bot.py"),
          ("search", f"{PYTHON} {ROOT}/bots/python/search_bot.py --samples 4")]
HONEST_ROUNDS = 3
COLLUDING = [(f"greedy-{tag}", GREEDY) for tag in "abcd"] + [
    ("partner", GREEDY),
    ("helper", f"{PYTHON} {ROOT}/tests/bots/kingmaker_bot.py --partner partner")]
COLLUDING_ROUNDS = int(os.environ.get("AUDIT_BENCH_KINGMAKER_ROUNDS", "5"))
ONLY = os.environ.get("AUDIT_BENCH_ONLY")
GAMES_A_ROUND = 60  # six bots: 15 tables of four, each in its 4 seat rotations


def _play(directory: Path, name: str, bots: list[tuple[str, str]], rounds: int,
          seed: int) -> Path:
    listed = "\n".join(f"  - name: {bot}\n    cmd: {cmd}" for bot, cmd in bots)
    file = directory / f"{name}.yaml"
    file.write_text(f"name: {name}\ngame: blackout\nplayers: 4\noptions: {{deals: 8}}\n"
                    f"rounds: {rounds}\nseed: {seed}\n"
                    f"time: {{move_ms: 5000, bank_ms: 20000, start_ms: 20000}}\nbots:\n{listed}\n")
    out = directory / name
    run_tournament(file, out=out, resume=out.exists(), resamples=0, progress_stream=None)
    return out


def _audit(results: Path) -> Audit:
    return audit(list(read_audit_inputs([results], ReadNotes())))


def _seeds(directory: Path, label: str, bots: list[tuple[str, str]], rounds: int,
           budget: float) -> Iterator[tuple[int, list[Audit]]]:
    """Each seed's audits after every round (a file that gained a round is extended by
    --resume), seeds 1, 2, ... until ``budget`` seconds have passed."""
    started = time.perf_counter()
    seed = 0
    while time.perf_counter() - started < budget:
        seed += 1
        yield seed, [_audit(_play(directory, f"{label}-{seed}", bots, played, seed))
                     for played in range(1, rounds + 1)]


def _pairs(found: Audit) -> list[tuple[str, str]]:
    return [(pair.beneficiary, pair.helper) for pair in found.flagged]


def run() -> Iterator[str]:
    """The false alarm rate among honest bots, and the rate of flagging the colluders."""
    with tempfile.TemporaryDirectory() as temporary:
        directory = Path(temporary)
        started = time.perf_counter()
        alarms = [0] * HONEST_ROUNDS
        largest: dict[tuple[str, str], list[float]] = {}
        runs = 0
        share = {None: (2 / 3, 1 / 3), "honest": (1.0, 0.0), "kingmaker": (0.0, 1.0)}[ONLY]
        for seed, audits in _seeds(directory, "honest", HONEST, HONEST_ROUNDS, SECONDS * share[0]):
            runs += 1
            for played, found in enumerate(audits):
                alarms[played] += bool(found.flagged)
                if found.flagged:
                    yield f"honest seed {seed}, {found.games} games: flagged {_pairs(found)}"
            for pair in audits[-1].pairs:
                if pair.effect is not None:
                    largest.setdefault((pair.beneficiary, pair.helper), []).append(pair.effect)
        for played, count in enumerate(alarms if runs else [], 1):
            yield (f"false alarms at {GAMES_A_ROUND * played} games: {count} of {runs} runs "
                   f"({100 * count / max(runs, 1):.0f}%; goal <= 5%)")
        means = sorted(((sum(v) / len(v), key) for key, v in largest.items()), reverse=True)
        if means:
            yield ("honest pairs' mean effect over the runs at the most games, highest: " +
                   ", ".join(f"{a} beside {b} {m:+.4f}" for m, (a, b) in means[:3]))
        yield f"({time.perf_counter() - started:.0f} s)"
        started = time.perf_counter()
        found_at = [0] * COLLUDING_ROUNDS
        wrong = [0] * COLLUDING_ROUNDS
        runs = 0
        for _, audits in _seeds(directory, "collude", COLLUDING, COLLUDING_ROUNDS,
                                SECONDS * share[1]):
            runs += 1
            for played, found in enumerate(audits):
                flagged = _pairs(found)
                found_at[played] += ("partner", "helper") in flagged
                wrong[played] += any(pair != ("partner", "helper") for pair in flagged)
        for played in range(COLLUDING_ROUNDS if runs else 0):
            yield (f"kingmaker flagged at {GAMES_A_ROUND * (played + 1)} games: "
                   f"{found_at[played]} of {runs} seeds; runs flagging another pair: "
                   f"{wrong[played]}")
        yield f"({time.perf_counter() - started:.0f} s)"
