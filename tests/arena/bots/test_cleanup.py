"""No bot process, child of a bot, or zombie outlives the runner: a real runner process
(cleanup_runner.py) starts bots through arena.bots.process and is then signalled or simply exits."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import proc_state, wait_for

pytestmark = [pytest.mark.slow, pytest.mark.timeout(60)]

RUNNER = Path(__file__).resolve().with_name("cleanup_runner.py")


def group_members(pgid: int) -> set[int]:
    """Every live process in process group ``pgid``, from /proc (no psutil)."""
    members = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    fields = stat.read().rsplit(")", 1)[1].split()
            except (FileNotFoundError, ProcessLookupError):
                continue
            if int(fields[2]) == pgid and fields[0] != "Z":
                members.add(int(entry))
    return members


def read_report(runner: subprocess.Popen[bytes], timeout: float = 30.0) -> dict:
    assert runner.stdout is not None
    ready, _, _ = select.select([runner.stdout], [], [], timeout)
    assert ready, "the runner did not report its bots"
    line = runner.stdout.readline()
    assert line, f"the runner exited early: {runner.stderr.read().decode() if runner.stderr else ''}"
    return json.loads(line)


@pytest.mark.parametrize(
    ("mode", "signum", "status"),
    [
        ("waiting", signal.SIGTERM, 130),
        ("busy", signal.SIGTERM, 130),
        ("busy", signal.SIGINT, 130),
        ("waiting", signal.SIGHUP, 130),
        ("exit", None, 0),
    ],
)
def test_no_bot_or_child_outlives_the_runner(mode, signum, status):
    runner = subprocess.Popen(
        [sys.executable, str(RUNNER), mode],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    leaders: set[int] = set()
    try:
        report = read_report(runner)
        leaders = set(report["bots"].values())
        everyone = set().union(*(group_members(pid) for pid in leaders))
        assert leaders <= everyone and set(report["children"]) <= everyone
        if signum is not None:
            runner.send_signal(signum)
        else:
            runner.stdin.close()  # "exit" mode: return from main with every bot running
        assert runner.wait(timeout=20) == status, runner.stderr.read().decode()
        # The runner reaped its own children: a leader left as a zombie would still be in /proc.
        assert {pid: proc_state(pid) for pid in leaders} == dict.fromkeys(leaders)
        # Grandchildren were killed; their reaping is init's job, so a zombie counts as gone.
        wait_for(lambda: all(proc_state(pid) in (None, "Z") for pid in everyone), 60,
                 "every grandchild to end")
        assert all(group_members(pid) == set() for pid in leaders)
    finally:  # when the runner failed, leave no process of this test behind
        if runner.poll() is None:
            runner.kill()
            runner.wait()
        for pid in leaders:
            if group_members(pid):
                os.killpg(pid, signal.SIGKILL)
