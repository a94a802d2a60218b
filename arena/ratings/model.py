"""Elo ratings from game results: one Bradley-Terry fit of all pairwise comparisons, set bootstrap.

What a comparison is depends on the model (``arena.settings.RatingModel``, docs/ratings.md):
``places`` makes each game its pairwise outcomes: for every two entrants at the table, 1 to the
better place, 0 to the worse, 1/2 each when equal (places already hold forfeits and the tie-break).
The duplicate models (``duplicate``, ``deals``) compare the entrants that held the same cards in
one duplicate set instead (``arena.ratings.duplicate``). Two seats of one entrant (a bot playing
itself) are not compared. Everything below is the same for every model.

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
from arena.ratings import duplicate as duplicate_comparisons
from arena.records.result import GameResult, check_result, result_fields, value_problem
from arena.settings import DEFAULT_RATING as DEFAULT_MODEL
from arena.settings import RESAMPLES
from arena.settings import RatingModel as Model
from arena.settings import check_rating as check_model

POOL_MEAN = 1500.0
CONFIDENCE = 0.95
PRIOR_DRAWS = 0.1
"""The weak prior of every fit: this many virtual draws (half of it a point each way) between
every two entrants compared at least once, added before fitting, in the point estimate and in each
resample alike. It keeps a fit finite where an entrant won or lost every comparison it drew (the
maximum likelihood there is infinite: with few sets, or a weakest entrant that almost never wins,
a third of a Partnership ladder's resamples had no finite fit and every interval was unbounded).
Chosen small: on the demo's 1,120 games it moves no `deals` rating by more than 0.01 Elo, and the
most lopsided pair under `places` (greedy against the random bots, a few losses in 240) by
1.5 Elo, 3% of that rating's interval half-width (1 draw moved it 14.5 Elo, 0.5 draws 7.4)."""
DENSE_SUMS = 2_000_000
"""The bootstrap sums the resamples by a (set x cell) matrix while it and a chunk's draws (sets x
resamples) hold at most this many numbers each, else record by record (``_bootstrap``)."""
ELO_PER_NAT = 400.0 / math.log(10.0)  # Elo = ELO_PER_NAT * theta; P(i beats j) = 1/(1+e^(tj-ti))


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
        (result.entrants[a], result.entrants[b], _points(result, a, b))
        for a, b in combinations(seats, 2)
        if result.entrants[a] != result.entrants[b]
    ]


def with_prior(wins: np.ndarray, prior: float) -> np.ndarray:
    """``wins`` (one matrix, or a batch) with ``prior`` virtual draws added between every two
    entrants that were compared (``prior / 2`` points each way)."""
    if not prior:
        return wins
    met = (wins + np.swapaxes(wins, -1, -2)) > 0
    padded: np.ndarray = wins + (prior / 2.0) * met
    return padded


def fit_elo(wins: np.ndarray) -> np.ndarray:
    """Maximum-likelihood Elo ratings (mean 0) from `wins[i, j]`, the points i scored against j.

    ValueError when no finite maximum exists: some group of entrants never scored against the rest.
    """
    wins = np.asarray(wins, dtype=np.float64)
    if wins.ndim != 2 or wins.shape[0] != wins.shape[1] or (wins < 0).any():
        raise ValueError("wins must be a square matrix of non-negative points")
    if len(wins) > 1 and not _strongly_connected(wins[None] > 0)[0]:
        raise ValueError("no finite ratings: some entrants never scored against the others")
    theta: np.ndarray = _newton(wins[None], np.zeros((1, len(wins))))[0]
    return theta * ELO_PER_NAT


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
    seeded with `seed`; 0 resamples: no intervals and no LOS). The games are put in a canonical
    order first, so the same games in any order give the same table. A resample in which the
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
    tally = _tally(results, chosen)
    if model is None and chosen is not Model.PLACES and not tally.record_points.size:
        chosen = Model.PLACES
        tally = _tally(results, chosen)
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
        ratings[members] = _centred(elo, anchor_position, level)
    order = _table_order(tally, flags, depth, ratings)

    intervals: dict[int, tuple[float, float]] = {}
    los: dict[int, float] = {}
    gaps: dict[int, tuple[float, float]] = {}
    degenerate = 0
    if resamples and members.size:
        neighbours = [(i, j) for i, j in pairwise(order)
                      if flags[i] is None and flags[j] is None]
        samples, differences, degenerate = _bootstrap(
            tally, members, elo, anchor_position, level,
            [(int(position[i]), int(position[j])) for i, j in neighbours], resamples, seed, prior)
        alpha = (1.0 - confidence) / 2.0
        for column, member in enumerate(members.tolist()):
            intervals[member] = _interval(samples[:, column], alpha)
        for column, (upper_row, _) in enumerate(neighbours):
            los[upper_row] = _los(differences[:, column])
            gaps[upper_row] = _interval(differences[:, column], alpha)
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
    )


