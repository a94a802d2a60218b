"""The report's pages: one function per page, giving its template (``templates/``) what it lays out.

The templates are rendered by the arena's one environment (``arena.report.templating``): every
value is made printable, then escaped by HTML's rules, there. The functions here compute what a
page shows (the crosstable's cells, the progress of the ratings, an entrant's facts); the
templates say how it looks.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any, NamedTuple
from urllib.parse import quote

from jinja2 import Environment
from markupsafe import Markup

from arena.analysis.marks import MARKED, NOISE_Z
from arena.analysis.selection import Selection
from arena.analysis.summary import MeanLoss, summarise
from arena.errors import ResultsError
from arena.ratings.audit import Audit
from arena.ratings.model import Ratings, rate
from arena.ratings.table import COMPARED, INTERVAL_UNKNOWN
from arena.report.match_section import MatchFacts, match_summary
from arena.report.stats import EntrantStats, bank_summary
from arena.report.svg import heat, interval_plot, line_plot
from arena.report.templating import environment

CHECKPOINTS = 24
"""How many points the ratings-as-games-accumulate plot has (each a fit of the games so far)."""
WORST = 10
"""How many of an entrant's costliest decisions its page links to."""
FAULTS_LISTED = 500
"""How many of an entrant's faults its page lists (the first, by kind and game)."""


@cache
def templates() -> Environment:
    """The report's templates, with the filters they format numbers and links by."""
    templates = environment("arena.report")
    templates.filters.update(number=number, url=url, heat=heat)
    return templates


def _render(template: str, title: str, heading: str, **values: Any) -> str:
    """The page ``template``, under the site's ``title``, headed ``heading``."""
    page = templates().get_template(template).render(title=title, heading=heading, **values)
    return page + "\n"


def number(value: float | None, digits: int = 1, scale: float = 1.0) -> str:
    """``value * scale`` with ``digits`` decimals; empty for None, and infinity as a sign."""
    if value is None:
        return ""
    if math.isinf(value):
        return "∞" if value > 0 else "−∞"  # noqa: RUF001 (typographic minus, on purpose)
    return f"{value * scale:.{digits}f}"


def url(text: str) -> str:
    """``text`` as one component of a link's query (every reserved character escaped)."""
    return quote(text, safe="")


class Meeting(NamedTuple):
    """A crosstable cell: the row's entrant's pairwise score against the column's."""

    opponent: str
    share: float
    pairings: int


class CrosstableRow(NamedTuple):
    """An entrant's row of the crosstable: a cell per entrant (None: never met, or itself)."""

    name: str
    cells: list[Meeting | None]


def index_page(title: str, heading: str, results: Sequence[dict[str, Any]], ratings: Ratings,
               pages: Mapping[str, str], match: MatchFacts | None,
               audit: Audit | str | None = None) -> str:
    """The ranking page: the table, the intervals, the crosstable, the ratings as games
    accumulate, the collusion audit (or why it did not run); a match's own section above
    them."""
    scale = (f"Elo centred on a pool mean of {ratings.pool_mean:g}" if ratings.anchor is None
             else f"Elo anchored at {ratings.anchor[0]} = {ratings.anchor[1]:g}")
    rated = sum(s.rating is not None for s in ratings.standings)
    if not ratings.resamples:
        intervals = ""
    elif rated and len(ratings.unknown_intervals) == rated:
        intervals = f"Interval and LOS: not known: {INTERVAL_UNKNOWN}. Score: share of those " \
                    "comparisons won."
    else:
        intervals = (f"Interval: {100 * ratings.confidence:g}% from {ratings.resamples} bootstrap "
                     "resamples of whole duplicate sets (games on the same deals). Score: share of "
                     "those comparisons won. LOS: likelihood of being stronger than the next row.")
    note = (f"{ratings.games} game{'s' * (ratings.games != 1)}, {ratings.pairings} "
            f"{COMPARED[ratings.model]} (draw = ½); {scale}. {intervals}")
    return _render(
        "index.html", title, heading, ratings=ratings, pages=pages, note=note,
        match=match, summary=None if match is None else match_summary(match),
        interval_plot=interval_plot([(s.name, s.rating, s.lower, s.upper)
                                     for s in ratings.standings]),
        crosstable=_crosstable(ratings), progress_plot=_progress_plot(results, ratings),
        audit=audit if isinstance(audit, Audit) else None,
        audit_missing=audit if isinstance(audit, str) else None)


def _crosstable(ratings: Ratings) -> list[CrosstableRow]:
    counts = ratings.wins + ratings.wins.T
    names = [s.name for s in ratings.standings]
    return [CrosstableRow(name, [
        None if i == j or counts[i, j] == 0 else
        Meeting(other, float(ratings.wins[i, j] / counts[i, j]), round(counts[i, j]))
        for j, other in enumerate(names)]) for i, name in enumerate(names)]


