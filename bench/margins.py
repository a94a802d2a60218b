"""A prototype, for issue 42: the ``deals`` model scored by the margin instead of win/draw/loss.

``deals`` counts, per deal on the same cards, who outscored whom: a one-point win and a twenty-
point win count alike, so between styles it can be sure of an order the totals and the places
reverse (docs/ratings.md, "Validation on more fields"). Here each deal's comparison is scored by
its margin instead: the first gets 1/2 + d / (2 M) of the point and the second the rest, d the
difference of their deal scores clipped to [-M, M]. With M at least the largest difference (the
``linear`` scale, M = the field's largest difference of two deal scores) a pair's expected points
follow its mean margin, and so the sign of its total difference on the same cards; with M = the
bonus of an exact bid (``capped``, 10) a point of margin counts 1/20 up to ten points, and a
larger one no more.

No arena code changes: the script swaps ``arena.ratings.duplicate._deal_points`` for its own and
measures the ``deals`` model with ``bench.models`` (the same shuffles, grid and LOS goal). For
each field: the games needed by ``deals`` and by each margin scale, and the rating and z of every
pair that ``bench.totals`` lists for the styles fields.

``python -m bench.margins FIELD...`` (fields of ``bench/models.py``, played there once).
"""

from __future__ import annotations

import itertools
import statistics
import sys
from collections.abc import Callable

import numpy as np

from arena.ratings import duplicate
from arena.ratings.model import Model
from bench import models
from bench.totals import model_z

BASE = duplicate._deal_points
CAPPED = 10.0


def margin_points(scale: Callable[[np.ndarray], float]):  # type: ignore[no-untyped-def]
    """A ``_deal_points`` that scores each deal both finished by its clipped margin."""

    def points(positions: duplicate.Positions, a: np.ndarray, b: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray]:
        deals = np.minimum(positions.dealt[a], positions.dealt[b])
        both = np.arange(positions.deals.shape[1]) < deals[:, None]
        m = scale(positions.deals)
        margin = np.clip(positions.deals[a] - positions.deals[b], -m, m) / (2 * m)
        won = ((0.5 + margin) * both).sum(axis=1)
        lost = ((0.5 - margin) * both).sum(axis=1)
        forfeit_a, forfeit_b = positions.forfeit[a], positions.forfeit[b]
        won_points = np.where(forfeit_a == forfeit_b, won, forfeit_b * deals)
        lost_points = np.where(forfeit_a == forfeit_b, lost, forfeit_a * deals)
        return won_points.astype(np.float64), lost_points.astype(np.float64)

    return points


SCALES = {"deals": None,
          "linear": margin_points(lambda scores: float(scores.max() - scores.min()) or 1.0),
          "capped": margin_points(lambda scores: CAPPED)}


def main(fields: list[str]) -> None:
    for name in fields:
        results = models.field_results(name)
        _, classes = models.FIELDS[name]
        names = [member for members in classes for member in members]
        print(f"{name} ({len(results)} games): games until every adjacent class is ordered right "
              f"with LOS >= 95% (median of {models.REPEATS[name]} shuffles)")
        needed = {}
        for label, points in SCALES.items():
            duplicate._deal_points = points or BASE
            try:
                needed[label] = models.measure(name, results, (Model.DEALS,))[Model.DEALS]
                zs = [f"{upper}>{lower} {model_z(results, Model.DEALS, upper, lower)[1]:.2f}"
                      for upper, lower in itertools.pairwise(names)]
            finally:
                duplicate._deal_points = BASE
            ratio = statistics.median(needed[label]) / statistics.median(needed["deals"])
            per = statistics.median(c / b for c, b in zip(needed[label], needed["deals"], strict=True))
            print(f"  {label:<7} {statistics.median(needed[label]):6.0f} games (mean "
                  f"{statistics.mean(needed[label]):6.0f}): {ratio:4.2f}x deals (per shuffle "
                  f"{per:4.2f}x); z with all the games: {', '.join(zs)}")


if __name__ == "__main__":
    main(sys.argv[1:])