# Tallying results --------------------------------------------------------------------------------

_LISTS = (list, tuple)
_NUMBER_TYPES = frozenset((int, float))


def _points(result: GameResult, a: int, b: int) -> float:
    """Points of seat ``a`` against seat ``b``: from the places, which already hold forfeits and
    the game's tie-break (equal places are a draw)."""
    if result.ranks[a] == result.ranks[b]:
        return 0.5
    return 1.0 if result.ranks[a] < result.ranks[b] else 0.0


@dataclass
class _GameArrays:
    """All games as arrays. Entrants are numbered in name order, games in a canonical order."""

    names: list[str]
    games: int
    wins: np.ndarray
    record_game: np.ndarray  # records of points: game, cell (scorer * n + other), points
    record_cell: np.ndarray
    record_points: np.ndarray
    games_played: np.ndarray
    appearances: np.ndarray
    place_sum: np.ndarray
    faults: np.ndarray
    forfeits: np.ndarray
    set_of_game: np.ndarray  # by canonical game: its duplicate set, numbered 0 .. sets - 1
    sets: int


def _tally(results: Iterable[Mapping[str, object] | GameResult], model: Model) -> _GameArrays:
    seat_name: list[str] = []
    seat_score: list[float] = []
    seat_rank: list[int] = []
    seat_forfeit: list[bool] = []
    seat_faults: list[int] = []
    sizes: list[int] = []
    set_names: list[object] = []
    deal_keys: list[object] = []  # by game: what its deals are known by (its seed), or None
    deal_scores: list[Sequence[Sequence[float]]] = []
    duplicate = model is not Model.PLACES
    for count, obj in enumerate(results, 1):
        try:
            entrants, scores, ranks, forfeits, faults = result_fields(obj)
            if duplicate:
                deal_keys.append(obj.get("seed") if isinstance(obj, Mapping) else None)
                deal_scores.append(_deal_scores(obj, len(entrants)))
        except ResultsError as error:
            raise ResultsError(f"result {count}: {error}") from None
        named = obj.get("set") if isinstance(obj, Mapping) else None
        set_names.append(named if isinstance(named, str) else None)
        seat_name.extend(entrants)
        seat_score.extend(scores)
        seat_rank.extend(ranks)
        seat_forfeit.extend(forfeits)
        seat_faults.extend(faults)
        sizes.append(len(entrants))
    if not sizes:
        raise ResultsError("no game results to rate")

    rank = np.array(seat_rank, dtype=np.int64)
    fault = np.array(seat_faults, dtype=np.int64)
    score = np.array(seat_score, dtype=np.float64)
    size = np.array(sizes, dtype=np.int64)
    start = np.cumsum(size) - size
    game_of_seat = np.repeat(np.arange(len(sizes)), size)
    bad = ~np.isfinite(score) | (rank < 1) | (rank > size[game_of_seat]) | (fault < 0)
    if bad.any():
        bad_game = int(game_of_seat[np.argmax(bad)])
        where = slice(int(start[bad_game]), int(start[bad_game] + size[bad_game]))
        problem = value_problem(seat_score[where], seat_rank[where], seat_faults[where])
        raise ResultsError(f"result {bad_game + 1}: {problem}")

    names = sorted(set(seat_name))
    n, games = len(names), len(sizes)
    numbers = {name: i for i, name in enumerate(names)}
    entrant = np.fromiter(map(numbers.__getitem__, seat_name), dtype=np.int64,
                          count=len(seat_name))
    forfeit = np.array(seat_forfeit, dtype=bool)

    canonical = np.empty(games, dtype=np.int64)
    found: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    done = 0
    first_seat = np.ones(len(seat_name), dtype=bool)  # the entrant's first seat in its game
    for players in np.flatnonzero(np.bincount(size)):
        group = np.flatnonzero(size == players)
        seats = start[group][:, None] + np.arange(players)
        e, s, r = entrant[seats], score[seats], rank[seats]
        # A canonical order (by table size, then entrants, scores, places seat by seat) makes the
        # bootstrap's draws depend on the set of games only, not on the order they were given in.
        keys = [r[:, c] for c in reversed(range(players))] + \
               [s[:, c] for c in reversed(range(players))] + \
               [e[:, c] for c in reversed(range(players))]
        canonical[group[np.lexsort(keys)]] = done + np.arange(group.size)
        done += group.size
        game = canonical[group]
        for a, b in combinations(range(int(players)), 2):
            met = e[:, a] != e[:, b]
            first_seat[seats[~met, b]] = False
            # Outcomes follow the places (forfeits and the game's tie-break are already in them).
            a_wins = met & (r[:, a] < r[:, b])
            b_wins = met & (r[:, b] < r[:, a])
            draw = met & (r[:, a] == r[:, b])
            if duplicate:
                continue
            ab = e[:, a] * n + e[:, b]
            ba = e[:, b] * n + e[:, a]
            for mask, cell, points in ((a_wins, ab, 1.0), (b_wins, ba, 1.0), (draw, ab, 0.5),
                                       (draw, ba, 0.5)):
                found.append((game[mask], cell[mask], np.full(int(mask.sum()), points)))

    if duplicate:
        found.append(duplicate_comparisons.records(
            _positions(set_names, deal_keys, deal_scores if model is Model.DEALS else None, size,
                       start, canonical, entrant, score, rank, forfeit),
            n, per_deal=model is Model.DEALS))
    record_game = np.concatenate([g for g, _, _ in found])
    record_cell = np.concatenate([c for _, c, _ in found])
    record_points = np.concatenate([p for _, _, p in found])
    set_of_game, sets = _sets(set_names, canonical)
    wins = np.bincount(record_cell, weights=record_points, minlength=n * n).reshape(n, n)
    return _GameArrays(
        names=names,
        games=games,
        wins=wins.astype(np.float64),
        record_game=record_game,
        record_cell=record_cell,
        record_points=record_points,
        games_played=np.bincount(entrant[first_seat], minlength=n),
        appearances=np.bincount(entrant, minlength=n),
        place_sum=np.bincount(entrant, weights=rank, minlength=n),
        faults=np.bincount(entrant, weights=fault, minlength=n),
        forfeits=np.bincount(entrant, weights=forfeit.astype(np.float64), minlength=n),
        set_of_game=set_of_game,
        sets=sets,
    )


