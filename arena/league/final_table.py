"""``league table --final``: the final's table, from its games alone (``arena.league.finals``),
rated as ``league table`` rates the ladder (``arena.ratings``: Elo, 95% intervals, LOS), with the
final's seed, its games and the versions that played, and, for the organiser, the collusion
audit of the final's games (``arena.ratings.audit``).

``FinalStanding.data`` is the JSON of ``--format json`` and of the served league's
``/api/final``; the served page ``/final`` shows the same data. The served league builds its
standing without the audit: the audit is the organiser's (docs/audit.md), never shown to
participants or visitors.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from arena.errors import ResultsError
from arena.formats import TableFormat
from arena.league.config import LeagueSettings
from arena.league.deadline import shown
from arena.league.entrants import Bot
from arena.league.final import final_schedule
from arena.league.finals import Final
from arena.league.owners import shown_owners
from arena.league.playing import league_owners
from arena.league.store import Store
from arena.names import ORGANISER_OWNER
from arena.printable import printable, printable_json
from arena.ratings.audit import audit
from arena.ratings.audit_text import audit_json
from arena.ratings.groups import GroupedRatings, rate_groups
from arena.ratings.table import ratings_json, render_table
from arena.records.reader import parse_line
from arena.records.result import audit_input, rating_input
from arena.settings import RESAMPLES

GAMES_RATED = "games rated"

@dataclass(frozen=True)
class FinalStanding:
    """The final as its table shows it: the plan, the ratings of its games (None before any can
    be rated), the versions that play it with their games, and the audit's pairs (None: no
    audit ran)."""

    final: Final
    scheduled: int
    rated: GroupedRatings | None
    versions: tuple[tuple[Bot, int], ...]
    audit: list[dict[str, Any]] | None
    """The audit's pairs as ``arena audit --format json`` gives them (None: not audited, as the
    served league shows the final)."""
    owners: dict[str, str]
    """Each version's owner by ``NAME@VERSION`` (``arena.league.owners.shown_owners``)."""

    def data(self) -> dict[str, Any]:
        """The JSON of the final's table (``ratings_json`` and the final's own keys)."""
        table: dict[str, Any] = {} if self.rated is None else ratings_json(
            self.rated, games_key=GAMES_RATED.replace(" ", "_"), owners=self.owners)
        return {**table,
                "final": {"seed": self.final.seed, "games_asked": self.final.games,
                          "games_scheduled": self.scheduled, "games_stored": self.final.played,
                          "started": shown(self.final.started)},
                "versions": [{"name": bot.name, "version": bot.version, "key": bot.key,
                              "owner": self.owners.get(bot.key), "games": games}
                             for bot, games in self.versions],
                **({} if self.audit is None else {"audit": self.audit})}

    def notes(self) -> list[str]:
        """What the text table says after its rows: the final's plan, its versions, the audit."""
        final = self.final
        versions = ", ".join(f"{bot.key} ({games} games)" for bot, games in self.versions)
        notes = [f"final: {final.played} of {self.scheduled} games played ({final.games} asked), "
                 f"deal seed {final.seed}, started {shown(final.started)}",
                 f"versions that played: {versions}"]
        if self.audit is not None:
            flagged = [f"{p['beneficiary']} helped by {p['helper']} ({p['effect']:+.4f} points "
                       f"per deal, p {p['p']:.2g})" for p in self.audit if p["flagged"]]
            notes.append("collusion audit of the final's games (docs/audit.md): " + (
                "FLAGGED " + "; ".join(flagged) if flagged else
                f"no pair flagged of {len(self.audit)} measured"))
        return notes


def final_standing(store: Store, *, resamples: int = RESAMPLES.default,
                   seed: int = 0, audited: bool = False) -> FinalStanding | None:
    """The final's table (None: no final has started), with the collusion audit of its games
    where ``audited`` (the organiser's view: ``league table --final``)."""
    final = store.finals.current()
    if final is None:
        return None
    settings = LeagueSettings.of(store)
    versions = tuple(store.finals.versions())
    bots = [bot for bot, _ in versions]
    scheduled = len(final_schedule(store.directory, settings, bots, final,
                                   league_owners(store, bots)))
    lines = [parse_line(line) for line in store.finals.lines()]
    rated = None
    if lines:
        try:
            rated = rate_groups([rating_input(line) for line in lines], resamples=resamples,
                                seed=seed, model=settings.rating)
        except ResultsError:  # e.g. one game of a set so far: the plan is shown all the same
            rated = None
    pairs = _final_audit(lines, seed) if audited else None
    owners = shown_owners(store.owner_names(), [(bot.key, bot.name) for bot in bots], always=True)
    return FinalStanding(final, scheduled, rated, versions, pairs, owners or {})


def final_audit(store: Store, seed: int = 0) -> list[dict[str, Any]]:
    """The collusion audit's pairs of the final's stored games (``arena audit --format json``'s
    rows), without the table's fit."""
    return _final_audit([parse_line(line) for line in store.finals.lines()], seed)


def _final_audit(lines: Sequence[dict[str, Any]], seed: int) -> list[dict[str, Any]]:
    """The audit's pairs of the final's games (none before any game can be compared)."""
    try:
        pairs = audit_json(audit([audit_input(line) for line in lines], seed=seed))["pairs"]
    except ResultsError:  # no game yet, or none with deals to compare
        return []
    assert isinstance(pairs, list)
    return pairs


def final_table(directory: Path, *, fmt: TableFormat = TableFormat.PLAIN,
                resamples: int = RESAMPLES.default, seed: int = 0,
                crosstable: bool = False) -> str:
    """``league table --final`` in ``fmt``; ResultsError before a final has started."""
    store = Store.open(directory)
    try:
        standing = final_standing(store, resamples=resamples, seed=seed, audited=True)
    finally:
        store.close()
    if standing is None:
        raise ResultsError(f"{directory}: no final yet (arena league close, then arena league "
                           f"final {directory} --games N)")
    if fmt is TableFormat.JSON:
        return printable_json(orjson.dumps(standing.data(), option=orjson.OPT_INDENT_2).decode()) \
            + "\n"
    if standing.rated is None:
        return "\n".join(["no game of the final can be rated yet",
                          *map(printable, standing.notes())]) + "\n"
    # The owner column as in the ladder's table: where some version is not the organiser's own
    owners = standing.owners if set(standing.owners.values()) - {ORGANISER_OWNER} else None
    return render_table(standing.rated, fmt, crosstable=crosstable, notes=standing.notes(),
                        games_column=GAMES_RATED, owners=owners)
