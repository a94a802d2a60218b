"""A game's ``result`` object: what the ratings read of a results line, made and checked here.

``result_of`` makes it from a game's record (entrants, scores, ranks after the fault policy,
forfeits, faults per entrant); ``check_result`` reads one back as a ``GameResult``. A result
object given by hand (``arena table`` reads bare ones too, docs/ratings.md) may leave out
``ranks`` (then the order of the scores, forfeits last), ``forfeits`` (none) and ``faults``
(zero); the arena always writes them.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

import engine
from arena.errors import ResultsError
from arena.settings import FaultPolicy
from engine.errors import OptionError


@dataclass(frozen=True)
class GameResult:
    """One game's result, by entrant in seat order (by team in partnership games)."""

    entrants: tuple[str, ...]
    scores: tuple[float, ...]
    ranks: tuple[int, ...]
    forfeits: tuple[bool, ...]
    faults: tuple[int, ...]


def result_of(record: Mapping[str, Any], entrants: Sequence[str], policy: FaultPolicy) -> dict[str, Any]:
    """The ``result`` object of a game for the ratings: entrants, scores, ranks, forfeits, faults.

    Entrants are as the game's ``info.entrants`` gives them: by seat, or by team in a team game.
    """
    info = engine.game(record["game"]).info
    faults = [0] * len(info.entrants(record["names"]))
    for fault in record["faults"]:
        faults[info.entrant_of(fault["seat"])] += 1
    forfeits = [policy is FaultPolicy.FORFEIT and n > 0 for n in faults]
    return {
        "entrants": list(entrants),
        "scores": list(record["scores"]),
        "ranks": forfeit_places(record["places"], forfeits),
        "forfeits": forfeits,
        "faults": faults,
    }


def rating_input(line: Mapping[str, Any]) -> dict[str, Any]:
    """The result of an upgraded line with what the duplicate models need besides: ``seed``, the
    deals' seed, and ``deal_scores``, each finished deal's scores indexed like the result's
    ``scores``, when the line has them (a line may hold only a result); for the ``adjusted``
    model also ``deal_chance``, each deal's ``[dealer, trump, hands, trump_card]``, with the line's
    ``id``, ``game`` and ``options``, and a team game's ``teams``."""
    result: dict[str, Any] = line["result"]
    extra: dict[str, object] = {}
    if "seed" in line:
        extra["seed"] = line["seed"]
    deals = line.get("deals")
    if isinstance(deals, list):
        scores = [deal.get("scores") for deal in deals if isinstance(deal, dict)]
        if len(scores) == len(deals):
            extra["deal_scores"] = scores
            spread = deal_range(line)
            if spread is not None:
                extra["deal_range"] = spread
        # The deals' chance events, for the luck-adjusted model (arena.ratings.luck).
        chance = [[deal.get("dealer"), deal.get("trump"), deal.get("hands"), deal.get("trump_card")]
                  for deal in deals if isinstance(deal, dict) and "hands" in deal]
        if chance and len(chance) == len(deals):
            extra["deal_chance"] = chance
            # What a deal's play-out needs besides (``arena.ratings.luck.playout_values``), and
            # the game's id, which its values are kept beside the results by.
            extra.update((key, line[key]) for key in ("id", "game", "options") if key in line)
    if isinstance(line.get("teams"), list):
        extra["teams"] = line["teams"]
    return {**result, **extra} if extra else result


def deal_range(line: Mapping[str, Any]) -> list[int] | None:
    """``[lowest, highest]``: the scores one entrant can take in one deal of the line's game, by
    its rules (``engine``'s ``deal_score_range``), for the ``margins`` model's M; None when the
    line does not say its game, players and options, or its game refuses them."""
    game, players, options = line.get("game"), line.get("players"), line.get("options")
    if type(game) is not str or type(players) is not int or not isinstance(options, dict):
        return None
    try:
        return list(_deal_range(game, players, orjson.dumps(options)))
    except (OptionError, orjson.JSONEncodeError):
        return None


@functools.lru_cache(maxsize=64)
def _deal_range(game: str, players: int, options: bytes) -> tuple[int, int]:
    """``deal_range`` by a hashable key, the options as JSON: a results file holds few games and
    option sets."""
    return engine.game(game).deal_score_range(players, orjson.loads(options))


def audit_input(line: Mapping[str, Any]) -> dict[str, Any]:
    """What the collusion audit (``arena.ratings.audit``) reads of a line: its rating input, the
    seats' ``names`` and, when the line has them, their ``owners`` (by seat, like ``names``).
    ResultsError when ``names`` or ``owners`` are not lists of names, ``owners`` one per seat."""
    found = rating_input(line)
    names, owners = line.get("names"), line.get("owners")
    if names is None:
        return found
    if type(names) is not list or not all(type(name) is str for name in names):
        raise ResultsError("'names' must be a list of names, one per seat")
    extra: dict[str, Any] = {"names": names}
    if owners is not None:
        if (type(owners) is not list or len(owners) != len(names)
                or not all(type(owner) is str and owner for owner in owners)):
            raise ResultsError(f"'owners' must be a list of {len(names)} names, one per seat")
        extra["owners"] = owners
    return {**found, **extra}


