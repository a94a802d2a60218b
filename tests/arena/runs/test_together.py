"""Features combined as users combine them: a relative path with a sandbox, a second run on the same
results, a resume after an edit, output paths over files the arena did not write, readers that must
agree. Each of these lost or corrupted results once while each feature passed its own tests."""

from __future__ import annotations

import dataclasses
import io
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import orjson
import pytest

from arena.bots.build import run_build
from arena.bots.sandbox import bwrap_problem
from arena.errors import ConfigError
from arena.plans.extension import FREE, by_key, changed_key
from arena.plans.tournament import Tournament, load_tournament
from arena.ratings.table import read_results
from arena.records.reader import read_finished
from arena.runs.runner import run_tournament
from arena.spec import PlaySettings

from helpers import arena, in_process, start_arena, wait_for

ROOT = Path(__file__).resolve().parents[3]
C_BOT = ROOT / "bots" / "c" / "random_bot"
RANDOM_PY = ROOT / "bots" / "python" / "random_bot.py"
PACED = f"{sys.executable} -S {ROOT / 'tests' / 'bots' / 'paced_bot.py'}"
needs_bwrap = pytest.mark.skipif(bwrap_problem() is not None,
                                 reason=f"no working bubblewrap: {bwrap_problem()}")

pytestmark = pytest.mark.timeout(180)


def tournament_text(bots: str, rounds: int = 1, extra: str = "") -> str:
    return ("name: t\ngame: blackout\nplayers: 3\noptions: {deals: 2}\n"
            f"rounds: {rounds}\ntime: {{start_ms: 30000, move_ms: 10000, bank_ms: 30000}}\n"
            f"{extra}bots:\n{bots}")


C_BOTS = "".join(f"  - {{name: c{n}, cmd: {C_BOT}}}\n" for n in range(3))


def played(tmp_path: Path) -> None:
    """``t.yaml`` played into ``out`` in process (one job): a run for the command under test to
    find there."""
    run_tournament(tmp_path / "t.yaml", out=tmp_path / "out", jobs=1, resamples=0,
                   progress_stream=io.StringIO())


def game_ids(games: Path) -> list[str]:
    return [orjson.loads(line)["id"] for line in games.read_bytes().splitlines() if line.strip()]


# A relative bot directory under a sandbox -------------------------------------------------------

