"""A build is bounded like its bot: each limit stops a real hostile build (tests/bots/hostile/builds/),
without a sandbox and in bubblewrap (as root where the tests run as root, as CI does), with the
reason as data; and hundreds of MB of output cost the arena only their tail."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena.bots.build import TAIL_LINES, BuildError, BuildLimit, run_build
from arena.bots.sandbox import bwrap_problem
from arena.bots.uids import UID_FIRST, UID_LAST
from arena.settings import BuildLimits
from arena.values.sandbox_settings import Sandbox, is_root_mode

ROOT = Path(__file__).resolve().parents[3]
HOSTILE = ROOT / "tests" / "bots" / "hostile" / "builds"

pytestmark = pytest.mark.timeout(120)

needs_bwrap = pytest.mark.skipif(bwrap_problem() is not None,
                                 reason=f"no working bubblewrap: {bwrap_problem()}")


@pytest.fixture(params=["none", pytest.param("bwrap", marks=needs_bwrap)])
def sandboxed(request: pytest.FixtureRequest) -> bool:
    return bool(request.param == "bwrap")


def bot_with(tmp_path: Path, *scripts: str) -> Path:
    """A bot directory holding the hostile build ``scripts``."""
    tmp_path.chmod(0o755)  # a sandboxed build may run as a uid of its own
    bot = tmp_path / "bot"
    bot.mkdir(mode=0o755)
    for script in scripts:
        shutil.copy(HOSTILE / script, bot)
    return bot


def failed_build(bot: Path, command: list[str], sandboxed: bool, **limits: int) -> BuildError:
    """The BuildError of ``command`` built in ``bot`` under ``limits`` (a short wall limit unless
    the test says one: a limit that failed to hold ends the test there)."""
    box = Sandbox(bot_dir=str(bot)) if sandboxed else None
    with pytest.raises(BuildError) as error:
        run_build(tuple(command), str(bot), str(bot), "bot.yaml: build", box,
                  BuildLimits(**{"seconds": 60, **limits}))
    return error.value


def test_a_fork_bomb_is_stopped_by_its_process_limit(tmp_path: Path, sandboxed: bool) -> None:
    # Before: no process limit at all (a build forked 305 processes; the uid's limit was 96,367).
    error = failed_build(bot_with(tmp_path, "forks.py"), ["python3", "forks.py", "300"], sandboxed,
                         processes=24)
    if error.limit is BuildLimit.PROCESSES:  # root without a sandbox: the watch counted them
        assert "process limit exceeded (more than 24 processes and threads)" in str(error)
    else:  # RLIMIT_NPROC of the build's own uid: a fork failed
        made = re.search(r"fork failed after (\d+) children", str(error))
        assert made is not None and int(made.group(1)) < 24, str(error)


def test_a_build_over_its_memory_limit_is_killed_with_the_reason(
        tmp_path: Path, sandboxed: bool) -> None:
    error = failed_build(bot_with(tmp_path, "allocates.py"), ["python3", "allocates.py", "1000"],
                         sandboxed, memory_mb=64)
    assert error.limit is BuildLimit.MEMORY
    assert re.match(r"bot.yaml: build: memory limit 64 MB exceeded \(peak \d+\.\d MB\); the end "
                    r"of its output:", str(error)), str(error)


def test_a_file_over_the_size_limit_kills_its_writer(tmp_path: Path, sandboxed: bool) -> None:
    bot = bot_with(tmp_path, "writes_big_file.sh")
    error = failed_build(bot, ["sh", "writes_big_file.sh", "40"], sandboxed, file_mb=8)
    assert error.signal == "SIGXFSZ"
    assert str(error) == ("bot.yaml: build: killed by signal SIGXFSZ (its file size limit, 8 MB) "
                          "and printed nothing")
    assert (bot / "big").stat().st_size <= 8 << 20


def test_many_files_past_the_disk_limit_stop_the_build(tmp_path: Path, sandboxed: bool) -> None:
    """Each file is under the file size limit; together they pass the disk limit."""
    bot = bot_with(tmp_path, "writes_many_files.py")
    error = failed_build(bot, ["python3", "writes_many_files.py", "200", "128"], sandboxed,
                         disk_mb=8)
    assert error.limit is BuildLimit.DISK
    assert str(error).startswith("bot.yaml: build: wrote more than 8 MB into its bot's directory "
                                 "(its disk limit)")


@pytest.mark.slow
def test_many_empty_files_past_the_files_limit_stop_the_build(
        tmp_path: Path, sandboxed: bool) -> None:
    bot = bot_with(tmp_path, "writes_many_files.py")
    error = failed_build(bot, ["python3", "writes_many_files.py", "3000", "0"], sandboxed,
                         files=500)
    assert error.limit is BuildLimit.FILES
    assert str(error).startswith("bot.yaml: build: made more than 500 files and directories in "
                                 "its bot's directory (its limit)")


@pytest.mark.slow
def test_a_spinning_build_is_killed_at_its_cpu_limit(tmp_path: Path, sandboxed: bool) -> None:
    error = failed_build(bot_with(tmp_path, "spins.sh"), ["sh", "spins.sh"], sandboxed,
                         cpu_seconds=1)
    assert error.signal == "SIGXCPU"
    assert str(error) == ("bot.yaml: build: killed by signal SIGXCPU (its CPU limit, 1 s per "
                          "process) and printed nothing")


@pytest.mark.slow
def test_a_sleeping_build_ends_at_its_wall_limit(tmp_path: Path, sandboxed: bool) -> None:
    started = time.monotonic()
    error = failed_build(bot_with(tmp_path, "sleeps.sh"), ["sh", "sleeps.sh"], sandboxed,
                         seconds=1)
    assert time.monotonic() - started < 30
    assert error.limit is BuildLimit.WALL
    assert str(error) == ("bot.yaml: build: did not finish within 1 s (its time limit); the end "
                          "of its output:\n  | sleeping")


RUNNER = """
import sys
from arena.bots.build import run_build
try:
    run_build(("python3", "prints.py", sys.argv[2]), sys.argv[1], sys.argv[1], "bot.yaml: build")
