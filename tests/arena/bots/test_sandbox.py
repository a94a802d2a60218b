"""The bubblewrap sandbox against real hostile bots (tests/bots/hostile/*.py).

Each attack runs twice in a real game with three C bots: under the sandbox, where it must fail
while the game finishes without a fault, and without it, where it must succeed, so that a sandbox
that did nothing would fail these tests. The hostile bot says what happened on its stderr
(``ATTACK name: SUCCEEDED|BLOCKED: detail``); where the attack leaves a trace outside the bot (a
file, a connection, a signal), the test checks that trace too.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from time import perf_counter

import pytest

from arena.bots.process import BotProcess
from arena.bots.sandbox import INSTALL_HINT, bwrap_problem, choose_sandbox, process_limit_problem
from arena.bots.shutdown import close_bots
from arena.errors import BotStartError, ConfigError
from arena.referee.referee import play_game
from arena.settings import Clock, Limits, SandboxMode, TimeControl
from arena.values.faults import BotFaultError, FaultKind, TimeLimit
from arena.values.sandbox_settings import Sandbox

from helpers import arena, wait_for

pytestmark = pytest.mark.timeout(120)

ROOT = Path(__file__).resolve().parents[3]
HOSTILE = ROOT / "tests" / "bots" / "hostile"
MISBEHAVING = ROOT / "tests" / "bots" / "misbehaving"
C_BOT = ROOT / "bots" / "c" / "random_bot"
TIME = TimeControl(start_ms=30_000, move_ms=10_000, bank_ms=30_000)  # generous: a loaded machine
OPTIONS = {"deals": 2}
ACT = {"type": "act", "kind": "play", "legal": ["2C"], "view": {}, "time_ms": 10_000}

needs_bwrap = pytest.mark.skipif(bwrap_problem() is not None,
                                 reason=f"no working bubblewrap: {bwrap_problem()}")
needs_c_bot = pytest.mark.skipif(not C_BOT.exists(), reason="C bots not built (make bots)")


def attack(tmp_path: Path, script: str, *args: str, sandbox: Sandbox | None,
           env: dict[str, str] | None = None) -> str:
    """Play a small game with the hostile bot in seat 0; its attack line, once the game ended
    with no fault for any seat."""
    log = tmp_path / f"{script}-{'sandboxed' if sandbox else 'bare'}.log"
    hostile = BotProcess(script, ["python3", script, *args], cwd=HOSTILE, log_path=log,
                         start_timeout=TIME.start_ms / 1000, sandbox=sandbox, env=env)
    bots = [hostile] + [BotProcess(f"c{seat}", [str(C_BOT)], sandbox=sandbox) for seat in (1, 2, 3)]
    try:
        for bot in bots:
            bot.start()
        outcome = play_game("blackout", bots, 7, OPTIONS, names=[b.name for b in bots],
                            time_control=TIME)
    finally:
        close_bots(bots)
    assert outcome.record["faults"] == []
    lines = [line for line in log.read_text().splitlines() if line.startswith("ATTACK")]
    assert len(lines) == 1, log.read_text()
    return lines[0]


def blocked(line: str) -> bool:
    assert ": BLOCKED: " in line or ": SUCCEEDED: " in line, line
    return ": BLOCKED: " in line


@pytest.fixture
def home_secret() -> Iterator[Path]:
    """A file in the real home directory of the user running the tests (removed afterwards)."""
    path = Path.home() / f".arena-sandbox-test-{os.getpid()}"
    path.write_text("the organiser's secret\n")
    try:
        yield path
    finally:
        path.unlink()


@pytest.fixture
def server() -> Iterator[tuple[int, list[bytes]]]:
    """A TCP server on 127.0.0.1 (a free port): its port and the lines it received."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.2)
    received: list[bytes] = []
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                connection, _ = listener.accept()
            except TimeoutError:
                continue
            with connection:
                connection.settimeout(5)
                received.append(connection.recv(1024))

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield listener.getsockname()[1], received
    finally:
        stop.set()
        thread.join()
        listener.close()


