"""`arena report` without a browser: reading records, the per-entrant figures, the files written."""

from __future__ import annotations

import html
import shutil
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from arena.errors import ResultsError
from arena.report.game_records import find_game, read_games
from arena.report.site import results_name, write_report
from arena.report.stats import entrant_stats

from helpers import result_lines

ARENA = [sys.executable, "-c", "from arena.cli import main; main()"]


def test_a_line_that_is_not_a_record_is_named_by_file_and_line(blackout_results, tmp_path):
    bad = tmp_path / "games.jsonl"
    first = (blackout_results / "games.jsonl").read_bytes().splitlines()[0]
    bad.write_bytes(first + b"\n" + b'{"entrants": ["a", "b"], "scores": [1, 0]}\n')
    with pytest.raises(ResultsError, match=r"games.jsonl:2: a bare result object"):
        read_games([bad])
    bad.write_bytes(first + b"\n[1, 2\n" + first + b"\n")
    with pytest.raises(ResultsError, match=r"games.jsonl:2: not JSON"):
        read_games([bad])
    with pytest.raises(ResultsError, match="no such file"):
        read_games([tmp_path / "missing"])


def test_a_half_written_last_line_is_skipped_and_reported(blackout_results, tmp_path):
    data = (blackout_results / "games.jsonl").read_bytes()
    (tmp_path / "games.jsonl").write_bytes(data + data[:100])
    read = read_games([tmp_path])
    assert len(read.games) == len(result_lines(blackout_results))
    assert read.notes.unterminated == [f"{tmp_path / 'games.jsonl'}:{len(read.games) + 1}"]


def test_the_same_ids_in_two_files_get_distinct_keys(blackout_results, tmp_path):
    shutil.copytree(blackout_results, tmp_path / "again")
    games = read_games([blackout_results, tmp_path / "again"]).games
    keys = [game.key for game in games]
    assert len(set(keys)) == len(keys) == 2 * len(result_lines(blackout_results))
    assert find_game(blackout_results, games[0].record["id"]) == games[0].record


def test_entrant_figures_match_the_records(blackout_results):
    games = read_games([blackout_results]).games
    stats = entrant_stats(games)
    recs = result_lines(blackout_results)
    assert set(stats) == {"greedy", "random-py", "random-c", "crasher"}
    crasher = stats["crasher"]
    assert crasher.faults_by_kind() == {"crash": sum(len(r["faults"]) for r in recs)}
    for name, row in stats.items():
        seats = [(r, r["names"].index(name)) for r in recs]
        bids = [(bid, deal["tricks"][seat]) for r, seat in seats for deal in r["deals"]
                for who, bid in deal["bids"] if who == seat]
        assert row.games == len(recs)
        assert row.contracts == len(bids)
        assert row.exact == sum(bid == taken for bid, taken in bids)
        timed = [ms for r, seat in seats for deal in r["deals"]
                 for (who, _), ms in zip(deal["bids"] + deal["plays"], deal["bid_ms"] + deal["play_ms"],
                                         strict=True) if who == seat and ms is not None]
        assert row.times and sorted(row.times) == sorted(timed)
        summary = row.time_summary()
        assert summary is not None and summary["median"] <= summary["p95"] <= summary["max"]
        assert summary["max"] == max(timed)
        places = [r["result"]["ranks"][r["result"]["entrants"].index(name)] for r in recs]
        assert row.average_place == pytest.approx(sum(places) / len(places))
    # After its crash the crasher's decisions are the fallback's: untimed.
    assert len(crasher.times) < sum(len(d["bids"]) + len(d["plays"]) for r in recs
                                    for d in r["deals"]) // 4


def test_partnership_figures_count_contracts_by_team(partnership_results):
    games = read_games([partnership_results]).games
    stats = entrant_stats(games)
    recs = result_lines(partnership_results)
    contracts = [d["contract"] for r in recs for d in r["deals"] if d["contract"]]
    assert sum(row.contracts for row in stats.values()) == len(contracts)
    assert all(row.times for row in stats.values())
    assert all(row.by_contract for row in stats.values() if row.contracts)
    made = sum(d["scores"][d["contract"]["team"]] > 0 for r in recs for d in r["deals"]
               if d["contract"])
    assert sum(row.exact for row in stats.values()) == made


