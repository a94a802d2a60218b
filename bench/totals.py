"""Total score against the rating models on a field: do they order it alike? (issue 42)

The game ranks by the final total; the ``deals`` model counts, per deal, who outscored whom on the
same cards, and ignores by how much. On a field of different styles the two can disagree. For a
field's results directory this prints each entrant's mean total a game and, for every pair, the
paired comparison on the same cards (same duplicate set, same position, so the same hands): the
mean difference of the game totals, of the deal scores, and the deals won, drawn and lost, with
the z (the mean over its spread) and the LOS of the total's difference, from a bootstrap over
whole duplicate sets. Then, for each
adjacent pair by total, the z of that paired difference of totals (its mean over its bootstrap
spread: what a model comparing the margins on the same cards would see) beside the z and LOS of
every rating model (the lower entrant's rating with the upper anchored at 0, over its interval /
3.92, as ``bench/models_z.py`` reads them): ``(z_model / z_total)^2`` is the games a margin
comparison would need against that model, and a sign that differs is an order that differs.

``python -m bench.totals results/bench-styles``.
"""

from __future__ import annotations

import itertools
import json
import math
import random
import statistics
import sys
from collections import defaultdict
from itertools import combinations
from pathlib import Path

from arena.ratings.model import Model, rate
from arena.ratings.table import read_results

RESAMPLES = 400


def read(path: Path) -> list[dict[str, object]]:
    """The game records of a results directory (complete lines only)."""
    games = []
    for line in (path / "games.jsonl").read_text().splitlines():
        if line.strip():
            games.append(json.loads(line))
    return games


def model_z(results: list[dict[str, object]], model: Model, upper: str, lower: str
            ) -> tuple[float, float]:
    """(rating of upper - lower, its z) under ``model``: the lower one's rating with the upper
    anchored at 0, over its interval / 3.92 (nan when it has none)."""
    rows = {row.name: row for row in rate(results, resamples=RESAMPLES, seed=0, model=model,
                                          anchor=(upper, 0.0)).standings}
    row = rows[lower]
    if row.rating is None or row.lower is None or row.upper is None \
            or not math.isfinite(row.upper - row.lower) or row.upper == row.lower:
        return (math.nan, math.nan)
    return (-row.rating, -row.rating / ((row.upper - row.lower) / 3.92))


def report(games: list[dict], results: list[dict[str, object]]) -> list[str]:
    """The lines to print."""
    totals: dict[str, list[int]] = defaultdict(list)
    # by set, by position: {name: (total, [deal scores])}
    cells: dict[tuple[str, int], dict[str, tuple[int, list[int]]]] = defaultdict(dict)
    for game in games:
        result = game["result"]
        # a position is an entrant's index (a seat, or a team in Partnership Blackout): the games
        # of a set deal the same hands to it
        for position, name in enumerate(result["entrants"]):
            total = result["scores"][position]
            totals[name].append(total)
            deals = [deal["scores"][position] for deal in game["deals"]]
            cells[(result["set"], position)][name] = (total, deals)
    names = sorted(totals, key=lambda n: -statistics.mean(totals[n]))
    lines = ["mean total a game (by total):"]
    lines += [f"  {name:<12} {statistics.mean(totals[name]):7.2f}  ({len(totals[name])} games)"
              for name in names]
    paired: dict[tuple[str, str], dict[object, list[int]]] = {}
    lines.append("pairs on the same cards (same set and position): A - B, total a game (LOS by "
                 f"{RESAMPLES} set resamples), deal score a deal, deals A won / drew / lost:")
    for a, b in combinations(names, 2):
        per_set: dict[object, list[int]] = defaultdict(list)
        deal_diffs, won, drew, lost = [], 0, 0, 0
        for (set_id, _), held in cells.items():
            if a in held and b in held:
                per_set[set_id].append(held[a][0] - held[b][0])
                # the deals both games reached (a Partnership game ends at its target score)
                for x, y in zip(held[a][1], held[b][1], strict=False):
                    deal_diffs.append(x - y)
                    won, drew, lost = won + (x > y), drew + (x == y), lost + (x < y)
        if not per_set:
            continue
        paired[(a, b)] = per_set
        keys = list(per_set)
        diffs = [d for key in keys for d in per_set[key]]
        rng = random.Random(0)
        means = [statistics.mean(d for key in rng.choices(keys, k=len(keys)) for d in per_set[key])
                 for _ in range(RESAMPLES)]
        above = sum(mean > 0 for mean in means)
        lines.append(f"  {a:>10} - {b:<10} total {statistics.mean(diffs):+6.2f} "
                     f"(z {statistics.mean(diffs) / statistics.stdev(means):5.2f}, "
                     f"LOS {above / RESAMPLES:6.1%}, {len(diffs)} paired games)   deal "
                     f"{statistics.mean(deal_diffs):+5.2f}   deals {won}/{drew}/{lost} "
                     f"({(won + drew / 2) / len(deal_diffs):.1%})")
    lines.append("adjacent pairs by total: z of the paired total difference; each model's rating "
                 "difference and z (and (z_model / z_total)^2: the games a margin comparison "
                 "would need against it)")
    for upper, lower in itertools.pairwise(names):
        per_set = paired[(upper, lower)]
        keys = list(per_set)
        rng = random.Random(0)
        means = [statistics.mean(d for key in rng.choices(keys, k=len(keys)) for d in per_set[key])
                 for _ in range(RESAMPLES)]
        z_total = statistics.mean(d for key in keys for d in per_set[key]) / statistics.stdev(means)
        cells = []
        for model in Model:
            diff, z = model_z(results, model, upper, lower)
            ratio = f" ({(z / z_total) ** 2:.2f}x)" if z_total and math.isfinite(z) else ""
            cells.append(f"{model.value} {diff:+.1f} z {z:.2f}{ratio}")
        lines.append(f"  {upper} > {lower}: total z {z_total:.2f}; " + "; ".join(cells))
    return lines


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: python -m bench.totals RESULTS_DIR...")
    paths = [Path(arg) for arg in sys.argv[1:]]
    print("\n".join(report([game for path in paths for game in read(path)],
                           read_results(paths, chance=True).results)))
