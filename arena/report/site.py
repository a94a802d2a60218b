"""`arena report`: the static site of a set of games, written into one directory.

Layout of the output directory:

- ``index.html``: the ranking table with each interval drawn as an error bar, the crosstable as a
  heatmap, the ratings as games accumulate, the collusion audit (flagged pairs first);
- ``entrant-N.html``: one page per entrant (N = its place in the table);
- ``games.html``: every game, filterable by entrant (its rows come from ``data/games.js``);
- ``replay.html?game=KEY``: the replay viewer, which loads ``games/KEY.js`` for that game only
  (``&deal=N&step=K``: at deal N's decision K), with what each bot wrote to stderr while deciding
  each of its moves, from the logs beside the results (``arena.stderrindex``);
- ``static/``: the style sheet and the two scripts.

The pages come from templates (``arena.report.pages``); the data the scripts show is written here,
as JavaScript calls of the scripts' own functions.

Everything is a file next to the pages, loaded by ``<script src>`` and ``<link>``: no server, no
network, and it works opened from disk (``fetch`` of local files does not, in Chromium).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, NamedTuple

import orjson

from arena.analysis.cache import analysis_file, latest
from arena.configfile import read_yaml
from arena.errors import ConfigError, ResultsError
from arena.names import NAME
from arena.ratings.audit import MIN_RESAMPLES, Audit, audit
from arena.ratings.model import Ratings, rate
from arena.records.reader import LEAGUE_DATABASE, league_of_export, results_file
from arena.records.result import rating_input
from arena.report.game_records import GameReader, LeagueGames
from arena.report.match_section import DESCRIPTION, match_facts
from arena.report.pages import entrant_page, games_page, index_page, replay_page
from arena.report.replay_stderr import StderrShown
from arena.report.stats import EntrantStats, add_game
from arena.settings import RESAMPLES, RatingModel, check_rating

STATIC_FILES = ("style.css", "viewer.js", "games.js")


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
    directory is read with ``league_games`` (``arena.report.game_records.LeagueGames``).

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
    audited: list[dict[str, Any]] = []  # the same results with their seats' names and owners
    listed: list[_Listed] = []
    kinds: set[str] = set()
    match_dir = _match_directory(paths)
    by_id: dict[str, dict[str, Any]] = {}  # a match's results, for its units
    for game in reader:
        add_game(stats, game)
        record = game.record
        result = record["result"]
        results.append(rating_input(record))
        audited.append({**results[-1], **{key: record[key] for key in ("names", "owners")
                                          if key in record}})
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
        said = stderr.of(record["id"], record=record)
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
    _write(out_dir / "index.html",
           index_page(title, heading, results, ratings, pages, facts,
                      report_audit(audited, resamples, seed)).encode())
    for place, row in enumerate(ratings.standings, 1):
        text = entrant_page(title, stats[row.name], row.pairwise_score, place)
        _write(out_dir / pages[row.name], text.encode())
    _write(out_dir / "games.html", games_page(title).encode())
    _write(out_dir / "data" / "games.js", _games_data(listed, ratings, pages))
    _write(out_dir / "replay.html", replay_page(title).encode())
    return ReportWritten(out_dir / "index.html", len(results), reader.notes.messages())


def report_audit(audited: Sequence[dict[str, Any]], resamples: int, seed: int) -> Audit | str:
    """The collusion audit of the report's games (docs/audit.md), at the report's resamples
    (at least the audit's least), or why there is none."""
    try:
        return audit(audited, resamples=max(resamples, MIN_RESAMPLES), seed=seed)
    except ResultsError as error:  # e.g. games without deals: nothing to compare
        return f"not run: {error}"


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
