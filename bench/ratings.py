"""The ratings table's cost on a large tournament: 100,000 four-player games among 20 entrants.

- fit: `arena.ratings.model.rate` without resamples: checking and tallying the result objects into
  pairwise records (600,000 pairs) and the maximum-likelihood fit. Goal: under 1 s.
- of which Newton: `fit_elo` on the 20 x 20 win matrix alone.
- full table: `arena.ratings.table.results_table` with 1000 bootstrap resamples: the fit, the bootstrap
  and the rendering. Goal: under 10 s. The bootstrap is the full table minus the fit.
- baseline: one Python pass over the result objects reading every entrant and score, the least
  any rating of these dicts must do; the other figures are also given as multiples of it.

Each figure is the median of REPEATS runs. The games come from a seeded simulation with
Bradley-Terry strengths (Gumbel performances), integer scores so that some pairs tie.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from time import perf_counter

import numpy as np

from arena.ratings.fit import ELO_PER_NAT, fit_elo
from arena.ratings.model import rate
from arena.ratings.table import results_table

GAMES = 100_000
ENTRANTS = 20
PLAYERS = 4
RESAMPLES = 1000
REPEATS = 3
FIT_GOAL = 1.0
TABLE_GOAL = 10.0


def tournament(seed: int = 1) -> list[dict[str, object]]:
    """GAMES result objects among ENTRANTS bots of strengths 0 to 600 Elo."""
    rng = np.random.default_rng(seed)
    strengths = np.linspace(0.0, 600.0, ENTRANTS) / ELO_PER_NAT
    seats = rng.random((GAMES, ENTRANTS)).argsort(axis=1)[:, :PLAYERS]
    scores = np.round(8 * (strengths[seats] + rng.gumbel(size=(GAMES, PLAYERS)))).astype(int)
    ranks = 1 + (scores[:, None, :] > scores[:, :, None]).sum(axis=2)
    return [
        {"entrants": [f"bot{i:02d}" for i in row], "scores": score, "ranks": rank,
         "forfeits": [False] * PLAYERS, "faults": [0] * PLAYERS}
        for row, score, rank in zip(seats.tolist(), scores.tolist(), ranks.tolist(), strict=True)
    ]


def median_seconds(action: Callable[[], object]) -> float:
    times = []
    for _ in range(REPEATS):
        began = perf_counter()
        action()
        times.append(perf_counter() - began)
    return statistics.median(times)


def run() -> list[str]:
    """Measure and return the lines to print."""
    results = tournament()

    def touch() -> int:
        return sum(len(r["entrants"]) + len(r["scores"]) for r in results)  # type: ignore[arg-type, misc]

    baseline = median_seconds(touch)
    fit = median_seconds(lambda: rate(results, resamples=0))
    wins = rate(results, resamples=0).wins
    newton = median_seconds(lambda: fit_elo(wins))
    table = median_seconds(lambda: results_table(results, resamples=RESAMPLES, seed=1))
    bootstrap = table - fit

    def line(label: str, seconds: float, goal: float | None = None) -> str:
        verdict = ""
        if goal is not None:
            verdict = f"  goal < {goal:g} s: {'met' if seconds < goal else 'NOT met'}"
        return f"  {label:<36} {seconds * 1e3:8.1f} ms {seconds / baseline:7.1f}x{verdict}"

    return [
        f"ratings: {GAMES:,} {PLAYERS}-player games, {ENTRANTS} entrants, "
        f"{RESAMPLES} resamples (median of {REPEATS}):",
        line("baseline: read every result once", baseline),
        line("fit (tally + maximum likelihood)", fit, FIT_GOAL),
        line("  of which Newton on the win matrix", newton),
        line("bootstrap (table minus fit)", bootstrap),
        line(f"full table, {RESAMPLES} resamples", table, TABLE_GOAL),
    ]


if __name__ == "__main__":
    print("\n".join(run()))
