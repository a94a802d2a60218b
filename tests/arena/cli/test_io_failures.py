"""Every I/O failure is one line naming the path, never a traceback: a full disk, an output path
that cannot be written, a damaged results line, a league database locked by another process.

A full disk is a real one: a 256 KB tmpfs, mounted where the test runs as root (skipped, with the
reason, elsewhere), or /dev/full, where every write fails with ENOSPC, for files opened by path.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
import yaml

from arena.league.playing import run_league
from arena.runs.runner import run_tournament

from helpers import C_BOT, FIRST_BOT, arena, in_process, new_league, own_bot, submitted

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180)]  # each test runs the arena command


def one_error(proc: subprocess.CompletedProcess[str], *expected: str) -> str:
    """The one error line of a failed command (progress lines aside); it must hold ``expected``."""
    assert proc.returncode == 2, f"exit {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    assert "Traceback" not in proc.stderr, proc.stderr
    errors = [line for line in proc.stderr.splitlines() if line.startswith("arena: error:")]
    assert len(errors) == 1, proc.stderr
    for text in expected:
        assert text in errors[0], errors[0]
    return errors[0]


def tournament(directory: Path, rounds: int = 1) -> Path:
    path = directory / "t.yaml"
    path.write_text(yaml.safe_dump({
        "name": "io", "game": "blackout", "players": 3, "rounds": rounds, "seed": 3,
        "options": {"deals": 2},
        "bots": [{"name": "a", "cmd": str(C_BOT)}, {"name": "b", "cmd": str(C_BOT)},
                 {"name": "c", "cmd": str(FIRST_BOT)}]}))
    return path


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished run's results directory (3 games), to copy and damage."""
    directory = tmp_path_factory.mktemp("results")  # in process: a set-up, not a test of arena run
    run_tournament(tournament(directory), out=directory / "out", jobs=1, resamples=0)
    return directory / "out"


@pytest.fixture
def mount_disk(tmp_path: Path) -> Iterator[Callable[[str], Path]]:
    """Mounts a tmpfs of the size given (``256k``): a disk that fills up for real."""
    if os.geteuid() != 0:
        pytest.skip("a full disk is a small tmpfs, and mounting one needs root")
    mounted: list[Path] = []

    def mount(size: str) -> Path:
        point = tmp_path / f"disk{len(mounted)}"
        point.mkdir()
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(point)],
                              capture_output=True, text=True)
        if done.returncode != 0:
            pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
        mounted.append(point)
        return point

    try:
        yield mount
    finally:
        for point in mounted:
            subprocess.run(["umount", "-l", str(point)], check=False)


@pytest.fixture
def small_disk(mount_disk: Callable[[str], Path]) -> Path:
    return mount_disk("256k")


def fill(disk: Path) -> Path:
    """Fill ``disk`` to the last byte; the filler file, to remove to make room again."""
    filler = disk / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT)
    try:
        for size in (65536, 4096, 1):
            try:
                while True:
                    os.write(fd, b"\0" * size)
            except OSError:
                pass
    finally:
        os.close(fd)
    return filler


def test_a_run_on_a_full_disk_is_one_line_and_so_is_its_resume(
        mount_disk: Callable[[str], Path], tmp_path: Path) -> None:
    # 64 KB: about 20 games fill it (256 KB took about 95, each one CPU for nothing)
    path = tournament(tmp_path, rounds=200)  # 600 games: far more than 64 KB of records
    out = mount_disk("64k") / "out"
    one_error(arena("run", path, "--out", out, cwd=tmp_path),
              f"{out / 'games.jsonl'}: cannot write: No space left on device", "--resume")
    saved = (out / "games.jsonl").read_bytes()
    assert saved.count(b"\n") > 0
    one_error(arena("run", path, "--out", out, "--resume", cwd=tmp_path),
              "No space left on device")
    # no data was lost: the games saved (all but a half-written last line) are still there
    kept = (out / "games.jsonl").read_bytes()
    assert saved.startswith(kept) and kept.count(b"\n") == saved.count(b"\n")


def test_a_report_on_a_full_disk_names_the_file_it_could_not_write(results: Path,
                                                                    tmp_path: Path) -> None:
    out = tmp_path / "site"
    out.mkdir()
    (out / "index.html").symlink_to("/dev/full")  # every write to it fails with ENOSPC
    one_error(arena("report", results, "-o", out, cwd=tmp_path),
              f"--out: {out / 'index.html'}: cannot write the report: No space left on device")