def test_report_writes_every_page_and_one_replay_per_game(blackout_results, tmp_path):
    written = write_report([blackout_results], tmp_path / "site", resamples=50)
    site = tmp_path / "site"
    assert written.index == site / "index.html" and written.games == 8
    recs = result_lines(blackout_results)
    for record in recs:
        script = (site / "games" / f"{record['id']}.js").read_bytes()
        assert script.startswith(b"arenaGame(") and script.endswith(b");\n")
        line, seed, *more = orjson.loads(b"[" + script[len(b"arenaGame("):-3] + b"]")
        assert line == record
        assert seed == str(record["seed"])  # exact: JS numbers hold 53 bits
        # The crasher's last words, beside the decision it crashed at; no other bot wrote any.
        crashes = [fault for fault in record["faults"] if fault["bot"] == "crasher"]
        said = more[1]["decisions"] if more else []
        assert [(d, seat) for d, seat, _ in said] == [(f["decision"], f["seat"]) for f in crashes]
        for (_, _, text), fault in zip(said, crashes, strict=True):
            assert text == "crash_mid_game: giving up on act 3\n" and fault["stderr_tail"].endswith(text)
    assert sorted(p.name for p in site.glob("entrant-*.html")) == [f"entrant-{n}.html"
                                                                 for n in range(1, 5)]
    for page in ("index.html", "games.html", "replay.html", "data/games.js", "static/style.css",
                 "static/viewer.js", "static/games.js"):
        assert (site / page).is_file()
    for page in site.glob("*.html"):  # offline: nothing is loaded from anywhere else
        text = page.read_text()
        assert "http://" not in text and "https://" not in text and "//cdn" not in text
    index = (site / "index.html").read_text()
    assert all(name in index for name in ("greedy", "random-py", "random-c", "crasher"))


