"""The ratings table: reading games.jsonl files, the formats, and `arena table` end to end."""

from __future__ import annotations

import csv
import io
import json
import random
import sys
from pathlib import Path

import pytest

from arena.cli import main
from arena.errors import ConfigError, ResultsError
from arena.formats import TableFormat
from arena.ratings.model import Ratings, rate
from arena.ratings.table import (
    column_labels,
    parse_anchor,
    ratings_json,
    read_results,
    render_table,
    results_table,
    table_for_paths,
)

from helpers import arena

NAMES = ["greedy", "random", "cautious", "bold"]
STRENGTH = {"greedy": 3.0, "bold": 2.0, "cautious": 1.5, "random": 0.0}


def results(games: int = 120, seed: int = 1) -> list[dict[str, object]]:
    """Four-player results with some faults, forfeits and ties."""
    rng = random.Random(seed)
    out = []
    for _ in range(games):
        seats = rng.sample(NAMES, 4)
        scores = [round(STRENGTH[name] + rng.gauss(0, 2)) for name in seats]
        forfeits = [rng.random() < 0.03 for _ in seats]
        ranks = [1 + sum((g, -t) < (f, -s) for t, g in zip(scores, forfeits, strict=True))
                 for s, f in zip(scores, forfeits, strict=True)]
        out.append({"entrants": seats, "scores": scores, "ranks": ranks, "forfeits": forfeits,
                    "faults": [int(f) + (rng.random() < 0.05) for f in forfeits]})
    return out


def write_games(path: Path, games: list[dict[str, object]], *, tail: str = "") -> Path:
    """A games.jsonl file as the tournament runner writes it (record fields around `result`)."""
    lines = [json.dumps({"id": f"g{i}", "game": "blackout", "seed": i, "result": result})
             for i, result in enumerate(games)]
    path.write_text("".join(line + "\n" for line in lines) + tail)
    return path


def run_main(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *args: str,
             ) -> tuple[int, str, str]:
    """Runs `arena.cli.main` in this process (what the entry point runs): (status, out, err)."""
    monkeypatch.setattr(sys, "argv", ["arena", *args])
    with pytest.raises(SystemExit) as stop:
        main()
    out, err = capsys.readouterr()
    return int(stop.value.code or 0), out, err


# Reading -----------------------------------------------------------------------------------------

def test_reads_files_directories_and_bare_results(tmp_path: Path) -> None:
    games = results(30)
    run = tmp_path / "results" / "demo"
    run.mkdir(parents=True)
    write_games(run / "games.jsonl", games[:10])
    bare = tmp_path / "bare.jsonl"
    bare.write_text("\n".join(json.dumps(g) for g in games[10:20]) + "\n\n")  # blank line: fine
    single = write_games(tmp_path / "more.jsonl", games[20:])
    read = read_results([run, bare, str(single)])
    # A line's deal seed comes along (the duplicate models group games by it), and its set (none
    # for an id of no run's: a set of its own); bare results as given.
    seeded = [{**g, "set": None, "seed": i} for i, g in enumerate(games[:10])] + games[10:20] + \
        [{**g, "set": None, "seed": i} for i, g in enumerate(games[20:])]
    assert read.results == seeded and read.notes.messages() == []


def test_half_written_last_line_is_skipped_and_reported(tmp_path: Path) -> None:
    path = write_games(tmp_path / "games.jsonl", results(5), tail='{"id": "g5", "result": {"ent')
    read = read_results([path])
    assert len(read.results) == 5
    assert read.notes.unterminated == [f"{path}:6"]
    output = table_for_paths([path], resamples=0)
    assert output.notes == [f"skipped a half-written last line (interrupted run?) at {path}:6"]


@pytest.mark.parametrize(("content", "problem"), [
    ('{"result": {"entrants": ["a", "b"], "scores": [1, 0]}}\n{"id": \n{}\n', ":2: not JSON"),
    ('{"id": "g0", "result": {"entrants": ["a", "b"], "scores": [1, 0]}}\n'
     '{"id": "g1", "result": {"entrants": ["a", "b"], "scores": [1]}}\n',
     ":2: 'scores' must be a list of 2 numbers"),
    ('{"id": "g0", "moves": []}\n', ":1: no 'result' object"),
    ('[1, 2]\n', ":1: no 'result' object"),
    ('{"result": "a won"}\n', ":1: a result must be an object"),
    ('{"result": {"entrants": ["a", "b"], "scores": [1, 0]}}\n{"id": \n', ":2: not JSON"),
])
def test_bad_lines_name_file_and_line(tmp_path: Path, content: str, problem: str) -> None:
    # The last case: a bad last line that ends in a newline was written whole, so it is an error.
    path = tmp_path / "games.jsonl"
    path.write_text(content)
    with pytest.raises(ResultsError) as error:
        read_results([path])
    assert str(error.value).startswith(f"{path}{problem}")


