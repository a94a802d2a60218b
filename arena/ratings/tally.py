"""Results tallied as arrays for the fit: who scored what against whom in which game, each game's
duplicate set, and every entrant's games, places, faults and forfeits.

What a comparison is depends on the rating model (``places`` compares places, the duplicate models
the entrants that held the same cards, ``arena.ratings.duplicate``); everything after the tally is
the same for every model (``arena.ratings.model``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np

from arena.errors import ResultsError
from arena.ratings import duplicate as duplicate_comparisons
from arena.ratings import luck
from arena.records.result import GameResult, result_fields, value_problem
from arena.settings import RatingModel as Model

_LISTS = (list, tuple)
_NUMBER_TYPES = frozenset((int, float))


def points(result: GameResult, a: int, b: int) -> float:
    """Points of seat ``a`` against seat ``b``: from the places, which already hold forfeits and
    the game's tie-break (equal places are a draw)."""
    if result.ranks[a] == result.ranks[b]:
        return 0.5
    return 1.0 if result.ranks[a] < result.ranks[b] else 0.0


@dataclass
class GameArrays:
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
    margin: float | None = None  # the margins model's M: the largest deal margin (None: several)


def tally_results(results: Iterable[Mapping[str, object] | GameResult], model: Model) -> GameArrays:
    seat_name: list[str] = []
    seat_score: list[float] = []
    seat_rank: list[int] = []
    seat_forfeit: list[bool] = []
    seat_faults: list[int] = []
    sizes: list[int] = []
    set_names: list[object] = []
    deal_keys: list[object] = []  # by game: what its deals are known by (its seed), or None
    deal_scores: list[Sequence[Sequence[float]]] = []
    chances: list[list[luck.DealChance] | None] = []  # the adjusted model's chance events
    teams: list[object] = []
    values: list[Sequence[Sequence[float]] | None] = []  # the deals' play-outs (``luck``)
    spreads: list[float] = []  # the margins model's M of each game by its rules (NaN: not known)
    duplicate = model is not Model.PLACES
    per_deal = model in (Model.DEALS, Model.ADJUSTED, Model.MARGINS)
    for count, obj in enumerate(results, 1):
        try:
            entrants, scores, ranks, forfeits, faults = result_fields(obj)
            if duplicate:
                deal_keys.append(obj.get("seed") if isinstance(obj, Mapping) else None)
                deal_scores.append(_deal_scores(obj, len(entrants)))
            if model is Model.MARGINS:
                spreads.append(_spread(obj))
            if model is Model.ADJUSTED and isinstance(obj, Mapping):
                chances.append(luck.chance_of(obj))
                teams.append(obj.get("teams"))
                kept = obj.get("deal_values")  # kept beside the results (arena.ratings.table)
                values.append(kept if isinstance(kept, list) else luck.playout_values(obj))
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
    margin = None
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
        scored = deal_scores if per_deal else None
        if model is Model.ADJUSTED:
            scored = _adjusted(chances, deal_scores, teams, set_names, size, values)
        compared = duplicate_comparisons.records(
            _positions(set_names, deal_keys, scored, size, start, canonical, entrant, score, rank,
                       forfeit, spreads if model is Model.MARGINS else None),
            n, per_deal=per_deal, across=model is Model.ADJUSTED, margins=model is Model.MARGINS)
        found.append((compared.game, compared.cell, compared.points))
        margin = compared.margin
    record_game = np.concatenate([g for g, _, _ in found])
    record_cell = np.concatenate([c for _, c, _ in found])
    record_points = np.concatenate([p for _, _, p in found])
    set_of_game, sets = _sets(set_names, canonical)
    wins = np.bincount(record_cell, weights=record_points, minlength=n * n).reshape(n, n)
    return GameArrays(
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
        margin=margin,
    )


def _positions(set_names: list[object], deal_keys: list[object],
               deal_scores: list[Sequence[Sequence[float]]] | None, size: np.ndarray,
               start: np.ndarray, canonical: np.ndarray, entrant: np.ndarray, score: np.ndarray,
               rank: np.ndarray, forfeit: np.ndarray, spreads: list[float] | None = None
               ) -> duplicate_comparisons.Positions:
    """The seats of the games in a duplicate set (a set name; a game without one is a set of its
    own, and nobody else held its cards), keyed by what their cards are known by: set, deals'
    seed, table size and position. With ``deal_scores``, each seat's score in each deal; with
    ``spreads``, each game's largest deal margin by its rules (NaN where not known)."""
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
        forfeit=forfeit[seat], deals=deals, dealt=dealt,
        spread=np.array(spreads, dtype=np.float64)[game] if spreads else None)


def _adjusted(chances: list[list[luck.DealChance] | None],
              deal_scores: list[Sequence[Sequence[float]]], teams: list[object],
              set_names: list[object], size: np.ndarray,
              values: list[Sequence[Sequence[float]] | None]) -> list[Sequence[Sequence[float]]]:
    """Each game's deal scores, luck-adjusted where its chance events are known (``luck``);
    as they are where not (or wherever a game's deals do not match its positions)."""
    if len(chances) < len(deal_scores):  # results given as GameResults: nothing to adjust by
        return deal_scores
    positions = [[[seat] for seat in range(int(players))] if not isinstance(team, list)
                 else [list(members) if isinstance(members, list) else [] for members in team]
                 for team, players in zip(teams, size.tolist(), strict=True)]
    adjusted = luck.adjust(chances, deal_scores, positions, set_names, values)
    return [raw if found is None else found.tolist()
            for raw, found in zip(deal_scores, adjusted.scores, strict=True)]


def _spread(obj: Mapping[str, object] | GameResult) -> float:
    """The largest difference of two deal scores the game's rules allow (its ``deal_range``,
    ``arena.records.result.rating_input``); NaN when the result does not say."""
    found = obj.get("deal_range") if isinstance(obj, Mapping) else None
    if not isinstance(found, _LISTS) or len(found) != 2 \
            or not _NUMBER_TYPES.issuperset(map(type, found)):
        return math.nan
    low, high = float(found[0]), float(found[1])
    return high - low if math.isfinite(high - low) and high >= low else math.nan


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
