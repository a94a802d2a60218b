"""The ratings table: read game results from games.jsonl files and render `arena.ratings.model` as text.

`read_results` reads results files; `render_table` turns a `Ratings` into plain text, a GitHub
table, CSV, JSON or HTML (one writer each, ``WRITERS``); `results_table` does rating and rendering
in one call (for `arena run`); `table_for_paths` is the whole `arena table` command. Entrant names
are a league's submissions' or a results file's: the text formats show them ``printable`` (a cell
stays one line), JSON exactly (``printable_json``).
"""

from __future__ import annotations

import csv
import hashlib
import html
import io
import math
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import orjson
from tabulate import tabulate

from arena.errors import ConfigError, ResultsError
from arena.formats import TableFormat
from arena.printable import printable, printable_json
from arena.ratings import luck
from arena.ratings.groups import GroupedRatings, rate_groups
from arena.ratings.model import CONFIDENCE, MIN_SETS, Flag, Ratings, Standing
from arena.records.playouts import keep_playouts, playouts_file, read_playouts
from arena.records.reader import ReadNotes, read_rating_inputs
from arena.settings import RESAMPLES, RatingModel, check_rating
from strategy import playout

_FLAG_NOTES = {
    Flag.TOP: "+inf: no finite rating; outscored the rated entrants in every result linking them "
              "(e.g. won every pairing)",
    Flag.BOTTOM: "-inf: no finite rating; outscored by the rated entrants in every result linking "
                 "them (e.g. lost every pairing)",
    Flag.APART: "n/a: no rating; never linked to the rated entrants by results (e.g. a group "
                "that never met them)",
}

INTERVAL_UNKNOWN = (f"the games form a single duplicate set, and a bootstrap interval needs at "
                    f"least {MIN_SETS} sets to resample; more games give one")
"""Why a table has no interval for an entrant it rates (``Ratings.unknown_intervals``)."""

COMPARED = {
    RatingModel.PLACES: "pairwise outcomes of places (rating: places)",
    RatingModel.DUPLICATE: "comparisons of totals on the same cards (rating: duplicate)",
    RatingModel.DEALS: "comparisons of deals on the same cards (rating: deals)",
    RatingModel.ADJUSTED: "comparisons of luck-adjusted deals in the same duplicate sets "
                          "(rating: adjusted)",
    RatingModel.MARGINS: "comparisons of deals on the same cards, each scored by its margin "
                         "(rating: margins)",
}
"""What one pairing is under each model, for the table's first note."""


@dataclass(frozen=True)
class ResultsRead:
    """Result objects read from results files, and where half-written last lines were skipped."""

    results: list[dict[str, object]]
    notes: ReadNotes
    """What the read skipped (half-written last lines, duplicate games)."""
    owners: dict[str, str]
    """Each bot's owner as the lines record it (``owners``; none in lines from before them)."""


@dataclass(frozen=True)
class TableOutput:
    """The table as text, and notes for the user (stderr) about what was read."""

    text: str
    notes: list[str]


def read_results(paths: Sequence[str | os.PathLike[str]], chance: bool = False) -> ResultsRead:
    """The results in `paths` (games.jsonl files, or directories holding one), in file order.

    A line is a games.jsonl line (an object with a `result` object) or a bare result object. A
    half-written last line or a duplicate game is skipped and said in `notes`
    (``arena.records.reader``'s rules); any other bad line, a missing path or no results at all
    is a ResultsError naming the file (and line). ``chance``: with the deals' chance events, which
    the ``adjusted`` model reads (``arena.records.reader.read_rating_inputs``).
    """
    notes = ReadNotes()
    owners: dict[str, str] = {}
    read = list(read_rating_inputs(paths, notes, owners, chance))
    results = [result for _, _, result in read]
    if not results:
        raise ResultsError(f"no game results in {', '.join(str(p) for p in paths) or 'no files'}")
    if chance:
        _add_playouts(read)
    return ResultsRead(results, notes, owners)


