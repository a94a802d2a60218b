"""`arena analyse`, `arena show --analyse` and `arena report --analyse` on real games: the
decisions, the summary, JSON, the cache beside the games, Ctrl-C, and bad input as one line."""

from __future__ import annotations

import json
import re
import shutil
import signal
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

from arena.analysis.cache import analysis_file
from arena.report.site import write_report

from helpers import arena, start_arena, wait_for

GREEDY = f"{sys.executable} -S {Path(__file__).parents[3] / 'bots' / 'python' / 'greedy_bot.py'}"

pytestmark = pytest.mark.timeout(300)  # real games, then their analysis: a loaded machine

KEYS = {"game", "deal", "decision", "in_deal", "seat", "kind", "chosen", "best", "loss", "stderr",
        "mark", "values"}


def _numbered_in_deal(record: dict[str, Any]) -> dict[int, tuple[int, int]]:
    """Each game-wide decision number of ``record`` (as its faults count) as (deal, its number in
    the deal), counted here from the record's bids and plays."""
    where: dict[int, tuple[int, int]] = {}
    for deal in record["deals"]:
        for step, _ in enumerate([*deal["bids"], *deal["plays"]], 1):
            where[len(where) + 1] = (deal["deal"], step)
    return where


def _game_of(results: Path, name: str) -> tuple[str, int]:
    """The first game ``name`` played in ``results``, and its seat there."""
    for line in (results / "games.jsonl").read_text().splitlines():
        record = json.loads(line)
        if name in record["names"]:
            return record["id"], record["names"].index(name)
    raise AssertionError(f"{name} played no game")


@pytest.mark.slow
def test_analyse_prints_each_decision_and_caches_them(noise_results: Path, tmp_path: Path) -> None:
    results = tmp_path / "r"
    shutil.copytree(noise_results, results)
    game, _ = _game_of(results, "random")
    done = arena("analyse", results, game, "--entrant", "random", "--samples", "8")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert any(" bid: chose " in line and ", best " in line for line in lines)
    assert any(line.startswith("random: 1 game, mean expected loss per decision") for line in lines)
    assert "bids or calls: " in done.stdout and "plays: " in done.stdout
    cache = analysis_file(results)
    assert cache == results / "analysis.jsonl"
    kept = [orjson.loads(line) for line in cache.read_bytes().splitlines()]
    assert [(line["game"], line["entrant"], line["samples"]) for line in kept] == \
        [(game, "random", 8)]
    again = arena("analyse", results, game, "--entrant", "random", "--samples", "8")
    assert again.stdout == done.stdout
    assert "(from the cache)" in again.stderr
    assert cache.read_bytes().count(b"\n") == 1  # nothing analysed twice

    as_json = arena("analyse", results, game, "--entrant", "random", "--samples", "8",
                    "--format", "json")
    decisions = [json.loads(line) for line in as_json.stdout.splitlines()]
    assert decisions and all(set(d) == KEYS for d in decisions)
    assert {d["kind"] for d in decisions} == {"bid", "play"}
    assert all(d["loss"] >= 0 and d["stderr"] >= 0 for d in decisions)
    assert all(d["mark"] in (None, "inaccuracy", "mistake", "blunder") for d in decisions)

    site = tmp_path / "site"
    write_report([results], site, resamples=0)
    replay = (site / "games" / f"{game}.js").read_text()
    assert '"chosen":' in replay and '"values":' in replay
    pages = "".join(path.read_text() for path in site.glob("entrant-*.html"))
    assert pages.count("Decisions analysed") == 1  # the random bot's page only


@pytest.mark.slow
def test_show_analyse_prints_the_seat_s_decisions(noise_results: Path, tmp_path: Path) -> None:
    results = tmp_path / "r"
    shutil.copytree(noise_results, results)
    game, seat = _game_of(results, "random")
    done = arena("show", results, game, "--seat", str(seat), "--analyse")
    assert done.returncode == 0, done.stderr
    assert "Analysis of random:" in done.stdout
    assert f"seat {seat} bid: chose " in done.stdout


@pytest.mark.slow
def test_ctrl_c_keeps_the_games_analysed(noise_results: Path, tmp_path: Path) -> None:
    results = tmp_path / "r"
    shutil.copytree(noise_results, results)
    cache = analysis_file(results)
    run = start_arena("analyse", results, "--entrant", "noise-0", "--games", "100", "--samples",
                      "64", "--jobs", "2")
    try:
        wait_for(lambda: cache.exists() and cache.read_bytes().count(b"\n") >= 1,
                 what="a first game analysed")
        run.send_signal(signal.SIGINT)
        _, err = run.communicate(timeout=60)
    finally:
        run.kill()
    assert run.returncode == 130
    assert "interrupted:" in err and "kept in" in err and "Traceback" not in err
    kept = cache.read_bytes()
    assert kept.endswith(b"\n")
    assert 1 <= kept.count(b"\n") < 18  # 18 games of noise-0: stopped before the end


