"""The league's matchmaker: a pure function from the current standings to the next duplicate sets.

Priorities, for each table in turn:
1. **Newcomers**: an entrant with fewer than ``NEWCOMER_SETS`` sets (planned ones included) sits at
   the next table, the one with fewest first, with opponents spread over the field so that its
   first results place it quickly.
2. **Nobody starves**: an entrant with fewer than ``STARVING_SHARE`` of the mean number of sets, or
   fewer than 1 / ``MOST_PER_LEAST`` of the most any entrant has, goes next, the same way.
3. **Uncertainty**: otherwise the table is the run of neighbours in the current table whose 95%
   intervals overlap most (each interval shrunk for the sets already planned for it in this call,
   so one call spreads its tables): their results decide the orders that are least certain. An
   entrant without an interval (no resamples yet, or an unbounded one) counts as maximally
   uncertain. A pair that is **settled** (LOS over the next at least ``SETTLED_LOS``) or a **tie**
   (the interval of its difference inside +-``delta`` Elo: practically equal, e.g. two copies of
   one bot) counts as not overlapping at all: more games would not change the table there.
4. **Even spread**: when every pair is settled or tied, the table is the entrants with the fewest
   sets, so the games spread evenly until new results (or a new entrant) open a pair again.

Over all of these, an entrant that has not yet finished a game (``Entrant.has_finished_a_game``:
a new one, or one whose every game ended with its start failure, time-out or crash) sits at no
more than its **share** of one call's tables: ``ceil(count * size / len(entrants))``, what a
call that spread ``count`` tables of ``size`` seats evenly over the field would give each
entrant. A bot that stalls every game it sits in then holds up that share of a batch, not all of
it. (Only where the others cannot fill a table does it sit at more.)
**Owners apart**: no table seats two entrants of one owner (``Entrant.owner``; compared as names
are, ``arena.names.name_key``) when the field allows it: the uncertainty table is the best window
of neighbours of different owners, and the other tables take their opponents from owners not yet
at the table. Only where too few other owners are left (fewer owners than seats) does a table
seat one owner twice.
Everything is decided by the arguments (and ``seed``, for ties and the newcomers' opponents).
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from arena.names import name_key
from arena.settings import DELTA

NEWCOMER_SETS = 3
STARVING_SHARE = 0.25
MOST_PER_LEAST = 2.4
"""No entrant is left with fewer than 1/2.4 of the sets of the busiest: identical entrants, whose
order stays doubtful until their tie is clear, take at most about their fair share meanwhile."""
UNKNOWN_WIDTH = 2000.0
"""The interval width (Elo) assumed for an entrant without one."""
SETTLED_LOS = 0.95
"""A neighbour pair whose LOS reaches this is settled: its order is known."""


class PairState(StrEnum):
    """What the ratings say about two neighbours in the table."""

    OPEN = "open"
    SETTLED = "settled"
    TIE = "tie"


@dataclass(frozen=True)
class Entrant:
    """One active entrant as the matchmaker sees it: sets played, rating and 95% interval."""

    key: str
    sets: int
    rating: float | None = None
    lower: float | None = None
    upper: float | None = None
    los_next: float | None = None
    """Likelihood of superiority over the next entrant in the table (None: not known)."""
    gap_next: tuple[float, float] | None = None
    """The interval of its rating minus the next entrant's (None: taken from the two intervals)."""
    has_finished_a_game: bool = True
    """Whether it has played a game to its end (without a start failure, time-out or crash); one
    that has not sits at no more than its share of the tables of a call (``share``)."""
    owner: str | None = None
    """Who entered it; None: it is its own owner (it shares one with no other entrant)."""

    @property
    def owner_key(self) -> str:
        """Its owner as compared: ``owner``'s name key, else a key of its own."""
        return name_key(self.owner) if self.owner is not None else f"\0{self.key}"

    @property
    def width(self) -> float:
        """The interval's width in Elo (``UNKNOWN_WIDTH`` when there is none, or it is unbounded)."""
        if self.lower is None or self.upper is None:
            return UNKNOWN_WIDTH
        width = self.upper - self.lower
        return width if math.isfinite(width) else UNKNOWN_WIDTH


def ordered(entrants: Sequence[Entrant]) -> list[Entrant]:
    """The entrants in table order: best rating first, unrated last (by key)."""
    return sorted(entrants, key=lambda e: (-(e.rating if e.rating is not None else -math.inf),
                                           e.key))


def pair_states(entrants: Sequence[Entrant], delta: float = DELTA.default
                ) -> list[tuple[Entrant, Entrant, PairState]]:
    """Each two neighbours in table order and whether their order is settled, a tie or open."""
    order = ordered(entrants)
    return [(upper, lower, _state(upper, lower, delta)) for upper, lower in itertools.pairwise(order)]


def _state(upper: Entrant, lower: Entrant, delta: float) -> PairState:
    if upper.rating is None or lower.rating is None:
        return PairState.OPEN
    if upper.los_next is not None and upper.los_next >= SETTLED_LOS:
        return PairState.SETTLED
    gap = upper.gap_next
    if gap is None:  # the two intervals' reach around the difference: wider than its own
        if upper.width >= UNKNOWN_WIDTH or lower.width >= UNKNOWN_WIDTH:
            return PairState.OPEN
        difference = upper.rating - lower.rating
        reach = (upper.width + lower.width) / 2
        gap = (difference - reach, difference + reach)
    if -delta <= gap[0] and gap[1] <= delta:
        return PairState.TIE
    return PairState.OPEN


