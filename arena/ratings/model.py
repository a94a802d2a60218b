"""Elo ratings from game results: one Bradley-Terry fit of all pairwise comparisons, set bootstrap.

What a comparison is depends on the model (``arena.settings.RatingModel``, docs/ratings.md):
``places`` makes each game its pairwise outcomes: for every two entrants at the table, 1 to the
better place, 0 to the worse, 1/2 each when equal (places already hold forfeits and the tie-break).
The duplicate models (``duplicate``, ``deals``, ``adjusted``, ``margins``) compare the entrants
that held the same cards in one duplicate set instead (``arena.ratings.duplicate``). Two seats of
one entrant (a bot playing itself) are not compared. Everything below is the same for every model.

The ratings maximise the likelihood of all pairwise outcomes at once under the Elo curve
P(i beats j) = 1 / (1 + 10^((R_j - R_i) / 400)) (Bradley-Terry; a draw counts half a win each), so
the order of the games does not matter. They are centred on a pool mean (1500) or fixed by one
anchored entrant.

The pairs of one game are not independent (they share the cards and the bots' luck). The point
estimate does not suffer from that (each pair's win probability is still right, so the score
equations stay unbiased), but an interval that counted the pairs as independent would be too
narrow, so the uncertainty comes from a seeded bootstrap. Games that share deals (a duplicate set:
the seat rotations of one table, the two games of a match unit) are correlated too, so each
resample draws whole sets, as many as there are, with replacement, and is fitted again; a result's
optional `set` names its set, and a result without one is a set of its own. The interval is the percentile
interval of those fits; the likelihood of superiority (LOS) of an entrant over the next in the
table is the share of resamples in which it rates higher.

Every fit adds a weak prior first (``PRIOR_DRAWS`` virtual draws between every two entrants that
were compared), in the point estimate and in each resample alike, so an entrant compared with the
others has a finite rating even with a perfect record, and a resample without a weak entrant's
rare wins still has a fit. What follows is the structure of the fitted record: with the prior,
only entrants never linked by comparisons fall apart (``prior=0`` fits the bare likelihood).

A finite maximum-likelihood rating exists only when the entrants cannot be split into two groups
one of which never scored against the other. When they can, one group is rated: the largest (of
two or more) inside which every entrant reaches every other through results in which one scored
against the next, or with an anchor the anchor's group. Every other entrant is flagged instead of
given a huge number: `Flag.TOP` (outscored the rated group in every result that links them, e.g.
won every pairing), `Flag.BOTTOM` (the reverse), `Flag.APART` (never linked to the rated group,
e.g. a pool that never met it).

No I/O here: `arena.ratings.table` reads results files and renders the table.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from itertools import combinations, pairwise

import numpy as np

from arena.errors import ConfigError, ResultsError
from arena.ratings.bootstrap import percentile_interval, resample_fits, superiority
from arena.ratings.fit import centred, closure, fit_elo, with_prior
from arena.ratings.tally import GameArrays, points, tally_results
from arena.records.result import GameResult, check_result
from arena.settings import DEFAULT_RATING as DEFAULT_MODEL
from arena.settings import RESAMPLES
from arena.settings import RatingModel as Model
from arena.settings import check_rating as check_model

POOL_MEAN = 1500.0
CONFIDENCE = 0.95
MIN_SETS = 2
"""The fewest duplicate sets a bootstrap interval is drawn from: every resample of one set is that
set, so its interval would be the point estimate at both ends, a certainty the games do not give.
Below it a table says its intervals are not known."""
PRIOR_DRAWS = 0.1
"""The weak prior of every fit: this many virtual draws (half of it a point each way) between
every two entrants compared at least once, added before fitting, in the point estimate and in each
resample alike. It keeps a fit finite where an entrant won or lost every comparison it drew (the
maximum likelihood there is infinite: with few sets, or a weakest entrant that almost never wins,
a third of a Partnership ladder's resamples had no finite fit and every interval was unbounded).
Chosen small: on the demo's 1,120 games it moves no `deals` rating by more than 0.01 Elo, and the
most lopsided pair under `places` (greedy against the random bots, a few losses in 240) by
1.5 Elo, 3% of that rating's interval half-width (1 draw moved it 14.5 Elo, 0.5 draws 7.4)."""


class Flag(StrEnum):
    """Why an entrant has no finite rating."""

    TOP = "top"
    BOTTOM = "bottom"
    APART = "apart"


@dataclass(frozen=True)
class Standing:
    """One row of the ratings table.

    `rating` is None when `flag` is set. `lower`/`upper` bound the interval (-inf/+inf: unbounded,
    None: no interval, because no resamples or no rating). `pairwise_score` is the share (0..1) of
    the pairwise points won, `los_next` the likelihood of superiority over the next row.
    """

    place: int | None
    name: str
    rating: float | None
    flag: Flag | None
    lower: float | None
    upper: float | None
    games: int
    pairings: int
    pairwise_score: float | None
    average_place: float
    faults: int
    forfeits: int
    los_next: float | None
    gap_next: tuple[float, float] | None = None
    """The interval of this rating minus the next row's (as ``confidence`` says; None where
    ``los_next`` is None): a pair whose interval lies inside +-delta is practically equal."""


@dataclass(frozen=True, eq=False)
class Ratings:
    """The ratings table: standings in table order and the pairwise record behind them."""

    standings: tuple[Standing, ...]
    wins: np.ndarray  # wins[i, j]: points standings[i] scored against standings[j] (draw = 1/2)
    games: int
    pool_mean: float
    anchor: tuple[str, float] | None
    resamples: int
    degenerate_resamples: int  # resamples without a finite fit (see `rate`)
    seed: int
    confidence: float
    model: Model = DEFAULT_MODEL
    prior: float = PRIOR_DRAWS
    """Virtual draws added between every two entrants compared, in every fit (``PRIOR_DRAWS``)."""
    margin: float | None = None
    """The ``margins`` model's M, the largest deal margin the rated games' rules allow (None under
    the others, and for games or groups rated on different M)."""

    @property
    def unknown_intervals(self) -> tuple[str, ...]:
        """The rated entrants whose interval and LOS are not known although resamples were asked:
        their games form fewer than ``MIN_SETS`` duplicate sets."""
        if not self.resamples:
            return ()
        return tuple(s.name for s in self.standings if s.rating is not None and s.lower is None)

    @property
    def names(self) -> tuple[str, ...]:
        """Entrant names in table order (the order of `wins`)."""
        return tuple(row.name for row in self.standings)

    @property
    def pairings(self) -> int:
        """Number of pairwise comparisons in all games (under ``model``: of places, of totals on the
    same cards, or of deals on the same cards)."""
        return round(float(self.wins.sum()))


def pairwise_outcomes(result: GameResult | Mapping[str, object]) -> list[tuple[str, str, float]]:
    """Every two seats of different entrants as (entrant a, entrant b, points of a against b)."""
    if not isinstance(result, GameResult):
        result = check_result(result)
    seats = range(len(result.entrants))
    return [
        (result.entrants[a], result.entrants[b], points(result, a, b))
        for a, b in combinations(seats, 2)
        if result.entrants[a] != result.entrants[b]
    ]


def rate(
    results: Iterable[Mapping[str, object] | GameResult],
    *,
    anchor: tuple[str, float] | None = None,
    pool_mean: float = POOL_MEAN,
    resamples: int = RESAMPLES.default,
    seed: int = 0,
    confidence: float = CONFIDENCE,
    model: Model | str | None = None,
    prior: float = PRIOR_DRAWS,
) -> Ratings:
    """The ratings table of `results` (result objects or GameResults), best first.

    Every fit adds ``prior`` virtual draws between every two entrants compared in its games
    (``PRIOR_DRAWS``; 0: the bare maximum likelihood, whose flags are described below), so an
    entrant linked to the others by comparisons always has a finite rating.

    `model` says which comparisons are rated (`Model`); the duplicate models read each result's
    `set`, `seed` and `deal_scores` (`arena.records.result.rating_input` adds them from a line).
    None: `DEFAULT_MODEL`, or `places` for results that hold no duplicate comparisons (bare
    results without deals); the table's `model` says which was used.

    Intervals: percentile bootstrap over whole duplicate sets (`resamples` resamples, numpy generator
    seeded with `seed`; 0 resamples, or fewer than ``MIN_SETS`` sets: no intervals and no LOS).
    The games are put in a canonical order first, so the same games in any order give the same
    table. A resample in which the
    rated group has no finite fit (someone in it won or lost every pairing it drew) is
    "degenerate": with an anchor, its ratings are taken relative to the anchor at the likelihood's
    supremum (+-inf or undefined for some); without one, every mean-centred rating is undefined in
    it. Undefined values count against both ends of the interval (as -inf for the lower bound, as
    +inf for the upper), so more than (1 - confidence) / 2 degenerate resamples leave the
    intervals unbounded.

    LOS over the next row: the share of resamples in which the entrant rates higher than the next,
    ties and undefined comparisons counting one half (bootstrap, not the normal approximation, so
    that the dependence between the pairs of one game is accounted for). Differences need no
    centring, so in a degenerate resample they are taken at the likelihood's supremum: +-inf across
    groups that one outscored, finite inside a group, undefined between groups never linked.

    Raises ResultsError for a bad result (naming its 1-based position) or no results, ConfigError
    for an anchor that names no entrant or a bad resamples/confidence value.
    """
    if resamples < 0:
        raise ConfigError(f"resamples must be 0 or more, got {resamples}")
    if seed < 0:
        raise ConfigError(f"seed must be 0 or more, got {seed}")
    if not 0.0 < confidence < 1.0:
        raise ConfigError(f"confidence must be between 0 and 1, got {confidence}")
    if not (math.isfinite(prior) and prior >= 0.0):
        raise ConfigError(f"prior must be 0 or more virtual draws, got {prior}")
    chosen = DEFAULT_MODEL if model is None else check_model(model)
    results = results if isinstance(results, Sequence) else list(results)
    tally = tally_results(results, chosen)
    if model is None and chosen is not Model.PLACES and not tally.record_points.size:
        chosen = Model.PLACES
        tally = tally_results(results, chosen)
    model = chosen
    if model is not Model.PLACES and not tally.record_points.size:
        raise ResultsError(f"rating model {model.value!r}: no two games here dealt the same "
                           f"cards (results without sets or seeds, or sets of one game); "
                           f"rate them with --rating places")
    n = len(tally.names)
    anchor_index = None
    if anchor is not None:
        name, anchor_rating = anchor
        if name not in tally.names:
            known = ", ".join(tally.names)
            raise ConfigError(f"--anchor: {name!r} is not an entrant (entrants: {known})")
        if not math.isfinite(anchor_rating):
            raise ConfigError(f"--anchor: {name}'s rating must be a finite number")
        anchor_index = tally.names.index(name)

    fitted = with_prior(tally.wins, prior)
    core, flags, depth = _structure(fitted, anchor_index)
    members = np.flatnonzero(core)
    position = np.full(n, -1)
    position[members] = np.arange(members.size)
    anchor_position = None if anchor_index is None else int(position[anchor_index])
    level = pool_mean if anchor is None else float(anchor[1])
    ratings = np.full(n, np.nan)
    elo = np.zeros(0)
    if members.size:
        elo = fit_elo(fitted[np.ix_(members, members)])
        ratings[members] = centred(elo, anchor_position, level)
    order = _table_order(tally, flags, depth, ratings)

    intervals: dict[int, tuple[float, float]] = {}
    los: dict[int, float] = {}
    gaps: dict[int, tuple[float, float]] = {}
    degenerate = 0
    if resamples and members.size and tally.sets >= MIN_SETS:
        neighbours = [(i, j) for i, j in pairwise(order)
                      if flags[i] is None and flags[j] is None]
        samples, differences, degenerate = resample_fits(
            tally, members, elo, anchor_position, level,
            [(int(position[i]), int(position[j])) for i, j in neighbours], resamples, seed, prior)
        alpha = (1.0 - confidence) / 2.0
        for column, member in enumerate(members.tolist()):
            intervals[member] = percentile_interval(samples[:, column], alpha)
        for column, (upper_row, _) in enumerate(neighbours):
            los[upper_row] = superiority(differences[:, column])
            gaps[upper_row] = percentile_interval(differences[:, column], alpha)
    rows = _standings(tally, order, flags, ratings, intervals, los, gaps)
    return Ratings(
        standings=rows,
        wins=tally.wins[np.ix_(order, order)],
        games=tally.games,
        pool_mean=pool_mean,
        anchor=None if anchor is None else (anchor[0], float(anchor[1])),
        resamples=resamples,
        degenerate_resamples=degenerate,
        seed=seed,
        confidence=confidence,
        model=model,
        prior=prior,
        margin=tally.margin,
    )


# Structure: who has a finite rating ----------------------------------------------------------

def _structure(wins: np.ndarray, anchor: int | None
               ) -> tuple[np.ndarray, list[Flag | None], np.ndarray]:
    """(the rated group as a mask, each entrant's flag, a depth ordering flagged entrants).

    Edge i -> j when i scored against j. Inside a strongly connected set of entrants the ratings
    are finite; the rated group is the anchor's set, or else the largest (then the one with most
    pairings, then the first by name) of at least two entrants. No such set: nobody is rated.
    """
    n = len(wins)
    scored = wins > 0
    reach = closure(scored)
    same = reach & reach.T
    counts = wins + wins.T
    if anchor is not None:
        core = same[anchor].copy()
    else:
        core = np.zeros(n, dtype=bool)
        best: tuple[int, float] | None = None
        # sorted(set(...)), not np.unique: that loads numpy.ma (~10 ms) to check for a mask
        for first in sorted(set(np.argmax(same, axis=1).tolist())):
            group = same[first]
            key = (int(group.sum()), float(counts[np.ix_(group, group)].sum()))
            if key[0] >= 2 and (best is None or key > best):
                best, core = key, group.copy()
    if core.any():
        above = reach[:, core].any(axis=1) & ~core
        below = reach[core, :].any(axis=0) & ~core
    else:
        outside = ~same
        above = (scored & outside).any(axis=1) & ~(scored & outside).any(axis=0)
        below = (scored & outside).any(axis=0) & ~(scored & outside).any(axis=1)
    flags: list[Flag | None] = []
    for i in range(n):
        if core[i]:
            flags.append(None)
        elif above[i] and not below[i]:
            flags.append(Flag.TOP)
        elif below[i] and not above[i]:
            flags.append(Flag.BOTTOM)
        else:
            flags.append(Flag.APART)
    # Among flagged entrants, one that reaches more of the others through wins sits higher.
    depth = reach.sum(axis=1) - reach.sum(axis=0)
    return core, flags, depth



def _table_order(tally: GameArrays, flags: list[Flag | None], depth: np.ndarray,
                 ratings: np.ndarray) -> list[int]:
    """Entrant numbers in table order: +inf, rated (by rating), -inf, then those apart."""
    pairings = (tally.wins + tally.wins.T).sum(axis=1)
    share = np.divide(tally.wins.sum(axis=1), pairings, out=np.full(len(pairings), -1.0),
                      where=pairings > 0)
    group = {Flag.TOP: 0, None: 1, Flag.BOTTOM: 2, Flag.APART: 3}

    def key(i: int) -> tuple[int, float, float, str]:
        # Flagged entrants: one that reaches more of the others through results sits higher.
        primary = -ratings[i] if flags[i] is None else -float(depth[i])
        return group[flags[i]], primary, -share[i], tally.names[i]

    return sorted(range(len(pairings)), key=key)


def _standings(tally: GameArrays, order: list[int], flags: list[Flag | None], ratings: np.ndarray,
               intervals: dict[int, tuple[float, float]], los: dict[int, float],
               gaps: dict[int, tuple[float, float]]) -> tuple[Standing, ...]:
    pairings = (tally.wins + tally.wins.T).sum(axis=1)
    rows = []
    place = 0
    for i in order:
        if flags[i] is not Flag.APART:
            place += 1
        lower, upper = intervals.get(i, (None, None))
        rows.append(Standing(
            place=place if flags[i] is not Flag.APART else None,
            name=tally.names[i],
            rating=None if flags[i] is not None else float(ratings[i]),
            flag=flags[i],
            lower=lower,
            upper=upper,
            games=int(tally.games_played[i]),
            pairings=round(pairings[i]),
            pairwise_score=None if pairings[i] == 0 else float(tally.wins[i].sum() / pairings[i]),
            average_place=float(tally.place_sum[i] / tally.appearances[i]),
            faults=int(tally.faults[i]),
            forfeits=int(tally.forfeits[i]),
            los_next=los.get(i),
            gap_next=gaps.get(i),
        ))
    return tuple(rows)