def _add_playouts(read: list[tuple[Path, int, dict[str, Any]]]) -> None:
    """Each game's deals played out (``luck.playout_values``) as ``deal_values``: kept beside
    its results file (``arena.records.playouts``), played and kept there when not yet."""
    by_file: dict[Path, list[dict[str, Any]]] = {}
    for path, _, result in read:
        if "deal_chance" in result and "id" in result:
            by_file.setdefault(path, []).append(result)
    for path, results in by_file.items():
        file = playouts_file(path)
        kept = read_playouts(file, playout.VERSION)
        new: dict[str, list[list[int]]] = {}
        for result in results:
            game = _playout_key(result)
            found: list[list[float]] | list[list[int]] | None = kept.get(game)
            if found is None:
                played = luck.playout_values(result)
                if played is None:
                    continue
                found = new[game] = played
            result["deal_values"] = found
        keep_playouts(file, playout.VERSION, new)


def _playout_key(result: Mapping[str, Any]) -> str:
    """A game's play-outs are found by its id and a digest of what they are played from (its
    game, options and deals as dealt): a results file written again under the same ids (a run
    restarted with another seed) never reads the values of other cards."""
    played_from = orjson.dumps([result.get("game"), result.get("options"), result.get("deal_chance")],
                               option=orjson.OPT_SORT_KEYS)
    return f"{result['id']} {hashlib.blake2b(played_from, digest_size=8).hexdigest()}"


def parse_anchor(text: str) -> tuple[str, float]:
    """`NAME=RATING` as (name, rating); ConfigError when it is not that."""
    name, sep, value = text.rpartition("=")
    try:
        rating = float(value)
    except ValueError:
        rating = math.nan
    if not sep or not name or not math.isfinite(rating):
        raise ConfigError(f"--anchor: expected NAME=RATING (e.g. random=1000), got {text!r}")
    return name, rating


class Table(NamedTuple):
    """What a table's writer writes."""

    rated: Ratings | GroupedRatings
    crosstable: bool = False
    """With the head-to-head matrix."""
    notes: tuple[str, ...] = ()
    """Said after the table's own notes, in the formats that print notes (CSV and JSON are data:
    what a note says is in no row)."""
    games_column: str = "games"
    """The name of each entrant's count of games (``games rated`` in a league's table, whose
    status counts every game a version played); its JSON key has ``_`` for the spaces."""
    owners: Mapping[str, str] | None = None
    """Each entrant's owner by its name (``owner`` in a tournament file, a league entrant's
    owner): an ``owner`` column after the entrant's, an ``owner`` key in JSON; None: neither."""


def render_table(rated: Ratings | GroupedRatings, fmt: TableFormat = TableFormat.PLAIN, *,
                 crosstable: bool = False, notes: Sequence[str] = (),
                 games_column: str = "games", owners: Mapping[str, str] | None = None) -> str:
    """The ratings table in format `fmt`, with the head-to-head matrix if asked, and ``notes``
    after its own; ``games_column`` names the entrants' counts of games, ``owners`` gives their
    owners (``Table``).

    Ratings of several groups that never met get a group column and a note saying so.
    """
    return WRITERS[fmt](Table(rated, crosstable, tuple(notes), games_column, owners))


def _json(table: Table) -> str:
    data = ratings_json(table.rated, crosstable=table.crosstable,
                        games_key=table.games_column.replace(" ", "_"), owners=table.owners)
    return printable_json(orjson.dumps(data, option=orjson.OPT_INDENT_2).decode()) + "\n"


def _csv(table: Table) -> str:
    ratings = _ratings_of(table.rated)
    headers, rows, _ = _grouped_rows(table.rated, table.games_column, table.owners)
    blocks = [_csv_text([*headers, "flag"], [row + [_flag_text(s)] for row, s in
                                            zip(rows, ratings.standings, strict=True)])]
    if table.crosstable:
        blocks.append(_csv_text(*_crosstable_rows(ratings)))
    return "\n".join(blocks)


