"""Duplicate comparisons: the entrants that held the same cards, compared by what they scored.

The games of one duplicate set (one set name and one deal seed: a table's seat rotations, a match
unit's two games, a league set) deal the same cards to the same position (a seat, or a team's
seats in a team game) in every game. Two entrants that held one position in two games of a set
played the same hands against different company, so the difference in what they scored there is
little luck and much skill: the comparisons a duplicate bridge event scores.

- ``duplicate`` compares the two games' totals at the position: the higher total wins the
  comparison. A forfeit loses it to a seat that did not forfeit, whatever the scores; equal totals
  go to the better place in its own game (which holds the game's tie-break), else a draw.
- ``deals`` compares the position deal by deal (matchpoints): one comparison per deal both games
  finished, the higher deal score winning it, equal scores a draw. A forfeit loses every one.
- ``adjusted`` compares as ``deals`` does, by luck-adjusted deal scores (``arena.ratings.luck``),
  and every two seats of one set, not only those at one position: with the cards' luck taken out,
  a seat's deal compares with the deal of a seat that held other cards.
- ``margins`` compares as ``deals`` does, each deal scored by its margin instead of win/draw/loss:
  the first of the two gets 1/2 + d / (2M) of the deal's point and the second the rest, d their
  deal scores' difference and M the largest such difference the game's rules allow (its highest
  deal score less its lowest, ``Positions.spread``), so no margin is clipped, each comparison
  stays in [0, 1] and every table of one game and options is on one scale. A pair's expected
  points then follow its mean margin on the same cards, so a rating difference has the sign of
  the difference of the totals the deals add up to. Where the results do not say their game (a
  bare result object), M is the largest difference of every such comparison made from them;
  with M = 0 (every compared deal scored alike) every comparison is a draw. A forfeit loses every
  deal whole.

Two seats of one entrant (a team of copies meeting itself) are not compared. A game without a set,
or alone in its set, gives no comparisons. No I/O here: ``arena.ratings.model`` calls this while
it tallies the results.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import NamedTuple

import numpy as np

QUANTUM = 2.0 ** -20
"""What a ``margins`` comparison's points are rounded to (about a millionth of a deal's point):
fine enough to change no rating, coarse enough that their sums are exact in float64."""


@dataclass(frozen=True)
class Positions:
    """Every entrant at every position of the games in duplicate sets, one row each, as arrays:
    the comparisons below run on whole columns (on the demo's 6,720 pairs of positions, 2 ms
    against 20 ms one pair at a time)."""

    key: Sequence[object]  # what its cards are known by: the same key, the same cards
    game: np.ndarray  # the game's canonical number (the bootstrap draws it with its set)
    entrant: np.ndarray
    total: np.ndarray
    rank: np.ndarray
    forfeit: np.ndarray
    deals: np.ndarray  # its score in each finished deal (rows x most deals; past ``dealt``: 0)
    dealt: np.ndarray  # how many deals it finished (0 when the record has none)
    spread: np.ndarray | None = None  # its game's largest deal margin by the rules (NaN: unknown)


class Comparisons(NamedTuple):
    """Every comparison as arrays, and the ``margins`` model's M (None under the others, and where
    the comparisons were scored on different M)."""

    game: np.ndarray
    cell: np.ndarray
    points: np.ndarray
    margin: float | None = None


def records(positions: Positions, entrants: int, per_deal: bool, across: bool = False,
            margins: bool = False) -> Comparisons:
    """(game, cell, points) of every comparison: ``points`` that entrant ``cell // entrants``
    scored against ``cell % entrants``, credited to the earlier game of the two (both are in one
    set, which the bootstrap draws whole). Comparisons come in the order of the positions' keys'
    first rows, then of the pairs in each key's rows; each pair's two records (first against
    second, then the reverse) where they hold points. ``across``: every two rows of one set and
    deals' seed are compared, whatever their positions (the ``adjusted`` model: its deal scores
    have the luck of the cards taken out, so different hands compare). ``margins``: each deal is
    scored by its margin (the ``margins`` model, ``_margin_points``), not win/draw/loss."""
    held: dict[object, list[int]] = defaultdict(list)
    for row, key in enumerate(positions.key):
        held[key[:-1] if across and isinstance(key, tuple) else key].append(row)
    pairs = [pair for rows in held.values() for pair in combinations(rows, 2)]
    a = np.array([first for first, _ in pairs], dtype=np.int64)
    b = np.array([second for _, second in pairs], dtype=np.int64)
    other = positions.entrant[a] != positions.entrant[b]
    a, b = a[other], b[other]
    margin = None
    if margins:
        deals, both = _both_finished(positions, a, b)
        largest = _margins_of(positions, a, b, both)
        won, lost = _margin_points(positions, a, b, largest, deals, both)
        # one M for every comparison, or none to show (np.unique would load numpy.ma: 10 ms)
        margin = float(largest[0]) if largest.size and (largest == largest[0]).all() else None
    elif per_deal:
        won, lost = _deal_points(positions, a, b)
    else:
        won, lost = _total_points(positions, a, b)
    first, second = positions.entrant[a], positions.entrant[b]
    cells = np.stack([first * entrants + second, second * entrants + first], axis=1).ravel()
    points = np.stack([won, lost], axis=1).ravel()
    games = np.repeat(np.minimum(positions.game[a], positions.game[b]), 2)
    scored = points > 0
    return Comparisons(games[scored], cells[scored], points[scored], margin)


def _total_points(positions: Positions, a: np.ndarray, b: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Totals compared as (no forfeit, total, better place), in that order: 1, 0 or 1/2 each."""
    forfeit_a, forfeit_b = positions.forfeit[a], positions.forfeit[b]
    total_a, total_b = positions.total[a], positions.total[b]
    rank_a, rank_b = positions.rank[a], positions.rank[b]
    alike = forfeit_a == forfeit_b
    even = alike & (total_a == total_b)
    a_better = (forfeit_b & ~forfeit_a) | (alike & (total_a > total_b)) | (even & (rank_a < rank_b))
    b_better = (forfeit_a & ~forfeit_b) | (alike & (total_b > total_a)) | (even & (rank_b < rank_a))
    drawn = 0.5 * ~(a_better | b_better)
    return a_better + drawn, b_better + drawn


