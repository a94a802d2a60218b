"""The league end to end through the real ``arena league`` commands, real bots and real files:
submissions accepted and rejected, runs, the table and status, and a SIGKILL mid-run."""

from __future__ import annotations

import contextlib
import csv
import io
import itertools
import os
import shutil
import signal
import sqlite3
import subprocess
import tarfile
import zipfile
from pathlib import Path

import orjson
import pytest

from arena.bots.sandbox import bwrap_problem
from arena.errors import ConfigError
from arena.league.config import LeagueSettings
from arena.league.database import DATABASE, SCHEMA_VERSION
from arena.league.playing import LeagueRunReport, _next_batch, run_league
from arena.league.standings import StandingsCache
from arena.league.store import Store
from arena.league.submit import submit
from arena.settings import TimeControl
from arena.spec import START, PlaySettings
from arena.values.work import Finished

from helpers import (
    ARENA,
    C_BOT,
    FIRST_BOT,
    MISBEHAVING,
    ROOT,
    arena,
    in_process,
    new_league,
    own_bot,
    query,
    start_arena,
    submitted,
    wait_for,
)

pytestmark = pytest.mark.timeout(240)


def games(league: Path) -> int:
    return int(query(league, "SELECT COUNT(*) FROM games")[0][0])


def snapshot(league: Path) -> tuple[list[str], list[str]]:
    """The database's full contents (as SQL) and every path under bots/."""
    connection = sqlite3.connect(league / DATABASE)
    try:
        dump = list(connection.iterdump())
    finally:
        connection.close()
    return dump, sorted(str(p.relative_to(league)) for p in (league / "bots").rglob("*"))


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 3-player Blackout league (short games): the two C starter bots and one bot of our own.
    Built once (each submission runs the whole check); each test gets a copy."""
    tmp_path = tmp_path_factory.mktemp("template")
    path = new_league(tmp_path / "league", options={"deals": "3"})  # in process: a set-up
    for bot in (ROOT / "bots/c/random.bot.yaml", ROOT / "bots/c/first.bot.yaml",
                own_bot(tmp_path, program=ROOT / "bots/python/random_bot.py")):
        submitted(path, bot)
    return path


@pytest.fixture
def league(template: Path, tmp_path: Path) -> Path:
    """A copy of the template league (paths inside a league are relative to it)."""
    return Path(shutil.copytree(template, tmp_path / "league"))


@pytest.mark.slow
def test_submit_run_table_status_and_export(league: Path, tmp_path: Path) -> None:
    assert arena("league", "submit", league, own_bot(tmp_path, "second")).stdout == \
        "accepted second v1\n"
    done = arena("league", "run", league, "--games", "24", "--jobs", "2")
    assert done.returncode == 0, done.stderr
    assert games(league) == 24
    table = arena("league", "table", league, "--format", "csv", "--resamples", "50")
    assert table.returncode == 0, table.stderr
    assert {"random-c@1", "first-legal-c@1", "mine@1", "second@1"} <= set(
        table.stdout.split(",") + table.stdout.split("\n"))
    status = arena("league", "status", league).stdout
    assert "accepted mine v1" in status and "24 games stored" in status
    # Each two neighbours in the table, with what the matchmaker makes of them.
    assert "neighbours in the table (margins ratings" in status
    assert sum(f": {state}" in status for state in ("settled", "tie", "open")) >= 1
    done = arena("league", "export", league, "--out", tmp_path / "out" / "games.jsonl")
    assert done.stdout.startswith("24 games written")
    lines = [orjson.loads(line) for line in (tmp_path / "out/games.jsonl").read_bytes().splitlines()]
    assert len({line["id"] for line in lines}) == 24
    assert {"random-c@1", "mine@1"} <= {e for line in lines for e in line["result"]["entrants"]}
    rated = arena("table", tmp_path / "out", "--resamples", "0")
    assert rated.returncode == 0 and "mine@1" in rated.stdout


@pytest.mark.slow
def test_status_of_a_league_with_one_game_says_it_is_not_rated_yet(league: Path) -> None:
    """One game of a duplicate set: the league's deals model has no two games on the same cards
    to compare. The status is shown all the same (it failed as a whole), and says why there are no
    neighbours; the table says the same in one line."""
    done = arena("league", "run", league, "--games", "1", "--jobs", "1")
    assert done.returncode == 0, done.stderr
    status = arena("league", "status", league)
    assert status.returncode == 0, status.stderr
    assert "; 1 game stored, " in status.stdout, status.stdout
    assert "not rated yet: rating model 'margins': no two games here dealt the same cards" \
        in status.stdout
    table = arena("league", "table", league)
    assert table.returncode == 2 and table.stderr.count("\n") == 1, table.stderr
    assert "no two games here dealt the same cards" in table.stderr


@pytest.mark.slow
def test_status_counts_one_open_set_in_the_singular(league: Path) -> None:
    done = arena("league", "run", league, "--games", "3", "--jobs", "1")
    assert done.returncode == 0, done.stderr
    status = arena("league", "status", league)
    assert status.returncode == 0, status.stderr
    # the matchmaker opened more sets than 3 games finish: one of them stays open
    assert "; 3 games stored, 1 set open\n" in status.stdout, status.stdout


def test_league_init_help_for_the_sandbox_reads_as_one_text() -> None:
    shown = arena("league", "init", "--help")
    assert shown.returncode == 0, shown.stderr
    words = " ".join(shown.stdout.split())
    text = words[words.index("--sandbox"):words.index("--seed")]
    assert "isolated: Run" not in text  # two help texts joined mid-sentence
    assert ("Run the bots in a bubblewrap sandbox (docs/sandbox.md): none, bwrap (an error where "
            "it cannot run), or auto (bwrap where it can run, else none with a warning). The "
            "league's builds and submission checks run in it too.") in text, text


@pytest.mark.slow
def test_a_new_version_replaces_the_old_one_whose_games_stay(league: Path, tmp_path: Path) -> None:
    assert run_league(league, games=6, jobs=1).played == 6  # in process: the games to keep
    (tmp_path / "v2").mkdir()
    newer = own_bot(tmp_path / "v2", "mine")
    assert arena("league", "submit", league, newer).stdout == "accepted mine v2\n"
    assert query(league, "SELECT version, state FROM bots WHERE name = 'mine' ORDER BY id") == \
        [("1", "replaced"), ("2", "active")]
    assert arena("league", "retire", league, "random-c").stdout == "retired random-c v1\n"
    status = arena("league", "status", league).stdout
    assert "replaced" in status and "retired" in status
    assert games(league) == 6  # history kept
    done = arena("league", "table", league)  # no game yet among the active versions
    assert done.returncode == 2 and "no games among the active entrants" in done.stderr
    done = arena("league", "run", league, "--games", "3", "--jobs", "1")
    assert done.returncode == 2 and "2 active entrants: at least 3 are needed" in done.stderr


@pytest.mark.slow
def test_the_table_names_versions_and_says_which_games_it_leaves_out(
        league: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    # A new version and a retirement took 193 games down to 49 in the table without a word.
    assert run_league(league, games=6, jobs=1).played == 6  # in process: the games to leave out
    (tmp_path / "v2").mkdir()
    assert submit(league, own_bot(tmp_path / "v2", "mine")).accepted
    assert run_league(league, games=3, jobs=1).played == 3
    table = arena("league", "table", league, "--resamples", "20")
    assert table.returncode == 0, table.stderr
    rows = {line.split()[1] for line in table.stdout.splitlines()[2:5]}
    assert rows == {"random-c@1", "first-legal-c@1", "mine@2"}
    assert (f"6 of the 9 games stored are not rated here: each seated a version no longer in the "
            f"pool (mine@1 replaced, 6 games). `arena league export {league}` and `arena table "
            f"{league}/export/` rate every game of every version.") in table.stdout
    # The status and the CSV table by the entry point, in process
    here = {"cwd": ROOT, "monkeypatch": monkeypatch, "capsys": capsys}
    status = in_process("league", "status", league, **here).stdout
    assert "6 of the 9 games stored are not rated here" in status
    csv_table = in_process("league", "table", league, "--format", "csv", "--resamples", "20",
                           **here).stdout
    assert "not rated" not in csv_table  # data: rows only


@pytest.mark.slow
def test_status_counts_games_played_and_the_table_games_rated(
        league: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    # 5,381 against 4,040 for one entrant, neither saying which games it counted.
    assert run_league(league, games=6, jobs=1).played == 6
    (tmp_path / "v2").mkdir()
    assert submit(league, own_bot(tmp_path / "v2", "mine")).accepted
    assert run_league(league, games=3, jobs=1).played == 3  # the only games random-c@1 is rated in
    table = arena("league", "table", league, "--resamples", "0")
    assert table.returncode == 0, table.stderr
    assert "games rated" in table.stdout.splitlines()[0], table.stdout
    # The other formats by the entry point, in process (the text table above was a real process)
    here = {"cwd": ROOT, "monkeypatch": monkeypatch, "capsys": capsys}
    csv_table = in_process("league", "table", league, "--format", "csv", "--resamples", "0",
                           **here).stdout
    rows = {row["entrant"]: row for row in csv.DictReader(io.StringIO(csv_table))}
    assert rows["random-c@1"]["games rated"] == "3", csv_table
    rated = orjson.loads(in_process("league", "table", league, "--format", "json",
                                    "--resamples", "0", **here).stdout)
    [entrant] = [e for e in rated["entrants"] if e["name"] == "random-c@1"]
    assert entrant["games_rated"] == 3 and "games" not in entrant
    status = in_process("league", "status", league, "--format", "json", **here)
    assert status.returncode == 0, status.stderr
    versions = {(e["name"], e["version"]): e for e in orjson.loads(status.stdout)["entrants"]}
    assert versions[("random-c", "1")]["games_played"] == 9
    assert "games" not in versions[("random-c", "1")]
    text = in_process("league", "status", league, **here).stdout
    assert " games played " in text and "games rated" not in text.split("\n\n")[1]


@pytest.mark.slow
def test_status_shows_the_tables_los(league: Path) -> None:
    # Status read the matchmaker's fit (200 resamples, refitted now and then), the table its
    # own (1000): one said LOS 91.4% where the other said 87.9%.
    assert run_league(league, games=12, jobs=1).played == 12
    table = arena("league", "table", league, "--format", "json").stdout
    entrants = orjson.loads(table)["entrants"]
    status = arena("league", "status", league).stdout
    for upper, lower in itertools.pairwise(entrants):
        if upper["los_next"] is None:
            continue
        line = next(line for line in status.splitlines()
                    if line.startswith(f"  {upper['name']} ") and f" {lower['name']}: " in line)
        assert f"LOS {100 * upper['los_next']:.1f}%" in line


def rejected(league: Path, bot: Path | str) -> str:
    """Submit (in process: the CLI's output is checked once below) and return the reason and
    report; the league must be exactly as it was."""
    before = snapshot(league)
    submission = submit(league, Path(bot))
    assert not submission.accepted
    assert snapshot(league) == before  # nothing half-written
    assert list((league / "staging").iterdir()) == []
    return "\n".join([submission.reason, *submission.report])


@pytest.mark.slow
def test_rejected_submissions_leave_the_league_unchanged(league: Path, tmp_path: Path) -> None:
    broken = own_bot(tmp_path, "broken")
    (broken / "bot.yaml").write_text("name: broken\nrun: ./bot\nrnu: x\n")
    assert "bot.yaml: rnu: unknown key" in rejected(league, broken)
    no_build = own_bot(tmp_path, "nobuild")
    (no_build / "bot.yaml").write_text("name: nobuild\nrun: ./prog\nbuild: [sh, -c, 'exit 4']\n")
    assert "build: exited with 4" in rejected(league, no_build)
    crasher = own_bot(tmp_path, "crasher", program=MISBEHAVING / "exits_before_hello.py")
    out = rejected(league, crasher)
    assert "check-bot step 'start and hello' failed" in out and "FAIL  start and hello" in out
    # Its stderr is in the report (the submitter's), never in the reason (league status shows it).
    reason, *report = out.splitlines()
    assert "cannot load my model" not in reason
    assert "      stderr:   exits_before_hello: cannot load my model" in report
    illegal = own_bot(tmp_path, "illegal", program=MISBEHAVING / "illegal.py")
    assert "check-bot step 'play blackout' failed" in rejected(league, illegal)
    again = own_bot(tmp_path, "again")
    (again / "bot.yaml").write_text("name: mine\nrun: ./bot\nversion: '1'\n")
    assert "mine v1 is already in the league" in rejected(league, again)
    wrong_game = own_bot(tmp_path, "pship")
    (wrong_game / "bot.yaml").write_text("name: pship\nrun: ./bot\n"
                                         "games: [partnership-blackout]\n")
    assert "does not play blackout" in rejected(league, wrong_game)
    assert "no such bot directory" in rejected(league, tmp_path / "nothing")
    evil = tmp_path / "evil.zip"
    with zipfile.ZipFile(evil, "w") as archive:
        archive.writestr("bot.yaml", "name: evil\nrun: python3 bot.py\n")
        archive.writestr("../../outside.py", "")
    assert "'..' in its path" in rejected(league, evil)
    before = snapshot(league)
    done = arena("league", "submit", league, crasher)
    assert done.returncode == 1 and snapshot(league) == before
    assert done.stdout.startswith("rejected: check-bot step 'start and hello' failed: ")
    assert "\n  FAIL  start and hello" in done.stdout
    status = arena("league", "status", league).stdout
    assert "rejected: " in status and "start and hello" in status


@pytest.mark.slow
def test_a_bot_that_does_not_say_hello_in_time_is_rejected(league: Path, tmp_path: Path) -> None:
    connection = sqlite3.connect(league / DATABASE)  # this league gives bots 0.5 s to start
    connection.execute("""UPDATE settings SET value = '{"start_ms":500,"move_ms":1000,"bank_ms":10000}'
                          WHERE key = 'time_control'""")
    connection.commit()
    connection.close()
    sleeper = own_bot(tmp_path, "sleeper", program=MISBEHAVING / "slow.py")
    (sleeper / "bot.yaml").write_text("name: sleeper\nrun: python3 bot.py 30 0\n")  # hello after 30 s
    out = rejected(league, sleeper)
    assert "check-bot step 'start and hello' failed" in out and "no hello reply within 500 ms" in out


@pytest.mark.slow
def test_a_bot_printing_garbage_is_shown_the_line_it_sent(league: Path, tmp_path: Path) -> None:
    chatty = own_bot(tmp_path, "chatty", program=MISBEHAVING / "garbage_line.py")
    done = arena("league", "submit", league, chatty)
    assert done.returncode == 1
    first, *report = done.stdout.splitlines()
    assert first.startswith("rejected: check-bot step 'play blackout' failed: malformed: reply is "
                            "not JSON") and first.endswith("; it sent: thinking... this is not JSON {")
    assert "        received: thinking... this is not JSON {" in report  # as check-bot shows it


@pytest.mark.slow
def test_archives_are_accepted_with_the_bot_at_the_top_or_in_one_directory(
        league: Path, tmp_path: Path) -> None:
    source = own_bot(tmp_path, "zipped")
    with zipfile.ZipFile(tmp_path / "zipped.zip", "w") as archive:
        for path in source.iterdir():
            archive.write(path, path.name)
    assert arena("league", "submit", league, tmp_path / "zipped.zip").stdout == "accepted zipped v1\n"
    source = own_bot(tmp_path, "tarred")
    with tarfile.open(tmp_path / "tarred.tar.gz", "w:gz") as archive:
        archive.add(source, "tarred")
    assert arena("league", "submit", league, tmp_path / "tarred.tar.gz").stdout == \
        "accepted tarred v1\n"
    assert (league / "bots" / "tarred" / "1" / "bot").is_file()


@pytest.mark.slow
def test_bad_league_input_is_one_line_and_exit_2(tmp_path: Path, league: Path) -> None:
    done = arena("league", "status", tmp_path)
    assert done.returncode == 2
    assert done.stderr == f"arena: error: {tmp_path}: not a league (no league.db; create one " \
                          f"with arena league init)\n"
    with pytest.raises(ConfigError, match="--game: "):
        LeagueSettings.checked("chess", None, {})
    with pytest.raises(ConfigError, match="--players: blackout is for 3, 4, 5, 6, 7 players, not 9"):
        LeagueSettings.checked("blackout", 9, {})
    with pytest.raises(ConfigError, match="--option deals: "):
        LeagueSettings.checked("blackout", 4, {"deals": "lots"})
    with pytest.raises(ConfigError, match="--sandbox: 'jail' is not one of none, bwrap, auto"):
        LeagueSettings.checked("blackout", 4, {}, PlaySettings(sandbox="jail"))
    with pytest.raises(ConfigError, match="already a league"):
        Store.create(league, {})
    with pytest.raises(ConfigError, match="--games N or --minutes M"):
        run_league(league)
    connection = sqlite3.connect(league / DATABASE)
    connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    connection.close()
    done = arena("league", "table", league)
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert f"written by a newer arena (schema {SCHEMA_VERSION + 1}" in done.stderr


@pytest.mark.slow
@pytest.mark.skipif(bwrap_problem() is not None, reason=f"no working bubblewrap: {bwrap_problem()}")
def test_a_bwrap_league_builds_checks_and_plays_sandboxed(tmp_path: Path) -> None:
    path = tmp_path / "boxed"
    done = arena("league", "init", path, "--game", "blackout", "--players", "3",
                 "--option", "deals=2", "--sandbox", "bwrap")
    assert done.returncode == 0, done.stderr
    escaped = tmp_path / "escaped"
    mine = own_bot(tmp_path, program=ROOT / "bots/python/random_bot.py")
    with (mine / "bot.yaml").open("a") as manifest:  # the build may write its own directory only
        manifest.write(f"build: sh -c 'echo built > built.txt; echo out > {escaped}; true'\n")
    for bot in ("bots/c/random.bot.yaml", "bots/c/first.bot.yaml", mine):
        done = arena("league", "submit", path, bot)
        assert done.returncode == 0 and done.stdout.startswith("accepted"), done.stdout + done.stderr
    assert (path / "bots" / "mine" / "1" / "built.txt").read_text() == "built\n"
    assert not escaped.exists()
    done = arena("league", "run", path, "--games", "6", "--jobs", "2")
    assert done.returncode == 0, done.stderr
    assert games(path) == 6
    assert "sandbox bwrap" in arena("league", "status", path).stdout
    assert all(orjson.loads(line)["faults"] == [] for (line,) in query(path, "SELECT line FROM games"))


@pytest.mark.slow
def test_sigkill_mid_run_loses_nothing_and_the_next_run_continues(league: Path) -> None:
    run = start_arena("league", "run", league, "--games", "100000", "--jobs", "2")
    try:
        wait_for(lambda: games(league) >= 20)
    finally:
        os.kill(run.pid, signal.SIGKILL)
        run.wait()
    before = {row[0] for row in query(league, "SELECT id FROM games")}
    assert query(league, "PRAGMA integrity_check") == [("ok",)]
    done = arena("league", "run", league, "--games", "30", "--jobs", "2")
    assert done.returncode == 0, done.stderr
    after = {row[0] for row in query(league, "SELECT id FROM games")}
    assert before <= after and len(after) == len(before) + 30
    assert query(league, "PRAGMA integrity_check") == [("ok",)]
    # Every stored game sits in its set's seats for its rotation, once.
    for set_id, rotations in query(league, "SELECT id, rotations FROM sets"):
        seats = orjson.loads(str(rotations))
        for game, rotation in query(league, f"SELECT id, rotation FROM games WHERE set_id = {set_id}"):
            stored = [row[0] for row in query(
                league, f"SELECT bot FROM seats WHERE game = '{game}' ORDER BY seat")]
            assert stored == seats[int(str(rotation))]
    assert query(league, "SELECT COUNT(*) FROM seats")[0][0] == 3 * len(after)


@pytest.mark.slow
def test_a_submission_during_a_run_joins_it_and_ctrl_c_saves_what_finished(
        league: Path, tmp_path: Path) -> None:
    run = start_arena("league", "run", league, "--minutes", "5", "--jobs", "2")
    try:
        wait_for(lambda: games(league) >= 4)
        done = arena("league", "submit", league, own_bot(tmp_path, "late"))
        assert done.stdout == "accepted late v1\n", done.stderr
        wait_for(lambda: query(league, "SELECT COUNT(*) FROM seats JOIN bots ON bots.id = seats.bot "
                                       "WHERE bots.name = 'late'")[0][0] > 0)
        run.send_signal(signal.SIGINT)
        _, err = run.communicate(timeout=60)
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
    assert run.returncode == 130 and "interrupted: every finished game is saved" in err
    assert query(league, "PRAGMA integrity_check") == [("ok",)]
    assert run_league(league, games=4, jobs=1).played == 4  # and the league plays on


@pytest.mark.slow
def test_bots_stay_alive_from_batch_to_batch(league: Path, tmp_path: Path) -> None:
    # A batch is SETS_PER_JOB sets a worker; 60 games of 3-player sets on 2 workers are five
    # batches. Each worker starts the bot once for the whole run (it started anew in every
    # batch: a league ran at half a tournament's pace with Python bots), and a second run
    # starts it again.
    submitted(league, own_bot(tmp_path, "noted", program=MISBEHAVING / "notes_its_pid.py"))
    starts = league / "bots" / "noted" / "1" / "starts.txt"
    checked = starts.read_text().split()  # the submission's check started it too
    done = arena("league", "run", league, "--games", "60", "--jobs", "2")
    assert done.returncode == 0, done.stderr
    seated = query(league, "SELECT COUNT(*) FROM seats JOIN bots ON bots.id = seats.bot "
                           "WHERE bots.name = 'noted'")[0][0]
    assert seated > 24  # in games of most batches, not only the first
    started = starts.read_text().split()[len(checked):]
    assert 1 <= len(started) <= 2, started  # once per worker
    assert run_league(league, games=6, jobs=1).played == 6  # in process: one worker, one start
    assert len(starts.read_text().split()) == len(checked) + len(started) + 1


@pytest.mark.slow
def test_a_run_plays_its_next_batch_under_settings_changed_meanwhile(league: Path) -> None:
    # league config while a run is going (a served league's run never ends): the games of the
    # batch in progress keep the old time control, those of the next batch have the new one.
    # One worker plays batches of SETS_PER_JOB 3-player sets: 6 games, then the 7th.
    from arena.league.setting_changes import change_settings

    def change(game: Finished, report: LeagueRunReport) -> None:
        if report.played == 1:
            changes = change_settings(league, {"time.move_ms": 700, "limits.memory_mb": 1000})
            assert [c.key for c in changes] == ["time.move_ms", "limits.memory_mb"]

    assert run_league(league, games=7, jobs=1, on_game=change).played == 7
    lines = [orjson.loads(row[0]) for row in
             query(league, "SELECT line FROM games ORDER BY finished, id")]
    moves = [line["time_control"]["move_ms"] for line in lines]
    assert moves == [1000] * 6 + [700], moves
    status = orjson.loads(arena("league", "status", league, "--format", "json").stdout)
    assert [(c["key"], c["old"], c["new"]) for c in status["settings_changed"]] == [
        ("time.move_ms", 1000, 700), ("limits.memory_mb", 2048, 1000)]


@pytest.mark.slow
def test_a_chatty_bot_keeps_its_latest_games_stderr_and_older_replays_say_theirs_was_dropped(
        league: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A bot writing 4 KiB a decision filled its 1 MiB process log a minute after acceptance, and
    # every later replay showed no stderr, silently. Now: a log per game, capped, within a
    # budget per bot version that drops the oldest games first; replays say what is missing.
    # Small caps here (the workers get them with the run's settings): 16 KiB a game (a game of
    # 9 decisions a seat writes 36 KiB), 40 KiB a bot.
    from arena.league import playing
    from arena.report.replay_stderr import StderrShown
    from arena.settings import GameLogs
    from arena.stderrindex import DROPPED, LOG_SUFFIX

    submitted(league, own_bot(tmp_path, "chatty", program=MISBEHAVING / "stderr_chatty.py"))
    monkeypatch.setattr(playing, "GameLogs",
                        lambda: GameLogs(game_cap=16 * 1024, budget=40 * 1024, games=100))
    assert run_league(league, games=12, jobs=1).played == 12
    own = league / "logs" / "chatty@1"
    logs = sorted(own.glob(f"*{LOG_SUFFIX}"), key=lambda p: p.stat().st_mtime)
    games_logged = [p.name[:-len(LOG_SUFFIX)] for p in logs if p.name.startswith("s")]
    assert games_logged and sum(p.stat().st_size for p in own.iterdir()) <= 40 * 1024 + 1024
    assert all(p.stat().st_size < 16 * 1024 + 200 for p in logs)  # the cap, and its note
    dropped = (own / DROPPED).read_text().split()
    played = [row[0] for row in query(league, "SELECT games.id FROM games JOIN seats ON "
                                              "seats.game = games.id JOIN bots ON bots.id = "
                                              "seats.bot WHERE bots.name = 'chatty' "
                                              "ORDER BY games.finished")]
    assert played[-1] == games_logged[-1] and played[0] in dropped  # newest kept, oldest dropped
    shown = StderrShown.beside([league], [])
    latest = shown.of(played[-1])
    assert latest is not None and latest["decisions"]
    assert "chatty act" in latest["decisions"][0][2]
    assert "stderr was cut at decision" in latest["note"]
    oldest = shown.of(played[0])
    assert oldest is not None and oldest["decisions"] == []
    assert "no longer kept" in oldest["note"]
    said = arena("show", league, played[0])
    assert said.returncode == 0, said.stderr
    assert "stderr: This game's stderr is no longer kept" in said.stdout


def test_a_bot_accepted_while_a_batch_is_planned_waits_for_the_next_batch(league: Path) -> None:
    # league submit commits while league run plans: the run read the bots, then the matchmaker
    # read the standings with one more (a KeyError and a traceback in the run, seen once in a
    # loaded full run). The new bot joins at the next batch, planned from one reading of the bots.
    store = Store.open(league)
    try:
        settings = LeagueSettings.of(store)
        bots = store.entrants.by_id()  # what the batch read
        copy = next(bot for bot in bots.values() if bot.name == "random-c")
        store.entrants.add("late", "1", copy.dir, copy.run, "c", None)  # a submit commits meanwhile
        standings = StandingsCache(store, settings.rating)
        tasks, seats, _ = _next_batch(store, settings, bots, 1, standings)
        assert tasks and all(set(ids) <= set(bots) for ids in seats.values())
        late = next(bot.id for bot in store.entrants.bots() if bot.name == "late")
    finally:
        store.close()
    assert run_league(league, games=12, jobs=1).played == 12  # the planned sets, then the newcomer's
    assert query(league, f"SELECT COUNT(*) FROM seats WHERE bot = {late}")[0][0] > 0


@pytest.mark.slow
def test_a_league_of_identical_bots_runs_without_dividing_by_zero(tmp_path: Path) -> None:
    # Four copies of the deterministic C random bot tie every duplicate set: equal ratings and
    # zero-width intervals, which the matchmaker divided by (ZeroDivisionError, a traceback).
    path = new_league(tmp_path / "copies", players=4)  # in process: the run is what is tested
    for index in range(4):
        submitted(path, own_bot(tmp_path, f"copy{index}"))
    done = arena("league", "run", path, "--games", "40", "--jobs", "2")
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr and games(path) == 40
    # Tied every set: the copies are ties, not an order to spend games on.
    status = arena("league", "status", path).stdout
    assert status.count(": tie") == 3, status


@pytest.mark.slow
def test_a_second_run_is_told_which_process_holds_the_league(league: Path) -> None:
    run = start_arena("league", "run", league, "--minutes", "5", "--jobs", "1")
    try:
        wait_for(lambda: games(league) >= 1)
        done = arena("league", "run", league, "--games", "1")
        assert (done.returncode, done.stdout) == (2, "")
        assert done.stderr == (
            f"arena: error: {league}/run.lock: held by pid {run.pid} (another arena league run or "
            f"final on this league): wait for it to end, or stop it (kill -INT {run.pid}: the games it "
            f"finished are kept), then run again\n")
    finally:
        run.send_signal(signal.SIGINT)
        run.communicate(timeout=60)
    assert run.returncode == 130


@pytest.mark.slow
def test_export_never_overwrites_what_the_league_did_not_write(
        league: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    before = snapshot(league)
    link = tmp_path / "link.db"  # the database by another name is still the database
    link.symlink_to(league / DATABASE)
    for n, inside in enumerate((league / DATABASE, league / "submissions.jsonl",
                                league / "bots" / "games.jsonl", league / "export" / ".." / DATABASE,
                                link)):
        # the first through a real process, the other paths by the entry point in this process
        command = ("league", "export", league, "--out", inside, "--force")
        done = arena(*command) if n == 0 else \
            in_process(*command, cwd=ROOT, monkeypatch=monkeypatch, capsys=capsys)
        assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stdout + done.stderr
        assert done.stderr.startswith(f"arena: error: --out {inside}: inside the league")
    assert snapshot(league) == before
    assert arena("league", "status", league).returncode == 0
    other = tmp_path / "other-run" / "games.jsonl"  # another run's results
    other.parent.mkdir()
    other.write_bytes(b'{"id": "not the league\'s"}\n')
    done = arena("league", "export", league, "--out", other)
    assert done.returncode == 2
    assert done.stderr == (f"arena: error: --out {other}: already exists and the league did not "
                           f"write it: give --force to replace it, or another path\n")
    assert other.read_bytes() == b'{"id": "not the league\'s"}\n'
    done = arena("league", "export", league, "--out", other, "--force")
    assert done.stdout == f"0 games written to {other}\n", done.stderr
    assert other.read_bytes() == b"" and [p.name for p in other.parent.iterdir()] == ["games.jsonl"]
    for _ in range(2):  # the league's own export folder: exporting again replaces its file
        done = arena("league", "export", league)
        assert done.returncode == 0, done.stderr
    assert [p.name for p in (league / "export").iterdir()] == ["games.jsonl"]


@pytest.mark.slow
def test_a_league_run_shows_progress_with_the_leader_and_logs_only_bots_that_wrote_to_stderr(
        tmp_path: Path) -> None:
    path = new_league(tmp_path / "quiet", options={"deals": "2"})  # in process: a set-up
    chatty = own_bot(tmp_path, "chatty")
    (chatty / "bot.yaml").write_text("name: chatty\nrun: sh -c 'echo chatty says hi >&2; exec ./bot'\n")
    for bot in (own_bot(tmp_path, "one"), own_bot(tmp_path, "two"), chatty):
        submitted(path, bot)
    done = arena("league", "run", path, "--games", "12", "--jobs", "2")
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()  # not a terminal: a line at each tenth of the run
    assert len(lines) >= 2 and all(" games/s  " in line and " left  " in line for line in lines)
    assert "  estimating time left  " in lines[0]  # the first game also started the bots
    assert lines[-1].startswith("[########################] 12/12 games  ")
    assert " left  0 faults  leader " in lines[-1]  # the top of the table after the last game
    assert lines[-1].split("  leader ")[1].split(" (")[0] in {"one@1", "two@1", "chatty@1"}
    # A log per game, each bot version's in its folder; the others said nothing: no folder
    assert [p.name for p in (path / "logs").iterdir()] == ["chatty@1"]
    logs = sorted((path / "logs" / "chatty@1").iterdir())
    assert logs and all(log.name.startswith("start-") for log in logs)  # it spoke only starting
    assert all("chatty says hi" in log.read_text() for log in logs)


def test_a_league_keeps_its_clock_and_one_begun_before_clocks_stays_on_wall() -> None:
    from arena.league.config import LeagueSettings
    from arena.settings import Clock, TimeControl

    new = LeagueSettings.checked("blackout", 4, {}, PlaySettings(TimeControl(
        start_ms=3000, move_ms=300, bank_ms=0, clock=Clock.CPU, wall_ms=7000)))
    stored = orjson.loads(orjson.dumps(new.stored()))  # as the database keeps it: JSON
    assert LeagueSettings.from_stored(stored).play.time == new.play.time
    old = {**stored, "time_control": {"start_ms": 10000, "move_ms": 1000, "bank_ms": 10000}}
    assert LeagueSettings.from_stored(old).play.time.clock is Clock.WALL


def test_league_init_sets_the_time_control_and_a_new_league_is_on_the_fair_clock(
        tmp_path: Path) -> None:
    from arena.settings import Clock, TimeControl

    done = arena("league", "init", tmp_path / "lg", "--game", "blackout", "--move-ms", "150",
                 "--bank-ms", "0", "--start-ms", "4000")
    assert done.returncode == 0, done.stderr
    plain = arena("league", "init", tmp_path / "plain", "--game", "blackout")
    assert plain.returncode == 0, plain.stderr
    kept = {}
    for name in ("lg", "plain"):
        store = Store.open(tmp_path / name)
        try:
            kept[name] = LeagueSettings.of(store).play.time
        finally:
            store.close()
    assert kept["lg"] == TimeControl(start_ms=4000, move_ms=150, bank_ms=0, clock=Clock.FAIR)
    assert kept["plain"] == TimeControl() and kept["plain"].clock is Clock.FAIR


@pytest.mark.slow
def test_a_league_keeps_the_installations_its_sandbox_allows_and_older_ones_have_none(
        tmp_path: Path) -> None:
    opt = tmp_path / "opt" / "pypy3"
    opt.mkdir(parents=True)
    done = arena("league", "init", tmp_path / "lg", "--game", "blackout", "--sandbox", "none",
                 "--interpreter", opt)
    assert done.returncode == 0, done.stderr
    store = Store.open(tmp_path / "lg")
    try:
        settings = LeagueSettings.of(store)
    finally:
        store.close()
    assert settings.play.interpreters == (str(opt),)
    older = {key: value for key, value in settings.stored().items() if key != "interpreters"}
    assert LeagueSettings.from_stored(older).play.interpreters == ()
    refused = arena("league", "init", tmp_path / "lg2", "--game", "blackout",
                    "--interpreter", Path.home())
    assert refused.returncode == 2 and not (tmp_path / "lg2").exists()
    assert refused.stderr.startswith(f"arena: error: --interpreter: {Path.home().resolve()} is a "
                                     f"home directory: a sandbox never shows a home")


@pytest.mark.slow
def test_a_bot_that_sleeps_against_other_bots_is_timed_out_not_given_the_league(
        tmp_path: Path) -> None:
    """A bot that plays well against copies of itself (so it passes the submit check) and sleeps
    2.5 s a decision against anyone else, using no CPU: on the fair clock each of its games ends
    its turn at move_ms (a timeout), where the CPU clock let it hold both workers for 2.5 s a
    decision with no fault."""
    league = tmp_path / "league"
    # Made and entered in process, as `league init --move-ms 200 --bank-ms 0 --suspend-after 0`
    # and `league submit` do (a set-up: the run is what is tested). Never suspended
    # (suspend_after 0): each of its games is what this test looks at.
    play = PlaySettings(TimeControl(start_ms=START.default, move_ms=200, bank_ms=0))
    settings = LeagueSettings.checked("blackout", 3, {"deals": "3"}, play, suspend_after=0)
    Store.create(league, settings.stored()).close()
    stalls = tmp_path / "stalls-src"
    stalls.mkdir()
    shutil.copy(ROOT / "tests" / "bots" / "hostile" / "stalls.py", stalls / "bot.py")
    (stalls / "bot.yaml").write_text("name: stalls\nrun: python3 bot.py 2.5\n")
    for bot in (ROOT / "bots/c/random.bot.yaml", ROOT / "bots/c/first.bot.yaml", stalls):
        submitted(league, bot)
    done = arena("league", "run", league, "--games", "6", "--jobs", "2")
    assert done.returncode == 0, done.stderr
    export = arena("league", "export", league, "--out", tmp_path / "out" / "games.jsonl")
    assert export.returncode == 0, export.stderr
    lines = [orjson.loads(line) for line in (tmp_path / "out/games.jsonl").read_bytes().splitlines()]
    with_it = [line for line in lines if any(name.startswith("stalls") for name in line["names"])]
    assert with_it  # three entrants, three seats: every game seats it
    for line in with_it:
        [fault] = line["faults"]
        assert (fault["kind"], fault["limit"], fault["bot"].startswith("stalls")) == \
            ("timeout", "fair", True)
        assert fault["elapsed_ms"] < 200 + 2000  # its move, not its 2.5 s sleep


def test_kill_int_stops_a_run_started_in_the_background_of_a_script(league: Path) -> None:
    """A script's background job starts with SIGINT ignored (POSIX shells do so): the run must
    still stop on the `kill -INT PID` it advises, saving what finished."""
    run = subprocess.Popen(["sh", "-c", f"{ARENA} league run {league} --minutes 5 --jobs 1 & "
                                        f"echo $!; wait"],
                           cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert run.stdout is not None
    pid = int(run.stdout.readline())
    try:
        wait_for(lambda: games(league) >= 2)
        os.kill(pid, signal.SIGINT)
        _, err = run.communicate(timeout=60)
    finally:
        if run.poll() is None:  # the run ignored it: stop it (SIGTERM closes its bots), and sh
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)
            run.kill()
            run.wait()
    assert "interrupted: every finished game is saved" in err, err
    assert query(league, "PRAGMA integrity_check") == [("ok",)]


@pytest.mark.slow
def test_a_run_bounded_by_time_stops_when_the_time_is_up_not_at_the_end_of_its_batch(
        tmp_path: Path) -> None:
    """`league run --minutes 3` ran 212 s: time was looked at between batches only. Now after each
    game: a run whose first game alone takes longer than its time plays that one game of its
    batch (six games: two sets of three), and the next run finishes the sets it left open."""
    league = new_league(tmp_path / "lg", options={"deals": "1"})
    delay = tmp_path / "delay"  # quick while the submissions are checked, slow in the run
    delay.write_text("0")
    for name in ("a", "b", "c"):
        bot = own_bot(tmp_path, name, MISBEHAVING / "thinks.py")
        (bot / "bot.yaml").write_text(f"name: {name}\nrun: [sh, -c, 'exec python3 bot.py "
                                      f"$(cat {delay})']\n")
        submitted(league, bot)
    delay.write_text("0.05")
    report = run_league(league, minutes=0.001, jobs=1)  # 60 ms: less than one game's six sleeps
    assert (report.played, report.total) == (1, 1)
    store = Store.open(league)
    try:
        assert len(store.games.open_sets()) == 2  # the batch's sets stay open for the next run
    finally:
        store.close()
    assert run_league(league, games=5, jobs=1).total == 6
    store = Store.open(league)
    try:
        assert store.games.open_sets() == []
    finally:
        store.close()


@pytest.mark.slow
def test_an_export_and_the_status_leave_the_bots_stderr_out(tmp_path: Path) -> None:
    """A stored game with a fault of today (its stderr in stderr_tail) and a start failure as the
    arena stored it before details held no stderr (quoted at the end of the detail): the export
    holds neither stderr unless --with-stderr, and the status shows no quote of it."""
    from arena.records.reader import parse_line
    from arena.records.writer import serialise

    league = tmp_path / "league"  # rated by places: one game is no duplicate set
    Store.create(league, LeagueSettings.checked("blackout", 3, {}, rating="places").stored()).close()
    store = Store.open(league)
    try:
        ids = [store.entrants.add(name, "1", f"bots/{name}/1", ["./bot"], None, None).id
               for name in ("fc", "rc", "bad")]
        record = parse_line((ROOT / "tests/arena/records/old/clocks-blackout.jsonl")
                            .read_bytes().splitlines()[0])
        names = ["fc@1", "rc@1", "bad@1"]
        record["names"], record["result"]["entrants"] = names, names
        old = "could not be started: bot 'bad@1': exited before replying to hello: exited with " \
              "code 3 (stderr: api_key=OLD-SECRET)"
        base = {"kind": "crash", "deal": 1, "decision": 0, "sent": "", "received": ""}
        record["faults"] = [{**base, "bot": "rc@1", "seat": 1, "detail": "exited with code 3",
                             "stderr_tail": "NEW-SECRET"},
                            {**base, "bot": "bad@1", "seat": 2, "detail": old, "stderr_tail": ""}]
        [planned] = store.games.plan_sets([(record["seed"], [ids])])
        store.games.record(planned.id, 0, ids, serialise(record).rstrip(b"\n"),
                           [(ids[1], "crash", "exited with code 3"), (ids[2], "crash", old)])
    finally:
        store.close()
    assert arena("league", "export", league).returncode == 0
    published = (league / "export" / "games.jsonl").read_text()
    assert "SECRET" not in published and "exited with code 3" in published
    mine = tmp_path / "mine.jsonl"
    assert arena("league", "export", league, "--with-stderr", "--out", mine).returncode == 0
    [kept] = [orjson.loads(line) for line in mine.read_bytes().splitlines()]
    assert [f["stderr_tail"] for f in kept["faults"]] == ["NEW-SECRET", "api_key=OLD-SECRET"]
    assert all("SECRET" not in f["detail"] for f in kept["faults"])
    status = arena("league", "status", league)
    assert status.returncode == 0 and "SECRET" not in status.stdout
    assert "could not be started: bot 'bad@1': exited before" in status.stdout


@pytest.mark.slow
@pytest.mark.parametrize("rating", ["adjusted", "margins"])
def test_a_league_rated_by_a_luck_or_margin_model_plays_and_rates_by_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, rating: str) -> None:
    """The league's own standings (the matchmaker's, refitted as games come in; ``adjusted``
    plays each game's deals out as it reads them) and its table, under the two models that read
    more of a game than its scores."""
    path = tmp_path / "lg"
    Store.create(path, LeagueSettings.checked("blackout", 3, {"deals": "3"},
                                              rating=rating).stored()).close()
    monkeypatch.chdir(tmp_path)
    for name, program in (("a", C_BOT), ("b", C_BOT), ("first", FIRST_BOT)):
        submitted(path, own_bot(tmp_path, name, program))
    assert run_league(path, games=9, jobs=1).played == 9
    table = arena("league", "table", path, "--format", "json", "--resamples", "20")
    assert table.returncode == 0, table.stderr
    rated = orjson.loads(table.stdout)
    assert rated["rating"] == rating and rated["games"] == 9, rated
    assert {row["name"] for row in rated["entrants"]} == {"a@1", "b@1", "first@1"}, rated
    assert all(row["rating"] is not None for row in rated["entrants"]), rated
