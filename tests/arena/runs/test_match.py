"""Paired matches end to end with real bot processes: units, decisions, resume, bad input."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import orjson
import pytest

from arena.errors import ConfigError
from arena.plans.match_plan import BASELINE, CANDIDATE, new_match, unit_games
from arena.ratings.sprt import Decision, match_stats, verdict
from arena.ratings.table import table_for_paths
from arena.runs.match_play import MatchReport, play_match, progress_line, summary
from arena.settings import SprtBounds, TimeControl
from arena.spec import PlaySettings

from helpers import arena

ROOT = Path(__file__).resolve().parents[3]
GREEDY = f"{sys.executable} -S {ROOT / 'bots' / 'python' / 'greedy_bot.py'}"
RANDOM_PY = f"{sys.executable} -S {ROOT / 'bots' / 'python' / 'random_bot.py'}"
C_BOT = str(ROOT / "bots" / "c" / "random_bot")
PLAY = PlaySettings(TimeControl(start_ms=20_000, move_ms=5_000, bank_ms=30_000))  # bounds a hang only

pytestmark = pytest.mark.timeout(240)


def lines(out: Path) -> list[dict[str, object]]:
    return [orjson.loads(line) for line in (out / "games.jsonl").read_bytes().splitlines()]


def test_a_unit_is_two_games_on_the_same_deals_with_the_same_field() -> None:
    match = new_match(GREEDY, RANDOM_PY, [C_BOT, C_BOT, RANDOM_PY], players=4)
    tested = []
    for unit in range(8):
        with_candidate, with_baseline = unit_games(match, unit)
        assert with_candidate.seed == with_baseline.seed
        assert with_candidate.set_id == with_baseline.set_id
        differ = [s for s, (a, b) in enumerate(zip(with_candidate.seats, with_baseline.seats,
                                                    strict=True)) if a != b]
        assert len(differ) == 1
        seat = differ[0]
        assert (with_candidate.seats[seat], with_baseline.seats[seat]) == (CANDIDATE, BASELINE)
        assert [n for n in with_candidate.seats if n != CANDIDATE] == ["random_bot", "random_bot-2",
                                                                       "random_bot-3"]
        tested.append(seat)
    assert tested == [0, 1, 2, 3, 0, 1, 2, 3]  # the tested seat rotates
    assert len({unit_games(match, u)[0].seed for u in range(8)}) == 8


def test_the_field_is_named_after_its_bots_each_name_once(tmp_path: Path) -> None:
    bot = tmp_path / "gobot"
    bot.mkdir()
    (bot / "bot.yaml").write_text(f"name: candidate\nrun: {C_BOT}\n")
    (bot / "first.bot.yaml").write_text(f"name: first\nrun: {ROOT / 'bots' / 'c' / 'first_bot'}\n")
    match = new_match(GREEDY, RANDOM_PY, [str(bot), str(bot / "first.bot.yaml"), GREEDY])
    assert match.field_names == ("candidate-2", "first", "greedy_bot")
    assert set(unit_games(match, 0)[0].seats) == {CANDIDATE, "candidate-2", "first", "greedy_bot"}
    (bot / "other.bot.yaml").write_text(f"name: First.\nrun: {C_BOT}\n")  # names compare by key
    (bot / "third.bot.yaml").write_text(f"name: BASELINE\nrun: {C_BOT}\n")
    match = new_match(GREEDY, RANDOM_PY, [str(bot / "first.bot.yaml"), str(bot / "other.bot.yaml"),
                                          str(bot / "third.bot.yaml")])
    assert match.field_names == ("first", "First.-2", "BASELINE-2")


def test_a_match_recorded_with_field1_names_resumes_under_them(tmp_path: Path) -> None:
    short = new_match(C_BOT, RANDOM_PY, [C_BOT], games=4, seed=6, play=PLAY)
    play_match(short, tmp_path / "m", jobs=1)
    described = tmp_path / "m" / "match.json"
    assert orjson.loads(described.read_bytes())["field_names"] == ["random_bot"]
    # As a match before the field was named: field1 in its games and no field_names.
    old = orjson.loads(described.read_bytes())
    del old["field_names"]
    described.write_bytes(orjson.dumps(old))
    games = tmp_path / "m" / "games.jsonl"
    games.write_text(games.read_text().replace('"random_bot"', '"field1"'))
    longer = new_match(C_BOT, RANDOM_PY, [C_BOT], games=8, seed=6, play=PLAY)
    resumed = play_match(longer, tmp_path / "m", jobs=1, resume=True)
    assert (resumed.resumed, resumed.played) == (4, 4)
    assert {name for line in lines(tmp_path / "m") for name in line["names"]} == \
        {CANDIDATE, BASELINE, "field1"}
    assert orjson.loads(described.read_bytes())["field_names"] == ["field1"]


def test_partnership_units_give_the_tested_program_a_whole_team() -> None:
    match = new_match(GREEDY, RANDOM_PY, [C_BOT], game="partnership-blackout")
    first, second = unit_games(match, 0)[0], unit_games(match, 1)[0]
    assert first.seats == (CANDIDATE, "random_bot", CANDIDATE, "random_bot")
    assert second.seats == ("random_bot", CANDIDATE, "random_bot", CANDIDATE)
    assert second.entrants == ["random_bot", CANDIDATE]


@pytest.mark.slow
def test_greedy_against_random_accepts_h1_within_a_few_hundred_games(tmp_path: Path) -> None:
    match = new_match(GREEDY, RANDOM_PY, [C_BOT], games=400, sprt=SprtBounds(0, 30), seed=3,
                      play=PLAY)
    seen = []
    report = play_match(match, tmp_path / "m", jobs=1, on_unit=lambda r: seen.append(r.stats))
    assert report.stats.decision is Decision.H1
    assert 2 * report.stats.units <= 400
    assert report.stats.elo > 30
    assert len(seen) == report.stats.units and seen[-1] == report.stats
    saved = lines(tmp_path / "m")
    assert len(saved) == report.played
    assert {line["result"]["set"] for line in saved} >= {"r1-t0000", "r1-t0001"}


@pytest.mark.slow
def test_a_bot_against_itself_does_not_accept_h1(tmp_path: Path) -> None:
    # The C random bot seeds its choices from game_start: both games of a unit are identical.
    # Every unit a draw, the SPRT takes the same 40 units whatever the games' length: 2 deals.
    match = new_match(C_BOT, C_BOT, [RANDOM_PY], games=400, sprt=SprtBounds(0, 30), seed=4,
                      play=PLAY, options={"deals": 2})
    report = play_match(match, tmp_path / "m", jobs=2)
    assert report.stats.decision is Decision.H0
    assert report.stats.mean == 0.5


@pytest.mark.slow
def test_a_noisy_copy_against_the_original_does_not_accept_h1(tmp_path: Path) -> None:
    # The candidate is the weaker one here: whatever the luck, the test must not call it stronger.
    # 4 deals a game: H0 after 40 units, as with 13 (Elo -86 against -33: half the decisions
    # random cost more of a short game), on a quarter of the CPU
    match = new_match(f"{GREEDY} --noise 0.5", GREEDY, [RANDOM_PY], games=300,
                      sprt=SprtBounds(0, 30), seed=5, play=PLAY, options={"deals": 4})
    report = play_match(match, tmp_path / "m", jobs=2)
    assert report.stats.decision is not Decision.H1
    assert report.stats.elo < 0


@pytest.mark.slow
def test_resume_continues_the_same_units(tmp_path: Path) -> None:
    short = new_match(C_BOT, RANDOM_PY, [C_BOT], games=20, seed=6, play=PLAY)
    longer = new_match(C_BOT, RANDOM_PY, [C_BOT], games=40, seed=6, play=PLAY)
    play_match(short, tmp_path / "a", jobs=2)
    resumed = play_match(longer, tmp_path / "a", jobs=2, resume=True)
    fresh = play_match(longer, tmp_path / "b", jobs=2)
    assert (resumed.resumed, resumed.played) == (20, 20)
    assert resumed.scores == fresh.scores and len(fresh.scores) == 20
    again = play_match(longer, tmp_path / "a", jobs=2, resume=True)
    assert again.played == 0 and again.scores == fresh.scores
    by_id = {line["id"]: line["result"] for line in lines(tmp_path / "a")}
    assert len(by_id) == 40
    # The results read as a table: the bootstrap draws whole units.
    assert "candidate" in table_for_paths([tmp_path / "a"], resamples=50).text


def test_resume_refuses_another_match_and_a_plain_rerun(tmp_path: Path) -> None:
    first = new_match(C_BOT, RANDOM_PY, [C_BOT], games=4, seed=6, play=PLAY)
    play_match(first, tmp_path / "m", jobs=1)
    with pytest.raises(ConfigError, match="already has results"):
        play_match(first, tmp_path / "m", jobs=1)
    other = new_match(RANDOM_PY, C_BOT, [C_BOT], games=4, seed=6, play=PLAY)
    with pytest.raises(ConfigError, match="differs in baseline, candidate"):
        play_match(other, tmp_path / "m", jobs=1, resume=True)


@pytest.mark.parametrize(("args", "message"), [
    (["--field", "bots/nope"], "--field[1]: no such file 'bots/nope'"),
    (["--field", C_BOT, "--field", C_BOT], "--field: given 2 times"),
    (["--field", C_BOT, "--sprt", "elo0=5,elo1=1"], "--sprt: elo0 (5) must be below elo1 (1)"),
    (["--field", C_BOT, "--game", "bridge"], "--game: "),
    (["--field", C_BOT, "--option", "nonsense=1"], "--option nonsense: "),
    (["--field", C_BOT, "--players", "9"], "--players: blackout is for"),
])
@pytest.mark.slow
def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, args: list[str], message: str) -> None:
    done = arena("match", C_BOT, C_BOT, *args, "--out", tmp_path / "m")
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and message in done.stderr, done.stderr
    assert not (tmp_path / "m" / "games.jsonl").exists()


@pytest.mark.slow
def test_the_command_prints_progress_and_the_verdict(tmp_path: Path) -> None:
    done = arena("match", GREEDY, RANDOM_PY, "--field", C_BOT, "--games", "300",
                 "--sprt", "elo0=0,elo1=30", "--seed", "3", "--jobs", "2", "--out", tmp_path / "m")
    assert done.returncode == 0, done.stderr
    assert "stronger (30 Elo likelier than 0): H1 accepted, estimate +" in done.stdout
    assert "LLR" in done.stderr and "games  Elo" in done.stderr


@pytest.mark.parametrize("scores", [[1.0], [0.0], [0.5], [1.0, 1.0], [0.0, 0.0, 0.0],
                                    [1.0, 0.9, 1.0], [0.5, 0.6], [0.2, 0.3, 0.25]])
def test_a_progress_line_never_shows_an_infinite_interval(scores: list[float]) -> None:
    match = new_match(C_BOT, RANDOM_PY, [C_BOT], games=100, sprt=SprtBounds(0, 30))
    report = MatchReport(match, Path("m"), scores=scores,
                         stats=match_stats(scores, match.sprt))
    line = progress_line(report)
    assert "inf" not in line and "nan" not in line, line
    assert "inf" not in summary(report) and "nan" not in summary(report)


def test_the_verdict_says_what_was_tested() -> None:
    bounds = SprtBounds(0, 30)
    equal = match_stats([0.4, 0.6] * 200, bounds)  # +0 Elo: H0
    assert verdict(equal, bounds) == (
        f"not 30 Elo stronger (0 likelier than 30): H0 accepted, estimate +0.0 +- "
        f"{equal.margin:.1f}")
    better = match_stats([0.9, 0.7] * 30, bounds)
    assert verdict(better, bounds).startswith("stronger (30 Elo likelier than 0): H1 accepted, "
                                              "estimate +240.8 +- ")
    early = match_stats([0.9, 0.7] * 10, bounds)  # beyond the bound, but fewer than 40 units
    assert verdict(early, bounds).startswith("no decision: the test decides from 40 units on, "
                                             "and --games allowed 20; estimate +240.8 +- ")
    assert verdict(better, SprtBounds(10, 30)).startswith("more than 10 Elo stronger")


def test_the_summary_counts_the_games_of_its_units_and_says_what_was_saved_beyond() -> None:
    """A match that decided at 40 units had saved 81 games (one of unit 41 ended first): the
    summary said '80 games; 81 played now', two counts that did not add up."""
    match = new_match(C_BOT, C_BOT, [C_BOT], games=200, sprt=SprtBounds(0, 30))
    scores = [0.4, 0.6] * 20
    report = MatchReport(match, Path("out"), scores=scores,
                         stats=match_stats(scores, match.sprt), played=71, resumed=10)
    assert "40 units (80 games; 1 more saved of units left unfinished, not counted; 71 " \
           "played now, 10 from before)" in summary(report)
    report.played = 70
    assert "40 units (80 games; 70 played now, 10 from before)" in summary(report)


@pytest.mark.slow
def test_table_on_a_match_gives_finite_intervals_or_says_why_not(tmp_path: Path) -> None:
    match = new_match(GREEDY, RANDOM_PY, [C_BOT], games=24, seed=5, play=PLAY,
                      options={"deals": 3})
    play_match(match, tmp_path / "m", jobs=2)
    done = arena("table", tmp_path / "m")
    assert done.returncode == 0, done.stderr
    rows = [line.split() for line in done.stdout.splitlines() if line.split()[:1] in
            (["1"], ["2"], ["3"])]
    unbounded = [row[1] for row in rows if "-inf" in row or "+inf" in row]
    if unbounded:  # then the table says which and why
        assert f"inf: no finite interval for {', '.join(unbounded)}: more than 2.5% of the " \
               f"resamples had no finite fit." in done.stdout
    # and the match's own paired estimate, finite, follows
    assert re.search(rf"note: {re.escape(str(tmp_path / 'm'))} is a match: candidate against "
                     r"baseline on the same deals, 12 units: Elo [+-]\d+\.\d \+- \d+\.\d, LOS ",
                     done.stderr), done.stderr


@pytest.mark.slow
def test_partnership_match_plays_team_against_team(tmp_path: Path) -> None:
    first_bot = str(ROOT / "bots" / "c" / "first_bot")
    match = new_match(C_BOT, first_bot, [C_BOT], game="partnership-blackout", games=8, seed=2,
                      play=PLAY)
    report = play_match(match, tmp_path / "m", jobs=2)
    assert len(report.scores) == 4
    assert all(score in (0.0, 0.25, 0.5, 0.75, 1.0) for score in report.scores)
    entrants = {tuple(line["result"]["entrants"]) for line in lines(tmp_path / "m")}
    assert entrants == {(CANDIDATE, "random_bot"), ("random_bot", CANDIDATE),
                        (BASELINE, "random_bot"), ("random_bot", BASELINE)}


@pytest.mark.slow
def test_a_crashing_candidate_loses_its_units_and_the_match_goes_on(tmp_path: Path) -> None:
    crasher = f"{sys.executable} {ROOT / 'tests' / 'bots' / 'misbehaving' / 'crash_mid_game.py'}"
    match = new_match(crasher, C_BOT, [C_BOT], games=12, seed=8, play=PLAY)
    report = play_match(match, tmp_path / "m", jobs=2)
    assert len(report.scores) == 6 and report.faults >= 6
    assert report.stats.mean < 0.5  # forfeits place the crashing candidate last


def _version_of_c_bot(tmp_path: Path, version: str) -> Path:
    """A bot directory holding the C random bot, its manifest naming it ``mine`` at ``version``."""
    directory = tmp_path / f"mine-v{version}"
    directory.mkdir()
    (directory / "bot").symlink_to(C_BOT)
    (directory / "bot.yaml").write_text(f"name: mine\nversion: '{version}'\nrun: ./bot\n")
    return directory


def test_a_match_between_two_versions_names_them_by_manifest_name_and_version(
        tmp_path: Path) -> None:
    """Both versions run ./bot: their commands read the same, their manifests do not."""
    new, old = _version_of_c_bot(tmp_path, "2"), _version_of_c_bot(tmp_path, "1")
    out = tmp_path / "m"
    done = arena("match", new, old, "--field", C_BOT, "--games", "4", "--out", out, "--jobs", "1")
    assert done.returncode == 0, done.stderr
    assert "match: candidate 'mine v2' vs baseline 'mine v1', blackout" in done.stdout
    described = orjson.loads((out / "match.json").read_bytes())
    assert described["labels"] == ["mine v2", "mine v1"]


def test_a_match_whose_units_are_all_drawn_says_the_field_cannot_separate_them(
        tmp_path: Path) -> None:
    """The same first-legal bot as both programs: on the same cards it plays the same game, so
    every unit is drawn, and the narrow interval measures no difference."""
    first = str(ROOT / "bots" / "c" / "first_bot")
    done = arena("match", first, first, "--field", C_BOT, "--games", "8", "--out",
                 tmp_path / "m", "--jobs", "1")
    assert done.returncode == 0, done.stderr
    assert "every unit was drawn: on the same cards the two did exactly as well against this " \
           "field in all 4 units, so it cannot separate them" in done.stdout
    assert match_stats([0.5, 0.5, 0.5]).all_drawn and not match_stats([0.5, 1.0]).all_drawn


def _built_bot(parent: Path, name: str, build: str) -> Path:
    """A Python bot directory whose program its build makes (``built.py``), as a compiled bot's is."""
    directory = parent / name
    directory.mkdir()
    (directory / "random_bot.py").write_text((ROOT / "bots" / "python" / "random_bot.py").read_text())
    (directory / "bot.yaml").write_text(f"name: {name}\nrun: python3 -S built.py\nbuild: {build}\n")
    return directory


@pytest.mark.slow
def test_a_match_builds_each_bot_directory_before_its_games(tmp_path: Path) -> None:
    """A match runs a bot directory's `build:` as a tournament does (its program did not exist
    before: 'cannot start [...built.py]: no such file'); a build that fails stops the match
    before any game, naming the program's place."""
    build = "[sh, -c, 'cp random_bot.py built.py']"
    new, old = _built_bot(tmp_path, "new", build), _built_bot(tmp_path, "old", build)
    match = new_match(str(new), str(old), [C_BOT], players=3, options={"deals": 1}, games=2,
                      play=PLAY)
    report = play_match(match, tmp_path / "m")
    assert (new / "built.py").exists() and (old / "built.py").exists()
    assert report.played == 2 and report.faults == 0

    broken = _built_bot(tmp_path, "broken", "[sh, -c, 'echo no compiler; exit 3']")
    match = new_match(str(broken), str(old), [C_BOT], players=3, options={"deals": 1}, games=2,
                      play=PLAY)
    with pytest.raises(ConfigError, match=r"^CANDIDATE build: exited with 3; the end of its "
                                          r"output:\n.*no compiler"):
        play_match(match, tmp_path / "m2")
    assert not (tmp_path / "m2" / "games.jsonl").read_bytes()