def forfeit_places(places: Sequence[int], forfeits: Sequence[bool]) -> list[int]:
    """Places with every forfeiting entrant below every other; order within each group kept."""
    keys = [(not lost, -place) for place, lost in zip(places, forfeits, strict=True)]
    return [1 + sum(other > key for other in keys) for key in keys]


def check_result(obj: object) -> GameResult:
    """The `result` object `obj` as a GameResult; ResultsError saying what is wrong with it.

    `entrants` and `scores` are required; `ranks` default to the order of the pairwise outcomes,
    `forfeits` to none, `faults` to zero.
    """
    entrants, scores, ranks, forfeits, faults = result_fields(obj)
    problem = value_problem(scores, ranks, faults)
    if problem:
        raise ResultsError(problem)
    return GameResult(tuple(entrants), tuple(scores), tuple(ranks), tuple(forfeits), tuple(faults))


_LISTS = (list, tuple)
_NAME_TYPES = frozenset((str,))
_NUMBER_TYPES = frozenset((int, float))
_INT_TYPES = frozenset((int,))
_BOOL_TYPES = frozenset((bool,))


def result_fields(obj: object) -> tuple[Sequence[str], Sequence[float], Sequence[int],
                                        Sequence[bool], Sequence[int]]:
    """The result's entrants, scores, ranks, forfeits and faults, their types and lengths
    checked (their values: ``value_problem``); ResultsError saying what is wrong."""
    if type(obj) is not dict:
        if isinstance(obj, GameResult):
            return obj.entrants, obj.scores, obj.ranks, obj.forfeits, obj.faults
        if not isinstance(obj, Mapping):
            raise ResultsError(f"a result must be an object, not {type(obj).__name__}")
    # Set-of-types checks: this runs once per game, and 100,000 games should take well under 1 s.
    entrants: Any = obj.get("entrants")
    if (type(entrants) not in _LISTS or len(entrants) < 2
            or not _NAME_TYPES.issuperset(map(type, entrants)) or "" in entrants):
        raise ResultsError("'entrants' must be a list of at least two names")
    players = len(entrants)
    scores: Any = obj.get("scores")
    if (type(scores) not in _LISTS or len(scores) != players
            or not _NUMBER_TYPES.issuperset(map(type, scores))):
        raise ResultsError(f"'scores' must be a list of {players} numbers, one per entrant")
    forfeits: Any = obj.get("forfeits")
    if forfeits is None:
        forfeits = (False,) * players
    elif (type(forfeits) not in _LISTS or len(forfeits) != players
          or not _BOOL_TYPES.issuperset(map(type, forfeits))):
        raise ResultsError(f"'forfeits' must be a list of {players} true/false, one per entrant")
    faults: Any = obj.get("faults")
    if faults is None:
        faults = (0,) * players
    elif (type(faults) not in _LISTS or len(faults) != players
          or not _INT_TYPES.issuperset(map(type, faults))):
        raise ResultsError(f"'faults' must be a list of {players} counts, one per entrant")
    ranks: Any = obj.get("ranks")
    if ranks is None:
        ranks = _derived_ranks(scores, forfeits)
    elif (type(ranks) not in _LISTS or len(ranks) != players
          or not _INT_TYPES.issuperset(map(type, ranks))):
        raise ResultsError(f"'ranks' must be a list of {players} places, one per entrant")
    return entrants, scores, ranks, forfeits, faults


def value_problem(scores: Sequence[float], ranks: Sequence[int], faults: Sequence[int]
                  ) -> str | None:
    """What is wrong with the values of a result whose types are right, or None."""
    players = len(scores)
    if not all(math.isfinite(score) for score in scores):
        return f"'scores' must be finite numbers, got {list(scores)}"
    if not all(1 <= rank <= players for rank in ranks):
        return f"'ranks' must be places from 1 to {players}, got {list(ranks)}"
    if not all(fault >= 0 for fault in faults):
        return f"'faults' must be counts of 0 or more, got {list(faults)}"
    return None


def _derived_ranks(scores: Sequence[float], forfeits: Sequence[bool]) -> list[int]:
    def better(a: int, b: int) -> bool:
        if forfeits[a] != forfeits[b]:
            return forfeits[b]
        return scores[a] > scores[b]

    seats = range(len(scores))
    return [1 + sum(better(b, a) for b in seats) for a in seats]