def _positions(set_names: list[object], deal_keys: list[object],
               deal_scores: list[Sequence[Sequence[float]]] | None, size: np.ndarray,
               start: np.ndarray, canonical: np.ndarray, entrant: np.ndarray, score: np.ndarray,
               rank: np.ndarray, forfeit: np.ndarray) -> duplicate_comparisons.Positions:
    """The seats of the games in a duplicate set (a set name; a game without one is a set of its
    own, and nobody else held its cards), keyed by what their cards are known by: set, deals'
    seed, table size and position. With ``deal_scores``, each seat's score in each deal."""
    in_set = [game for game, name in enumerate(set_names) if name is not None]
    sizes = size[in_set]
    game = np.repeat(np.array(in_set, dtype=np.int64), sizes)
    position = np.arange(game.size) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    seat = start[game] + position
    key = [(set_names[g], deal_keys[g], players, p) for g, players, p
           in zip(game.tolist(), size[game].tolist(), position.tolist(), strict=True)]
    dealt = np.zeros(game.size, dtype=np.int64)
    deals = np.zeros((game.size, 0))
    if deal_scores is not None and game.size:
        dealt = np.array([len(deal_scores[g]) for g in game.tolist()], dtype=np.int64)
        deals = np.zeros((game.size, int(dealt.max())))
        row = 0
        for g, players in zip(in_set, sizes.tolist(), strict=True):
            if deal_scores[g]:
                deals[row:row + players, :len(deal_scores[g])] = np.array(
                    deal_scores[g], dtype=np.float64).T
            row += players
    return duplicate_comparisons.Positions(
        key=key, game=canonical[game], entrant=entrant[seat], total=score[seat], rank=rank[seat],
        forfeit=forfeit[seat], deals=deals, dealt=dealt)


