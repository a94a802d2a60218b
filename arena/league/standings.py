"""What the league's games say now: the results of the active entrants, their ratings, counts."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

from arena.errors import ArenaError
from arena.league.entrants import Bot
from arena.league.matchmaker import Entrant
from arena.league.store import Store
from arena.names import name_key
from arena.plans.seating import neighbour_counts
from arena.ratings import luck
from arena.ratings.groups import GroupedRatings, rate_groups
from arena.ratings.model import Flag, Ratings, Standing, rate
from arena.records.reader import parse_line
from arena.records.result import audit_input, rating_input
from arena.records.visible import Viewer, visible_line
from arena.settings import RESAMPLES, RatingModel

MATCHMAKER_RESAMPLES = 200
"""Bootstrap resamples behind the intervals the matchmaker reads (enough to rank uncertainty)."""


def active_results(store: Store) -> list[dict[str, Any]]:
    """The result objects of the games among active versions, their entrants named
    ``NAME@VERSION`` as in the games' lines and ``league status``."""
    return StandingsCache(store).results()


def audit_inputs(store: Store) -> list[dict[str, Any]]:
    """What the collusion audit reads of every stored game, old versions' too (a version's
    help is measured whether or not it is still active): ``arena.records.result.audit_input``."""
    return [audit_input(parse_line(line)) for line in store.games.lines()]


@dataclass(frozen=True)
class LeftOut:
    """The stored games the table does not rate: each seated a version no longer in the pool."""

    games: int
    stored: int
    versions: tuple[tuple[Bot, int], ...]
    """The replaced and retired versions that sat in them, each with its games."""

    def note(self, directory: object) -> str | None:
        """What the table says about them (None when it rates every game)."""
        if not self.games:
            return None
        versions = "; ".join(f"{bot.key} {bot.state}, {games} game{'s' * (games != 1)}"
                             for bot, games in self.versions)
        return (f"{self.games} of the {self.stored} games stored are not rated here: each seated "
                f"a version no longer in the pool ({versions}). `arena league export {directory}` "
                f"and `arena table {directory}/export/` rate every game of every version.")


@dataclass(frozen=True)
class LeagueRatings:
    """The table of the active entrants, as ``league table`` shows it and ``league status``
    reads its neighbours from: one fit, so the two agree."""

    rated: GroupedRatings
    left_out: LeftOut


def league_ratings(store: Store, *, resamples: int = RESAMPLES.default, seed: int = 0,
                   model: RatingModel | None = None) -> LeagueRatings | None:
    """The ratings of the games among the active versions (None before there are any), and
    what they leave out."""
    results = active_results(store)
    total, versions = store.games.left_out()
    left_out = LeftOut(total, store.games.total(), tuple(versions))
    if not results:
        return None
    rated = rate_groups(results, resamples=resamples, seed=seed, model=model)
    return LeagueRatings(rated, left_out)


def table_entrant(row: Standing, sets: int = 0) -> Entrant:
    """A table's row as the matchmaker (and ``league status``) reads it."""
    return Entrant(row.name, sets, row.rating, row.lower, row.upper, row.los_next, row.gap_next)


REFIT_GROWTH = 0.1
"""``StandingsCache`` fits the matchmaker's ratings again once the active games have grown by this
share since the last fit (and by at least ``REFIT_GAMES``): a fit rates every game, so fitting
before every batch made a league slow down as it grew (70 games/s at first, 25 at 10,000 games),
while a tenth more games hardly moves the intervals the matchmaker reads."""
REFIT_GAMES = 16


