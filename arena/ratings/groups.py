"""Ratings of results that fall apart: each group of entrants linked by games is rated on its own.

Results merged from several files, or a league whose bridging entrant retired, can hold groups of
entrants that never met: no rating compares them. Rather than rate only the largest group and
leave the others unrated, ``rate_groups`` finds the groups (entrants that shared a game are
linked) and rates each with ``arena.ratings.model.rate``; the table shows the group of each row
and says that ratings are comparable only inside a group.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from arena.connectivity import groups
from arena.errors import ConfigError
from arena.ratings.model import CONFIDENCE, POOL_MEAN, Ratings, rate
from arena.records.result import GameResult
from arena.settings import RESAMPLES, RatingModel


@dataclass(frozen=True, eq=False)
class GroupedRatings:
    """Ratings of every group in one table: rows group by group (largest first), each row's
    group number (1, 2, ...) in ``group_of``; ``wins`` is block-diagonal."""

    ratings: Ratings
    group_of: tuple[int, ...]

    @property
    def groups(self) -> int:
        """How many groups of entrants never linked to each other by games."""
        return max(self.group_of, default=1)


def rate_groups(
    results: Sequence[Mapping[str, object] | GameResult],
    *,
    anchor: tuple[str, float] | None = None,
    pool_mean: float = POOL_MEAN,
    resamples: int = RESAMPLES.default,
    seed: int = 0,
    confidence: float = CONFIDENCE,
    model: RatingModel | str | None = None,
) -> GroupedRatings:
    """Rate each group of ``results`` linked by games; one group gives exactly ``rate``'s table.

    The anchor fixes its own group; the other groups are centred on ``pool_mean``.
    """
    lists = _entrants(results)
    try:
        names = sorted({name for entrants in lists for name in entrants})
        found = groups(lists, names) if names and all(lists) else []
    except TypeError:  # a name that is not a string: ``rate`` says which result
        found = []
    if len(found) <= 1:  # one group, or a malformed result that ``rate`` reports
        single = rate(results, anchor=anchor, pool_mean=pool_mean, resamples=resamples, seed=seed,
                      confidence=confidence, model=model)
        return GroupedRatings(single, (1,) * len(single.standings))
    if anchor is not None and anchor[0] not in names:
        raise ConfigError(f"--anchor: {anchor[0]!r} is not an entrant (entrants: "
                          f"{', '.join(names)})")
    number = {name: index for index, group in enumerate(found) for name in group}
    parts: list[list[Mapping[str, object] | GameResult]] = [[] for _ in found]
    for result, entrants in zip(results, lists, strict=True):
        parts[number[entrants[0]]].append(result)
    rated = [rate(part, anchor=anchor if anchor is not None and anchor[0] in group else None,
                  pool_mean=pool_mean, resamples=resamples, seed=seed, confidence=confidence,
                  model=model)
             for part, group in zip(parts, found, strict=True)]
    size = sum(len(r.standings) for r in rated)
    wins = np.zeros((size, size))
    start = 0
    for r in rated:
        end = start + len(r.standings)
        wins[start:end, start:end] = r.wins
        start = end
    combined = Ratings(
        standings=tuple(row for r in rated for row in r.standings), wins=wins,
        games=sum(r.games for r in rated), pool_mean=pool_mean,
        anchor=None if anchor is None else (anchor[0], float(anchor[1])), resamples=resamples,
        degenerate_resamples=sum(r.degenerate_resamples for r in rated), seed=seed,
        confidence=confidence, model=rated[0].model, prior=rated[0].prior,
        margin=rated[0].margin if len({r.margin for r in rated}) == 1 else None)
    group_of = tuple(index + 1 for index, r in enumerate(rated) for _ in r.standings)
    return GroupedRatings(combined, group_of)


def _entrants(results: Iterable[Mapping[str, object] | GameResult]) -> list[Sequence[str]]:
    """Each result's entrants as given; a malformed one counts as none (``rate`` reports it).

    No per-name checks here: this runs over every game before ``rate`` checks them anyway."""
    found: list[Sequence[str]] = []
    for result in results:
        entrants = (result.entrants if isinstance(result, GameResult)
                    else result.get("entrants") if isinstance(result, Mapping) else None)
        found.append(entrants if type(entrants) in (list, tuple) else ())  # type: ignore[arg-type]
    return found