def _plain(table: Table) -> str:
    return _text(table, "simple")


def _github(table: Table) -> str:
    return _text(table, "github")


def _text(table: Table, tablefmt: str) -> str:
    """The table and its notes as text: tabulate's ``tablefmt``, each note a line after it."""
    notes = "\n".join(printable(note) for note in _all_notes(table))
    return "\n\n".join(_tabulated(table, tablefmt)) + "\n\n" + notes + "\n"


def _html(table: Table) -> str:
    notes = [f"<p>{html.escape(note)}</p>" for note in _all_notes(table)]
    return "\n".join(_tabulated(table, "html") + notes) + "\n"


WRITERS: dict[TableFormat, Callable[[Table], str]] = {
    TableFormat.PLAIN: _plain,
    TableFormat.GITHUB: _github,
    TableFormat.CSV: _csv,
    TableFormat.JSON: _json,
    TableFormat.HTML: _html,
}
"""One writer for each format of the table."""


def _ratings_of(rated: Ratings | GroupedRatings) -> Ratings:
    return rated.ratings if isinstance(rated, GroupedRatings) else rated


def _grouped_rows(rated: Ratings | GroupedRatings, games_column: str = "games",
                  owners: Mapping[str, str] | None = None,
                  ) -> tuple[list[str], list[list[str]], list[str]]:
    """The table's headers, rows and alignment, with a group column when groups never met and
    an owner column when ``owners`` are given."""
    ratings = _ratings_of(rated)
    headers, rows, align = _table_rows(ratings, games_column)
    if owners is not None:
        headers.insert(2, "owner")
        align.insert(2, "left")
        for row, standing in zip(rows, ratings.standings, strict=True):
            row.insert(2, printable(owners.get(standing.name, "")))
    if isinstance(rated, GroupedRatings) and rated.groups > 1:
        headers.insert(1, "group")
        align.insert(1, "right")
        for row, group in zip(rows, rated.group_of, strict=True):
            row.insert(1, str(group))
    return headers, rows, align


def _tabulated(table: Table, tablefmt: str) -> list[str]:
    """The table, and the crosstable if asked, as tabulate's ``tablefmt``."""
    ratings = _ratings_of(table.rated)
    headers, rows, align = _grouped_rows(table.rated, table.games_column, table.owners)
    blocks = [tabulate(rows, headers, tablefmt=tablefmt, colalign=align, disable_numparse=True)]
    if table.crosstable:
        cross_headers, cross_rows = _crosstable_rows(ratings)
        blocks.append(tabulate(cross_rows, cross_headers, tablefmt=tablefmt,
                               colalign=["right", "left"] + ["right"] * (len(cross_headers) - 2),
                               disable_numparse=True))
    return blocks


def _all_notes(table: Table) -> list[str]:
    """The table's own notes (the groups' first, if any), then the notes it was given."""
    notes = _notes(_ratings_of(table.rated))
    if isinstance(table.rated, GroupedRatings) and table.rated.groups > 1:
        notes.insert(0, _groups_note(table.rated))
    return notes + list(table.notes)