class StandingsCache:
    """The league's active games as rating inputs, read once each, its sets, and the last fit.

    A ``league run`` keeps one across its batches, so a batch costs the same at 10,000 stored games
    as at 1,000: each look reads only the games and sets stored since the last one (all the games
    again only when the active versions changed: a submission or a retirement), and the
    matchmaker's ratings (and the leader) are fitted again only once the games have grown by
    ``REFIT_GROWTH``."""

    def __init__(self, store: Store, model: RatingModel | None = None) -> None:
        self.store = store
        self.model = model
        self._active: tuple[tuple[int, str], ...] = ()
        self._last = 0
        self._results: list[dict[str, Any]] = []
        self._fitted_at = -1
        self._rows: dict[str, Any] = {}
        self._leader: str | None = None
        self._last_set = 0
        self._neighbours: Counter[tuple[int, int]] = Counter()
        self._set_counts: Counter[int] = Counter()

    def results(self) -> list[dict[str, Any]]:
        """The rating inputs of every game among the active versions, named ``NAME@VERSION``."""
        bots = self.store.entrants.bots()
        active = tuple((bot.id, bot.key) for bot in bots)
        if active != self._active:
            self._active, self._last, self._results, self._fitted_at = active, 0, [], -1
        for rowid, line in self.store.games.lines_after(self._last, active_only=True):
            found = rating_input(parse_line(line))
            if self.model is RatingModel.ADJUSTED and "deal_chance" in found:
                # played out once as the game is read, not at every fit (``luck``)
                values = luck.playout_values(found)
                if values is not None:
                    found["deal_values"] = values
            self._results.append(found)
            self._last = rowid
        return self._results

    def neighbours(self) -> Counter[tuple[int, int]]:
        """How often bot ``a`` sat directly before bot ``b`` (ids), over every set planned so far."""
        self._read_sets()
        return self._neighbours

    def entrants(self, seed: int = 0) -> list[Entrant]:
        """The active entrants with the sets planned for them, their rating intervals, whether
        each has finished a game, and their owners (a participant's; the organiser's entrants
        each their own)."""
        self._fit_if_due(seed)
        self._read_sets()
        entrants = []
        owners = self.store.owner_names()
        for bot in self.store.entrants.bots():
            row = self._rows.get(bot.key)
            entrant = (Entrant(bot.key, self._set_counts[bot.id]) if row is None
                       else table_entrant(row, self._set_counts[bot.id]))
            entrants.append(replace(entrant, has_finished_a_game=bot.has_finished_a_game,
                                    owner=owners.get(name_key(bot.name))))
        return entrants

    def leader(self, *, fresh: bool = False) -> str | None:
        """``leader`` as of the last fit (fitting first when it is due); ``fresh``: of every game
        stored now (one fit without the bootstrap, e.g. after a run's last game)."""
        if fresh:
            return _leader_of(self.results(), self.model)
        self._fit_if_due()
        return self._leader

    def _fit_if_due(self, seed: int = 0) -> None:
        results = self.results()
        grown = len(results) - self._fitted_at
        if self._fitted_at >= 0 and grown < max(REFIT_GAMES, REFIT_GROWTH * self._fitted_at):
            return
        self._rows, self._leader = {}, None
        if results:
            try:
                ratings = rate(results, resamples=MATCHMAKER_RESAMPLES, seed=seed, model=self.model)
            except (ArenaError, ValueError):  # not ratable yet (no pairing links them): none
                ratings = None
            if ratings is not None:
                self._rows = {row.name: row for row in ratings.standings}
                self._leader = _leader_text(ratings)
        self._fitted_at = len(results)

    def _read_sets(self) -> None:
        for set_id, order in self.store.games.seat_orders_after(self._last_set):
            self._neighbours.update(neighbour_counts([order]))
            self._set_counts.update(set(order))
            self._last_set = set_id


def export_lines(store: Store, viewer: Viewer) -> Iterator[bytes]:
    """Every game's line, as ``arena run`` writes them (entrants named ``NAME@VERSION``), in the
    current format, without its newline, as ``viewer`` may see it (``visible_line``: the bots'
    stderr only where the viewer may see it)."""
    for line in store.games.lines():
        yield visible_line(line, viewer)


def matchmaker_entrants(store: Store, seed: int = 0,
                        model: RatingModel | None = None) -> list[Entrant]:
    """The active entrants with their sets played and current rating intervals."""
    return StandingsCache(store, model).entrants(seed)


def leader(store: Store, model: RatingModel | None = None) -> str | None:
    """The active entrant at the top of the table now, as ``NAME@VERSION (Elo R)`` (``... (won every
    pairing)`` without a finite rating); None before the league's games can rate anyone. The fit
    alone, without the bootstrap: cheap enough to ask between two batches of games."""
    return _leader_of(active_results(store), model)


def _leader_of(results: list[dict[str, Any]], model: RatingModel | None) -> str | None:
    if not results:
        return None
    try:
        ratings = rate(results, resamples=0, model=model)
    except (ArenaError, ValueError):
        return None
    return _leader_text(ratings)


def _leader_text(ratings: Ratings) -> str | None:
    top = next((row for row in ratings.standings if row.place == 1), None)
    if top is None:
        return None
    if top.rating is not None:
        return f"{top.name} (Elo {top.rating:.0f})"
    return f"{top.name} (won every pairing)" if top.flag is Flag.TOP else None