@needs_bwrap
@pytest.mark.slow
def test_relative_dir_bot_builds_and_plays_in_the_sandbox(tmp_path: Path) -> None:
    bot = tmp_path / "bots" / "crnd"
    bot.mkdir(parents=True)
    shutil.copy(RANDOM_PY, bot / "random_bot.py")
    os.chmod(bot / "random_bot.py", 0o644)
    (bot / "bot.yaml").write_text("name: crnd\nrun: python3 -S built.py\n"
                                  "build: [sh, -c, 'cp random_bot.py built.py']\n")
    (tmp_path / "t.yaml").write_text(tournament_text(
        "  - {dir: bots/crnd}\n" + "".join(f"  - {{name: c{n}, cmd: {C_BOT}}}\n" for n in range(2)),
        extra="sandbox: bwrap\n"))
    done = arena("run", "t.yaml", "--out", "out", "--jobs", "1", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (bot / "built.py").exists()
    assert len(game_ids(tmp_path / "out" / "games.jsonl")) == 3


# One writer per results directory ---------------------------------------------------------------

def _start_long_run(tmp_path: Path, *args: str) -> subprocess.Popen[str]:
    """A run that is still writing when the next command comes: paced bots, many rounds."""
    bots = "".join(f"  - {{name: p{n}, cmd: {PACED}}}\n" for n in range(3))
    # short games of bots that wait 5 ms a decision (tests/bots/paced_bot.py): the first game is
    # written at once, and 2000 rounds are minutes of wall time on next to no CPU, stopped by the
    # test with Ctrl-C (bots that play as fast as they can keep a core busy all the while)
    (tmp_path / "t.yaml").write_text(tournament_text(bots, rounds=2000))
    run = start_arena("run", "t.yaml", "--out", "out", "--jobs", "1", *args, cwd=tmp_path,
                      stdout=subprocess.DEVNULL)
    games = tmp_path / "out" / "games.jsonl"

    def has_written() -> bool:
        assert run.poll() is None, run.stderr.read() if run.stderr else ""
        return games.exists() and games.stat().st_size > 0

    wait_for(has_written, 60, "the first run's first game")
    return run


@pytest.mark.slow
@pytest.mark.parametrize("second", [["--resume"], ["--restart"], []])
def test_a_second_run_on_the_same_results_stops_with_the_first_ones_pid(
        tmp_path: Path, second: list[str]) -> None:
    first = _start_long_run(tmp_path)
    try:
        done = arena("run", "t.yaml", "--out", "out", "--jobs", "1", *second, cwd=tmp_path)
        assert done.returncode != 0
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and f"pid {first.pid}" in lines[0], done.stderr
        assert "another arena run is writing" in lines[0]
    finally:
        first.send_signal(2)
        first.wait(timeout=60)
    ids = game_ids(tmp_path / "out" / "games.jsonl")
    assert ids and len(ids) == len(set(ids))  # every game once; the file was not deleted under it


@pytest.mark.slow
def test_a_second_match_on_the_same_directory_stops(tmp_path: Path) -> None:
    # paced bots (5 ms a decision) in short games: a first game at once, then minutes of wall time
    # on next to no CPU
    command = ["match", PACED, f"{PACED} 0.005", "--field", PACED, "-o", "deals=2",
               "--games", "4000", "--jobs", "1", "--out", "m"]
    first = start_arena(*command, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    games = tmp_path / "m" / "games.jsonl"

    def has_written() -> bool:
        assert first.poll() is None
        return games.exists() and games.stat().st_size > 0

    try:
        wait_for(has_written, 60, "the first match's first game")
        done = arena(*command, "--resume", cwd=tmp_path)
        assert done.returncode != 0 and f"pid {first.pid}" in done.stderr
    finally:
        first.send_signal(2)
        first.wait(timeout=60)
    ids = game_ids(games)
    assert len(ids) == len(set(ids))


# Output paths over files the arena did not write ------------------------------------------------

@pytest.mark.parametrize("extra", [[], ["--restart"], ["--resume"]])
@pytest.mark.slow
def test_out_dot_never_replaces_or_deletes_the_users_files(
        tmp_path: Path, extra: list[str], monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    text = tournament_text(C_BOTS)
    (tmp_path / "tournament.yaml").write_text(text)
    (tmp_path / "other.yaml").write_text(text.replace("name: t", "name: other"))
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "mine.txt").write_text("keep")
    for file in ("tournament.yaml", "other.yaml"):  # the second by the entry point, in process
        done = arena("run", file, "--out", ".", *extra, cwd=tmp_path) if file == "tournament.yaml" \
            else in_process("run", file, "--out", ".", *extra, cwd=tmp_path,
                            monkeypatch=monkeypatch, capsys=capsys)
        assert done.returncode != 0
        assert "did not make" in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert (tmp_path / "tournament.yaml").read_text() == text
    assert (tmp_path / "logs" / "mine.txt").read_text() == "keep"
    assert not (tmp_path / "games.jsonl").exists()


@pytest.mark.slow
def test_restart_removes_only_what_the_arena_wrote(tmp_path: Path) -> None:
    (tmp_path / "t.yaml").write_text(tournament_text(C_BOTS))
    played(tmp_path)
    (tmp_path / "out" / "logs" / "notes.txt").write_text("mine")
    (tmp_path / "out" / "analysis.csv").write_text("mine")
    done = arena("run", "t.yaml", "--out", "out", "--jobs", "1", "--restart", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "out" / "logs" / "notes.txt").read_text() == "mine"
    assert (tmp_path / "out" / "analysis.csv").read_text() == "mine"
    assert len(game_ids(tmp_path / "out" / "games.jsonl")) == 3


@pytest.mark.slow
def test_force_writes_into_a_foreign_directory_but_never_over_the_tournament_file(
        tmp_path: Path) -> None:
    (tmp_path / "tournament.yaml").write_text(tournament_text(C_BOTS))
    (tmp_path / "notes.txt").write_text("mine")
    done = arena("run", "tournament.yaml", "--out", ".", "--force", "--jobs", "1", cwd=tmp_path)
    assert done.returncode != 0 and "itself would be replaced" in done.stderr
    (tmp_path / "elsewhere.yaml").write_text(tournament_text(C_BOTS))
    (tmp_path / "tournament.yaml").unlink()
    done = arena("run", "elsewhere.yaml", "--out", ".", "--force", "--jobs", "1", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "notes.txt").read_text() == "mine" and (tmp_path / "games.jsonl").exists()


# Resume compares what defines the games ---------------------------------------------------------

@pytest.mark.slow
def test_resume_refuses_a_changed_challenger(tmp_path: Path) -> None:
    field = "".join(f"  - {{name: f{n}, cmd: {C_BOT}}}\n" for n in range(3))
    gauntlet = "format: gauntlet\nchallengers:\n  - {name: ch, cmd: %s}\n"
    (tmp_path / "t.yaml").write_text(tournament_text(field, extra=gauntlet % C_BOT))
    played(tmp_path)
    first = ROOT / "bots" / "c" / "first_bot"
    (tmp_path / "t.yaml").write_text(tournament_text(field, rounds=2, extra=gauntlet % first))
    done = arena("run", "t.yaml", "--out", "out", "--jobs", "1", "--resume", cwd=tmp_path)
    assert done.returncode != 0
    assert "challengers[0].cmd: changed" in done.stderr


def test_resume_refuses_a_change_to_every_field_that_defines_the_games(tmp_path: Path) -> None:
    """Every field of Tournament and of its play settings, present and future, by its key in the
    file, except the ones that only say how games are played: a change to it is refused, named by
    its key."""
    (tmp_path / "t.yaml").write_text(tournament_text(C_BOTS))
    before = load_tournament(tmp_path / "t.yaml")
    extended = {"rounds": lambda t: (), "bots": lambda t: (), "challengers": None, "teams": None}
    checked = []
    for key, value in by_key(before).items():
        if key in FREE:
            assert changed_key(before, _with(before, key, object())) is None, key
            continue
        if key == "rounds":
            assert changed_key(before, dataclasses.replace(before, rounds=2)) is None
            assert changed_key(before, dataclasses.replace(before, rounds=0))[0] == "rounds"
        elif key in extended:
            shorter = value[:-1] if value else ()
            if value:
                assert changed_key(before, _with(before, key, shorter))
            else:
                assert changed_key(before, _with(before, key, ("x",))) is None
        else:  # a value of the field's own kind where the comparison looks inside it
            change = changed_key(before, _with(before, key, _another(value)))
            assert change is not None and change[0].split(".")[0] == key, (key, change)
        checked.append(key)
    assert {"game", "options", "seed", "time", "limits", "fault_policy",
            "challengers"} <= set(checked)
    assert {"sandbox", "sandbox_interpreters"} <= set(by_key(before)) & FREE


def _with(tournament: Tournament, key: str, value: object) -> Tournament:
    """``tournament`` with the field whose key in the file is ``key`` set to ``value``."""
    parts = {key: name for name, key in PlaySettings.file_keys().items()}
    if key in parts:
        play = dataclasses.replace(tournament.play, **{parts[key]: value})
        return dataclasses.replace(tournament, play=play)
    return dataclasses.replace(tournament, **{key: value})


def _another(value: object) -> object:
    """A value unlike ``value``: a settings dataclass with one number changed (the comparison
    names the key inside it), else a fresh object."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        for part in dataclasses.fields(value):
            number = getattr(value, part.name)
            if isinstance(number, int) and not isinstance(number, bool):
                return dataclasses.replace(value, **{part.name: number + 1})
    return object()


# Readers agree ----------------------------------------------------------------------------------

@pytest.mark.slow
def test_table_and_resume_agree_on_a_last_line_without_its_newline(tmp_path: Path) -> None:
    (tmp_path / "t.yaml").write_text(tournament_text(C_BOTS))
    played(tmp_path)
    games = tmp_path / "out" / "games.jsonl"
    games.write_bytes(games.read_bytes().rstrip(b"\n"))  # complete JSON, newline lost
    assert len(read_results([games]).results) == 2
    assert len(read_finished(games, repair=False)) == 2
    done = arena("table", str(games), cwd=tmp_path)
    assert done.returncode == 0 and "half-written last line" in done.stderr
    done = arena("run", "t.yaml", "--out", "out", "--jobs", "1", "--resume", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "1 played now, 2 from before" in done.stdout
    assert sorted(game_ids(games)) == sorted(set(game_ids(games))) and len(game_ids(games)) == 3


@pytest.mark.slow
def test_readers_drop_duplicate_games_and_say_how_many(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "t.yaml").write_text(tournament_text(C_BOTS))
    played(tmp_path)
    games = tmp_path / "out" / "games.jsonl"
    games.write_bytes(games.read_bytes() * 2)
    assert len(read_results([games]).results) == 3
    for command in (["table", str(games)], ["report", str(games), "-o", str(tmp_path / "r")]):
        # the table through a real process, the report by the entry point in this one
        done = arena(*command, cwd=tmp_path) if command[0] == "table" else \
            in_process(*command, cwd=tmp_path, monkeypatch=monkeypatch, capsys=capsys)
        assert done.returncode == 0 and "skipped 3 duplicate lines" in done.stderr, done.stderr


# One build --------------------------------------------------------------------------------------

def test_a_build_that_leaves_a_child_behind_ends_with_its_own_process(tmp_path: Path) -> None:
    started = time.monotonic()
    run_build(("sh", "-c", "sleep 45 & echo started"), str(tmp_path), str(tmp_path), "b")
    assert time.monotonic() - started < 10


def test_a_build_gets_no_stdin_and_a_failure_shows_its_last_20_lines(tmp_path: Path) -> None:
    run_build(("sh", "-c", "cat > got.txt"), str(tmp_path), str(tmp_path), "b")  # EOF at once
    assert (tmp_path / "got.txt").read_text() == ""
    script = "for i in $(seq 1 30); do echo line$i; done; exit 4"
    with pytest.raises(ConfigError) as error:
        run_build(("sh", "-c", script), str(tmp_path), str(tmp_path), "t.yaml: bots[0].build")
    text = str(error.value)
    assert text.startswith("t.yaml: bots[0].build: exited with 4; the end of its output:")
    assert "line11" in text and "line30" in text and "line10\n" not in text


@pytest.mark.slow
def test_a_run_rated_by_its_file_is_rerated_by_table_report_and_resume(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """The rating model with a tournament file, --resume, `arena table` (anchor, JSON) and the report:
    the file's model rates the closing table, resuming with another model is no change to the
    games, and every reader takes --rating on the same directory."""
    path = tmp_path / "t.yaml"
    path.write_text(tournament_text(C_BOTS, rounds=2, extra="rating: places\n"))
    done = arena("run", str(path), "--out", "out", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "(rating: places)" in done.stdout
    path.write_text(tournament_text(C_BOTS, rounds=3, extra="rating: duplicate\n"))
    done = arena("run", str(path), "--out", "out", "--resume", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "(rating: duplicate)" in done.stdout and "9 games" in done.stdout
    # The readers by the entry point, in process (the runs above were real processes)
    here = {"cwd": tmp_path, "monkeypatch": monkeypatch, "capsys": capsys}
    table = in_process("table", "out", "--rating", "deals", "--anchor", "c0=1000", "--format",
                       "json", **here)
    assert table.returncode == 0, table.stderr
    rated = orjson.loads(table.stdout)
    assert rated["rating"] == "deals" and rated["games"] == 9
    assert next(e for e in rated["entrants"] if e["name"] == "c0")["rating"] == 1000
    report = in_process("report", "out", "-o", "site", "--rating", "places", **here)
    assert report.returncode == 0, report.stderr
    assert "(rating: places)" in (tmp_path / "site" / "index.html").read_text()