def share(count: int, size: int, field: int) -> int:
    """The tables of ``count`` (each of ``size`` seats) an entrant of a field of ``field`` sits at
    when they are spread evenly: ``ceil(count * size / field)``, at most ``count``."""
    return min(count, -(-count * size // max(field, 1)))


def next_tables(entrants: Sequence[Entrant], size: int, count: int,
                seed: int = 0, delta: float = DELTA.default) -> list[tuple[str, ...]]:
    """The next ``count`` tables of ``size`` entrants (keys), most useful first; none when there
    are fewer than ``size`` entrants. ``delta``: the tie margin (Elo)."""
    if len(entrants) < size or count <= 0:
        return []
    rng = random.Random(seed)
    planned = {e.key: 0 for e in entrants}
    most_unfinished = share(count, size, len(entrants))
    every = ordered(entrants)
    closed = {upper.key for upper, _, state in pair_states(every, delta)
              if state is not PairState.OPEN}
    tables = []
    for _ in range(count):
        order = [e for e in every if e.has_finished_a_game or planned[e.key] < most_unfinished]
        if len(order) < size:  # too few others to fill a table without them
            order = every
        sets = {e.key: e.sets + planned[e.key] for e in entrants}
        mean = sum(sets.values()) / len(sets)
        most = max(sets.values())
        needy = [e for e in order if sets[e.key] < NEWCOMER_SETS
                 or sets[e.key] < STARVING_SHARE * mean or sets[e.key] * MOST_PER_LEAST < most]
        table = None if needy else _uncertain_table(order, planned, size, closed)
        if table is None:
            pool = needy or list(order)  # every pair settled or tied: spread evenly
            focus = min(pool, key=lambda e: (sets[e.key], rng.random()))
            others = [e for e in order if e.key != focus.key]
            rng.shuffle(others)  # spread over the field: random opponents, least played first
            others.sort(key=lambda e: sets[e.key])
            table = [focus.key] + [e.key for e in _apart(focus, others, size - 1)]
        for key in table:
            planned[key] += 1
        tables.append(tuple(table))
    return tables


def _uncertain_table(order: Sequence[Entrant], planned: dict[str, int], size: int,
                     closed: set[str]) -> list[str] | None:
    """The ``size`` entrants next to each other in the table whose adjacent intervals overlap most;
    None when no pair is open (every one settled or tied).

    Each adjacent pair scores the share of its two (half-)intervals that overlap (0 when they are
    apart, or settled or tied: its upper entrant's key in ``closed``); a window of ``size``
    neighbours scores its best pair plus half the sum of its pairs:
    one set there tests the most doubtful order and the orders next to it. (Measured in bench/league.py
    against alternatives: the best pair with the nearest-rated entrants, and sums alone.)
    """

    def half_width(e: Entrant) -> float:
        # An interval narrows about as 1/sqrt(sets): count the sets planned in this call.
        if not e.sets:
            return UNKNOWN_WIDTH
        return e.width / 2 * math.sqrt(e.sets / (e.sets + planned[e.key]))

    if size < 2:  # a table of one has no order to test: the least certain entrant
        return [max(order, key=half_width).key]
    apart = [len({e.owner_key for e in order[start:start + size]}) == size
             for start in range(len(order) - size + 1)]
    shares = [0.0 if upper.key in closed else
              _overlap(upper, lower, half_width(upper) + half_width(lower))
              for upper, lower in itertools.pairwise(order)]
    if not any(shares):
        return None
    if not any(apart):  # no run of neighbours of different owners: spread the tables instead
        return None
    best, best_score = 0, -math.inf
    for start in range(len(order) - size + 1):
        if not apart[start]:
            continue
        window = shares[start:start + size - 1]
        score = max(window) + 0.5 * sum(window)
        if score > best_score:
            best, best_score = start, score
    return [e.key for e in order[best:best + size]]


def _apart(focus: Entrant, others: Sequence[Entrant], count: int) -> list[Entrant]:
    """The first ``count`` of ``others`` whose owners are not yet at the table (``focus``'s,
    then each taken one's); where too few owners are left, the first of the rest after them."""
    taken: list[Entrant] = []
    owners = {focus.owner_key}
    for other in others:
        if len(taken) < count and other.owner_key not in owners:
            taken.append(other)
            owners.add(other.owner_key)
    rest = [other for other in others if other not in taken]
    return taken + rest[:count - len(taken)]


def _overlap(upper: Entrant, lower: Entrant, reach: float) -> float:
    """The share of two neighbours' half-intervals (``reach`` in all) that overlap, in [0, 1].

    Zero-width intervals (every resample agrees, e.g. identical bots that always tie) overlap
    fully when the ratings are equal, since that order is a coin toss, and not at all otherwise.
    """
    gap = abs((upper.rating or 0.0) - (lower.rating or 0.0))
    if math.isnan(gap) or math.isnan(reach) or math.isinf(reach):
        return 1.0  # a rating or an interval the model could not give: maximally uncertain
    if reach <= 0.0:
        return 1.0 if gap == 0.0 else 0.0
    return max(reach - gap, 0.0) / reach  # an infinite gap: 0
