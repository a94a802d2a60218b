"""`arena report`: the static site of a set of games, written into one directory.

Layout of the output directory:

- ``index.html``: the ranking table with each interval drawn as an error bar, the crosstable as a
  heatmap, the ratings as games accumulate;
- ``entrant-N.html``: one page per entrant (N = its place in the table);
- ``games.html``: every game, filterable by entrant (its rows come from ``data/games.js``);
- ``replay.html?game=KEY``: the replay viewer, which loads ``games/KEY.js`` for that game only
  (``&deal=N&step=K``: at deal N's decision K), with what each bot wrote to stderr while deciding
  each of its moves, from the logs beside the results (``arena.stderrindex``);
- ``static/``: the style sheet and the two scripts.

Everything is a file next to the pages, loaded by ``<script src>`` and ``<link>``: no server, no
network, and it works opened from disk (``fetch`` of local files does not, in Chromium).
"""

from __future__ import annotations

import html
import math
import os
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import quote

import orjson

from arena.analysis.cache import analysis_file, latest
from arena.analysis.marks import NOISE_Z
from arena.analysis.summary import MeanLoss, summarise
from arena.configfile import read_yaml
from arena.errors import ConfigError, ResultsError
from arena.names import NAME
from arena.ratings.model import Ratings, rate
from arena.ratings.table import COMPARED
from arena.records.reader import LEAGUE_DATABASE, league_of_export, results_file
from arena.records.result import rating_input
from arena.report.games import GameReader, LeagueGames
from arena.report.match import DESCRIPTION, match_facts, match_section
from arena.report.stats import EntrantStats, add_game, bank_summary
from arena.report.stderr import StderrShown
from arena.report.svg import heat, interval_plot, line_plot
from arena.settings import RESAMPLES, RatingModel, check_rating

CHECKPOINTS = 24
"""How many points the ratings-as-games-accumulate plot has (each a fit of the games so far)."""

STATIC_FILES = ("style.css", "viewer.js", "games.js")

_e = html.escape


@dataclass(frozen=True)
class ReportWritten:
    """What `write_report` wrote: the index page, how many games, notes for the user."""

    index: Path
    games: int
    notes: list[str]


def write_report(paths: Sequence[str | os.PathLike[str]], out_dir: Path, *,
                 resamples: int = RESAMPLES.default, seed: int = 0,
                 model: RatingModel | str | None = None,
                 logs: Sequence[Path] = (),
                 league_games: LeagueGames | None = None) -> ReportWritten:
    """Read the games in ``paths`` and write the site into ``out_dir``; returns the index page.
    The replays show each decision's stderr from the bots' logs in the ``logs/`` beside each
    results file, and in the directories ``logs`` (``arena play --stderr-dir``'s). A league's
    directory is read with ``league_games`` (``arena.report.games.LeagueGames``).

    ConfigError naming ``--out`` and the file when the site cannot be written (a full disk, a
    directory that cannot hold files)."""
    if out_dir.exists() and not out_dir.is_dir():
        raise ConfigError(f"--out: {out_dir} exists and is not a directory")
    if model is not None:
        model = check_rating(model)
    for path in paths:  # a missing input fails before anything is written
        if not (Path(path) / LEAGUE_DATABASE).is_file():  # a league reads as its export
            results_file(Path(path))
    try:
        return _write_site(paths, out_dir, resamples, seed, model, logs, league_games)
    except OSError as error:
        where = error.filename2 or error.filename or out_dir  # a copy's target is filename2
        raise ConfigError(f"--out: {where}: cannot write the report: "
                          f"{error.strerror or error}") from None