def processes_running(marker: str) -> list[int]:
    """Pids (host view) of live, non-zombie processes whose command line contains ``marker``."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{name}/cmdline").read_bytes()
            state = Path(f"/proc/{name}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker.encode() in cmdline and state != "Z":
            found.append(int(name))
    return found


# -- the attacks ----------------------------------------------------------------------------------


@needs_bwrap
@needs_c_bot
@pytest.mark.slow
def test_cannot_read_another_bots_directory(tmp_path: Path) -> None:
    target = str(ROOT / "bots" / "c" / "random_bot.c")
    assert blocked(attack(tmp_path, "reads_file.py", target, sandbox=Sandbox()))
    assert not blocked(attack(tmp_path, "reads_file.py", target, sandbox=None))


@needs_bwrap
@needs_c_bot
def test_cannot_read_the_organisers_home(tmp_path: Path, home_secret: Path) -> None:
    line = attack(tmp_path, "reads_file.py", str(home_secret), sandbox=Sandbox())
    assert blocked(line) and "secret" not in line
    assert "the organiser's secret" in attack(tmp_path, "reads_file.py", str(home_secret),
                                              sandbox=None)


@needs_bwrap
@needs_c_bot
def test_cannot_write_outside_scratch(tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    own = HOSTILE / "written"
    try:
        assert blocked(attack(tmp_path, "writes_outside.py", str(outside), sandbox=Sandbox()))
        assert not outside.exists() and not own.exists()
        assert not blocked(attack(tmp_path, "writes_outside.py", str(outside), sandbox=None))
        assert outside.read_text() == "written by writes_outside\n"
    finally:
        own.unlink(missing_ok=True)


@needs_bwrap
@needs_c_bot
def test_cannot_connect_to_loopback(tmp_path: Path, server: tuple[int, list[bytes]]) -> None:
    port, received = server
    assert blocked(attack(tmp_path, "connects.py", str(port), sandbox=Sandbox()))
    assert received == []
    assert not blocked(attack(tmp_path, "connects.py", str(port), sandbox=None))
    wait_for(lambda: received == [b"hello from connects.py\n"], 60, "the unsandboxed bot's line")


@needs_bwrap
@needs_c_bot
def test_cannot_see_or_signal_the_arena(tmp_path: Path) -> None:
    got: list[int] = []
    previous = signal.signal(signal.SIGUSR1, lambda signum, frame: got.append(signum))
    try:
        line = attack(tmp_path, "signals_arena.py", str(os.getpid()), sandbox=Sandbox())
        assert blocked(line) and "listed in /proc: False" in line
        assert got == []
        line = attack(tmp_path, "signals_arena.py", str(os.getpid()), sandbox=None)
        assert not blocked(line) and "listed in /proc: True" in line
        wait_for(lambda: got == [signal.SIGUSR1], 60, "the unsandboxed bot's signal")
    finally:
        signal.signal(signal.SIGUSR1, previous)


@needs_bwrap
@needs_c_bot
@pytest.mark.skipif(process_limit_problem() is not None, reason=f"{process_limit_problem()}")
def test_a_fork_bomb_kills_only_the_bot(tmp_path: Path) -> None:
    # Sandboxed: forks before its hello until RLIMIT_NPROC of its own uid says no (capped at 1000
    # by the bot itself); the three C bots start after it, each as its own uid, and the game ends
    # without a fault while the bomb's children still live.
    sandbox = Sandbox(processes=32)
    line = attack(tmp_path, "fork_bomb.py", sandbox=sandbox)
    assert blocked(line) and "made 1000" not in line
    made = int(line.split("made ")[1].split()[0])
    assert 16 <= made < 32  # stopped by the limit, not by something else first
    # Unsandboxed, a bounded count shows the same forks go through without the limit.
    assert not blocked(attack(tmp_path, "fork_bomb.py", "64", sandbox=None))
    wait_for(lambda: processes_running("fork_bomb.py") == [], 60, "the fork bomb to be gone")


@needs_bwrap
@needs_c_bot
def test_cannot_fill_more_than_its_scratch(tmp_path: Path) -> None:
    line = attack(tmp_path, "fills_scratch.py", "24", sandbox=Sandbox(scratch_mb=8))
    assert blocked(line) and int(line.split("wrote ")[1].split()[0]) <= 8
    bare = tmp_path / "bare-tmp"
    bare.mkdir()
    line = attack(tmp_path, "fills_scratch.py", "24", sandbox=None,
                  env={**os.environ, "TMPDIR": str(bare)})
    assert not blocked(line) and len(list(bare.iterdir())) == 24


# -- life cycle and limits ------------------------------------------------------------------------


def marker() -> str:
    """A sleep length unique to this test run, to find its processes among other runs' on /proc."""
    return f"600.{os.getpid()}{int(perf_counter() * 1e6) % 1_000_000:06d}"


