"""Tournament runs end to end through the real `arena run`: results, resume after SIGKILL, faults."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import time
from pathlib import Path

import pytest

from arena.plans.schedule import schedule
from arena.plans.tournament import load_tournament
from arena.records.schema import without_times

from helpers import arena, result_lines, start_arena, wait_for

ROOT = Path(__file__).resolve().parents[3]
C_BOT = str(ROOT / "bots" / "c" / "random_bot")
CRASHER = str(ROOT / "tests" / "bots" / "misbehaving" / "crash_mid_game.py")

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180)]


def write_tournament(tmp_path: Path, bots: list[tuple[str, str]], rounds: int, **extra: object) -> Path:
    lines = ["name: t", "game: blackout", "players: 4", f"rounds: {rounds}", "seed: 5",
             "time: {move_ms: 2000, bank_ms: 2000}"]
    lines += [f"{key}: {value}" for key, value in extra.items()]
    lines.append("bots:")
    for name, cmd in bots:
        lines += [f"  - name: {name}", f"    cmd: {cmd}"]
    path = tmp_path / "t.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


def saved_games(out: Path) -> int:
    """Complete lines in the run's games.jsonl (0 before it exists); read while a run writes it."""
    try:
        return (out / "games.jsonl").read_bytes().count(b"\n")
    except FileNotFoundError:
        return 0


def c_bots(count: int) -> list[tuple[str, str]]:
    return [(f"c{i}", C_BOT) for i in range(count)]