def test_missing_and_empty_inputs_are_errors(tmp_path: Path) -> None:
    with pytest.raises(ResultsError, match="no such file or directory"):
        read_results([tmp_path / "nowhere.jsonl"])
    with pytest.raises(ResultsError, match=f"{tmp_path}: no games.jsonl in this directory"):
        read_results([tmp_path])
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n")
    with pytest.raises(ResultsError, match="no game results in .*empty.jsonl"):
        read_results([empty])


def test_the_same_file_twice_is_an_error(tmp_path: Path) -> None:
    path = write_games(tmp_path / "games.jsonl", results(3))
    with pytest.raises(ResultsError, match="given twice"):
        read_results([path, tmp_path])


@pytest.mark.parametrize(("text", "expected"), [
    ("random=1000", ("random", 1000.0)),
    ("a=b=-12.5", ("a=b", -12.5)),
])
def test_parse_anchor(text: str, expected: tuple[str, float]) -> None:
    assert parse_anchor(text) == expected


@pytest.mark.parametrize("text", ["random", "random=", "=1000", "random=high", "random=inf",
                                  "random=nan"])
def test_bad_anchor_is_a_config_error(text: str) -> None:
    with pytest.raises(ConfigError, match="--anchor: expected NAME=RATING"):
        parse_anchor(text)


# Rendering ---------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def ratings() -> Ratings:
    return rate(results(), resamples=100, seed=2)


def test_plain_table_lists_entrants_best_first(ratings: Ratings) -> None:
    text = render_table(ratings, TableFormat.PLAIN, crosstable=True)
    lines = text.splitlines()
    assert lines[0].split() == ["#", "entrant", "Elo", "-", "+", "games", "score", "%", "avg",
                                "place", "faults", "LOS", "%"]
    first = lines[2].split()
    assert first[:2] == ["1", ratings.standings[0].name]
    assert first[2] == f"{ratings.standings[0].rating:.1f}"
    assert all(name in text for name in NAMES)
    assert "100 bootstrap resamples of whole duplicate sets" in text
    assert "score % vs" in text  # the crosstable, its columns named
    assert text.split("score % vs")[1].split()[:len(NAMES)] == [s.name for s in ratings.standings]


def test_csv_and_github_and_html(ratings: Ratings) -> None:
    rows = list(csv.reader(io.StringIO(render_table(ratings, TableFormat.CSV))))
    assert rows[0][:3] == ["#", "entrant", "Elo"] and rows[0][-1] == "flag"
    assert [row[1] for row in rows[1:]] == list(ratings.names)
    github = render_table(ratings, TableFormat.GITHUB)
    assert github.splitlines()[0].startswith("|") and "|---" in github.splitlines()[1]
    html = render_table(ratings, TableFormat.HTML, crosstable=True)
    assert html.count("<table>") == 2 and "<p>" in html


def test_html_escapes_names() -> None:
    games = [{"entrants": ["<b>x</b>", "y"], "scores": [i % 2, 1 - i % 2]} for i in range(4)]
    html = render_table(rate(games, resamples=0), TableFormat.HTML)
    assert "<b>x</b>" not in html and "&lt;b&gt;x&lt;/b&gt;" in html


def test_json_has_the_table_data(ratings: Ratings) -> None:
    data = json.loads(render_table(ratings, TableFormat.JSON, crosstable=True))
    assert data == json.loads(json.dumps(ratings_json(ratings, crosstable=True)))
    assert data["games"] == 120 and data["pairings"] == 720 and data["resamples"] == 100
    entrants = data["entrants"]
    assert [e["name"] for e in entrants] == list(ratings.names)
    assert [e["place"] for e in entrants] == [1, 2, 3, 4]
    for entry, row in zip(entrants, ratings.standings, strict=True):
        assert entry["rating"] == row.rating and entry["flag"] is None
        assert entry["lower"] < entry["rating"] < entry["upper"]
        assert entry["faults"] == row.faults and entry["games"] == row.games
    head = data["head_to_head"]
    a, b = ratings.names[:2]
    assert head[a][b]["score"] + head[b][a]["score"] == pytest.approx(1)
    assert head[a][b]["pairings"] == head[b][a]["pairings"] > 0


