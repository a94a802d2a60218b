"""The collusion audit: does entrant A score more when entrant B sits at its table than the cards
and the other opponents explain? Every ordered pair (beneficiary A, helper B) of entrants of
different owners that sat at one table is measured (docs/audit.md).

The measure is the ``deals`` rating model's comparison (``arena.ratings.duplicate``): A's score
in a deal against the score of whoever held the same cards in another game of the duplicate set,
1 for the higher, 1/2 each when equal. For the pair (A, B) the audit takes A's comparisons from
the games where B sat at A's table:
- where the same cards were played at a table without B (a match unit's baseline game, a mirrored
  table), only those duplicate counterparts: they compare A with B against the same cards without
  B, A itself included (a comparison of A with A expects exactly 1/2);
- else every comparison of A in those games.
What a comparison of A with X is expected to give comes from the ``deals`` model fitted again
without the duplicate sets in which A and B sat together (the help would otherwise be in A's
rating): ``1 / (1 + 10^((R_X - R_A) / 400))``. The effect is the observed points minus the
expected, per deal compared (``effect``, -1 to 1), and the rating difference that would explain
it (``elo``).

Uncertainty: the set bootstrap the ratings use (whole duplicate sets drawn with replacement), the
pair's fit done again in each resample, so that the uncertainty of A's and its opponents' ratings
counts as well as that of A's results beside B. ``low``/``high`` are the percentile interval; the
one-sided p-value (H0: no help, effect <= 0) is the normal tail of the effect over its bootstrap
standard error, corrected over the pairs measured by Holm's method. A pair is ``flagged`` where
the corrected p is below ``ALPHA`` and the effect is at least ``MIN_EFFECT``.

Colluders distort their table-mates' yardsticks (a helper spending its score beside its partner
rates low, its partner high, and an honest bot beside either seems helped), so the audit goes
step by step: the pair whose games together depart most from the model, either way (two-sided,
Holm-corrected), has its sets together set aside, both its orders kept as measured, and the other
pairs are measured again without those sets, until no pair departs.

No I/O here: ``arena.ratings.audit_text`` reads results and renders the audit.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np

from arena.errors import ConfigError, ResultsError
from arena.ratings.bootstrap import percentile_interval
from arena.ratings.fit import ELO_PER_NAT, newton, strongly_connected
from arena.ratings.model import PRIOR_DRAWS
from arena.records.result import result_fields

ALPHA = 0.05
"""The level of the audit's test, after Holm's correction over the pairs measured."""
MIN_EFFECT = 0.01
"""The smallest effect flagged, in points per deal compared (docs/audit.md says why): one point
in 100 deals, about 7 Elo on the ``deals`` scale. Below it a pair may be significant (with
many games, any table-mate that changes how others fare is) but is not flagged."""
RESAMPLES = 200
"""Bootstrap resamples of the audit by default (``--resamples``)."""
MIN_RESAMPLES = 50
"""Fewer resamples give no standard error to test with."""
ELO_BOUND = 2000.0
"""The Elo effect is solved within +-this (an effect of every deal won or lost has none finite)."""


@dataclass(frozen=True)
class AuditPair:
    """One ordered pair measured: ``beneficiary`` with ``helper`` at its table."""

    beneficiary: str
    helper: str
    effect: float | None
    """Observed minus expected points per deal compared (-1 to 1); None: nothing to compare."""
    elo: float | None
    """The same as a rating difference on the ``deals`` Elo scale."""
    low: float | None
    high: float | None
    p: float | None
    """One-sided, Holm-corrected over the pairs measured."""
    flagged: bool
    deals: int
    """Deals compared (each comparison of one deal of the beneficiary's with another's)."""
    games: int
    """Games the two sat at together."""
    counterparts: bool
    """The comparisons were duplicate counterparts without the helper (else at its tables)."""


@dataclass(frozen=True)
class Audit:
    """Every pair measured, flagged pairs first (largest effect first), then by p."""

    pairs: tuple[AuditPair, ...]
    games: int
    entrants: int
    resamples: int
    seed: int
    min_effect: float = MIN_EFFECT
    alpha: float = ALPHA
    same_owner: int = 0
    """Ordered pairs of one owner that sat together (not audited)."""

    @property
    def flagged(self) -> tuple[AuditPair, ...]:
        """The flagged pairs."""
        return tuple(pair for pair in self.pairs if pair.flagged)


@dataclass
class _Games:
    """The results as arrays: entrants in name order, games, sets and every directed comparison
    of deals on the same cards (self-comparisons of an entrant included)."""

    names: list[str]
    owners: list[frozenset[str]]
    present: np.ndarray  # games x entrants: who sat at each game
    set_of_game: np.ndarray
    sets: int
    first: np.ndarray  # by comparison: its game, entrant, the other game and entrant
    first_entrant: np.ndarray
    second: np.ndarray
    second_entrant: np.ndarray
    points: np.ndarray  # what the first scored against the second (deals won, draws half)
    deals: np.ndarray


def audit(results: Iterable[Mapping[str, object]], *, resamples: int = RESAMPLES, seed: int = 0,
          min_effect: float = MIN_EFFECT, alpha: float = ALPHA) -> Audit:
    """The audit of ``results`` (audit inputs: ``arena.records.result.audit_input``, or rating
    inputs, whose entrants are then each its own owner).

    ResultsError for a bad result (naming its position) or none; ConfigError for bad numbers.
    """
    if resamples < MIN_RESAMPLES:
        raise ConfigError(f"--resamples: the audit needs at least {MIN_RESAMPLES}, got {resamples}")
    if seed < 0:
        raise ConfigError(f"--seed: must be 0 or more, got {seed}")
    if not 0.0 < alpha < 1.0:
        raise ConfigError(f"alpha must be between 0 and 1, got {alpha}")
    if not 0.0 <= min_effect <= 1.0:
        raise ConfigError(f"the minimum effect must be from 0 to 1 point per deal, got {min_effect}")
    data = _tally(results)
    n = len(data.names)
    set_cells = np.zeros((data.sets, n * n))
    rated = data.first_entrant != data.second_entrant
    for mine, theirs, scored in (
            (data.first_entrant, data.second_entrant, data.points),
            (data.second_entrant, data.first_entrant, data.deals - data.points)):
        np.add.at(set_cells, (data.set_of_game[data.first[rated]],
                              mine[rated] * n + theirs[rated]), scored[rated])
    rng = np.random.default_rng(seed)
    counts = np.stack([np.bincount(rng.integers(0, data.sets, size=data.sets),
                                   minlength=data.sets) for _ in range(resamples)]
                      ).astype(np.float64)
    total = counts @ set_cells  # every resample's win matrix, before a pair's sets leave it
    present = data.present.astype(np.int64)
    together = present.T @ present
    pairs_met = [(a, b) for a, b in combinations(range(n), 2) if together[a, b]]
    audited = [(a, b) for a, b in pairs_met if not data.owners[a] & data.owners[b]]
    same_owner = 2 * (len(pairs_met) - len(audited))
    # Step by step: the most significant flagged pair's sets together are set aside (its help
    # distorts its members' ratings and their table-mates' results), and the other pairs are
    # measured again without them, until no new pair is flagged.
    aside = np.zeros(data.sets, dtype=bool)
    final: dict[tuple[int, int], _Measure] = {}
    while True:
        measured = dict(final)
        for a, b in audited:
            if (a, b) in final and (b, a) in final:
                continue
            shared = np.unique(data.set_of_game[data.present[:, a] & data.present[:, b]])
            fit = _PairFit(data, set_cells, total, counts, shared, aside)
            for one, other in ((a, b), (b, a)):
                if (one, other) not in final:
                    measured[(one, other)] = fit.measure(one, other)
        # The pair whose games together depart most from the model, either way (a helper
        # spending its score beside its partner departs too), is set aside first.
        open_keys = sorted(key for key in measured if key not in final)
        departs = {key: 1.0 if p is None else p for key, p in zip(
            open_keys, _holm([measured[key].two_sided for key in open_keys]), strict=True)}
        new = [key for key in open_keys if departs[key] < alpha
               and abs(measured[key].effect or 0.0) >= min_effect]
        if not new:
            break
        a, b = min(new, key=lambda key: (departs[key], -abs(measured[key].effect or 0.0)))
        final[(a, b)] = measured[(a, b)]
        final[(b, a)] = measured[(b, a)]  # measured with their sets, as the other order
        aside |= np.isin(np.arange(data.sets),
                         data.set_of_game[data.present[:, a] & data.present[:, b]])
    order = sorted(measured)
    corrected = dict(zip(order, _holm([measured[key].p for key in order]), strict=True))
    pairs = [
        AuditPair(
            beneficiary=data.names[a], helper=data.names[b], effect=m.effect, elo=m.elo,
            low=m.low, high=m.high, p=corrected[(a, b)], deals=m.deals,
            games=int(together[a, b]), counterparts=m.counterparts,
            flagged=_is_flagged(m, corrected[(a, b)], alpha, min_effect))
        for (a, b), m in measured.items()]
    pairs.sort(key=lambda pair: (not pair.flagged, -(pair.effect or 0.0) if pair.flagged else 0.0,
                                 1.0 if pair.p is None else pair.p, pair.beneficiary, pair.helper))
    return Audit(tuple(pairs), games=int(data.present.shape[0]), entrants=n,
                 resamples=resamples, seed=seed, min_effect=min_effect, alpha=alpha,
                 same_owner=same_owner)


def _is_flagged(found: _Measure, p: float | None, alpha: float, min_effect: float) -> bool:
    return p is not None and found.effect is not None and p < alpha and found.effect >= min_effect


@dataclass
class _Measure:
    effect: float | None = None
    elo: float | None = None
    low: float | None = None
    high: float | None = None
    p: float | None = None
    two_sided: float | None = None
    deals: int = 0
    counterparts: bool = False


class _PairFit:
    """The ``deals`` model fitted without one unordered pair's shared sets, at the point estimate
    and in every resample, and the measures of the pair's two orders from it."""

    def __init__(self, data: _Games, set_cells: np.ndarray, total: np.ndarray,
                 counts: np.ndarray, shared: np.ndarray, aside: np.ndarray) -> None:
        n = len(data.names)
        self.data, self.counts = data, counts
        self.kept = ~aside  # the sets of flagged pairs: the pair's comparisons leave them out
        kept = self.kept.copy()
        kept[shared] = False
        self.fit_sets = kept  # the sets the expectation is fitted from
        shared = np.flatnonzero(~kept)
        wins = set_cells[kept].sum(axis=0).reshape(n, n)
        # The prior goes between every two entrants compared in the point estimate's games, in
        # every resample alike: a resample that lost an entrant's sets keeps its rating finite.
        compared = (wins + wins.T) > 0
        prior = (PRIOR_DRAWS / 2.0) * compared
        self.group = _components(compared)
        self.theta = _fit(wins[None] + prior, self.group)[0]
        resampled = (total - counts[:, shared] @ set_cells[shared]).reshape(-1, n, n)
        self.thetas = _fit(resampled + prior, self.group, self.theta)

    def measure(self, a: int, b: int) -> _Measure:
        """What ``b`` at ``a``'s table adds to ``a``'s results (module docstring)."""
        data = self.data
        found = _Measure()
        # a's comparisons from either side, as (its game, the other's game, the other, points).
        first = data.first_entrant == a
        second = (data.second_entrant == a) & ~first
        mine = np.concatenate([data.first[first], data.second[second]])
        theirs = np.concatenate([data.second[first], data.first[second]])
        other = np.concatenate([data.second_entrant[first], data.first_entrant[second]])
        points = np.concatenate([data.points[first], (data.deals - data.points)[second]])
        deals = np.concatenate([data.deals[first], data.deals[second]])
        beside = data.present[mine, b]
        without = beside & ~data.present[theirs, b] & (other != b)
        found.counterparts = bool(without.any())
        use = (without if found.counterparts else beside & (other != a)) & self.kept[
            data.set_of_game[mine]]
        # An opponent outside a's linked group has no expectation without the pair's sets.
        use &= (other == a) | (self.group[other] == self.group[a])
        if not use.any():
            return found
        n, sets = len(data.names), data.sets
        where = data.set_of_game[mine[use]]
        observed = np.zeros((sets, n))
        dealt = np.zeros((sets, n))
        np.add.at(observed, (where, other[use]), points[use])
        np.add.at(dealt, (where, other[use]), deals[use])
        keep = dealt.sum(axis=0) > 0
        observed, dealt = observed.sum(axis=1), dealt[:, keep]
        found.deals = int(dealt.sum())
        if not found.deals:
            return found
        weight = dealt.sum(axis=0)
        expected = _expected(self.theta[None], a)[0][keep]
        found.effect = float((observed.sum() - weight @ expected) / found.deals)
        found.elo = _elo(self.theta, a, keep, weight, float(observed.sum()))
        # Each resample: its draws of the sets, the points and deals they hold, its own fit.
        drawn_deals = self.counts @ dealt
        drawn_expected = (drawn_deals * _expected(self.thetas, a)[:, keep]).sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            effects = (self.counts @ observed - drawn_expected) / drawn_deals.sum(axis=1)
        found.low, found.high = percentile_interval(effects, (1.0 - 0.95) / 2.0)
        if not (math.isfinite(found.low) and math.isfinite(found.high)):
            return found  # too many resamples without the pair's sets: not tested (p None)
        # The units of evidence are duplicate sets, on two sides: those of a's comparisons beside
        # b, and (where an opponent's rating enters) those without the pair that a's expectation
        # is fitted from. The fewer side decides the degrees of freedom of the test.
        units = len(np.unique(where))
        if (other[use] != a).any():
            alone = np.zeros(sets, dtype=bool)
            alone[data.set_of_game[data.present[:, a]]] = True
            units = min(units, int((alone & self.fit_sets).sum()))
        finite = effects[np.isfinite(effects)]
        spread = float(finite.std(ddof=1)) if finite.size > 1 else 0.0
        if units < 2:
            return found  # one set on a side gives no spread to test with
        # The bootstrap's variance of a mean over n units is (n - 1) / n of the usual estimate.
        spread *= math.sqrt(units / (units - 1))
        if spread > 0.0:
            t = found.effect / spread
            found.p = _t_upper(t, units - 1)
            found.two_sided = 2.0 * _t_upper(abs(t), units - 1)
        else:
            found.p = 0.0 if found.effect > 0.0 else 1.0
            found.two_sided = 1.0 if found.effect == 0.0 else 0.0
        return found