def ratings_json(rated: Ratings | GroupedRatings, *, crosstable: bool = False,
                 games_key: str = "games",
                 owners: Mapping[str, str] | None = None) -> dict[str, object]:
    """The table as JSON-able data. Non-finite numbers (unbounded interval ends) become null.
    Each entrant's count of games is under ``games_key``; its owner under ``owner`` when
    ``owners`` are given (null for one they lack).

    Entrants carry their `group` (1 when every entrant is linked to every other), and `groups`
    counts the groups that never met; `unknown_intervals` names the rated entrants whose interval
    is not known (their games form too few duplicate sets to resample)."""
    ratings = rated.ratings if isinstance(rated, GroupedRatings) else rated
    group_of = (rated.group_of if isinstance(rated, GroupedRatings)
                else (1,) * len(ratings.standings))
    data: dict[str, object] = {
        "groups": max(group_of, default=1),
        "rating": ratings.model.value,
        "games": ratings.games,
        "pairings": ratings.pairings,
        "pool_mean": None if ratings.anchor else ratings.pool_mean,
        "anchor": None if ratings.anchor is None else {"name": ratings.anchor[0],
                                                       "rating": ratings.anchor[1]},
        "confidence": ratings.confidence,
        "resamples": ratings.resamples,
        "seed": ratings.seed,
        "degenerate_resamples": ratings.degenerate_resamples,
        "unknown_intervals": list(ratings.unknown_intervals),
        "prior": ratings.prior,
        "margin": ratings.margin,
        "entrants": [
            {
                "place": s.place,
                "group": group,
                "name": s.name,
                **({} if owners is None else {"owner": owners.get(s.name)}),
                "rating": s.rating,
                "flag": None if s.flag is None else str(s.flag),
                "lower": _finite(s.lower),
                "upper": _finite(s.upper),
                games_key: s.games,
                "pairings": s.pairings,
                "pairwise_score": s.pairwise_score,
                "average_place": s.average_place,
                "faults": s.faults,
                "forfeits": s.forfeits,
                "los_next": s.los_next,
            }
            for s, group in zip(ratings.standings, group_of, strict=True)
        ],
    }
    if crosstable:
        names = ratings.names
        counts = ratings.wins + ratings.wins.T
        data["head_to_head"] = {
            name: {
                other: {"pairings": round(counts[i, j]),
                        "score": float(ratings.wins[i, j] / counts[i, j])}
                for j, other in enumerate(names) if counts[i, j] > 0
            }
            for i, name in enumerate(names)
        }
    return data


def results_table(
    results: Sequence[Mapping[str, object]],
    *,
    fmt: TableFormat = TableFormat.PLAIN,
    anchor: tuple[str, float] | None = None,
    crosstable: bool = False,
    resamples: int = RESAMPLES.default,
    seed: int = 0,
    confidence: float = CONFIDENCE,
    model: RatingModel | str | None = None,
    owners: Mapping[str, str] | None = None,
) -> str:
    """The rendered ratings table of `results` (rating inputs: `arena.records.result.rating_input`), e.g. at
    the end of `arena run`; `model` as `arena.ratings.model.rate` takes it; ``owners`` as
    ``shown_owners`` gives them (an owner column where some bot has another's)."""
    rated = rate_groups(results, anchor=anchor, resamples=resamples, seed=seed,
                        confidence=confidence, model=model)
    return render_table(rated, fmt, crosstable=crosstable, owners=owners)


def shown_owners(owners: Mapping[str, str]) -> Mapping[str, str] | None:
    """``owners`` (each bot's, as the records say) when some bot's owner is another name than
    its own, for the table's owner column; None when every bot is its own owner (as in results
    of tournaments without ``owner:`` and from before owners were recorded): no column."""
    return owners if any(owner != name for name, owner in owners.items()) else None


def table_for_paths(
    paths: Sequence[str | os.PathLike[str]],
    *,
    fmt: TableFormat = TableFormat.PLAIN,
    anchor: str | None = None,
    crosstable: bool = False,
    resamples: int = RESAMPLES.default,
    seed: int = 0,
    model: RatingModel | str | None = None,
) -> TableOutput:
    """`arena table`: read the results in `paths` and render their ratings table."""
    if model is not None:
        model = check_rating(model)
    fixed = None if anchor is None else parse_anchor(anchor)
    if resamples < 0:
        raise ConfigError(f"--resamples: must be 0 or more, got {resamples}")
    if seed < 0:
        raise ConfigError(f"--seed: must be 0 or more, got {seed}")
    read = read_results(paths, chance=model is RatingModel.ADJUSTED)
    text = results_table(read.results, fmt=fmt, anchor=fixed, crosstable=crosstable,
                         resamples=resamples, seed=seed, model=model,
                         owners=shown_owners(read.owners))
    return TableOutput(text, read.notes.messages())


