"""The collusion audit validated both ways, on real games (docs/audit.md):

- **false alarms**: SEEDS independent round-robins of honest bots (the greedy bot at noise 0, 0.1
  and 0.3, the random bot, the search bot), ROUNDS rounds each (20 games a round); the share of
  runs in which the audit flags any pair (the goal: at most 5%);
- **games to flag**: a field of four greedy bots, a greedy copy named ``partner`` and the kingmaker
  helper (``tests/bots/kingmaker_bot.py``); for each of SEEDS seeds, rounds are added one by one
  (60 games each) until the audit flags (partner, helper), and no other pair, up to MAX_ROUNDS.

``python -m bench audit``; ``AUDIT_BENCH_SEEDS=N`` for a shorter run (the figures in docs/audit.md
come from the full one, when it has been run). Games are played by ``arena run`` into a temporary
directory.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from arena.ratings.audit import audit
from arena.records.reader import ReadNotes, read_audit_inputs
from arena.runs.runner import run_tournament

ROOT = Path(__file__).resolve().parents[1]
SEEDS = int(os.environ.get("AUDIT_BENCH_SEEDS", "20"))
ROUNDS = 2
MAX_ROUNDS = 10
PYTHON = f"{sys.executable} -S"
GREEDY = f"{PYTHON} {ROOT}/bots/python/greedy_bot.py"
HONEST = [("greedy", GREEDY), ("greedy-n10", f"{GREEDY} --noise 0.1"),
          ("greedy-n30", f"{GREEDY} --noise 0.3"),
          ("random", f"{PYTHON} {ROOT}/bots/python/random_bot.py"),
          ("search", f"{PYTHON} {ROOT}/bots/python/search_bot.py")]
COLLUDING = [(f"greedy-{tag}", GREEDY) for tag in "abcd"] + [
    ("partner", GREEDY),
    ("helper", f"{PYTHON} {ROOT}/tests/bots/kingmaker_bot.py --partner partner")]


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


def _audited(results: Path) -> tuple[list[tuple[str, str]], int]:
    """The pairs flagged in ``results``, and the games audited."""
    found = audit(list(read_audit_inputs([results], ReadNotes())))
    return [(pair.beneficiary, pair.helper) for pair in found.flagged], found.games


def run() -> Iterator[str]:
    """The false alarm rate among honest bots, and the games needed to flag the colluders."""
    with tempfile.TemporaryDirectory() as temporary:
        directory = Path(temporary)
        alarms = games = 0
        started = time.perf_counter()
        for seed in range(1, SEEDS + 1):
            flagged, games = _audited(_play(directory, f"honest-{seed}", HONEST, ROUNDS, seed))
            alarms += bool(flagged)
            if flagged:
                yield f"honest seed {seed}: flagged {flagged}"
        yield (f"false alarms: {alarms} of {SEEDS} runs of {games} games of honest bots "
               f"({100 * alarms / SEEDS:.0f}%; goal <= 5%), {time.perf_counter() - started:.0f} s")
        needed: list[int] = []
        wrong = 0
        for seed in range(1, SEEDS + 1):
            for rounds in range(1, MAX_ROUNDS + 1):
                # A file that gained rounds is extended by --resume: each step plays 60 games.
                flagged, _ = _audited(_play(directory, f"collude-{seed}", COLLUDING, rounds,
                                            seed))
                wrong += any(pair != ("partner", "helper") for pair in flagged)
                if ("partner", "helper") in flagged:
                    needed.append(60 * rounds)
                    break
            else:
                yield f"collusion seed {seed}: not flagged within {60 * MAX_ROUNDS} games"
        if needed:
            yield (f"games to flag (partner, helper): median {statistics.median(needed):.0f}, "
                   f"max {max(needed)}, flagged in {len(needed)} of {SEEDS} seeds within "
                   f"{60 * MAX_ROUNDS} games; other pairs flagged on the way: {wrong}")
