"""The memory watch against real processes: a JVM under the default limit, a process tree summed.

The hog that goes over its limit is in test_process.py (with the other misbehaving bots).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from arena.bots.memory import megabytes_over, resident_bytes
from arena.bots.process import BotProcess
from arena.settings import Limits

pytestmark = pytest.mark.timeout(120)

TESTS = Path(__file__).resolve().parents[2]
JAVA_BOT = TESTS / "bots" / "java_tiny" / "TinyBot.java"
MISBEHAVING = TESTS / "bots" / "misbehaving"
JDK_MISSING = shutil.which("javac") is None or shutil.which("java") is None


def act() -> dict[str, object]:
    return {"type": "act", "kind": "play", "legal": ["QS", "2H"], "view": {}, "time_ms": 500}


@pytest.mark.slow
@pytest.mark.skipif(JDK_MISSING, reason="javac/java not installed: the JVM memory test cannot run")
def test_a_jvm_bot_with_its_defaults_starts_and_plays_under_the_default_limit(tmp_path: Path) -> None:
    subprocess.run(["javac", "-d", str(tmp_path), str(JAVA_BOT)], check=True, timeout=100,
                   capture_output=True)
    java = shutil.which("java")
    assert java is not None
    limits = Limits()
    with BotProcess("java", [java, "-cp", str(tmp_path), "TinyBot"], limits=limits,
                    start_timeout=60) as bot:
        assert bot.hello is not None and bot.hello["name"] == "tiny-java"
        for _ in range(5):
            assert bot.request(act(), 30.0).message["action"] == "QS"
        assert bot.is_running and not bot.memory_exceeded
    assert bot.returncode == 0 and bot.exit_seconds is not None  # exited by itself on quit
    assert limits.memory_mb is not None and limits.memory_mb <= 2048  # the default, not raised


def test_resident_memory_sums_the_whole_process_tree() -> None:
    argv = [sys.executable, "-S", str(MISBEHAVING / "forks_child.py")]
    with BotProcess("forks_child", argv) as bot:
        pid = bot.pid
        assert pid is not None and bot.hello is not None
        leader = resident_bytes(pid)
        child = resident_bytes(bot.hello["child"])
        assert leader > child > 0  # the leader's figure includes its child's
    assert resident_bytes(pid) == 0  # killed and reaped: nothing left to count


def test_a_peak_over_the_limit_never_reads_as_the_limit_itself() -> None:
    # CI once reported "memory limit 256 MB exceeded" with a peak of 256.0: the hog was caught
    # a few pages over the limit and the peak was rounded to nearest.
    assert megabytes_over((256 << 20) + 4096) == 256.1
    assert megabytes_over(256 << 20) == 256.0
    assert megabytes_over((300 << 20) + (1 << 19)) == 300.5