@needs_bwrap
def test_a_sandboxed_bots_children_die_with_it() -> None:
    mark = marker()
    bot = BotProcess("forks", ["python3", "forks_child.py", mark], cwd=MISBEHAVING,
                     sandbox=Sandbox())
    bot.start()
    wait_for(lambda: len(processes_running(mark)) >= 2, 60, "the bot and its child")
    bot.close()
    assert bot.returncode == 0
    wait_for(lambda: processes_running(mark) == [], 60, "every process of the bot to end")


@needs_bwrap
def test_a_sandboxed_bot_that_ignores_quit_is_killed() -> None:
    mark = marker()  # ignores_quit ignores its arguments
    bot = BotProcess("deaf", ["python3", "ignores_quit.py", mark], cwd=MISBEHAVING,
                     sandbox=Sandbox())
    bot.start()
    bot.close(grace=0.1)
    assert bot.returncode is not None and bot.returncode != 0
    wait_for(lambda: processes_running(mark) == [], 60, "every process of the bot to end")


RUNNER = """
import sys, time
from arena.bots.process import BotProcess
from arena.values.sandbox_settings import Sandbox
bot = BotProcess("forks", ["python3", "forks_child.py", sys.argv[1]], cwd=sys.argv[2],
                 sandbox=Sandbox())
bot.start()
print("started", flush=True)
time.sleep(600)
"""