def test_flagged_entrants_render_without_numbers() -> None:
    games = [{"entrants": ["a", "b", "c"], "scores": [i % 3, (i + 1) % 3, (i + 2) % 3]}
             for i in range(9)]
    games += [{"entrants": ["champ", "a"], "scores": [2, 1]}] * 3
    games += [{"entrants": ["x", "y"], "scores": [1, 0]},
              {"entrants": ["x", "y"], "scores": [0, 1]}]
    ratings = rate(games, resamples=20, prior=0)  # the bare fit: flags, not finite ratings
    text = render_table(ratings, TableFormat.PLAIN)
    champ = next(line for line in text.splitlines() if " champ " in line)
    assert champ.split()[:3] == ["1", "champ", "+inf"]
    assert "+inf: no finite rating" in text and "n/a: no rating" in text
    data = ratings_json(ratings)
    entrants: list[dict[str, object]] = data["entrants"]  # type: ignore[assignment]
    flagged = {e["name"]: (e["rating"], e["flag"], e["lower"]) for e in entrants}
    assert flagged["champ"] == (None, "top", None)
    assert flagged["x"] == (None, "apart", None)


def test_results_table_for_the_tournament_runner() -> None:
    text = results_table(results(20), fmt=TableFormat.GITHUB, resamples=10)
    assert text.startswith("|   # | entrant")
    with pytest.raises(ConfigError, match="--format: 'xml' is not one of plain, github"):
        TableFormat.parse("xml")  # where the command line is read


# The command -------------------------------------------------------------------------------------

@pytest.mark.slow
def test_cli_json_end_to_end(tmp_path: Path) -> None:
    path = write_games(tmp_path / "games.jsonl", results())
    done = arena("table", str(path), "--format", "json", "--resamples", "50", "--crosstable")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert {e["name"] for e in data["entrants"]} == set(NAMES)
    assert data["resamples"] == 50 and "head_to_head" in data
    expected = ratings_json(rate(results(), resamples=50), crosstable=True)
    assert data == json.loads(json.dumps(expected))


@pytest.mark.slow
def test_cli_errors_are_one_line(tmp_path: Path) -> None:
    done = arena("table", str(tmp_path / "missing.jsonl"))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == f"arena: error: {tmp_path / 'missing.jsonl'}: no such file or directory\n"


