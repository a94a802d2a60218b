"""check-bot builds a bot directory as a league would, and says so: how long a good build took,
and a failed build as the check's first failure (exit 1, the output's tail), not as bad input."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from helpers import arena

ROOT = Path(__file__).resolve().parents[3]


def check_bot(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return arena("check-bot", *args, timeout=300)


@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler (cc) to build the bot")
def test_a_good_build_is_timed_and_a_failed_one_fails_the_check(tmp_path: Path) -> None:
    good = tmp_path / "good"
    good.mkdir()
    shutil.copy(ROOT / "bots" / "c" / "random_bot.c", good / "bot.c")
    (good / "bot.yaml").write_text("name: good\nbuild: cc -O2 -o bot bot.c\nrun: ./bot\n")
    done = check_bot(good, "--game", "blackout")
    assert done.returncode == 0, done.stdout + done.stderr
    first, second = done.stdout.splitlines()[:2]
    assert first.startswith("built (") and first.endswith("): cc -O2 -o bot bot.c")
    assert second.startswith("PASS  start and hello")
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "bot.yaml").write_text("name: broken\nbuild: cc -o bot missing.c\nrun: ./bot\n")
    done = check_bot(broken)
    assert done.returncode == 1, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("FAIL  build (") and \
        f"cc -o bot missing.c: {broken / 'bot.yaml'}: build: exited with 1" in lines[0]
    assert any("missing.c" in line for line in lines[1:-1])  # the compiler's own words
    assert lines[-1] == "the build failed: no step was run"
    assert done.stderr == ""