def _progress_plot(results: Sequence[dict[str, Any]], ratings: Ratings) -> Markup:
    total = len(results)
    marks = sorted({max(1, round(total * k / CHECKPOINTS)) for k in range(1, CHECKPOINTS + 1)})
    names = list(ratings.names)
    series: dict[str, list[float | None]] = {name: [] for name in names}
    for mark in marks:
        try:
            fit = rate(results[:mark], resamples=0, model=ratings.model)
        except ResultsError:  # no set complete yet: nothing the duplicate models can compare
            by_name: dict[str, float | None] = {}
        else:
            by_name = {s.name: s.rating for s in fit.standings}
        for name in names:
            series[name].append(by_name.get(name))
    return line_plot(marks, list(series.items()), x_label="games", y_label="Elo")


class Analysed(NamedTuple):
    """An entrant's analysed decisions, as its page shows them."""

    facts: list[tuple[str, str]]
    worst: list[dict[str, Any]]
    """The costliest marked decisions (``arena analyse``'s objects, with the game's ``key``)."""


class Bidding(NamedTuple):
    """An entrant's bids (or its team's contracts) against the tricks taken, by hand size."""

    heading: str
    columns: tuple[str, str]
    rows: list[tuple[int, int, float, float]]
    """Hand size, how many, the average bid (or contract), the average tricks taken."""
    plot: Markup | None


def entrant_page(title: str, stats: EntrantStats, pairwise: float | None, place: int) -> str:
    """An entrant's page: its figures, its analysed decisions, its bidding, its faults."""
    faults = sorted(stats.faults, key=lambda f: (f.kind, f.game_id))[:FAULTS_LISTED]
    kinds = ", ".join(f"{kind}: {count}" for kind, count in stats.faults_by_kind().items())
    return _render("entrant.html", title, stats.name, stats=stats,
                   facts=_facts(stats, pairwise, place), analysed=_analysed(stats),
                   bidding=_bidding(stats), faults=faults, fault_kinds=kinds, noise_z=NOISE_Z)


def _facts(stats: EntrantStats, pairwise: float | None, place: int) -> list[tuple[str, str]]:
    contract = "contracts made" if stats.by_contract else "exact bids"
    facts = [
        ("place in the table", str(place)), ("games", str(stats.games)),
        ("average final score", f"{stats.average_score:.1f}"),
        ("pairwise score %", number(pairwise, 1, 100)),
        ("average place", f"{stats.average_place:.2f}"), ("forfeits", str(stats.forfeits)),
        (f"{contract} %", f"{number(stats.exact_rate, 1, 100)} ({stats.exact} of "
                          f"{stats.contracts})"),
    ]
    times = stats.time_summary()
    if times is not None:
        facts += [("decisions timed", f"{int(times['count'])}"),
                  ("decision time median", f"{times['median']:.1f} ms"),
                  ("decision time p95", f"{times['p95']:.1f} ms"),
                  ("decision time max", f"{times['max']:.1f} ms")]
    cpu = stats.cpu_summary()
    if cpu is not None:
        facts += [("decision CPU time median", f"{cpu['median']:.1f} ms"),
                  ("decision CPU time p95", f"{cpu['p95']:.1f} ms"),
                  ("decision CPU time max", f"{cpu['max']:.1f} ms")]
    bank = bank_summary(stats)
    if bank is not None:
        facts += [("time bank used per game, mean", number(bank["mean"], 1, 100) + " %"),
                  ("time bank used per game, most", number(bank["max"], 1, 100) + " %")]
    return facts


def _analysed(stats: EntrantStats) -> Analysed | None:
    """The entrant's analysed decisions: mean expected loss (bids, plays), marks, the worst."""
    if not stats.analysed:
        return None
    summary = summarise(stats.analysed)

    def mean(part: MeanLoss) -> str:
        if not part.decisions:
            return "-"
        return f"{part.mean:.2f} ± {NOISE_Z * part.stderr:.2f} ({part.decisions} decisions)"

    facts = [("games analysed", str(summary.games)),
             ("mean expected loss per decision", mean(summary.every)),
             ("bids or calls", mean(summary.bids)), ("plays", mean(summary.plays)),
             *((f"{name}s" if not name.endswith("y") else f"{name[:-1]}ies", str(count))
               for name, count in summary.marks.items())]
    worst = Selection(WORST, MARKED).of(stats.analysed)
    return Analysed(facts, worst)


def _bidding(stats: EntrantStats) -> Bidding | None:
    if not stats.by_size:
        return None
    sizes = sorted(stats.by_size)
    rows = []
    for size in sizes:
        count, bid_sum, trick_sum = stats.by_size[size]
        rows.append((size, int(count), bid_sum / count, trick_sum / count))
    columns = ("contracts", "average contract") if stats.by_contract else ("bids", "average bid")
    plot = (line_plot(sizes, [(columns[1], [row[2] for row in rows]),
                              ("average tricks taken", [row[3] for row in rows])],
                      x_label="cards in hand", y_label="tricks") if len(sizes) > 1 else None)
    heading = ("Contracts won against the team's tricks" if stats.by_contract
               else "Bids against tricks taken, by hand size")
    return Bidding(heading, columns, rows, plot)


def games_page(title: str) -> str:
    """The list of games (its rows from ``data/games.js``), filtered and sorted by its script."""
    return _render("games.html", title, "Games")


def replay_page(title: str) -> str:
    """The replay viewer (its game from ``games/KEY.js``)."""
    return _render("replay.html", title, "Replay")