def test_bad_input_is_one_line(tmp_path: Path) -> None:
    missing = arena("analyse", tmp_path / "nothing", "--entrant", "x")
    assert missing.returncode == 2
    assert missing.stderr.count("\n") == 1 and "Traceback" not in missing.stderr
    no_entrant = arena("analyse", tmp_path)
    assert no_entrant.returncode == 2 and "--entrant" in no_entrant.stderr
    assert no_entrant.stderr.count("\n") == 1


@pytest.mark.slow
def test_an_entrant_that_did_not_play_is_named(noise_results: Path) -> None:
    done = arena("analyse", noise_results, "--entrant", "nobody")
    assert done.returncode == 2
    assert "--entrant 'nobody' played no game" in done.stderr and "noise-0" in done.stderr
    assert done.stderr.count("\n") == 1


sys.path.insert(0, str(Path(__file__).parents[1] / "report"))
from browser import chromium, console_errors, missing  # noqa: E402


@pytest.mark.slow
@pytest.mark.skipif(missing() is not None, reason=str(missing()))
@pytest.mark.timeout(300)
def test_the_replay_shows_an_analysed_decision(noise_results: Path, tmp_path: Path) -> None:
    """At an analysed decision the viewer lists every legal action's expected score, the chosen and
    the best marked, and the move list carries the marks."""
    from selenium.webdriver.support.ui import WebDriverWait

    results = tmp_path / "r"
    shutil.copytree(noise_results, results)
    game, _ = _game_of(results, "random")
    assert arena("analyse", results, game, "--entrant", "random", "--samples", "8").returncode == 0
    site = tmp_path / "site"
    write_report([results], site, resamples=0)
    decisions = [d for line in analysis_file(results).read_bytes().splitlines()
                 for d in orjson.loads(line)["decisions"]]
    shown = next(d for d in decisions if len(d["values"]) > 2 and d["mark"])
    with chromium() as browser:
        browser.get(f"{site.as_uri()}/replay.html?game={game}&deal={shown['deal']}"
                    f"&decision={shown['decision']}")
        WebDriverWait(browser, 30).until(
            lambda b: b.find_elements("css selector", "#analysis-values tbody tr"))
        rows = browser.find_elements("css selector", "#analysis-values tbody tr")
        assert [row.get_attribute("data-action") for row in rows] == \
            [str(action) for action, _, _ in shown["values"]]
        chosen = browser.find_element("css selector", "#analysis-values tr.chosen")
        assert chosen.get_attribute("data-action") == str(shown["chosen"])
        best = browser.find_element("css selector", "#analysis-values tr.best")
        assert best.get_attribute("data-action") == str(shown["best"])
        summary = browser.find_element("css selector", "#analysis-summary").text
        assert f"expected loss {shown['loss']:.1f}" in summary and shown["mark"] in summary
        marks = browser.find_elements("css selector", "#log .mark")
        assert marks and marks[-1].text.strip() in ("?!", "?", "??")
        assert console_errors(browser) == []


@pytest.mark.slow
def test_report_analyse_analyses_first(tmp_path: Path) -> None:
    """`arena report LOG --analyse NAME` on a play log: the analysis is made, kept beside the log,
    and on the entrant's page."""
    log = tmp_path / "game.json"
    played = arena("play", "blackout", f"mine={GREEDY}", f"other={GREEDY}", f"third={GREEDY}",
                   "-o", "deals=2", "--log", log)
    assert played.returncode == 0, played.stderr
    done = arena("report", log, "-o", tmp_path / "site", "--resamples", "0", "--analyse", "mine")
    assert done.returncode == 0, done.stderr
    assert f"arena: analysing 1 game of mine in {log}" in done.stderr  # before it starts
    assert "analysed 1 game of mine" in done.stderr
    assert analysis_file(log) == tmp_path / "game.json.analysis.jsonl"
    assert analysis_file(log).read_bytes().count(b"\n") == 1
    pages = {path.name: path.read_text() for path in (tmp_path / "site").glob("entrant-*.html")}
    assert sum("Decisions analysed" in page for page in pages.values()) == 1


RANDOM = f"{sys.executable} -S {Path(__file__).parents[3] / 'bots' / 'python' / 'random_bot.py'}"