def _write_site(paths: Sequence[str | os.PathLike[str]], out_dir: Path, resamples: int,
                seed: int, model: RatingModel | None, logs: Sequence[Path],
                league_games: LeagueGames | None) -> ReportWritten:
    (out_dir / "games").mkdir(parents=True, exist_ok=True)
    (out_dir / "data").mkdir(exist_ok=True)
    _copy_static(out_dir / "static")
    analyses = _analyses(paths)
    stderr = StderrShown.beside(paths, logs)
    # One pass over the records, each dropped once used: a league export need not fit in memory.
    reader = GameReader(paths, league_games)
    stats: dict[str, EntrantStats] = {}
    results: list[dict[str, Any]] = []
    listed: list[_Listed] = []
    kinds: set[str] = set()
    match_dir = _match_directory(paths)
    by_id: dict[str, dict[str, Any]] = {}  # a match's results, for its units
    for game in reader:
        add_game(stats, game)
        record = game.record
        result = record["result"]
        results.append(rating_input(record))
        if match_dir is not None:
            by_id[record["id"]] = result
        kinds.add(record["game"])
        listed.append(_Listed(game.key, record["id"], result["entrants"], result["scores"],
                              result["ranks"], len(record["faults"])))
        # The seed goes again as a string: JavaScript numbers hold 53 bits, seeds 64. Then the
        # analysed decisions of the game, every entrant's (arena analyse), if any.
        analysed = [dict(d, key=game.key) for d in analyses.get(str(record["id"]), ())]
        for decision in analysed:
            stats.setdefault(_entrant_of(game, decision["seat"]), EntrantStats(
                _entrant_of(game, decision["seat"]))).analysed.append(decision)
        tail = b", " + orjson.dumps(analysed) if analysed else b""
        said = stderr.of(record["id"])
        if said is not None:
            tail = b", " + orjson.dumps(analysed) + b", " + orjson.dumps(said)
        _write(out_dir / "games" / f"{game.key}.js",
            b"arenaGame(" + game.line + b", " + orjson.dumps(str(record["seed"])) + tail + b");\n")
    ratings = rate(results, resamples=resamples, seed=seed, model=model)
    pages = {row.name: f"entrant-{place}.html" for place, row in enumerate(ratings.standings, 1)}
    names = list(dict.fromkeys(n for n in (results_name(Path(p)) for p in paths) if n is not None))
    title = (f"{', '.join(names)}: " if names else "") + \
        f"{len(results)} games of {' and '.join(sorted(kinds))}"
    heading = f"Ranking: {', '.join(names)}" if names else "Ranking"
    facts = None if match_dir is None else match_facts(match_dir, by_id)
    top = "" if facts is None else match_section(facts)
    _write(out_dir / "index.html", _index(title, results, ratings, pages, heading, top).encode())
    for place, row in enumerate(ratings.standings, 1):
        text = _entrant_page(title, stats[row.name], row.pairwise_score, place, pages)
        _write(out_dir / pages[row.name], text.encode())
    _write(out_dir / "games.html", _games_page(title).encode())
    _write(out_dir / "data" / "games.js", _games_data(listed, ratings, pages))
    _write(out_dir / "replay.html", _replay_page(title).encode())
    return ReportWritten(out_dir / "index.html", len(results), reader.notes.messages())


def _write(path: Path, data: bytes) -> None:
    """Write a file of the site; an OSError names the file even when closing it failed (a full
    disk is often seen only then, and Python's error then names no file)."""
    try:
        path.write_bytes(data)
    except OSError as error:
        if error.filename is None:
            raise OSError(error.errno, error.strerror, str(path)) from None
        raise


def _copy_static(target: Path) -> None:
    target.mkdir(exist_ok=True)
    source = resources.files("arena.report") / "static"
    for name in STATIC_FILES:
        with resources.as_file(source / name) as path:
            shutil.copyfile(path, target / name)


def _page(title: str, heading: str, body: str, *, scripts: Sequence[str] = ()) -> str:
    tags = "".join(f'<script src="{_e(s)}"></script>' for s in scripts)
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<title>{_e(heading)} · {_e(title)}</title>'
        '<link rel="stylesheet" href="static/style.css"></head><body>'
        '<nav><a href="index.html">Ranking</a><a href="games.html">Games</a>'
        f'<span class="what">{_e(title)}</span></nav><main><h1>{_e(heading)}</h1>{body}</main>'
        f'{tags}</body></html>\n'
    )


def _number(value: float | None, digits: int = 1, scale: float = 1.0) -> str:
    if value is None:
        return ""
    if math.isinf(value):
        return "∞" if value > 0 else "−∞"  # noqa: RUF001 (typographic minus, on purpose)
    return f"{value * scale:.{digits}f}"


def results_name(path: Path) -> str | None:
    """What the results in ``path`` are: ``tournament NAME`` (the name in its copy of the
    tournament file), ``match DIR`` (a match's results directory), ``league NAME`` (a league's
    directory or its export folder); None when nothing says."""
    directory = path if path.is_dir() else path.parent
    described = directory / "tournament.yaml"
    if described.is_file():
        try:
            raw = read_yaml(described, "tournament file")
        except ConfigError:
            raw = None
        name = raw.get("name") if isinstance(raw, dict) else None
        if isinstance(name, str) and NAME.fullmatch(name):
            return f"tournament {name}"
    if (directory / DESCRIPTION).is_file():
        return f"match {directory.resolve().name}"
    league = league_of_export(directory)
    if league is None and (path / LEAGUE_DATABASE).is_file():
        league = path
    if league is not None:
        return f"league {league.resolve().name}"
    return None