def _deal_scores(obj: Mapping[str, object] | GameResult, positions: int
                 ) -> Sequence[Sequence[float]]:
    """The result's `deal_scores` (each finished deal's scores, indexed like `scores`); none
    when it has none. ResultsError when they are not that."""
    found = obj.get("deal_scores") if isinstance(obj, Mapping) else None
    if found is None:
        return ()
    if type(found) not in _LISTS or not all(
            type(deal) in _LISTS and len(deal) == positions
            and _NUMBER_TYPES.issuperset(map(type, deal)) for deal in found):  # type: ignore[attr-defined]
        raise ResultsError(f"'deal_scores' must be a list of deals, each {positions} numbers")
    return found  # type: ignore[return-value]


def _sets(names: list[object], canonical: np.ndarray) -> tuple[np.ndarray, int]:
    """(each canonical game's duplicate set, number of sets): games with the same set name share
    one; a game without a name is a set of its own. Sets are numbered by their first game in the
    canonical order, so the numbering, like the games', does not depend on the input order (and
    with no names at all, set i is game i: the same draws as a bootstrap over games)."""
    first: dict[object, int] = {}
    for game, name in enumerate(names):
        index = int(canonical[game])
        key = ("game", game) if name is None else name
        first[key] = min(first.get(key, index), index)
    keys = [("game", game) if name is None else name for game, name in enumerate(names)]
    order = sorted(set(first.values()))
    number = {index: position for position, index in enumerate(order)}
    set_of_game = np.empty(len(names), dtype=np.int64)
    for game, key in enumerate(keys):
        set_of_game[canonical[game]] = number[first[key]]
    return set_of_game, len(order)


# Structure: who has a finite rating ----------------------------------------------------------

def _closure(edges: np.ndarray) -> np.ndarray:
    """reach[i, j]: j can be reached from i along edges (every node reaches itself)."""
    reach = edges | np.eye(len(edges), dtype=bool)
    while True:
        step = reach.astype(np.float32)
        wider = (step @ step) > 0
        if (wider == reach).all():
            return reach
        reach = wider


def _structure(wins: np.ndarray, anchor: int | None
               ) -> tuple[np.ndarray, list[Flag | None], np.ndarray]:
    """(the rated group as a mask, each entrant's flag, a depth ordering flagged entrants).

    Edge i -> j when i scored against j. Inside a strongly connected set of entrants the ratings
    are finite; the rated group is the anchor's set, or else the largest (then the one with most
    pairings, then the first by name) of at least two entrants. No such set: nobody is rated.
    """
    n = len(wins)
    scored = wins > 0
    reach = _closure(scored)
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



def _table_order(tally: _GameArrays, flags: list[Flag | None], depth: np.ndarray,
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


def _standings(tally: _GameArrays, order: list[int], flags: list[Flag | None], ratings: np.ndarray,
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


# Fitting ---------------------------------------------------------------------------------------

def _sigmoid(x: np.ndarray) -> np.ndarray:
    e = np.exp(-np.abs(x))
    result: np.ndarray = np.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e))
    return result


def _log_likelihood(wins: np.ndarray, theta: np.ndarray) -> np.ndarray:
    diff = theta[:, :, None] - theta[:, None, :]
    likelihood: np.ndarray = -(wins * np.logaddexp(0.0, -diff)).sum(axis=(1, 2))
    return likelihood