# Rendering -----------------------------------------------------------------------------------

def _finite(value: float | None) -> float | None:
    return value if value is not None and math.isfinite(value) else None


def _flag_text(row: Standing) -> str:
    return "" if row.flag is None else str(row.flag)


def _number(value: float | None, digits: int = 1) -> str:
    if value is None:
        return ""
    if math.isinf(value):
        return "inf"
    return f"{value:.{digits}f}"


def _table_rows(ratings: Ratings, games_column: str = "games",
                ) -> tuple[list[str], list[list[str]], list[str]]:
    shown = {None: "", Flag.TOP: "+inf", Flag.BOTTOM: "-inf", Flag.APART: "n/a"}
    rows = []
    for s in ratings.standings:
        minus = plus = None
        if s.rating is not None and s.lower is not None and s.upper is not None:
            minus, plus = s.rating - s.lower, s.upper - s.rating
        rows.append([
            "" if s.place is None else str(s.place),
            printable(s.name),
            shown[s.flag] if s.rating is None else _number(s.rating),
            "" if minus is None else "-" + _number(minus),
            "" if plus is None else "+" + _number(plus),
            str(s.games),
            _number(None if s.pairwise_score is None else 100 * s.pairwise_score),
            _number(s.average_place, 2),
            str(s.faults),
            _number(None if s.los_next is None else 100 * s.los_next),
        ])
    headers = ["#", "entrant", "Elo", "-", "+", games_column, "score %", "avg place", "faults",
               "LOS %"]
    align = ["right", "left"] + ["right"] * (len(headers) - 2)
    return headers, rows, align


def _crosstable_rows(ratings: Ratings) -> tuple[list[str], list[list[str]]]:
    """Pairwise score % of each row's entrant against each column's (columns by table row)."""
    counts = ratings.wins + ratings.wins.T
    n = len(ratings.standings)
    rows = []
    for i, s in enumerate(ratings.standings):
        cells = []
        for j in range(n):
            if i == j:
                cells.append("-")
            elif counts[i, j] == 0:
                cells.append("")
            else:
                cells.append(_number(100 * ratings.wins[i, j] / counts[i, j]))
        rows.append([str(i + 1), printable(s.name), *cells])
    return ["#", "score % vs", *column_labels([printable(s.name) for s in ratings.standings])], rows


COLUMN_WIDTH = 16
"""Widest crosstable column label; longer entrant names are cut (``column_labels``)."""


def column_labels(names: Sequence[str], width: int = COLUMN_WIDTH) -> list[str]:
    """Crosstable column labels: each entrant's name; one longer than ``width`` cut to ``width``
    characters when no other name starts with those, else its row number ``#N``."""
    labels = []
    for index, name in enumerate(names):
        cut = name[:width]
        unique = not any(other.startswith(cut) for other in names if other != name)
        labels.append(name if len(name) <= width else cut if unique else f"#{index + 1}")
    return labels