def _deal_points(positions: Positions, a: np.ndarray, b: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Deal by deal over the deals both finished: 1 for the higher score, 1/2 each when equal;
    a forfeit loses every one to a position that did not forfeit."""
    deals = np.minimum(positions.dealt[a], positions.dealt[b])
    both = np.arange(positions.deals.shape[1]) < deals[:, None]
    scores_a, scores_b = positions.deals[a], positions.deals[b]
    won = ((scores_a > scores_b) & both).sum(axis=1)
    lost = ((scores_a < scores_b) & both).sum(axis=1)
    drawn = deals - won - lost
    forfeit_a, forfeit_b = positions.forfeit[a], positions.forfeit[b]
    won_points = np.where(forfeit_a == forfeit_b, won + 0.5 * drawn, forfeit_b * deals)
    lost_points = np.where(forfeit_a == forfeit_b, lost + 0.5 * drawn, forfeit_a * deals)
    return won_points.astype(np.float64), lost_points.astype(np.float64)


def _both_finished(positions: Positions, a: np.ndarray, b: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray]:
    """For each row pair: how many deals both finished, and as a mask over the deals."""
    deals = np.minimum(positions.dealt[a], positions.dealt[b])
    return deals, np.arange(positions.deals.shape[1]) < deals[:, None]


def _largest_margin(positions: Positions, a: np.ndarray, b: np.ndarray, both: np.ndarray) -> float:
    """M of the ``margins`` model: the largest absolute difference of two deal scores over every
    deal that ``a`` and ``b`` (row pairs) both finished (``both``, ``_both_finished``) and compare
    by score (a forfeit on one side only decides its deals whole); 0 when there is none."""
    scored = both & (positions.forfeit[a] == positions.forfeit[b])[:, None]
    if not scored.any():
        return 0.0
    return float(np.abs(positions.deals[a] - positions.deals[b])[scored].max())


def _margins_of(positions: Positions, a: np.ndarray, b: np.ndarray, both: np.ndarray
                ) -> np.ndarray:
    """Each row pair's M: its game's largest deal margin by the rules where both rows know it and
    agree (one set, one game: they do), else ``_largest_margin`` over the pairs without one."""
    if positions.spread is None:
        ruled = np.full(a.size, np.nan)
    else:
        ruled = np.where(positions.spread[a] == positions.spread[b], positions.spread[a], np.nan)
    unknown = np.isnan(ruled)
    if unknown.any():
        ruled[unknown] = _largest_margin(positions, a[unknown], b[unknown], both[unknown])
    return ruled


def _margin_points(positions: Positions, a: np.ndarray, b: np.ndarray, largest: np.ndarray,
                   deals: np.ndarray, both: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Deal by deal over the deals both finished: 1/2 + d / (2M) of each deal's point to the first,
    the rest to the second (d the difference of their deal scores, M the pair's ``_margins_of``; with M = 0
    a draw each); a forfeit loses every one to a position that did not forfeit. A pair's points
    are rounded to a multiple of QUANTUM, the second's being the deals less the first's: sums of
    such points are exact in any order, so the table does not depend on the order of the games or
    on how the bootstrap adds a resample up (as with the halves of ``deals``)."""
    margin = positions.deals[a] - positions.deals[b]
    scale = np.where(largest > 0, 2 * largest, 1.0)[:, None]
    share = np.where(largest[:, None] > 0, np.clip(0.5 + margin / scale, 0.0, 1.0), 0.5)
    won = np.clip(np.round((share * both).sum(axis=1) / QUANTUM) * QUANTUM, 0, deals)
    forfeit_a, forfeit_b = positions.forfeit[a], positions.forfeit[b]
    won_points = np.where(forfeit_a == forfeit_b, won, forfeit_b * deals).astype(np.float64)
    lost_points = np.where(forfeit_a == forfeit_b, deals - won, forfeit_a * deals)
    return won_points, lost_points.astype(np.float64)