@pytest.mark.slow
def test_cli_report_prints_the_index_and_errors_are_one_line(blackout_results, tmp_path):
    done = subprocess.run([*ARENA, "report", str(blackout_results), "-o", str(tmp_path / "r"),
                           "--resamples", "20"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert str((tmp_path / "r" / "index.html").resolve()) in done.stdout
    failed = subprocess.run([*ARENA, "report", str(tmp_path / "nothing"), "-o", str(tmp_path / "x")],
                            capture_output=True, text=True, timeout=120)
    assert failed.returncode == 2
    assert failed.stderr.strip().splitlines() == [f"arena: error: {tmp_path / 'nothing'}: "
                                                  "no such file or directory"]


def test_the_report_is_named_after_its_tournament_match_or_league(blackout_results, tmp_path):
    assert results_name(blackout_results) == "tournament report-test"
    assert results_name(blackout_results / "games.jsonl") == "tournament report-test"
    match = tmp_path / "v2-vs-v1"
    match.mkdir()
    (match / "match.json").write_text("{}")
    assert results_name(match) == "match v2-vs-v1"
    export = tmp_path / "friends" / "export"
    export.mkdir(parents=True)
    (tmp_path / "friends" / "league.db").write_bytes(b"")
    assert results_name(export / "games.jsonl") == "league friends"
    assert results_name(tmp_path) is None
    written = write_report([blackout_results], tmp_path / "site", resamples=0)
    index = written.index.read_text()
    assert "<h1>Ranking: tournament report-test</h1>" in index
    assert '<span class="what">tournament report-test: 8 games of blackout</span>' in index


@pytest.mark.slow
def test_an_entrant_page_shows_the_cpu_time_its_bot_used(tmp_path):
    """A bot that spins 80 ms of CPU at its first act: the report's CPU figures come from the
    records' *_cpu_ms (issue 19), apart from the wall-clock decision times."""
    root = Path(__file__).resolve().parents[3]
    spins = root / "tests" / "bots" / "misbehaving" / "spins.py"
    c_bot = root / "bots" / "c" / "random_bot"
    (tmp_path / "t.yaml").write_text(
        "name: t\ngame: blackout\nplayers: 3\noptions: {deals: 2}\n"
        "time: {start_ms: 30000, move_ms: 5000, bank_ms: 0}\nbots:\n"
        f"  - {{name: spinner, cmd: {sys.executable} -S {spins} 0.08 1}}\n"
        f"  - {{name: c1, cmd: {c_bot}}}\n  - {{name: c2, cmd: {c_bot}}}\n")
    done = subprocess.run([*ARENA, "run", "t.yaml", "--out", "out", "--jobs", "1"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    stats = entrant_stats(read_games([tmp_path / "out"]).games)
    spinner = stats["spinner"].cpu_summary()
    assert spinner is not None and 70 <= spinner["max"] <= 200  # its one spin, as measured
    quick = stats["c1"].cpu_summary()
    assert quick is not None and quick["max"] < 50
    write_report([tmp_path / "out"], tmp_path / "site")
    pages = [p.read_text() for p in (tmp_path / "site").glob("*.html")]
    assert sum("decision CPU time p95" in page for page in pages) == 3  # one per entrant


@pytest.mark.slow
def test_a_league_directory_is_reported_as_its_export_would_be(tmp_path):
    # "no games.jsonl in this directory", without a word about export: the report reads the
    # league itself, and the other readers name the command.
    from arena.league.playing import run_league
    from arena.league.status import league_games

    from helpers import ROOT, arena, new_league, own_bot, submitted

    league = new_league(tmp_path / "friends", options={"deals": "2"})
    for bot in (ROOT / "bots/c/random.bot.yaml", ROOT / "bots/c/first.bot.yaml", own_bot(tmp_path)):
        submitted(league, bot)
    assert run_league(league, games=3, jobs=1).played == 3
    written = write_report([league], tmp_path / "site", resamples=0, league_games=league_games)
    assert written.games == 3
    assert "<h1>Ranking: league friends</h1>" in written.index.read_text()
    assert len(list((tmp_path / "site" / "games").glob("*.js"))) == 3
    done = arena("table", league)
    assert done.returncode == 2
    assert done.stderr == (f"arena: error: {league}: a league, not a results directory: `arena "
                           f"league export {league}` writes its games to {league}/export/"
                           f"games.jsonl (`arena league table {league}` rates its active entrants; "
                           f"`arena report` reads a league directly)\n")


@pytest.mark.slow
def test_a_match_report_says_which_program_is_which_and_the_paired_verdict(tmp_path):
    # The page showed "candidate" and "baseline" with neither program nor the SPRT's verdict.
    from helpers import C_BOT, FIRST_BOT, arena, own_bot

    (tmp_path / "x<i>y").mkdir()
    (tmp_path / "old").mkdir()
    newer = own_bot(tmp_path / "x<i>y", "mine", version="2")
    older = own_bot(tmp_path / "old", "mine", program=FIRST_BOT, version="1")
    out = tmp_path / "m"
    done = arena("match", newer, older, "--field", C_BOT, "--players", "3", "-o", "deals=2",
                 "--games", "8", "--sprt", "elo0=0,elo1=50", "--out", out)
    assert done.returncode == 0, done.stderr
    write_report([out], tmp_path / "site", resamples=0)
    index = (tmp_path / "site" / "index.html").read_text()
    match = index[index.index("<h2>Match</h2>"):index.index("<h2>Every entrant</h2>")]
    assert "<th>candidate</th><td>mine v2</td>" in match and "<th>baseline</th><td>mine v1</td>" in match
    assert "x&lt;i&gt;y" in match and "<i>" not in match  # the command, escaped
    assert "Paired Elo of the candidate over the baseline: " in match and "from 4 units" in match
    # the test's line in the console's words, verdict and estimate included
    said = next(line for line in done.stdout.splitlines() if line.startswith("SPRT elo0=0 elo1=50"))
    assert f"<p id=\"sprt\">{html.escape(said)}.</p>" in match, (said, match)
    assert "no decision within --games (the LLR stayed between its bounds); estimate " in said


SAYS = Path(__file__).resolve().parents[2] / "bots" / "says_each_decision.py"


def acts_by_seat(record: dict) -> dict[int, list[tuple[int, object]]]:
    """Each seat's decisions in order: (game-wide number from 1, the action it took)."""
    seats: dict[int, list[tuple[int, object]]] = {}
    number = 0
    for deal in record["deals"]:
        for seat, action in [*deal["bids"], *deal["plays"]]:
            number += 1
            seats.setdefault(seat, []).append((number, action))
    return seats


def shown_stderr(site: Path, key: str) -> list[list]:
    script = (site / "games" / f"{key}.js").read_bytes()
    return orjson.loads(b"[" + script[len(b"arenaGame("):-3] + b"]")[3]["decisions"]


@pytest.mark.slow
def test_a_played_games_replay_shows_each_decisions_stderr_beside_it(tmp_path):
    """``arena play --stderr-dir`` then ``arena report --logs``: each act's lines, as the bot
    wrote them (its forged marks and HTML too), at the decision that wrote them, none elsewhere."""
    logs = tmp_path / "logs"
    says = f"{sys.executable} -S {SAYS}"
    played = subprocess.run([*ARENA, "play", "blackout", f"a={says}", f"b={says}",
                             str(Path(__file__).resolve().parents[3] / "bots" / "c" / "random_bot"),
                             "-o", "deals=2", "--log", str(tmp_path / "g.json"),
                             "--stderr-dir", str(logs)], capture_output=True, text=True, timeout=120)
    assert played.returncode == 0, played.stderr
    done = subprocess.run([*ARENA, "report", str(tmp_path / "g.json"), "--logs", str(logs), "-o",
                           str(tmp_path / "site"), "--resamples", "0"], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    record = orjson.loads((tmp_path / "g.json").read_bytes())
    expected = []
    for seat, decisions in acts_by_seat(record).items():
        if seat == 2:  # the C bot writes nothing
            continue
        for act, (number, action) in enumerate(decisions, 1):
            expected.append([number, seat, f"seat {seat} act {act} plays {action}\n"
                             f"<script>alert({act})</script><img src=x onerror=\"document.title="
                             f"'owned'\"> [0, \"r1-t0000-s0\", {seat}, 1] \\x1b[31m[arena] "
                             "decision 1\n"])  # the escape shown, not acted on
    assert shown_stderr(tmp_path / "site", "game") == sorted(expected)
    shown = subprocess.run([*ARENA, "show", str(tmp_path / "g.json"), "--logs", str(logs),
                            "--seat", "1"], capture_output=True, text=True, timeout=120)
    assert shown.returncode == 0, shown.stderr
    assert "\x1b" not in shown.stdout
    told = [line for line in shown.stdout.splitlines() if line.startswith(("    seat ", "    | "))]
    in_deal = {}  # game-wide decision: its deal and number within the deal, as shown
    for deal in record["deals"]:
        for step, _ in enumerate([*deal["bids"], *deal["plays"]], 1):
            in_deal[len(in_deal) + 1] = f"deal {deal['deal']}, decision {step}"
    assert told == [line for number, seat, text in sorted(expected) if seat == 1 for line in
                    [f"    seat 1 stderr at {in_deal[number]}:",
                     *(f"    | {said}" for said in text.splitlines())]]
    missing = subprocess.run([*ARENA, "report", str(tmp_path / "g.json"), "--logs",
                              str(tmp_path / "none"), "-o", str(tmp_path / "x")],
                             capture_output=True, text=True, timeout=120)
    assert missing.returncode == 2
    assert missing.stderr.strip() == f"arena: error: --logs: {tmp_path / 'none'}: not a directory"


def test_a_cluster_runs_replays_say_its_logs_stayed_on_the_workers(blackout_results, tmp_path):
    results = tmp_path / "results"
    results.mkdir()
    shutil.copy(blackout_results / "games.jsonl", results)
    text = (blackout_results / "tournament.yaml").read_text()
    (results / "tournament.yaml").write_text(text + "cluster: tcp://127.0.0.1:8786\n")
    write_report([results], tmp_path / "site", resamples=0)
    record = result_lines(results)[0]
    script = (tmp_path / "site" / "games" / f"{record['id']}.js").read_bytes()
    said = orjson.loads(b"[" + script[len(b"arenaGame("):-3] + b"]")[3]
    assert said["decisions"] == [] and "stay on its workers" in said["note"]


HOSTILE = "cr<b>a\x1bsh'er\u202e&amp;"
"""An entrant's name as a results file from elsewhere may hold it: markup, an escape sequence, a
bidi override, an entity."""


def test_every_page_shows_a_hostile_name_printable_then_escaped(blackout_results, tmp_path):
    # The report escaped by HTML's rules only where its code asked, and left controls raw; its
    # pages now come from templates that do both to every value, as the served league's do.
    def renamed(value):
        if isinstance(value, str):
            return HOSTILE if value == "crasher" else value
        if isinstance(value, list):
            return [renamed(item) for item in value]
        if isinstance(value, dict):
            return {key: renamed(item) for key, item in value.items()}
        return value

    lines = [renamed(record) for record in result_lines(blackout_results)]
    for record in lines:
        for fault in record["faults"]:
            fault["detail"] += " <script>alert(1)</script>\x1b[2J\u202e"
    results = tmp_path / "results"
    results.mkdir()
    (results / "games.jsonl").write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in lines))
    write_report([results], tmp_path / "site", resamples=0)
    shown = "cr&lt;b&gt;a\\x1bsh&#39;er\\u202e&amp;amp;"
    pages = {page.name: page.read_text() for page in (tmp_path / "site").glob("*.html")}
    for name, text in pages.items():
        assert "\x1b" not in text and "\u202e" not in text and "<b>" not in text, name
        assert "<script>alert" not in text, name
    index = pages["index.html"]
    assert index.count(shown) >= 4  # its row, the crosstable's header and row, two plots
    crasher = next(text for text in pages.values() if f"<h1>{shown}</h1>" in text)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;\\x1b[2J\\u202e</td>" in crasher