def _csv_text(headers: list[str], rows: list[list[str]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(headers)
    writer.writerows(rows)
    return out.getvalue()


def _groups_note(grouped: GroupedRatings) -> str:
    sizes = [grouped.group_of.count(g) for g in range(1, grouped.groups + 1)]
    return (f"The results fall into {grouped.groups} groups of entrants that never met (sizes "
            f"{', '.join(map(str, sizes))}): each group is rated on its own, and ratings and places "
            f"are comparable only within a group.")


def _margin_note(ratings: Ratings) -> str:
    """Under ``margins``: how a deal's point is split, with the M of the games rated (the largest
    margin their rules allow, or where the results do not say their game, the largest seen)."""
    if ratings.model is not RatingModel.MARGINS:
        return ""
    if ratings.margin is None:
        return "; a deal's point split 1/2 + margin / 2M, M the largest margin of each game's rules"
    if not ratings.margin:
        return "; no deal won by any margin: every comparison a draw"
    return (f"; a deal's point split 1/2 + margin / {2 * ratings.margin:g}, "
            f"{ratings.margin:g} the largest margin")


def _notes(ratings: Ratings) -> list[str]:
    scale = (f"Elo anchored at {printable(ratings.anchor[0])} = {ratings.anchor[1]:g}" if ratings.anchor
             else f"Elo centred on a pool mean of {ratings.pool_mean:g}")
    notes = [f"{ratings.games} game{'s' * (ratings.games != 1)}, {ratings.pairings} "
             f"{COMPARED[ratings.model]} "
             f"(draw = 1/2{_margin_note(ratings)}); {scale}"
             + (f"; each fit adds {ratings.prior:g} virtual draw{'s' * (ratings.prior != 1)} "
                f"between every two entrants compared (a weak prior: finite ratings)."
                if ratings.prior else ".")]
    unknown = [printable(name) for name in ratings.unknown_intervals]
    rated = [s for s in ratings.standings if s.rating is not None]
    if ratings.resamples and len(unknown) < len(rated):
        notes.append(
            f"-/+: {100 * ratings.confidence:g}% interval from {ratings.resamples} bootstrap "
            f"resamples of whole duplicate sets (seed {ratings.seed}); LOS: share of resamples in which "
            f"the entrant rates above the next one.")
    if unknown:
        whose = "" if len(unknown) == len(rated) else f" for {', '.join(unknown)}"
        notes.append(f"-/+ and LOS: not known{whose}: {INTERVAL_UNKNOWN}.")
    if ratings.degenerate_resamples:
        why = ("some entrants were compared with none of the others in the sets it drew"
               if ratings.prior else "an entrant won or lost every pairing it drew")
        notes.append(
            f"{ratings.degenerate_resamples} resamples had no finite fit ({why}); they widen the "
            f"intervals"
            + ("" if ratings.anchor else " (with --anchor, only the affected entrants' ones)")
            + ".")
    unbounded = [printable(s.name) for s in ratings.standings if s.rating is not None
                 and s.lower is not None and s.upper is not None
                 and not (math.isfinite(s.lower) and math.isfinite(s.upper))]
    if unbounded:
        share = 100 * (1 - ratings.confidence) / 2
        cause = ("Entrants that share few duplicate sets with the others (a match's units are "
                 "sets of two games)" if ratings.prior else
                 "Few duplicate sets (a match's units are sets of two games) or an entrant that "
                 "almost always wins or loses")
        notes.append(
            f"inf: no finite interval for {', '.join(unbounded)}: more than {share:g}% of the "
            f"resamples had no finite fit. {cause} do that; more games narrow "
            f"it.")
    uncompared = [s for s in ratings.standings if s.flag is Flag.APART and s.pairings == 0
                  and ratings.model is not RatingModel.PLACES]
    flags = {s.flag for s in ratings.standings if s.flag is not None and s not in uncompared}
    notes += [_FLAG_NOTES[flag] for flag in Flag if flag in flags]
    if uncompared:
        notes.append(_uncompared_note(ratings.model, [s.name for s in uncompared]))
    return notes


def _uncompared_note(model: RatingModel, names: Sequence[str]) -> str:
    """Why entrants that sat at the tables have no comparison under a duplicate model: nobody
    else held their cards (a match's field keeps its seats in both games of a unit)."""
    return (f"n/a: no rating for {', '.join(map(printable, names))}: rating {model.value} "
            f"compares an entrant only with those that held the same cards in another game of its "
            f"duplicate set, and nobody else held theirs (e.g. a match's field keeps its seats in "
            f"both games of a unit); --rating places rates them from their places at the tables.")