@needs_bwrap
def test_nothing_sandboxed_outlives_a_killed_runner() -> None:
    # SIGKILL gives the runner no chance to clean up: bwrap's die-with-parent and the PID
    # namespace must take the bot and its child down by themselves.
    mark = marker()
    runner = subprocess.Popen([sys.executable, "-c", RUNNER, mark, str(MISBEHAVING)],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert runner.stdout is not None and runner.stdout.readline() == "started\n"
        wait_for(lambda: len(processes_running(mark)) >= 2, 60, "the bot and its child")
    finally:
        runner.kill()
        runner.wait()
    wait_for(lambda: processes_running(mark) == [], 60, "every process of the bot to end")


@needs_bwrap
def test_a_sandboxed_bot_keeps_its_memory_limit() -> None:
    # The memory watch walks the tree from bwrap's pid: the bot is bwrap's grandchild.
    bot = BotProcess("hog", ["python3", "memory_hog.py"], cwd=MISBEHAVING, sandbox=Sandbox(),
                     limits=Limits(memory_mb=256), start_timeout=30)
    bot.start()
    try:
        with pytest.raises(BotFaultError) as error:  # noqa: PT012 (whichever request sees the crash)
            for _ in range(3):
                bot.request(ACT, 30)
        fault = error.value.fault
        assert fault.kind is FaultKind.CRASH
        assert fault.detail == "memory limit 256 MB exceeded"
        assert fault.signal == "SIGKILL" and fault.exit_code is None
        assert fault.memory_peak_mb is not None and fault.memory_peak_mb > 256
        assert "no limit stopped me" not in fault.stderr_tail
    finally:
        bot.close()


@needs_bwrap
@pytest.mark.parametrize("sandbox", [Sandbox(), None], ids=["sandboxed", "bare"])
def test_a_bot_killed_by_a_signal_is_reported_with_it(tmp_path: Path,
                                                      sandbox: Sandbox | None) -> None:
    # bwrap exits with 128 + N when its bot dies of signal N: the fault must still say SIGXFSZ.
    env = None if sandbox is not None else {**os.environ, "TMPDIR": str(tmp_path)}
    bot = BotProcess("big", ["./writes_big_file.sh"], cwd=MISBEHAVING, sandbox=sandbox, env=env,
                     limits=Limits(file_mb=1), start_timeout=30)
    bot.start()
    try:
        with pytest.raises(BotFaultError) as error:
            bot.request(ACT, 30)
        fault = error.value.fault
        assert fault.kind is FaultKind.CRASH
        assert fault.detail == "killed by signal SIGXFSZ (file size limit 1 MB)"
        assert fault.signal == "SIGXFSZ" and fault.exit_code is None
    finally:
        bot.close()


@needs_bwrap
def test_a_sandboxed_bots_exit_code_stays_an_exit_code() -> None:
    bot = BotProcess("crash", ["python3", "crash_mid_game.py", "1"], cwd=MISBEHAVING,
                     sandbox=Sandbox(), start_timeout=30)
    bot.start()
    try:
        with pytest.raises(BotFaultError) as error:  # noqa: PT012 (whichever request sees the crash)
            for _ in range(3):
                bot.request(ACT, 30)
        fault = error.value.fault
        assert fault.kind is FaultKind.CRASH and fault.signal is None
        assert fault.exit_code == 3 and fault.detail == "exited with code 3"
    finally:
        bot.close()


NOT_ROOT_DRIVER = """
import os, subprocess, sys
try:
    sys.path.insert(0, sys.argv[1])
    from arena.bots.sandbox import wrap
    from arena.settings import Limits
    from arena.values.sandbox_settings import Sandbox
except Exception as error:
    print("cannot import the arena:", error)
    sys.exit(0)
sleepers = [subprocess.Popen(["sleep", "120"]) for _ in range(20)]  # this uid, outside
argv = wrap(Sandbox(processes=32), ["/usr/bin/python3", "-c", sys.argv[2]], "/", Limits())
print(subprocess.run(argv, capture_output=True, text=True, timeout=60).stdout, end="")
for sleeper in sleepers:
    sleeper.kill()
"""
BOMB = """
import os, time
made = 0
while made < 1000:
    try:
        child = os.fork()
    except OSError:
        break
    if child == 0:
        time.sleep(120)
        os._exit(0)
    made += 1
print("made", made)
"""


@needs_bwrap
@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to become another user")
@pytest.mark.skipif(not os.access("/usr/bin/python3", os.X_OK), reason="no /usr/bin/python3")
def test_an_arena_not_root_still_stops_a_fork_bomb() -> None:
    # The arena as an unprivileged uid (bwrap with a user namespace): the kernel counts that uid's
    # processes outside the sandbox too, so the limit is its running processes plus 32. With 20
    # sleepers of the uid outside, the bomb still gets about 32 and no more.
    # its own, below the bots' uids: two suites at once must not share it
    uid = str(1_000_000 + os.getpid() % 900_000)
    done = subprocess.run(
        ["setpriv", "--reuid", uid, "--regid", uid, "--clear-groups", "--inh-caps=-all", "--",
         "/usr/bin/python3", "-c", NOT_ROOT_DRIVER, str(ROOT), BOMB],
        capture_output=True, text=True, timeout=90, cwd="/")
    if done.stdout.startswith("cannot import the arena"):
        pytest.skip(f"the checkout is not readable by another uid: {done.stdout.strip()}")
    assert done.stdout.startswith("made "), done.stdout + done.stderr
    assert 16 <= int(done.stdout.split()[1]) < 32


@needs_bwrap
def test_a_bot_file_only_its_owner_can_read_fails_with_the_reason(tmp_path: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("the arena is not root: bots keep its uid (docs/sandbox.md)")
    bot_dir = tmp_path / "private"
    bot_dir.mkdir(mode=0o755)
    for name in ("well_behaved.py", "_protocol.py"):
        shutil.copy(MISBEHAVING / name, bot_dir)
    (bot_dir / "well_behaved.py").chmod(0o600)
    bot = BotProcess("private", ["python3", "well_behaved.py"], cwd=bot_dir, sandbox=Sandbox(),
                     start_timeout=30)
    with pytest.raises(BotStartError, match="files must be world-readable"):
        bot.start()
    (bot_dir / "well_behaved.py").chmod(0o644)
    bot.start()  # the same bot, readable: starts
    bot.close()


@needs_bwrap
def test_a_root_arena_runs_each_bot_as_a_uid_of_its_own() -> None:
    if os.geteuid() != 0:
        pytest.skip("the arena is not root: bots keep its uid (docs/sandbox.md)")
    mark = marker()
    bots = [BotProcess(f"forks{n}", ["python3", "forks_child.py", mark], cwd=MISBEHAVING,
                       sandbox=Sandbox(), start_timeout=30) for n in range(2)]
    try:
        for bot in bots:
            bot.start()
        def bot_processes() -> list[int]:  # bwrap's own two processes run as root
            return [pid for pid in processes_running(mark)
                    if not Path(f"/proc/{pid}/cmdline").read_bytes().startswith(b"bwrap\0")]

        wait_for(lambda: len(bot_processes()) >= 4, 60, "four bot processes")
        uids = {Path(f"/proc/{pid}/status").read_text().split("Uid:")[1].split()[0]
                for pid in bot_processes()}
        assert len(uids) == 2 and "0" not in uids
    finally:
        close_bots(bots)


# -- layout and settings --------------------------------------------------------------------------


def test_none_needs_no_bwrap() -> None:
    assert choose_sandbox(SandboxMode.NONE) == (None, None)


@needs_c_bot
@pytest.mark.slow
def test_bwrap_asked_for_without_bwrap_stops_with_the_install_line(tmp_path: Path) -> None:
    file = tmp_path / "t.yaml"
    file.write_text(f"name: t\ngame: blackout\nplayers: 3\nsandbox: bwrap\nbots:\n"
                    f"  - {{name: a, cmd: {C_BOT}}}\n  - {{name: b, cmd: {C_BOT}}}\n"
                    f"  - {{name: c, cmd: {C_BOT}}}\n")
    done = arena("run", file, "--out", tmp_path / "out", env={**os.environ, "PATH": str(tmp_path)})
    assert done.returncode == 2
    assert done.stderr.strip() == (f"arena: error: {file}: sandbox: bwrap asked for, but "
                                   f"bubblewrap (bwrap) is not installed: {INSTALL_HINT}")
    assert not (tmp_path / "out" / "games.jsonl").exists()


@needs_c_bot
@pytest.mark.slow
def test_auto_without_bwrap_says_so_first_and_plays(tmp_path: Path) -> None:
    done = arena("play", "blackout", "--sandbox", "auto", "-o", "deals=1", C_BOT, C_BOT, C_BOT,
                 env={**os.environ, "PATH": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines()[0].startswith("warning: bots run WITHOUT a sandbox")


def test_a_bad_sandbox_value_names_file_and_key(tmp_path: Path) -> None:
    from arena.plans.tournament import load_tournament

    file = tmp_path / "t.yaml"
    file.write_text("name: t\ngame: blackout\nplayers: 3\nbots:\n"
                    f"  - {{name: a, cmd: {C_BOT}, sandbox: bwarp}}\n")
    with pytest.raises(ConfigError) as error:
        load_tournament(file)
    assert str(error.value) == f"{file}: bots[0].sandbox: 'bwarp' is not one of none, bwrap, auto"


@needs_bwrap
@needs_c_bot
@pytest.mark.slow
def test_check_bot_passes_a_starter_bot_in_the_sandbox() -> None:
    done = arena("check-bot", "--sandbox", "bwrap", "--game", "blackout", C_BOT)
    assert done.returncode == 0, done.stdout
    assert done.stdout.splitlines()[-1] == "6 of 6 steps passed"


@needs_bwrap
@needs_c_bot
@pytest.mark.slow
def test_sandbox_report_names_what_the_bot_sees() -> None:
    done = arena("check-bot", "--sandbox-report", "python3", "bots/python/random_bot.py")
    assert done.returncode == 0, done.stderr
    assert f"bot directory (read-only): {ROOT / 'bots' / 'python'}" in done.stdout
    assert "network: none" in done.stdout


@pytest.mark.parametrize("sandboxed", [
    pytest.param(False, id="no sandbox"), pytest.param(True, id="bwrap", marks=needs_bwrap)])
@pytest.mark.slow
def test_a_bot_that_closes_its_stdout_is_the_same_crash_with_and_without_the_sandbox(
        sandboxed: bool) -> None:
    # under bwrap the sandbox's own processes keep the pipe open, so no EOF comes: it was a
    # timeout "did the bot flush stdout?" there and a crash without the sandbox
    bot = BotProcess("closer", ["python3", "closes_stdout.py", "1"], cwd=MISBEHAVING,
                     sandbox=Sandbox() if sandboxed else None, start_timeout=30)
    bot.start()
    try:
        with pytest.raises(BotFaultError) as error:
            bot.request(ACT, 2.0)
        fault = error.value.fault
        assert (fault.kind, fault.detail) == (FaultKind.CRASH,
                                              "closed its stdout but kept running (killed)")
    finally:
        bot.close()
    assert not bot.is_running


@needs_bwrap
@pytest.mark.slow
def test_a_sandboxed_bots_cpu_time_is_measured_below_bwrap_and_limited() -> None:
    """The bot runs below bwrap and the sandbox's pid 1: its CPU time is its tree's, all of it."""
    bot = BotProcess("spins", ["python3", "-S", "spins.py", "0.05", "1"], cwd=MISBEHAVING,
                     sandbox=Sandbox(), start_timeout=TIME.start_ms / 1000)
    try:
        bot.start()
        reply = bot.request(dict(ACT), 30.0, Clock.CPU)
        assert 0.045 <= reply.cpu <= 0.060
    finally:
        bot.close()
    burner = BotProcess("burns", ["python3", "-S", "spins.py", "30", "1"], cwd=MISBEHAVING,
                        sandbox=Sandbox(), start_timeout=TIME.start_ms / 1000)
    try:
        burner.start()
        with pytest.raises(BotFaultError) as error:
            burner.request(dict(ACT), 0.1, Clock.CPU, 20.0)
        assert error.value.fault.limit is TimeLimit.CPU
    finally:
        burner.close()


@needs_bwrap
@pytest.mark.slow
def test_a_sandboxed_bot_that_sleeps_is_charged_its_sleep_below_bwrap() -> None:
    """Under the fair clock the tree below bwrap and the sandbox's pid 1 is watched for waits on
    a CPU, not charged; its sleep is charged, and a sleep past the allowance is a timeout there."""
    bot = BotProcess("slow", ["python3", "-S", "slow.py", "0.3", "1"], cwd=MISBEHAVING,
                     sandbox=Sandbox(), start_timeout=TIME.start_ms / 1000)
    try:
        bot.start()
        reply = bot.request(dict(ACT), 30.0, Clock.FAIR)
        assert 0.3 - 0.03 <= reply.charged <= reply.elapsed  # waits that overlap, under load
    finally:
        bot.close()
    sleeper = BotProcess("sleeps", ["python3", "-S", "slow.py", "60", "1"], cwd=MISBEHAVING,
                         sandbox=Sandbox(), start_timeout=TIME.start_ms / 1000)
    try:
        sleeper.start()
        began = perf_counter()
        with pytest.raises(BotFaultError) as error:
            sleeper.request(dict(ACT), 0.2, Clock.FAIR, 20.0)
        assert perf_counter() - began < 10.0  # not the 20 s cap
        assert error.value.fault.limit is TimeLimit.FAIR
    finally:
        sleeper.close()


@needs_c_bot
def test_sandbox_report_shows_the_builds_own_view_and_the_bots(tmp_path: Path) -> None:
    """A bot with a build: what the build sees (its working directory, its PATH, a writable bot
    directory, a scratch $HOME that starts empty) apart from what the bot sees in its games, and
    what both see once."""
    from helpers import own_bot

    bot = own_bot(tmp_path, "built")
    with (bot / "bot.yaml").open("a") as manifest:
        manifest.write("build: sh -c true\n")
    done = arena("check-bot", "--sandbox-report", bot)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    build, games, both = (lines.index("the build, once before any game, sees:"),
                          lines.index("the bot, in its games, sees:"), lines.index("both see:"))
    assert build < games < both
    seen_by_build = lines[build + 1:games]
    path = next(line for line in lines[games:both] if line.startswith("PATH inside: "))
    assert seen_by_build[0] == f"build command inside: {shutil.which('sh')} -c true"
    assert f"build: working directory: {bot}" in seen_by_build
    assert f"build: {path}" in seen_by_build
    assert any(line.startswith(f"build: bot directory (writable): {bot};") for line in seen_by_build)
    assert any(line.startswith("build: scratch (writable, 64 MB, $TMPDIR and $HOME): /tmp: ")
               for line in seen_by_build)
    assert f"bot directory (read-only): {bot}" in lines[games:both]
    assert lines[-1].startswith("nothing else: ") and "network: none" in lines[-2]


@needs_bwrap
def test_a_bot_failing_on_an_etc_file_the_sandbox_hides_is_told_so() -> None:
    """The bot reads /etc/debian_version as it starts, as Mono reads /etc/mono/config: unconfined
    it plays; in the sandbox it exits with its runtime's error, and the arena's line says the file
    is not visible there and what to do. A file only its owner may read is never named."""
    wanted = "/etc/debian_version"
    if not os.access(wanted, os.R_OK) or os.stat(wanted).st_mode & 0o004 == 0:
        pytest.skip(f"{wanted} is not a public file here")
    argv = ["python3", "needs_etc_file.py", wanted]
    unconfined = BotProcess("etc", argv, cwd=MISBEHAVING, start_timeout=30)
    unconfined.start()
    unconfined.close()
    with pytest.raises(BotStartError) as error:
        BotProcess("etc", argv, cwd=MISBEHAVING, sandbox=Sandbox(), start_timeout=30).start()
    assert f"{wanted}: not visible in the sandbox" in str(error.value), error.value
    assert "--interpreter DIR" in str(error.value)
    private = BotProcess("etc", ["python3", "needs_etc_file.py", "/etc/shadow"], cwd=MISBEHAVING,
                         sandbox=Sandbox(), start_timeout=30)
    with pytest.raises(BotStartError) as error:
        private.start()
    assert "/etc/shadow" in error.value.stderr_tail  # it did name the file: the arena does not
    assert "not visible" not in str(error.value)
