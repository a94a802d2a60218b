"""Match efficiency: games to an SPRT decision, paired duplicate units against unpaired games.

The greedy starter bot (candidate) against a copy weakened with ``--noise 0.1`` (baseline), three
greedy bots as the field, 4-player Blackout, SPRT elo0=0, elo1=30, alpha=beta=0.05 (the measured
difference is about 30 Elo, so the test has real work to do at both bounds).

Sequential tests are noisy one by one (the number of games to a decision varies several-fold), so
rather than a handful of real runs, a pool of real games is played once, with real bot processes
through ``arena.runs.match_play`` (``POOL_UNITS`` paired units: each the same deals once with each
program), and many seeded sequential tests are run on draws from it:
- paired: each step draws one unit (both of its games, on the same deals);
- unpaired: each step draws the candidate's game of one unit and the baseline's game of another,
  so the two games of a step are on independent deals, as in a plain match.
Both designs use the same unit score and the same test (``arena.ratings.sprt``), so the ratio of
their median games to a decision is the design's effect alone. One real ``play_match`` run with the
SPRT shows the sequential path itself.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import orjson

from arena.plans.match_plan import new_match, tested_entrant
from arena.ratings.sprt import field_score, first_decisions, match_stats
from arena.runs.match_play import play_match
from arena.settings import SprtBounds, TimeControl
from arena.spec import PlaySettings

ROOT = Path(__file__).resolve().parents[1]
GREEDY = f"{sys.executable} -S {ROOT / 'bots' / 'python' / 'greedy_bot.py'}"
NOISE = 0.1
BOUNDS = SprtBounds(elo0=0, elo1=30, alpha=0.05, beta=0.05)
POOL_UNITS = 1000
RUNS = 1000
MAX_UNITS = 10_000
PLAY = PlaySettings(TimeControl(start_ms=20_000, move_ms=5_000, bank_ms=30_000))


def pool(out: Path) -> tuple[np.ndarray, np.ndarray, float]:
    """Play the pool: (candidate's field scores by unit, baseline's, seconds)."""
    match = new_match(GREEDY, f"{GREEDY} --noise {NOISE}", [GREEDY], games=2 * POOL_UNITS,
                      seed=2026, play=PLAY)
    start = time.perf_counter()
    play_match(match, out, jobs=2)
    seconds = time.perf_counter() - start
    results = {line["id"]: line["result"] for line in
               map(orjson.loads, (out / "games.jsonl").read_bytes().splitlines())}
    candidate = np.array([field_score(results[f"u{u:05d}-c"], tested_entrant(match, u))
                          for u in range(POOL_UNITS)])
    baseline = np.array([field_score(results[f"u{u:05d}-b"], tested_entrant(match, u))
                         for u in range(POOL_UNITS)])
    return candidate, baseline, seconds


def games_to_decision(candidate: np.ndarray, baseline: np.ndarray, paired: bool,
                      seed: int) -> tuple[float, float, float]:
    """(median games to a decision, share accepting H1, share undecided) over RUNS tests."""
    rng = np.random.default_rng(seed)
    first = rng.integers(0, POOL_UNITS, size=(RUNS, MAX_UNITS))
    second = first if paired else rng.integers(0, POOL_UNITS, size=(RUNS, MAX_UNITS))
    scores = ((1.0 + candidate[first] - baseline[second]) / 2.0).astype(np.float32)
    decision, used = first_decisions(scores, BOUNDS)
    return float(np.median(2 * used)), float((decision == 1).mean()), float((decision == 0).mean())


def real_run(out: Path) -> str:
    """One real sequential match with the SPRT: its games and verdict."""
    match = new_match(GREEDY, f"{GREEDY} --noise {NOISE}", [GREEDY], games=4000, sprt=BOUNDS,
                      seed=7, play=PLAY)
    report = play_match(match, out, jobs=2)
    return (f"one real arena match run (paired, seed 7): {report.stats.decision} after "
            f"{2 * report.stats.units} games, Elo {report.stats.elo:+.1f} +- "
            f"{report.stats.margin:.1f}")


def run() -> list[str]:
    """Measure and return the report lines."""
    with tempfile.TemporaryDirectory() as tmp:
        candidate, baseline, seconds = pool(Path(tmp) / "pool")
        real = real_run(Path(tmp) / "real")
    stats = match_stats((1.0 + candidate - baseline) / 2.0)
    paired_sd = float(np.std(candidate - baseline))
    unpaired_sd = float(np.sqrt(np.var(candidate) + np.var(baseline)))
    medians: dict[bool, list[float]] = {True: [], False: []}
    accepted: dict[bool, list[float]] = {True: [], False: []}
    for seed in range(3):  # three seeds of RUNS tests each; the medians of their medians
        for paired in (True, False):
            median, h1, _ = games_to_decision(candidate, baseline, paired, seed)
            medians[paired].append(median)
            accepted[paired].append(h1)
    paired_games = statistics.median(medians[True])
    unpaired_games = statistics.median(medians[False])
    ratio = paired_games / unpaired_games
    verdict = "meets" if ratio <= 0.5 else "MISSES"
    return [
        f"pool: {2 * POOL_UNITS} real games (greedy vs greedy --noise {NOISE}, greedy field, "
        f"4-player Blackout) in {seconds:.0f} s; the difference: Elo {stats.elo:+.1f} +- "
        f"{stats.margin:.1f}",
        f"spread of (candidate - baseline) field score: paired {paired_sd:.3f}, "
        f"unpaired {unpaired_sd:.3f}",
        f"SPRT elo0={BOUNDS.elo0:g} elo1={BOUNDS.elo1:g} alpha=beta={BOUNDS.alpha:g}, "
        f"{RUNS} seeded tests x 3: median games to a decision: paired {paired_games:,.0f}, "
        f"unpaired {unpaired_games:,.0f}; H1 accepted: paired "
        f"{100 * statistics.median(accepted[True]):.0f}%, unpaired "
        f"{100 * statistics.median(accepted[False]):.0f}%",
        f"paired / unpaired games: {ratio:.2f} ({verdict} the goal <= 0.5)",
        real,
    ]


if __name__ == "__main__":
    print("\n".join(run()))
