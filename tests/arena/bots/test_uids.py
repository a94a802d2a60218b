"""Every live sandboxed bot of a root arena has a uid of its own, allocated (``arena.bots.uids``).

Two arena processes with real sandboxed bots, alive at once, in a PID namespace of the test's own
(``unshare``) where the test chooses their pids: the pids that made the old hashed uid
(``2000000 + (pid * 7919 + n) % 1000000``) give two processes' bots one uid, and so one process
budget. And the hand-out order of one process's slots.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from arena.bots.sandbox import bwrap_problem

ROOT = Path(__file__).resolve().parents[3]
MISBEHAVING = ROOT / "tests" / "bots" / "misbehaving"

pytestmark = pytest.mark.timeout(120)

FIRST_PID = 300
APART = 17_679
"""Pids this far apart collided under the hash: 17679 * 7919 = 1 (mod 1000000), so the first bot
of the process at FIRST_PID + APART drew the uid of the second bot at FIRST_PID."""

DRIVER = """
import os, sys
from arena.bots.process import BotProcess
from arena.bots.shutdown import close_bots
from arena.values.sandbox_settings import Sandbox

mark, misbehaving, first, apart = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])

def arena_process(pid, bots):
    # An arena process at ``pid`` (the next pid after ns_last_pid) that starts ``bots`` live
    # bots when told (nothing else may take a pid meanwhile) and closes them when told again.
    ready_r, ready_w = os.pipe()
    go_r, go_w = os.pipe()
    with open("/proc/sys/kernel/ns_last_pid", "w") as last:
        last.write(str(pid - 1))
    child = os.fork()
    if child == 0:
        os.read(go_r, 1)
        live = [BotProcess(f"b{n}", ["python3", "forks_child.py", mark], cwd=misbehaving,
                           sandbox=Sandbox(), start_timeout=60) for n in range(bots)]
        try:
            for bot in live:
                bot.start()
            os.write(ready_w, b"r")
            os.read(go_r, 1)
        finally:
            close_bots(live)
            os._exit(0)
    return child, ready_r, go_w

processes = [arena_process(first, 2), arena_process(first + apart, 1)]
for _, _, go in processes:
    os.write(go, b"g")
if [child for child, _, _ in processes] != [first, first + apart]:
    print("pids", [child for child, _, _ in processes])
    sys.exit(3)
for _, ready, _ in processes:
    assert os.read(ready, 1) == b"r"

def parent(pid):
    return int(open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[1])

def arena_of(pid):
    while pid > 1 and pid not in (first, first + apart):
        pid = parent(pid)
    return pid

for name in os.listdir("/proc"):
    if name.isdigit():
        try:
            cmdline = open(f"/proc/{name}/cmdline", "rb").read()
            uid = open(f"/proc/{name}/status").read().split("Uid:")[1].split()[0]
        except OSError:
            continue
        if mark.encode() in cmdline and not cmdline.startswith(b"bwrap\\0") and uid != "0":
            print("bot", arena_of(int(name)), uid)
for _, _, go in processes:
    os.write(go, b"g")
for child, _, _ in processes:
    os.waitpid(child, 0)
"""


@pytest.mark.skipif(bwrap_problem() is not None, reason=f"no working bubblewrap: {bwrap_problem()}")
@pytest.mark.skipif(os.geteuid() != 0, reason="the arena is not root: bots keep its uid")
@pytest.mark.skipif(shutil.which("unshare") is None, reason="no unshare (util-linux)")
@pytest.mark.slow
def test_live_bots_of_two_processes_never_share_a_uid() -> None:
    mark = f"600.{os.getpid()}"
    done = subprocess.run(
        ["unshare", "--pid", "--fork", "--mount-proc", sys.executable, "-c", DRIVER, mark,
         str(MISBEHAVING), str(FIRST_PID), str(APART)],
        capture_output=True, text=True, timeout=100, check=False)
    if done.returncode == 3:
        pytest.skip(f"could not choose the arena processes' pids: {done.stdout.strip()}")
    assert done.returncode == 0, done.stdout + done.stderr
    uids: dict[int, set[int]] = {}
    for line in done.stdout.splitlines():
        _, arena, uid = line.split()
        uids.setdefault(int(arena), set()).add(int(uid))
    first, second = uids[FIRST_PID], uids[FIRST_PID + APART]
    assert len(first) == 2 and len(second) == 1  # each live bot (and its child) one uid
    assert first.isdisjoint(second)
    from arena.bots.uids import SLOTS, UID_FIRST

    for arena, held in uids.items():  # each in its arena process's own block
        assert all((uid - UID_FIRST) // SLOTS == arena for uid in held)


def test_a_freed_uid_is_handed_out_again_after_the_unused_ones() -> None:
    from arena.bots.uids import SLOTS, UID_FIRST, UID_LAST, UidBlock

    block = UidBlock()
    base = UID_FIRST + os.getpid() * SLOTS
    first, second, third = block.take(), block.take(), block.take()
    assert (first, second, third) == (base, base + 1, base + 2)
    block.give_back(second)
    block.give_back(first)
    block.give_back(UID_FIRST)  # another process's: ignored
    assert [block.take() for _ in range(SLOTS - 1)][-2:] == [second, first]
    assert UID_LAST == 4_196_303_999 < 2**32 - 1