def _match_directory(paths: Sequence[str | os.PathLike[str]]) -> Path | None:
    """The match whose results the report shows alone (its directory), or None."""
    if len(paths) != 1:
        return None
    path = Path(paths[0])
    directory = path if path.is_dir() else path.parent
    return directory if (directory / DESCRIPTION).is_file() else None


def _index(title: str, results: Sequence[dict[str, Any]], ratings: Ratings,
           pages: dict[str, str], heading: str = "Ranking", top: str = "") -> str:
    """The ranking page; ``top``: a section above the ranking (a match's own figures)."""
    rows = []
    for s in ratings.standings:
        interval = ""
        if s.rating is not None and s.lower is not None and s.upper is not None:
            interval = f"{_number(s.lower, 0)} … {_number(s.upper, 0)}"
        rating = _number(s.rating, 0) if s.rating is not None else _e(str(s.flag))
        rows.append(
            f'<tr><td class="num">{"" if s.place is None else s.place}</td>'
            f'<td><a href="{pages[s.name]}">{_e(s.name)}</a></td>'
            f'<td class="num">{rating}</td><td class="num">{interval}</td>'
            f'<td class="num">{s.games}</td>'
            f'<td class="num">{_number(s.pairwise_score, 1, 100)}</td>'
            f'<td class="num">{s.average_place:.2f}</td><td class="num">{s.faults}</td>'
            f'<td class="num">{_number(s.los_next, 0, 100)}</td></tr>')
    table = ('<div class="scroll"><table id="ranking"><thead><tr><th>#</th><th>entrant</th>'
             '<th>Elo</th><th>interval</th><th>games</th><th>score %</th><th>avg place</th>'
             '<th>faults</th><th>LOS %</th></tr></thead><tbody>' + "".join(rows)
             + '</tbody></table></div>')
    plot = interval_plot([(s.name, s.rating, s.lower, s.upper) for s in ratings.standings])
    scale = (f"Elo centred on a pool mean of {ratings.pool_mean:g}" if ratings.anchor is None
             else f"Elo anchored at {ratings.anchor[0]} = {ratings.anchor[1]:g}")
    note = (f"{ratings.games} games, {ratings.pairings} {COMPARED[ratings.model]} (draw = ½); "
            f"{scale}. "
            + (f"Interval: {100 * ratings.confidence:g}% from {ratings.resamples} bootstrap "
               "resamples of whole duplicate sets (games on the same deals). Score: share of "
               "those comparisons won. LOS: likelihood of being stronger than the next row."
               if ratings.resamples else ""))
    body = (f'{top}{"<h2>Every entrant</h2>" if top else ""}'
            f'<p class="note">{_e(note)}</p>{table}<h2>Ratings and intervals</h2>{plot}'
            f'<h2>Head to head</h2><p class="note">Score % of the row\'s entrant against the '
            f'column\'s (pairwise outcomes), green above 50, red below.</p>{_crosstable(ratings)}'
            f'<h2>Ratings as games accumulate</h2><p class="note">Each point is the fit of the '
            f'games up to it (in file order), no resampling: has the order settled?</p>'
            f'{_progress_plot(results, ratings)}')
    return _page(title, heading, body)


def _crosstable(ratings: Ratings) -> str:
    counts = ratings.wins + ratings.wins.T
    n = len(ratings.standings)
    head = "".join(f'<th title="{_e(s.name)}">{i + 1}</th>' for i, s in enumerate(ratings.standings))
    rows = []
    for i, s in enumerate(ratings.standings):
        cells = []
        for j in range(n):
            if i == j:
                cells.append('<td class="self">&ndash;</td>')
            elif counts[i, j] == 0:
                cells.append("<td></td>")
            else:
                share = float(ratings.wins[i, j] / counts[i, j])
                cells.append(f'<td class="num" style="background:{heat(share)}" '
                             f'title="{_e(s.name)} vs {_e(ratings.standings[j].name)}: '
                             f'{round(counts[i, j])} pairings">{100 * share:.0f}</td>')
        rows.append(f'<tr><th class="num">{i + 1}</th><th class="name">{_e(s.name)}</th>'
                    f'{"".join(cells)}</tr>')
    return (f'<div class="scroll"><table class="heatmap"><thead><tr><th></th><th></th>{head}'
            f'</tr></thead><tbody>{"".join(rows)}</tbody></table></div>')


def _progress_plot(results: Sequence[dict[str, Any]], ratings: Ratings) -> str:
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