except Exception as error:
    print(error)
"""


@pytest.mark.slow
def test_hundreds_of_mb_of_output_cost_the_arena_only_their_tail(tmp_path: Path) -> None:
    """The runner's peak resident memory as the kernel measured it (``wait4``), with a build
    that prints 300 MB and fails: before, the whole output was read into memory to keep its
    last lines."""
    bot = bot_with(tmp_path, "prints.py")
    runner = subprocess.Popen([sys.executable, "-c", RUNNER, str(bot), "300"],
                              stdout=subprocess.PIPE)
    assert runner.stdout is not None
    said = runner.stdout.read().decode()
    runner.stdout.close()
    _, status, usage = os.wait4(runner.pid, 0)
    runner.returncode = os.waitstatus_to_exitcode(status)
    assert runner.returncode == 0
    assert usage.ru_maxrss < 150 * 1024, f"peak {usage.ru_maxrss // 1024} MB"  # in KB
    lines = said.splitlines()
    assert lines[0] == "bot.yaml: build: exited with 1; the end of its output:", said[:500]
    assert re.fullmatch(r"  \([\d,]+ earlier lines, [\d,]+ bytes in all, not kept\)", lines[1])
    assert lines[-1] == "  | the last line" and len(lines) == 2 + TAIL_LINES


@needs_bwrap
@pytest.mark.skipif(not is_root_mode(), reason="a build runs as a uid of its own only as root")
def test_a_sandboxed_build_runs_as_a_uid_of_its_own_and_its_directory_is_given_back(
        tmp_path: Path) -> None:
    """The directory is the build's while it runs and its owner's after, without the write bits
    the build gave others; a file hard-linked from outside is never handed over."""
    bot = bot_with(tmp_path)
    (bot / "kept.txt").write_text("kept\n")
    outside = tmp_path / "outside.txt"
    outside.write_text("the organiser's\n")
    os.link(outside, bot / "linked.txt")
    for path in (bot, bot / "kept.txt", outside):
        os.chown(path, 1234, 1234)
    script = ("id -u > uid.txt; echo pwned >> linked.txt; mkdir new; echo x > new/file; "
              "chmod 777 new new/file kept.txt; true")
    run_build(("sh", "-c", script), str(bot), str(bot), "b", Sandbox(bot_dir=str(bot)))
    assert UID_FIRST <= int((bot / "uid.txt").read_text()) <= UID_LAST
    assert outside.read_text() == "the organiser's\n"
    for path in (bot, *bot.rglob("*")):
        info = path.lstat()
        assert (info.st_uid, info.st_gid) == (1234, 1234), path
        assert info.st_mode & 0o022 == 0 or path.name == "linked.txt", (path, oct(info.st_mode))
    assert (bot / "kept.txt").stat().st_mode & 0o777 == 0o755