@pytest.fixture(scope="module")
def random_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One `arena play --log` game of 5 deals whose seat `mine` plays at random (marks to find;
    the same game each run: the default seed, and the bots seeded by it), analysed once at 8
    samples: the commands below read it from the cache."""
    log = tmp_path_factory.mktemp("top") / "game.json"
    played = arena("play", "blackout", f"mine={RANDOM}", f"other={GREEDY}", f"third={GREEDY}",
                   "-o", "deals=5", "--log", log)
    assert played.returncode == 0, played.stderr
    done = arena("analyse", log, "--entrant", "mine", "--samples", "8")
    assert done.returncode == 0, done.stderr
    assert "arena: analysing 1 game of mine in " in done.stderr
    return log


def _decisions(log: Path, *options: str) -> list[dict[str, Any]]:
    done = arena("analyse", log, "--entrant", "mine", "--samples", "8", "--format", "json",
                 *options)
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def _worst_first(decisions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The decisions with a choice, the largest loss first, equal ones in game order."""
    chosen = [d for d in decisions if d["best"] is not None and len(d["values"]) > 1]
    return sorted(chosen, key=lambda d: -d["loss"])


@pytest.mark.slow
def test_top_lists_the_costliest_decisions_worst_first(random_log: Path) -> None:
    every = _decisions(random_log)
    expected = _worst_first(every)[:3]
    assert len(expected) == 3 and expected[0]["loss"] > 0
    assert _decisions(random_log, "--top", "3") == expected
    text = arena("analyse", random_log, "--entrant", "mine", "--samples", "8", "--top", "3")
    assert text.returncode == 0, text.stderr
    whole = arena("analyse", random_log, "--entrant", "mine", "--samples", "8").stdout
    lines = text.stdout.splitlines()
    assert lines[0] == "the 3 costliest decisions, worst first:"
    listed = [line for line in lines if " chose " in line]
    # numbered within the deal, as show and the replays number them; the JSON keeps both
    where = _numbered_in_deal(json.loads(random_log.read_text()))
    assert all(where[d["decision"]] == (d["deal"], d["in_deal"]) for d in every)
    assert any(d["in_deal"] != d["decision"] for d in expected + every[-1:])
    assert [line.split(": chose")[0] for line in listed] == \
        [f"deal {d['deal']}, decision {d['in_deal']} seat {d['seat']} {d['kind']}"
         for d in expected]
    assert "from the cache" in text.stderr and "analysing" not in text.stderr
    # the summary stays that of every decision
    assert text.stdout.split("\n\n")[-1] == whole.split("\n\n")[-1]


@pytest.mark.slow
def test_marks_keeps_only_those_marks_and_composes_with_top(random_log: Path,
                                                           tmp_path: Path) -> None:
    every = _decisions(random_log)
    severe = [d for d in _worst_first(every) if d["mark"] in ("mistake", "blunder")]
    assert _decisions(random_log, "--marks", "mistake,blunder") == severe
    assert _decisions(random_log, "--marks", "blunder, mistake", "--top", "1") == severe[:1]
    inaccurate = [d for d in _worst_first(every) if d["mark"] == "inaccuracy"]
    assert _decisions(random_log, "--marks", "inaccuracy") == inaccurate
    assert severe or inaccurate  # a random bidder earns some mark in 5 deals
    text = arena("analyse", random_log, "--entrant", "mine", "--samples", "8", "--marks",
                 "mistake,blunder", "--top", "2")
    assert text.returncode == 0, text.stderr
    heading = text.stdout.splitlines()[0]
    assert heading == {0: "no decision marked mistake or blunder",
                       1: "the costliest decision marked mistake or blunder:"}.get(
        len(severe[:2]), "the 2 costliest decisions marked mistake or blunder, worst first:")
    site = tmp_path / "site"  # the entrant's page links its marked decisions in the same order
    write_report([random_log], site, resamples=0)
    page = next(html for html in (path.read_text() for path in site.glob("entrant-*.html"))
                if "Decisions analysed" in html)
    table = page.partition('id="worst"')[2].partition("</table>")[0]
    linked = re.findall(r"deal=(\d+)&amp;decision=(\d+)", table)
    assert linked == [(str(d["deal"]), str(d["decision"])) for d in
                      [d for d in _worst_first(every) if d["mark"]][:10]]


def test_an_unknown_mark_is_one_line(tmp_path: Path) -> None:
    done = arena("analyse", tmp_path, "--entrant", "x", "--marks", "mistake,blundr")
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert "--marks: 'blundr' is not a mark (marks: inaccuracy, mistake, blunder)" in done.stderr
    zero = arena("analyse", tmp_path, "--entrant", "x", "--top", "0")
    assert zero.returncode == 2 and "--top" in zero.stderr