def _newton(wins: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """Maximum-likelihood logits (mean 0) for a batch of strongly connected win matrices.

    Newton's method on the concave log-likelihood, halving a step that would lower it; the
    Hessian is a weighted graph Laplacian, made invertible by adding the all-ones direction
    (the gradient is orthogonal to it, so the step keeps the mean).
    """
    batch, k = theta.shape
    counts = wins + wins.transpose(0, 2, 1)
    scored = wins.sum(axis=2)
    gauge = np.full((k, k), 1.0 / k)
    theta = theta - theta.mean(axis=1, keepdims=True)
    likelihood = _log_likelihood(wins, theta)
    for _ in range(200):
        p = _sigmoid(theta[:, :, None] - theta[:, None, :])
        gradient = scored - (counts * p).sum(axis=2)
        weight = counts * p * (1.0 - p)
        hessian = -weight
        hessian[:, np.arange(k), np.arange(k)] += weight.sum(axis=2)
        step = np.linalg.solve(hessian + gauge, gradient[:, :, None])[:, :, 0]
        size = np.ones(batch)
        for _ in range(60):
            trial = theta + size[:, None] * step
            trial_likelihood = _log_likelihood(wins, trial)
            worse = trial_likelihood < likelihood - 1e-12 * (1.0 + np.abs(likelihood))
            if not worse.any():
                break
            size[worse] /= 2.0
        theta, likelihood = trial, trial_likelihood
        if np.abs(size[:, None] * step).max() < 1e-11:
            break
    centred: np.ndarray = theta - theta.mean(axis=1, keepdims=True)
    return centred


def _strongly_connected(edges: np.ndarray) -> np.ndarray:
    """For a batch of directed graphs (B, k, k): whether each is strongly connected."""
    batch, k = edges.shape[:2]
    result = np.ones(batch, dtype=bool)
    graph = edges.astype(np.float32)
    for direction in (graph, graph.transpose(0, 2, 1)):
        reach = np.zeros((batch, 1, k), dtype=np.float32)
        reach[:, 0, 0] = 1.0
        for _ in range(k):
            wider = np.minimum(reach + reach @ direction, 1.0)
            if (wider == reach).all():
                break
            reach = wider
        result &= (reach[:, 0, :] > 0).all(axis=1)
    return result


def _centred(elo: np.ndarray, anchor: int | None, level: float) -> np.ndarray:
    """Ratings (last axis) on the table's scale: mean `level`, or `level` for entrant `anchor`."""
    base = elo.mean(axis=-1, keepdims=True) if anchor is None else elo[..., anchor:anchor + 1]
    centred: np.ndarray = level + (elo - base)  # the anchor's exactly `level`
    return centred


# Bootstrap -------------------------------------------------------------------------------------

def _bootstrap(tally: _GameArrays, members: np.ndarray, elo: np.ndarray, anchor: int | None,
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
        finite = _strongly_connected(wins > 0)
        block = samples[first:first + chunk]
        if finite.any():
            fitted = _newton(wins[finite], np.tile(start, (int(finite.sum()), 1))) * ELO_PER_NAT
            block[finite] = _centred(fitted, anchor, level)
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
    reach = _closure(wins > 0)
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


def _interval(values: np.ndarray, alpha: float) -> tuple[float, float]:
    """Percentile interval, undefined values counting against both ends; no interpolation."""
    count = len(values)
    low = np.sort(np.where(np.isnan(values), -np.inf, values))[math.floor(alpha * (count - 1))]
    high = np.sort(np.where(np.isnan(values), np.inf, values))[math.ceil((1 - alpha)
                                                                            * (count - 1))]
    return float(low), float(high)


def _los(differences: np.ndarray) -> float:
    """Share of resamples with a positive difference; equal or undefined ones count half."""
    # Differences within the fit's convergence tolerance (~1e-9 Elo) are equal ratings.
    tied = np.isnan(differences) | (np.abs(differences) <= 1e-9)
    higher = (differences > 0) & ~tied
    return float((higher.sum() + 0.5 * tied.sum()) / len(differences))
