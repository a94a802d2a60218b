"""The Java starter bot through the real `arena check-bot` and `arena play` (skipped, with the
reason shown, where javac or java is missing)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import orjson
import pytest

from helpers import arena

pytestmark = [
    pytest.mark.slow,
    pytest.mark.timeout(240),
    pytest.mark.skipif(shutil.which("javac") is None or shutil.which("java") is None,
                       reason="javac or java is not installed: the Java starter bot is not tested"),
]

ROOT = Path(__file__).resolve().parents[2]
JVM_FLAGS = ["-Xmx128m", "-XX:CompressedClassSpaceSize=64m", "-XX:+UseSerialGC"]
"""Flags that keep a JVM small (the resident-memory limit needs none: see the default test)."""


@pytest.fixture(scope="module")
def classes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bot compiled as bots/README.md says, into a directory of the test's own."""
    out = tmp_path_factory.mktemp("java")
    subprocess.run(["javac", "-d", str(out), str(ROOT / "bots/java/Bot.java")], check=True,
                   capture_output=True, timeout=120)
    return out


def test_check_bot_passes_with_the_demo_flags(classes: Path) -> None:
    done = arena("check-bot", "--", "java", *JVM_FLAGS, "-cp", str(classes), "Bot")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "7 of 7 steps passed" in done.stdout


def test_check_bot_passes_with_default_settings(classes: Path, tmp_path: Path) -> None:
    # in tmp_path: a JVM that cannot start leaves hs_err_pid*.log files in its directory
    done = arena("check-bot", "--", "java", "-cp", str(classes), "Bot", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize(("game", "seats"), [("blackout", 3), ("partnership-blackout", 1)])
def test_plays_both_games_without_a_fault(classes: Path, tmp_path: Path, game: str,
                                          seats: int) -> None:
    java = " ".join(["java", *JVM_FLAGS, "-cp", str(classes), "Bot"])
    log = tmp_path / "game.json"
    done = arena("play", game, *[f"j{i}={java}" for i in range(seats)], "bots/c/random_bot",
                 "--log", str(log), "--seed", "3")
    assert done.returncode == 0, done.stderr
    record = orjson.loads(log.read_bytes())
    assert record["faults"] == [] and record["deals"]