def test_cli_plain_table_and_options(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    path = write_games(tmp_path / "games.jsonl", results(), tail='{"id": "g')
    status, out, err = run_main(monkeypatch, capsys, "table", str(tmp_path), "--resamples", "20",
                                "--anchor", "random=1000", "--seed", "3")
    assert status == 0
    assert all(name in out for name in NAMES) and "Elo anchored at random = 1000" in out
    random_row = next(line for line in out.splitlines() if " random " in line)
    assert random_row.split()[2] == "1000.0"
    note = f"skipped a half-written last line (interrupted run?) at {path}:121"
    assert err == f"arena: note: {note}\n"


@pytest.mark.parametrize(("args", "message"), [
    (["--anchor", "nobody=1000"], "--anchor: 'nobody' is not an entrant (entrants: bold, cautious"),
    (["--anchor", "random"], "--anchor: expected NAME=RATING"),
    (["--format", "xml"], "--format: 'xml' is not one of plain, github, csv, json, html"),
])
def test_cli_bad_options(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                         capsys: pytest.CaptureFixture[str], args: list[str], message: str) -> None:
    path = write_games(tmp_path / "games.jsonl", results(10))
    status, out, err = run_main(monkeypatch, capsys, "table", str(path), *args)
    assert status == 2 and out == ""
    assert err.startswith(f"arena: error: {message}") and err.count("\n") == 1
    assert "Traceback" not in err


def test_cli_resamples_out_of_range_is_a_usage_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    # the range is arena.settings.RESAMPLES, given to typer: its usage error names the option
    path = write_games(tmp_path / "games.jsonl", results(10))
    for value in ("-1", str(10**20)):
        status, out, err = run_main(monkeypatch, capsys, "table", str(path), "--resamples", value)
        assert status == 2 and out == ""
        assert err.startswith("arena: error: arena table: Invalid value for '--resamples'")
        assert err.count("\n") == 1  # one line, like every other error


def test_every_format_is_offered() -> None:
    assert tuple(TableFormat) == ("plain", "github", "csv", "json", "html")


def test_old_files_get_their_duplicate_sets_from_the_game_ids(tmp_path: Path) -> None:
    # Four copies of each game in one set: the set bootstrap must see 25 sets, not 100 games.
    rng = random.Random(4)
    games = []
    for table in range(25):
        scores = [rng.random() for _ in range(3)]
        games += [{"id": f"r1-t{table:04d}-s{s}",
                   "result": {"entrants": ["a", "b", "c"], "scores": scores}} for s in range(4)]
    old = tmp_path / "old.jsonl"
    old.write_text("".join(json.dumps(game) + "\n" for game in games))
    read = read_results([old])
    assert {result["set"] for result in read.results} == {f"r1-t{t:04d}" for t in range(25)}
    named = [{**game["result"], "set": game["id"][:8]} for game in games]
    assert [(r.lower, r.upper) for r in rate(read.results, resamples=100).standings] == \
        [(r.lower, r.upper) for r in rate(named, resamples=100).standings]


def test_crosstable_columns_short_names_whole_long_ones_abbreviated() -> None:
    names = ["greedy", "first-legal-c", "monte-carlo-search-v1", "monte-carlo-search-v2",
             "alphabetagamma-deep-search", "x" * 40]
    labels = column_labels(names)
    assert labels[:2] == ["greedy", "first-legal-c"]
    assert labels[2:4] == ["#3", "#4"]  # their first 16 characters do not tell them apart
    assert labels[4:] == ["alphabetagamma-d", "x" * 16]
    assert len(set(labels)) == len(labels)


# Owners ----------------------------------------------------------------------------------------

def test_a_table_shows_the_owners_the_records_carry_where_they_differ_from_the_names(
        tmp_path: Path) -> None:
    owner = {"greedy": "ada", "bold": "ada", "cautious": "cautious", "random": "random"}
    games = results(60)
    seats = [list(map(str, result["entrants"])) for result in games]  # type: ignore[call-overload]
    lines = [json.dumps({"format": 3, "id": f"g{i}", "seed": i, "names": names,
                         "owners": [owner[name] for name in names], "result": result})
             for i, (names, result) in enumerate(zip(seats, games, strict=True))]
    path = tmp_path / "games.jsonl"
    path.write_text("".join(line + "\n" for line in lines))
    text = table_for_paths([path], resamples=0).text
    assert text.splitlines()[0].split()[:4] == ["#", "entrant", "owner", "Elo"]
    rows = {line.split()[1]: line.split()[2] for line in text.splitlines()[2:6]}
    assert rows == owner
    data = json.loads(table_for_paths([path], fmt=TableFormat.JSON, resamples=0).text)
    assert {row["name"]: row["owner"] for row in data["entrants"]} == owner
    # Every bot its own owner (no owner: in the file, or lines from before owners): no column.
    plain = table_for_paths([write_games(tmp_path / "plain.jsonl", results(60))], resamples=0)
    assert "owner" not in plain.text.splitlines()[0]
    assert "owner" not in json.loads(table_for_paths([tmp_path / "plain.jsonl"],
                                                     fmt=TableFormat.JSON).text)["entrants"][0]


@pytest.mark.slow
def test_games_of_a_single_duplicate_set_have_no_interval_and_the_table_says_so(
        tmp_path: Path) -> None:
    one_set = [{**result, "set": "r1-t0000"} for result in results(3)]
    done = arena("table", write_games(tmp_path / "games.jsonl", one_set))
    assert done.returncode == 0, done.stderr
    rows = [line.split() for line in done.stdout.splitlines()[2:6]]
    assert all(len(row) == 7 for row in rows), rows  # no -, + nor LOS: 10 columns less 3
    assert "-/+ and LOS: not known: the games form a single duplicate set" in done.stdout
    assert "bootstrap resamples" not in done.stdout
    data = ratings_json(rate(one_set, resamples=20))
    assert sorted(data["unknown_intervals"]) == sorted(NAMES)  # type: ignore[arg-type]
    assert all(e["lower"] is None and e["los_next"] is None
               for e in data["entrants"])  # type: ignore[union-attr]
    two_sets = one_set + [{**result, "set": "r1-t0001"} for result in results(3, seed=2)]
    known = rate(two_sets, resamples=20)
    assert known.unknown_intervals == () and all(s.lower is not None for s in known.standings)
    assert "not known" not in render_table(known)
