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

Two seats of one entrant (a team of copies meeting itself) are not compared. A game without a set,
or alone in its set, gives no comparisons. No I/O here: ``arena.ratings.model`` calls this while
it tallies the results.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np


@dataclass(frozen=True)
class Position:
    """One entrant at one position of one game, as the comparisons read it."""

    game: int  # the game's canonical number (the bootstrap draws it with its set)
    entrant: int
    total: float
    rank: int
    forfeit: bool
    deals: tuple[float, ...]  # its score in each finished deal (empty when the record has none)


def records(positions: Sequence[tuple[object, Position]], entrants: int, per_deal: bool
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(game, cell, points) of every comparison: ``points`` that entrant ``cell // entrants``
    scored against ``cell % entrants``, credited to the earlier game of the two (both are in one
    set, which the bootstrap draws whole). ``positions`` pairs each position with its key: the
    same key, the same cards."""
    held: dict[object, list[Position]] = defaultdict(list)
    for key, position in positions:
        held[key].append(position)
    games: list[int] = []
    cells: list[int] = []
    points: list[float] = []
    for group in held.values():
        for a, b in combinations(group, 2):
            if a.entrant == b.entrant:
                continue
            won, lost = _deal_points(a, b) if per_deal else _total_points(a, b)
            game = min(a.game, b.game)
            for cell, share in ((a.entrant * entrants + b.entrant, won),
                                (b.entrant * entrants + a.entrant, lost)):
                if share > 0:
                    games.append(game)
                    cells.append(cell)
                    points.append(share)
    return (np.array(games, dtype=np.int64), np.array(cells, dtype=np.int64),
            np.array(points, dtype=np.float64))


def _total_points(a: Position, b: Position) -> tuple[float, float]:
    key_a = (not a.forfeit, a.total, -a.rank)
    key_b = (not b.forfeit, b.total, -b.rank)
    if key_a == key_b:
        return 0.5, 0.5
    return (1.0, 0.0) if key_a > key_b else (0.0, 1.0)


def _deal_points(a: Position, b: Position) -> tuple[float, float]:
    deals = min(len(a.deals), len(b.deals))
    if a.forfeit != b.forfeit:
        return (0.0, float(deals)) if a.forfeit else (float(deals), 0.0)
    won = sum(x > y for x, y in zip(a.deals, b.deals, strict=False))
    lost = sum(x < y for x, y in zip(a.deals, b.deals, strict=False))
    drawn = deals - won - lost
    return won + 0.5 * drawn, lost + 0.5 * drawn
