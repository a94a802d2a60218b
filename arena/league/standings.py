"""What the league's games say now: the results of the active entrants, their ratings, counts."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import orjson

from arena.errors import ArenaError
from arena.league.matchmaker import Entrant
from arena.league.store import Store
from arena.ratings.model import Flag, rate
from arena.ratings.record import rating_input
from arena.settings import RatingModel

MATCHMAKER_RESAMPLES = 200
"""Bootstrap resamples behind the intervals the matchmaker reads (enough to rank uncertainty)."""


def active_results(store: Store) -> list[dict[str, Any]]:
    """The result objects of the games among active versions, each named by its bot's name alone
    (one active version per name), for ``league table``."""
    names = {bot.key: bot.name for bot in store.bots()}
    results = []
    for line in store.lines(active_only=True):
        result = rating_input(orjson.loads(line))
        assert isinstance(result, dict)  # the league stored it: a game line with a result
        result["entrants"] = [names.get(key, key) for key in result["entrants"]]
        results.append(result)
    return results


def export_lines(store: Store) -> Iterator[bytes]:
    """Every game's line, as ``arena run`` writes them (entrants named ``NAME@VERSION``)."""
    yield from store.lines()


def matchmaker_entrants(store: Store, seed: int = 0,
                        model: RatingModel | None = None) -> list[Entrant]:
    """The active entrants with their sets played and current rating intervals."""
    active = store.bots()
    sets = store.set_counts()
    results = active_results(store)
    rows = {}
    if results:
        try:
            ratings = rate(results, resamples=MATCHMAKER_RESAMPLES, seed=seed, model=model)
        except (ArenaError, ValueError):  # not ratable yet (e.g. no pairing links them): none
            ratings = None
        if ratings is not None:
            rows = {row.name: row for row in ratings.standings}
    entrants = []
    for bot in active:
        row = rows.get(bot.name)
        entrants.append(Entrant(bot.key, sets.get(bot.id, 0),
                                None if row is None else row.rating,
                                None if row is None else row.lower,
                                None if row is None else row.upper))
    return entrants


def leader(store: Store, model: RatingModel | None = None) -> str | None:
    """The active entrant at the top of the table now, as ``NAME (Elo R)`` (``NAME (won every
    pairing)`` without a finite rating); None before the league's games can rate anyone. The fit
    alone, without the bootstrap: cheap enough to ask between two batches of games."""
    results = active_results(store)
    if not results:
        return None
    try:
        ratings = rate(results, resamples=0, model=model)
    except (ArenaError, ValueError):
        return None
    top = next((row for row in ratings.standings if row.place == 1), None)
    if top is None:
        return None
    if top.rating is not None:
        return f"{top.name} (Elo {top.rating:.0f})"
    return f"{top.name} (won every pairing)" if top.flag is Flag.TOP else None