def test_a_report_on_a_full_tmpfs_is_one_line(small_disk: Path, results: Path,
                                              tmp_path: Path) -> None:
    fill(small_disk)
    one_error(arena("report", results, "-o", small_disk / "site", cwd=tmp_path),
              "--out:", "No space left on device")


def test_league_commands_on_a_full_disk_are_one_line_and_lose_nothing(
        mount_disk: Callable[[str], Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    disk = mount_disk("4m")
    # In process, the league that is there before the disk fills: a set-up.
    league = new_league(disk / "league", options={"deals": "1"})
    for name, program in (("a", C_BOT), ("b", FIRST_BOT), ("c", C_BOT)):
        submitted(league, own_bot(tmp_path, name, program))
    assert run_league(league, games=3, jobs=1).played == 3
    filler = fill(disk)
    for args in (["submit", league, own_bot(tmp_path, "d", FIRST_BOT)],
                 ["run", league, "--games", "30", "--jobs", "1"], ["export", league]):
        line = one_error(arena("league", *args, cwd=tmp_path))
        assert "no space left" in line.lower(), line
    filler.unlink()
    # The disk has room again: the league's other commands by the entry point, in process
    here = {"cwd": tmp_path, "monkeypatch": monkeypatch, "capsys": capsys}
    for force in ([], ["--force"]):  # renaming a file over /dev/full would replace the device
        one_error(in_process("league", "export", league, "--out", "/dev/full", *force, **here),
                  "--out /dev/full: exists and is not a regular file")
    assert Path("/dev/full").is_char_device()
    status = in_process("league", "status", league, **here)
    assert status.returncode == 0, status.stderr
    assert "3 games stored" in status.stdout and "\nd " not in status.stdout
    assert not (league / "bots" / "d").exists() or not any((league / "bots" / "d").iterdir())


@pytest.mark.parametrize(("args", "expected"), [
    (["run", "t.yaml", "--out", "/proc/x"], "/proc/x: cannot write results there"),
    (["run", "t.yaml", "--out", "/dev/null/x"], "/dev/null/x: cannot write results there"),
    (["report", "RESULTS", "-o", "/proc/x"], "--out: /proc/x: cannot write the report"),
    (["report", "RESULTS", "-o", "/dev/null"], "--out: /dev/null exists and is not a directory"),
    (["league", "init", "/proc/x", "--game", "blackout"], "/proc/x: cannot create the league"),
    (["league", "init", "/dev/null/x", "--game", "blackout"], "cannot create the league"),
    (["league", "export", "LEAGUE", "--out", "/proc/x"], "--out: /proc/x: cannot write the export"),
    (["play", "blackout", str(C_BOT), str(C_BOT), str(C_BOT), "--log", "/proc/x.json"],
     "--log: /proc/x.json: cannot write"),
    (["play", "blackout", str(C_BOT), str(C_BOT), str(C_BOT), "--log", "/dev/full"],
     "--log: /dev/full: cannot write the record: No space left on device"),
    (["play", "blackout", str(C_BOT), str(C_BOT), str(C_BOT), "--stderr-dir", "/dev/null/x"],
     "--stderr-dir: /dev/null/x: cannot create"),
    (["play", "blackout", str(C_BOT), str(C_BOT), str(C_BOT), "--stderr-dir", "/proc/x"],
     "--stderr-dir: /proc/x: cannot create"),
], ids=lambda value: " ".join(value[:2]) + " " + value[-1] if isinstance(value, list) else None)
def test_an_output_path_that_cannot_be_written_is_one_line(
        tmp_path: Path, results: Path, args: list[str], expected: str) -> None:
    tournament(tmp_path)
    if "LEAGUE" in args:
        new_league(tmp_path / "lg", players=None)
    args = [{"RESULTS": str(results), "LEAGUE": str(tmp_path / "lg")}.get(a, a) for a in args]
    one_error(arena(*args, cwd=tmp_path), expected)


def test_play_log_in_a_missing_directory_fails_before_the_game(tmp_path: Path) -> None:
    proc = arena("play", "blackout", C_BOT, C_BOT, C_BOT, "--log", "/nonexistent/dir/x.json",
                 cwd=tmp_path)
    one_error(proc, "--log: /nonexistent/dir/x.json: cannot write: No such file or directory")
    assert proc.stdout == ""  # no game was played, so none was lost


@pytest.mark.parametrize("command", ["table", "report", "show", "resume"])
def test_a_games_jsonl_that_is_a_folder_is_one_line(tmp_path: Path, command: str) -> None:
    out = tmp_path / "out"
    (out / "games.jsonl").mkdir(parents=True)
    (out / ".arena").write_text("{}\n")
    args = {"table": ["table", out], "report": ["report", out, "-o", tmp_path / "site"],
            "show": ["show", out, "r1-t0000-s0"],
            "resume": ["run", tournament(tmp_path), "--out", out, "--resume"]}[command]
    one_error(arena(*args, cwd=tmp_path), f"{out / 'games.jsonl'}: not a file")


def drop(*path: Any) -> Callable[[dict[str, Any]], None]:
    def damage(record: dict[str, Any]) -> None:
        for key in path[:-1]:
            record = record[key]
        del record[path[-1]]
    return damage


def put(value: object, *path: Any) -> Callable[[dict[str, Any]], None]:
    def damage(record: dict[str, Any]) -> None:
        for key in path[:-1]:
            record = record[key]
        record[path[-1]] = value
    return damage


DAMAGES = {
    "no result": (drop("result"), "no 'result'"),
    "ranks not a list": (put("x", "result", "ranks"), "'ranks' must be a list of 3 places"),
    "ranks short": (put([1], "result", "ranks"), "'ranks' must be a list of 3 places"),
    "entrants short": (put(["a"], "result", "entrants"), "'entrants' must be a list"),
    "deal without dealer": (drop("deals", 0, "dealer"), "deals[0]: no 'dealer'"),
    "dealer out of range": (put(9, "deals", 0, "dealer"), "deals[0].dealer must be a seat"),
    "names short": (put(["a"], "names"), "'names' must be a list of 3 to 7 bot names"),
    "deals a string": (put("x", "deals"), "'deals' must be a list"),
    "play seat out of range": (put([[7, "AS"]], "deals", 0, "plays"), "deals[0].plays must be"),
    "fault without seat": (put([{"kind": "crash"}], "faults"), "faults[0].seat must be a seat"),
    "hands short": (put([["AS"]], "deals", 1, "hands"), "deals[1].hands must be 3 lists"),
}


@pytest.mark.parametrize("damage", DAMAGES)
def test_a_damaged_results_line_is_one_line_naming_file_line_and_field(
        tmp_path: Path, results: Path, damage: str, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    change, expected = DAMAGES[damage]
    out = tmp_path / "out"
    shutil.copytree(results, out)
    lines = (out / "games.jsonl").read_bytes().splitlines()
    record = orjson.loads(lines[1])
    change(record)
    lines[1] = orjson.dumps(record)
    (out / "games.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    where = f"{out / 'games.jsonl'}:2: "
    # The report through the real command; the other readers by its entry point, in process
    one_error(arena("report", out, "-o", tmp_path / "site", cwd=tmp_path), where, expected)
    here = {"cwd": tmp_path, "monkeypatch": monkeypatch, "capsys": capsys}
    one_error(in_process("show", out, "r1-t0000-s0", **here), where, expected)
    if "result" in damage or "ranks" in damage or "entrants" in damage:  # what table and resume read
        one_error(in_process("table", out, **here), where)
        one_error(in_process("run", tournament(tmp_path), "--out", out, "--resume", **here), where)


def test_a_locked_league_database_is_one_line_after_a_bounded_wait(tmp_path: Path) -> None:
    league = new_league(tmp_path / "league")
    holder = sqlite3.connect(league / "league.db", isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another connection holds the write lock throughout
    released = threading.Event()
    try:
        started = time.monotonic()
        proc = arena("league", "submit", league, own_bot(tmp_path, "a", C_BOT), cwd=tmp_path)
        waited = time.monotonic() - started
    finally:
        holder.execute("ROLLBACK")
        holder.close()
        released.set()
    one_error(proc, f"{league / 'league.db'}: another process has held the league's write lock")
    assert waited < 60
    assert not (league / "bots" / "a").exists() or not any((league / "bots" / "a").iterdir())