def test_a_run_writes_every_scheduled_game_once_and_prints_the_table(tmp_path: Path) -> None:
    path = write_tournament(tmp_path, c_bots(5), rounds=2)
    done = arena("run", str(path), "--out", str(tmp_path / "out"), "--jobs", "2", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    lines = result_lines(tmp_path / "out")
    ids = [line["id"] for line in lines]
    assert sorted(ids) == sorted(spec.id for spec in schedule(load_tournament(path)))
    assert len(ids) == len(set(ids)) == 40
    assert all(line["result"]["entrants"] == line["names"] for line in lines)
    assert "Elo" in done.stdout and all(f"c{i}" in done.stdout for i in range(5))
    saved = (tmp_path / "out" / "tournament.yaml").read_text()  # the file, and the seating used
    assert saved.startswith(path.read_text()) and saved.endswith("\nseating: balanced\n")
    again = arena("run", str(path), "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert again.returncode == 2 and "--resume" in again.stderr


def test_jobs_do_not_change_the_results(tmp_path: Path) -> None:
    path = write_tournament(tmp_path, c_bots(4), rounds=3)
    runs = []
    for jobs in ("1", "2"):
        out = tmp_path / f"out{jobs}"
        assert arena("run", str(path), "--out", str(out), "--jobs", jobs, cwd=tmp_path).returncode == 0
        runs.append(sorted(map(without_times, result_lines(out)), key=lambda line: line["id"]))
    assert runs[0] == runs[1]


def test_resume_after_sigkill_loses_and_repeats_nothing(tmp_path: Path) -> None:
    # 200 games: the three runs killed below play a few dozen between them (52 on a loaded
    # machine), so each is killed mid-run; the last resume plays the rest
    path = write_tournament(tmp_path, c_bots(5), rounds=10)
    out = tmp_path / "out"
    expected = sorted(spec.id for spec in schedule(load_tournament(path)))
    rng = random.Random(int(os.environ.get("KILL_SEED", "11")))
    for attempt in range(3):
        runner = start_arena("run", path, "--out", out, "--jobs", "2",
                             *(["--resume"] if attempt else []), cwd=tmp_path,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        # Killed at a random moment once it is playing: after it has saved a game more than the
        # last run left (a loaded machine can take seconds to start one), or after it ended.
        saved = saved_games(out)
        deadline = time.monotonic() + 120
        while runner.poll() is None and time.monotonic() < deadline and saved_games(out) <= saved:
            time.sleep(0.02)
        time.sleep(rng.uniform(0.0, 0.5))
        runner.send_signal(signal.SIGKILL)
        runner.wait()
        # Its workers follow it (and take their bots along); a loaded machine may take a while.
        survivors = wait_until_gone(str(path), timeout=30)
        assert survivors == [], f"a worker outlived the killed runner: {describe(survivors)}"
    with (out / "games.jsonl").open("ab") as handle:
        handle.write(b'{"id": "r1-t0000-s0", "game": "blacko')  # a half-written last line
    done = arena("run", str(path), "--out", str(out), "--resume", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    ids = [line["id"] for line in result_lines(out)]
    assert len(ids) == len(set(ids)), "a game was counted twice"
    assert sorted(ids) == expected


def test_a_misbehaving_bot_costs_only_its_own_games(tmp_path: Path) -> None:
    bots = c_bots(3) + [("crasher", f"python3 -S {CRASHER} 5")]
    path = write_tournament(tmp_path, bots, rounds=2)
    done = arena("run", str(path), "--out", str(tmp_path / "out"), "--jobs", "2", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    lines = result_lines(tmp_path / "out")
    assert len(lines) == 8
    for line in lines:
        seat = line["names"].index("crasher")
        assert [fault["seat"] for fault in line["faults"]] == [seat]
        assert line["faults"][0]["kind"] == "crash"
        result = line["result"]
        assert result["forfeits"] == [name == "crasher" for name in line["names"]]
        assert result["ranks"][seat] == 4
        assert max(r for i, r in enumerate(result["ranks"]) if i != seat) <= 3
    assert "crasher" in done.stdout


def test_interrupt_saves_results_and_says_how_to_resume(tmp_path: Path) -> None:
    path = write_tournament(tmp_path, c_bots(5), rounds=40)
    out = tmp_path / "out"
    runner = start_arena("run", path, "--out", out, "--jobs", "2", cwd=tmp_path)
    # interrupted once games are being played, however loaded the machine is
    wait_for(lambda: saved_games(out) > 0, 60, "the first game")
    runner.send_signal(signal.SIGINT)
    _, err = runner.communicate(timeout=60)
    assert runner.returncode == 130
    assert "--resume" in err and "Traceback" not in err
    saved = result_lines(out)
    assert len({line["id"] for line in saved}) == len(saved)
    assert 0 < len(saved) < 800, "the run should stop soon after the signal, not play on"
    assert f"{len(saved)} of 800 games are saved" in err


def test_a_bot_that_cannot_say_hello_stops_the_run_before_any_game(tmp_path: Path) -> None:
    mute = ROOT / "tests" / "bots" / "misbehaving" / "exits_before_hello.py"
    path = write_tournament(tmp_path, c_bots(3) + [("mute", f"python3 -S {mute}")], rounds=1)
    done = arena("run", str(path), "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.startswith("arena: error: bot 'mute': exited before replying to hello")
    assert len(done.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "out" / "games.jsonl").exists() or not result_lines(tmp_path / "out")


def live_processes_running(path_fragment: str) -> list[int]:
    """Pids of live, non-zombie processes whose command line mentions ``path_fragment``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if path_fragment in cmdline and state != "Z":
            found.append(int(entry.name))
    return found


def describe(pids: list[int]) -> str:
    """Each process's state and where it waits, for a failure message."""
    facts = []
    for pid in pids:
        try:
            status = {key: value.strip() for key, _, value in
                      (line.partition(":") for line in
                       Path(f"/proc/{pid}/status").read_text().splitlines())}
            wchan = Path(f"/proc/{pid}/wchan").read_text() or "?"
            facts.append(f"{pid}: {status.get('State')}, ppid {status.get('PPid')}, waiting in "
                         f"{wchan}, pending {status.get('ShdPnd')}, blocked {status.get('SigBlk')}, "
                         f"caught {status.get('SigCgt')}")
        except OSError:
            facts.append(f"{pid}: gone")
    return "; ".join(facts)


def wait_until_gone(path_fragment: str, timeout: float = 10.0) -> list[int]:
    """The processes still running ``path_fragment`` once none is left or ``timeout`` has passed
    (a killed process takes a moment to be reaped on a loaded machine)."""
    deadline = time.monotonic() + timeout
    while (left := live_processes_running(path_fragment)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_stopping_a_run_leaves_no_bot_running(tmp_path: Path, signum: int) -> None:
    """Even a bot that ignores quit, EOF and SIGTERM is gone once the stopped runner has exited."""
    bots_dir = tmp_path / "mybots"
    bots_dir.mkdir()
    for name in ("ignores_quit.py", "_protocol.py"):
        (bots_dir / name).write_bytes((ROOT / "tests" / "bots" / "misbehaving" / name).read_bytes())
    stubborn = bots_dir / "ignores_quit.py"
    path = write_tournament(tmp_path, c_bots(3) + [("stubborn", f"python3 -S {stubborn}")], rounds=200)
    out = tmp_path / "out"
    runner = start_arena("run", path, "--out", out, "--jobs", "2", cwd=tmp_path,
                         stdout=subprocess.DEVNULL)
    wait_for(lambda: saved_games(out) > 0, 60, "the first game")
    assert live_processes_running(str(stubborn)), "the stubborn bot should be running mid-run"
    runner.send_signal(signum)
    runner.wait(timeout=60)
    assert runner.returncode == 130
    assert wait_until_gone(str(stubborn)) == []


def test_a_finished_run_leaves_no_bot_running(tmp_path: Path) -> None:
    """Workers that finish normally (no atexit in a forked child) must still close their bots."""
    bots_dir = tmp_path / "mybots"
    bots_dir.mkdir()
    for name in ("ignores_quit.py", "_protocol.py"):
        (bots_dir / name).write_bytes((ROOT / "tests" / "bots" / "misbehaving" / name).read_bytes())
    stubborn = bots_dir / "ignores_quit.py"
    path = write_tournament(tmp_path, c_bots(3) + [("stubborn", f"python3 -S {stubborn}")], rounds=3)
    done = arena("run", str(path), "--out", str(tmp_path / "out"), "--jobs", "2", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert wait_until_gone(str(stubborn)) == []


def test_a_partnership_tournament_with_a_bot_in_its_own_workdir(tmp_path: Path) -> None:
    """Entrants are teams (a bot and its copy); a bot whose command is relative to its workdir runs."""
    lines = ["name: p", "game: partnership-blackout", "options: {target: 30, max_deals: 20}",
             "rounds: 2", "seed: 3", "bots:",
             f"  - {{name: local, cmd: ./random_bot, workdir: {ROOT / 'bots' / 'c'}}}",
             f"  - {{name: first, cmd: {ROOT / 'bots' / 'c' / 'first_bot'}}}",
             f"  - {{name: other, cmd: {C_BOT}}}"]
    path = tmp_path / "p.yaml"
    path.write_text("\n".join(lines) + "\n")
    done = arena("run", str(path), "--out", str(tmp_path / "out"), "--jobs", "2", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    results = [line["result"] for line in result_lines(tmp_path / "out")]
    assert len(results) == 3 * 2 * 2  # 3 pairs of teams, 2 seat swaps, 2 rounds
    for result in results:
        assert len(result["entrants"]) == 2 and set(result["entrants"]) <= {"local", "first", "other"}
        assert result["faults"] == [0, 0]
    assert all(name in done.stdout for name in ("local", "first", "other"))


def children_running(parent: int, path_fragment: str) -> list[int]:
    """Live children of ``parent`` whose command line mentions ``path_fragment`` (the workers)."""
    found = []
    for pid in live_processes_running(path_fragment):
        try:
            ppid = int((Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError):
            continue
        if ppid == parent:
            found.append(pid)
    return found


def test_a_worker_killed_from_outside_ends_the_run_with_a_message_not_a_hang(tmp_path: Path) -> None:
    # 240 games: the worker is killed once the first is saved, and --resume plays the rest
    path = write_tournament(tmp_path, c_bots(5), rounds=12)
    out = tmp_path / "out"
    runner = start_arena("run", path, "--out", out, "--jobs", "2", cwd=tmp_path)
    try:
        wait_for(lambda: saved_games(out) > 0, 60, "the first game")
        workers = children_running(runner.pid, str(path))
        assert workers, "no worker found"
        os.kill(workers[0], signal.SIGKILL)
        _, err = runner.communicate(timeout=60)
    finally:
        runner.kill()
    assert runner.returncode == 2, err
    assert "died unexpectedly (killed by signal 9" in err and "--resume" in err
    assert "Traceback" not in err
    assert live_processes_running(str(path)) == []
    done = arena("run", str(path), "--out", str(out), "--resume", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    ids = [line["id"] for line in result_lines(out)]
    assert len(ids) == len(set(ids)) == len(schedule(load_tournament(path)))


def test_progress_of_work_bounded_by_time_counts_time_and_estimates_the_games(
        tmp_path) -> None:
    """`league run --minutes 3`'s total jumped (27, 45, 137, 105, 99/99 "0:00 left"): its bar
    and time left now measure the time given, and the estimate of games is said as one, not a
    count to reach."""
    from arena.runs.progress import Progress

    path = tmp_path / "progress.log"
    with path.open("w") as stream:
        progress = Progress(0, stream=stream)
        progress.start -= 60  # a minute into a three-minute run
        progress.until(progress.start + 180)
        progress.update(0, 30, 90)
        line = progress.render(progress.start + 60)
    assert line.startswith("[" + "#" * 8 + "." * 16 + "] 30 games (about 90 in all)")
    assert "2:00 left" in line


def test_the_time_left_comes_from_the_steady_pace_not_the_bots_start(tmp_path) -> None:
    """`make demo` first said 15:56 left for a run of 5 minutes: its first games had paid for
    starting the bots. The time left is measured after a few games, and said to be estimated
    until then."""
    from arena.runs.progress import WARMUP_GAMES, Progress

    with (tmp_path / "progress.log").open("w") as stream:
        progress = Progress(1000, stream=stream)
        progress.start -= 20  # the first games took 20 s, most of it starting the bots
        for done in range(1, WARMUP_GAMES + 1):
            progress.update(0, done, 1000)
            assert "  estimating time left  " in progress.render(time.monotonic())
        assert progress.pace.mark is not None
        warm = progress.pace.mark[1]
        progress.update(0, WARMUP_GAMES + 10, 1000)
        line = progress.render(warm + 1.0)  # then 10 games a second
    seconds = int((1000 - WARMUP_GAMES - 10) / 10 + 0.5)  # not the 20 minutes of the average
    assert f"] {WARMUP_GAMES + 10}/1000 games  10.0 games/s  " in line
    assert f"  {seconds // 60}:{seconds % 60:02d} left  " in line