def _t_upper(t: float, df: int) -> float:
    """P(T > t) for Student's t with ``df`` degrees of freedom (exact for whole ``df``:
    Abramowitz and Stegun 26.7.3 and 26.7.4)."""
    angle = math.atan2(abs(t), math.sqrt(df))
    sine, cosine = math.sin(angle), math.cos(angle)
    term, total = 1.0, 1.0
    if df % 2:  # odd: 2/pi (angle + sin cos (1 + 2/3 cos^2 + 2*4/(3*5) cos^4 + ...))
        for k in range(1, (df - 1) // 2):
            term *= (2 * k) / (2 * k + 1) * cosine * cosine
            total += term
        inside = 2.0 / math.pi * (angle + (sine * cosine * total if df > 1 else 0.0))
    else:  # even: sin (1 + 1/2 cos^2 + 1*3/(2*4) cos^4 + ...)
        for k in range(1, df // 2):
            term *= (2 * k - 1) / (2 * k) * cosine * cosine
            total += term
        inside = sine * total
    upper = max(0.0, (1.0 - inside) / 2.0)
    return upper if t >= 0 else 1.0 - upper


def _expected(theta: np.ndarray, a: int) -> np.ndarray:
    """Points ``a`` is expected to score against each entrant in one comparison, per fit (1/2
    against itself)."""
    expected: np.ndarray = 1.0 / (1.0 + np.exp(theta - theta[:, a:a + 1]))
    return expected


def _elo(theta: np.ndarray, a: int, keep: np.ndarray, weight: np.ndarray,
         observed: float) -> float:
    """The rating shift of ``a`` (Elo) after which its expected points equal ``observed``."""
    low, high = -ELO_BOUND / ELO_PER_NAT, ELO_BOUND / ELO_PER_NAT
    for _ in range(60):
        middle = (low + high) / 2.0
        expected = 1.0 / (1.0 + np.exp(theta - theta[a] - middle))
        expected[a] = 0.5  # a against itself: 1/2, whatever its rating
        if weight @ expected[keep] < observed:
            low = middle
        else:
            high = middle
    return (low + high) / 2.0 * ELO_PER_NAT


def _fit(wins: np.ndarray, group: np.ndarray, start: np.ndarray | None = None) -> np.ndarray:
    """Logits of a batch of win matrices, fitted within each linked group of entrants (the
    prior joins every two entrants compared, so each group is strongly connected)."""
    batch, n = wins.shape[:2]
    theta = np.zeros((batch, n)) if start is None else np.tile(start, (batch, 1))
    for first in sorted(set(group.tolist())):
        members = np.flatnonzero(group == first)
        if members.size < 2:
            continue
        inner = wins[:, members][:, :, members]
        fine = strongly_connected(inner > 0)
        part = theta[:, members]
        part[fine] = newton(inner[fine], part[fine])
        theta[:, members] = part
    return theta


def _components(linked: np.ndarray) -> np.ndarray:
    """Each entrant's linked group (a symmetric ``linked``), by its first member."""
    reach = linked | np.eye(len(linked), dtype=bool)
    while True:
        wider = (reach.astype(np.float32) @ reach.astype(np.float32)) > 0
        if (wider == reach).all():
            break
        reach = wider
    component: np.ndarray = np.argmax(reach, axis=1)
    return component


def _holm(p_values: Sequence[float | None]) -> list[float | None]:
    """Holm's step-down correction of the p-values given (None: not measured, left out)."""
    given = [(p, index) for index, p in enumerate(p_values) if p is not None]
    given.sort()
    corrected: list[float | None] = [None] * len(p_values)
    running = 0.0
    m = len(given)
    for rank, (p, index) in enumerate(given):
        running = max(running, min(1.0, (m - rank) * p))
        corrected[index] = running
    return corrected


def _tally(results: Iterable[Mapping[str, object]]) -> _Games:
    """The results as ``_Games``; ResultsError naming the first bad one."""
    game_entrants: list[Sequence[str]] = []
    set_names: list[object] = []
    seeds: list[object] = []
    deal_rows: list[np.ndarray] = []
    forfeits: list[Sequence[bool]] = []
    owner_of: dict[str, set[str]] = defaultdict(set)
    for count, obj in enumerate(results, 1):
        try:
            entrants, _, _, forfeit, _ = result_fields(obj)
            scores = _deal_scores(obj.get("deal_scores"), len(entrants))
        except ResultsError as error:
            raise ResultsError(f"result {count}: {error}") from None
        names, owners = obj.get("names"), obj.get("owners")
        if isinstance(names, list) and isinstance(owners, list):
            for name, owner in zip(names, owners, strict=False):
                owner_of[str(name)].add(str(owner))
        game_entrants.append(entrants)
        named = obj.get("set")
        set_names.append(named if isinstance(named, str) else None)
        seeds.append(obj.get("seed"))
        deal_rows.append(scores)
        forfeits.append(forfeit)
    if not game_entrants:
        raise ResultsError("no game results to audit")
    names = sorted({name for entrants in game_entrants for name in entrants})
    number = {name: i for i, name in enumerate(names)}
    games, n = len(game_entrants), len(names)
    present = np.zeros((games, n), dtype=bool)
    for game, entrants in enumerate(game_entrants):
        present[game, [number[name] for name in entrants]] = True
    set_of_game = np.empty(games, dtype=np.int64)
    set_number: dict[object, int] = {}
    held: dict[object, list[tuple[int, int]]] = defaultdict(list)  # cards' key: (game, position)
    for game, name in enumerate(set_names):
        key = ("game", game) if name is None else name
        set_of_game[game] = set_number.setdefault(key, len(set_number))
        if name is not None:
            players = len(game_entrants[game])
            for position in range(players):
                held[(name, seeds[game], players, position)].append((game, position))
    first, second = [], []
    for rows in held.values():
        for one, other in combinations(rows, 2):
            first.append(one)
            second.append(other)
    points, deals = _compare(first, second, deal_rows, forfeits)
    first_game = np.array([game for game, _ in first], dtype=np.int64)
    second_game = np.array([game for game, _ in second], dtype=np.int64)
    return _Games(
        names=names,
        owners=[frozenset(_owners(name, owner_of)) for name in names],
        present=present,
        set_of_game=set_of_game,
        sets=len(set_number),
        first=first_game,
        first_entrant=np.array([number[game_entrants[g][p]] for g, p in first], dtype=np.int64),
        second=second_game,
        second_entrant=np.array([number[game_entrants[g][p]] for g, p in second], dtype=np.int64),
        points=points,
        deals=deals,
    )


def _owners(entrant: str, owner_of: Mapping[str, set[str]]) -> set[str]:
    """An entrant's owners: its seats' (a team's, ``a+b``, its members'); a bot the records give
    no owner is its own owner."""
    if entrant in owner_of:
        return set(owner_of[entrant])
    members = entrant.split("+")
    if len(members) > 1 and all(member in owner_of for member in members):
        return set().union(*(owner_of[member] for member in members))
    return {entrant}


def _deal_scores(found: object, positions: int) -> np.ndarray:
    """Each finished deal's scores, deals x positions; none when the result has none."""
    if found is None:
        return np.zeros((0, positions))
    if type(found) is not list or not all(
            type(deal) is list and len(deal) == positions
            and all(type(score) in (int, float) for score in deal) for deal in found):
        raise ResultsError(f"'deal_scores' must be a list of deals, each {positions} numbers")
    return np.array(found, dtype=np.float64).reshape(len(found), positions)


def _compare(first: list[tuple[int, int]], second: list[tuple[int, int]],
             deal_rows: list[np.ndarray], forfeits: list[Sequence[bool]]
             ) -> tuple[np.ndarray, np.ndarray]:
    """(points of each first against its second, deals compared), as the ``deals`` model counts
    them: over the deals both finished, 1 for the higher score, 1/2 each when equal; a forfeit
    loses every one to a position that did not forfeit."""
    points = np.zeros(len(first))
    deals = np.zeros(len(first))
    for index, ((g1, p1), (g2, p2)) in enumerate(zip(first, second, strict=True)):
        both = min(len(deal_rows[g1]), len(deal_rows[g2]))
        deals[index] = both
        lost_1, lost_2 = forfeits[g1][p1], forfeits[g2][p2]
        if lost_1 != lost_2:
            points[index] = 0.0 if lost_1 else float(both)
            continue
        mine, theirs = deal_rows[g1][:both, p1], deal_rows[g2][:both, p2]
        points[index] = float((mine > theirs).sum() + 0.5 * (mine == theirs).sum())
    return points, deals
