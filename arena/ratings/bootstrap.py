"""The set bootstrap of a fit: whole duplicate sets drawn with replacement, each resample fitted
again from the point estimate; percentile intervals and the likelihood of superiority from them.

Games that share deals are correlated, so a resample draws whole sets, as many as there are
(``arena.ratings.model``'s docstring says why). A resample with no finite fit takes the ratings'
limits: finite inside each strongly connected group, infinite or undefined between them.
"""

from __future__ import annotations

import math

import numpy as np

from arena.ratings.fit import (
    ELO_PER_NAT,
    centred,
    closure,
    fit_elo,
    newton,
    strongly_connected,
    with_prior,
)
from arena.ratings.tally import GameArrays

DENSE_SUMS = 2_000_000
"""The bootstrap sums the resamples by a (set x cell) matrix while it and a chunk's draws (sets x
resamples) hold at most this many numbers each, else record by record (``bootstrap``)."""


def resample_fits(tally: GameArrays, members: np.ndarray, elo: np.ndarray, anchor: int | None,
               level: float, neighbours: list[tuple[int, int]], resamples: int, seed: int,
               prior: float = 0.0) -> tuple[np.ndarray, np.ndarray, int]:
    """(ratings of the rated group in each resample, resamples x members; the rating differences
    of the `neighbours` pairs (positions in `members`) in each resample; number of degenerate
    resamples). Infinite values are +-inf, undefined ones nan."""
    n, k = len(tally.names), members.size
    sets, set_of_game = tally.sets, tally.set_of_game
    samples = np.full((resamples, k), level)
    differences = np.zeros((resamples, len(neighbours)))
    if k == 1:  # an anchor alone in its group: nothing varies
        return samples, differences, 0
    position = np.full(n, -1)
    position[members] = np.arange(k)

    row, col = position[tally.record_cell // n], position[tally.record_cell % n]
    keep = (row >= 0) & (col >= 0)
    cell, game = row[keep] * k + col[keep], tally.record_game[keep]
    points = tally.record_points[keep]
    first_of, second_of = (np.array([pair[side] for pair in neighbours], dtype=np.int64)
                           for side in (0, 1))
    start = elo / ELO_PER_NAT
    chunk_size = max(1, min(256, 1_000_000 // (k * k)))  # bounds the batch's memory
    # A resample's sums weigh each record by how often it drew the record's set. Where the sets
    # are few enough, the records are summed by (set, cell) once, and a chunk's sums are one
    # matrix product of its set counts with those (the demo's bootstrap, 280 sets: 20 ms of CPU
    # against 40 ms by the records). Points are whole or half points and the counts whole, so
    # every sum is exact whatever its order: the same sums, bit for bit, either way.
    set_cells = None
    if sets * max(k * k, chunk_size) <= DENSE_SUMS:
        set_cells = np.bincount(tally.set_of_game[game] * (k * k) + cell, weights=points,
                                minlength=sets * k * k).reshape(sets, k * k)
    else:
        # Records sorted by cell, so that each resample's sums are one gather of its game counts
        # and one np.add.reduceat: about twice as fast as np.bincount.
        by_cell = np.lexsort((game, cell))
        cell, game, points = cell[by_cell], game[by_cell], points[by_cell]
        cells, starts = np.unique(cell, return_index=True)
    rng = np.random.default_rng(seed)
    degenerate = 0
    for first in range(0, resamples, chunk_size):
        chunk = min(chunk_size, resamples - first)
        # Whole duplicate sets are drawn: games on the same deals are correlated. One call for
        # the chunk draws what one call per resample would, in the same order.
        if set_cells is not None:
            drawn = rng.integers(0, sets, size=(chunk, sets)) + sets * np.arange(chunk)[:, None]
            counts = np.bincount(drawn.ravel(), minlength=chunk * sets).reshape(chunk, sets)
            # einsum, not @: a product this size wakes BLAS's threads, which spin on after it
            # (the demo's bootstrap took 47 ms of CPU so, 16 ms with one BLAS thread)
            sums = np.einsum("rs,sc->rc", counts.astype(np.float64), set_cells)
        else:
            sums = np.zeros((chunk, k * k))
            for r in range(chunk):
                drawn = np.bincount(rng.integers(0, sets, size=sets), minlength=sets)[set_of_game]
                sums[r, cells] = np.add.reduceat(drawn.astype(np.float64)[game] * points, starts)
        wins = with_prior(sums.reshape(chunk, k, k), prior)  # as the point estimate's fit
        finite = strongly_connected(wins > 0)
        block = samples[first:first + chunk]
        if finite.any():
            fitted = newton(wins[finite], np.tile(start, (int(finite.sum()), 1))) * ELO_PER_NAT
            block[finite] = centred(fitted, anchor, level)
            # From the fit itself, not the centred ratings: the same however the table is centred.
            differences[first:first + chunk][finite] = fitted[:, first_of] - fitted[:, second_of]
        for r in np.flatnonzero(~finite).tolist():
            degenerate += 1
            limits = _limits(wins[r])
            if anchor is None:  # the pool mean of ratings some of which are infinite: undefined
                block[r] = np.nan
            else:
                block[r] = level + np.array([_difference(limits, i, anchor) for i in range(k)])
            differences[first + r] = [_difference(limits, i, j) for i, j in neighbours]
    return samples, differences, degenerate


def _limits(wins: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Where a win matrix has no finite fit: (each entrant's strongly connected group, by its
    first member; reach[i, j]: i scored against j directly or through others; Elo ratings fitted
    inside each group, which is what the likelihood's supremum fixes)."""
    reach = closure(wins > 0)
    group = np.argmax(reach & reach.T, axis=1)
    elo = np.zeros(len(wins))
    for first in sorted(set(group.tolist())):
        members = np.flatnonzero(group == first)
        if members.size > 1:
            elo[members] = fit_elo(wins[np.ix_(members, members)])
    return group, reach, elo


def _difference(limits: tuple[np.ndarray, np.ndarray, np.ndarray], i: int, j: int) -> float:
    """Rating of i minus rating of j at the likelihood's supremum: finite, +-inf or nan."""
    group, reach, elo = limits
    if group[i] == group[j]:
        return float(elo[i] - elo[j])
    if reach[i, j] != reach[j, i]:
        return math.inf if reach[i, j] else -math.inf
    return math.nan


def percentile_interval(values: np.ndarray, alpha: float) -> tuple[float, float]:
    """Percentile interval, undefined values counting against both ends; no interpolation."""
    count = len(values)
    low = np.sort(np.where(np.isnan(values), -np.inf, values))[math.floor(alpha * (count - 1))]
    high = np.sort(np.where(np.isnan(values), np.inf, values))[math.ceil((1 - alpha)
                                                                            * (count - 1))]
    return float(low), float(high)


def superiority(differences: np.ndarray) -> float:
    """Share of resamples with a positive difference; equal or undefined ones count half."""
    # Differences within the fit's convergence tolerance (~1e-9 Elo) are equal ratings.
    tied = np.isnan(differences) | (np.abs(differences) <= 1e-9)
    higher = (differences > 0) & ~tied
    return float((higher.sum() + 0.5 * tied.sum()) / len(differences))