def _entrant_page(title: str, stats: EntrantStats, pairwise: float | None, place: int,
                  pages: dict[str, str]) -> str:
    rate_text = _number(stats.exact_rate, 1, 100)
    contract = "contracts made" if stats.by_contract else "exact bids"
    summary = [
        ("place in the table", str(place)), ("games", str(stats.games)),
        ("average final score", f"{stats.average_score:.1f}"),
        ("pairwise score %", _number(pairwise, 1, 100)),
        ("average place", f"{stats.average_place:.2f}"), ("forfeits", str(stats.forfeits)),
        (f"{contract} %", f"{rate_text} ({stats.exact} of {stats.contracts})"),
    ]
    times = stats.time_summary()
    if times is not None:
        summary += [("decisions timed", f"{int(times['count'])}"),
                    ("decision time median", f"{times['median']:.1f} ms"),
                    ("decision time p95", f"{times['p95']:.1f} ms"),
                    ("decision time max", f"{times['max']:.1f} ms")]
    cpu = stats.cpu_summary()
    if cpu is not None:
        summary += [("decision CPU time median", f"{cpu['median']:.1f} ms"),
                    ("decision CPU time p95", f"{cpu['p95']:.1f} ms"),
                    ("decision CPU time max", f"{cpu['max']:.1f} ms")]
    bank = bank_summary(stats)
    if bank is not None:
        summary += [("time bank used per game, mean", _number(bank["mean"], 1, 100) + " %"),
                    ("time bank used per game, most", _number(bank["max"], 1, 100) + " %")]
    table = ('<table class="facts" id="facts"><tbody>'
             + "".join(f"<tr><th>{_e(k)}</th><td>{_e(v)}</td></tr>" for k, v in summary)
             + "</tbody></table>")
    body = (f'<p><a href="games.html?entrant={_e(_url(stats.name))}">Games of {_e(stats.name)}</a>'
            f'</p>{table}{_analysis(stats)}{_bidding(stats)}{_faults(stats)}')
    return _page(title, stats.name, body)


def _analyses(paths: Sequence[str | os.PathLike[str]]) -> dict[str, list[dict[str, Any]]]:
    """The decisions analysed beside the results (``arena analyse``), every entrant's, by game id
    (the first file's where two files hold a game id)."""
    found: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for path in paths:
        if (Path(path) / LEAGUE_DATABASE).is_file():  # kept beside a results file: its export's
            continue
        for key, decisions in latest(analysis_file(Path(path))).items():
            found.setdefault(key, decisions)
    by_game: dict[str, list[dict[str, Any]]] = {}
    for (game_id, _), decisions in found.items():
        by_game.setdefault(game_id, []).extend(decisions)
    return by_game


def _entrant_of(game: Any, seat: int) -> str:
    return str(game.entrants[game.entrant_of_seat(seat)])


WORST = 10
"""How many of an entrant's costliest decisions its page links to."""


def _analysis(stats: EntrantStats) -> str:
    """The entrant's analysed decisions: mean expected loss (bids, plays), marks, the worst."""
    if not stats.analysed:
        return ""
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
    table = ('<table class="facts" id="analysis"><tbody>'
             + "".join(f"<tr><th>{_e(k)}</th><td>{_e(v)}</td></tr>" for k, v in facts)
             + "</tbody></table>")
    worst = sorted((d for d in stats.analysed if d["mark"]), key=lambda d: -d["loss"])[:WORST]
    rows = []
    for d in worst:
        link = (f"replay.html?game={_url(d['key'])}&amp;deal={d['deal']}"
                f"&amp;decision={d['decision']}")
        rows.append(f'<tr><td><a href="{link}">{_e(str(d["game"]))}</a></td>'
                    f'<td class="num">{d["deal"]}</td><td>{_e(d["kind"])}</td>'
                    f'<td>{_e(str(d["chosen"]))}</td><td>{_e(str(d["best"]))}</td>'
                    f'<td class="num">{d["loss"]:.1f} ± {NOISE_Z * d["stderr"]:.1f}</td>'
                    f'<td>{_e(d["mark"])}</td></tr>')
    links = ('<h3>Costliest decisions</h3><div class="scroll"><table id="worst"><thead><tr>'
             '<th>game</th><th>deal</th><th>kind</th><th>chosen</th><th>best</th>'
             '<th>expected loss</th><th>mark</th></tr></thead><tbody>' + "".join(rows)
             + '</tbody></table></div>') if rows else ""
    note = ('<p class="note">Each decision valued against the reference search (arena analyse): '
            'expected points lost against the best action on the same sampled deals, ± twice its '
            'standard error. A mark counts only beyond that noise (docs/analysis.md).</p>')
    return f'<h2>Decisions analysed</h2>{note}{table}{links}'


def _url(text: str) -> str:
    return quote(text, safe="")


def _bidding(stats: EntrantStats) -> str:
    if not stats.by_size:
        return ""
    sizes = sorted(stats.by_size)
    rows = []
    bids, tricks = [], []
    for size in sizes:
        count, bid_sum, trick_sum = stats.by_size[size]
        bids.append(bid_sum / count)
        tricks.append(trick_sum / count)
        rows.append(f'<tr><td class="num">{size}</td><td class="num">{int(count)}</td>'
                    f'<td class="num">{bid_sum / count:.2f}</td>'
                    f'<td class="num">{trick_sum / count:.2f}</td></tr>')
    what = ("contracts", "average contract") if stats.by_contract else ("bids", "average bid")
    table = (f'<div class="scroll"><table id="bidding"><thead><tr><th>cards</th><th>{what[0]}</th>'
             f'<th>{what[1]}</th><th>average tricks</th></tr></thead><tbody>' + "".join(rows)
             + '</tbody></table></div>')
    plot = (line_plot(sizes, [(what[1], bids), ("average tricks taken", tricks)],
                      x_label="cards in hand", y_label="tricks") if len(sizes) > 1 else "")
    heading = ("Contracts won against the team's tricks" if stats.by_contract
               else "Bids against tricks taken, by hand size")
    return f'<h2>{heading}</h2>{plot}{table}'


def _faults(stats: EntrantStats) -> str:
    if not stats.faults:
        return '<h2>Faults</h2><p>None.</p>'
    kinds = ", ".join(f"{kind}: {count}" for kind, count in stats.faults_by_kind().items())
    rows = []
    for fault in sorted(stats.faults, key=lambda f: (f.kind, f.game_id))[:500]:
        link = f"replay.html?game={_url(fault.game)}&amp;deal={fault.deal}&amp;step={fault.step}"
        rows.append(f'<tr><td>{_e(fault.kind)}</td><td><a href="{link}">{_e(fault.game_id)}</a>'
                    f'</td><td class="num">{fault.seat}</td><td class="num">{fault.deal}</td>'
                    f'<td class="num">{fault.step}</td><td>{_e(fault.detail)}</td></tr>')
    more = (f'<p class="note">The first 500 of {len(stats.faults)} faults.</p>'
            if len(stats.faults) > 500 else "")
    return (f'<h2>Faults</h2><p id="fault-kinds">{_e(kinds)}</p>{more}<div class="scroll">'
            '<table id="faults"><thead><tr><th>kind</th><th>game</th><th>seat</th><th>deal</th>'
            '<th>decision in deal</th><th>detail</th></tr></thead><tbody>' + "".join(rows)
            + '</tbody></table></div>')


def _games_page(title: str) -> str:
    body = ('<p><label>Entrant <select id="entrant"><option value="">all</option></select></label>'
            ' <label>sorted <select id="sort" title="choose an entrant to sort by its place or '
            'score"><option value="played">as played</option><option value="place-worst">by its '
            'place, worst first</option><option value="place-best">by its place, best first'
            '</option><option value="score-low">by its score, lowest first</option><option '
            'value="score-high">by its score, highest first</option></select></label>'
            ' <span id="count" class="note"></span></p><div class="scroll"><table id="games">'
            '<thead><tr><th>game</th><th>entrants (place, score)</th><th>faults</th></tr></thead>'
            '<tbody></tbody></table></div><p class="pager"><button id="prev">◀ previous</button> '
            '<span id="page"></span> <button id="next">next ▶</button></p>')
    return _page(title, "Games", body, scripts=["static/games.js", "data/games.js"])


class _Listed(NamedTuple):
    """A game's row in the game list."""

    key: str
    id: str
    entrants: list[str]
    scores: list[float]
    ranks: list[int]
    faults: int


def _games_data(listed: Sequence[_Listed], ratings: Ratings, pages: dict[str, str]) -> bytes:
    names = list(ratings.names)
    index = {name: i for i, name in enumerate(names)}
    rows = [[g.key, g.id, [index[e] for e in g.entrants], g.scores, g.ranks, g.faults]
            for g in listed]
    data = {"entrants": names, "pages": [pages[n] for n in names], "games": rows}
    return b"arenaGames(" + orjson.dumps(data) + b");\n"


def _replay_page(title: str) -> str:
    body = (
        '<div id="replay" class="replay"><p id="status">Loading the game…</p></div>'
        '<noscript>The replay viewer needs JavaScript.</noscript>'
    )
    return _page(title, "Replay", body, scripts=["static/viewer.js"])
