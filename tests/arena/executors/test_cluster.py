"""Runs on a real Dask cluster on this machine: a scheduler and two single-thread workers on
127.0.0.1, with the bots shipped to them from the run's directory and built there. Tests that kill
part of a cluster or look into its workers' directories start their own; the others share one
long-lived cluster per test process, as runs share an organiser's cluster."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import orjson
import pytest

from arena.league.status import export_games
from arena.plans.schedule import schedule
from arena.plans.tournament import load_tournament
from arena.records.schema import without_times

from helpers import ROOT, arena, start_arena, submitted, wait_for

distributed = pytest.importorskip(
    "distributed", reason="the cluster extra is not installed: pip install 'blackout-arena[cluster]'")

DASK = str(Path(sys.executable).with_name("dask"))
START_DEADLINE = 60.0

pytestmark = [pytest.mark.slow, pytest.mark.timeout(240)]


@dataclass
class Cluster:
    """A scheduler and its workers, each a process group of its own."""

    address: str
    scheduler: subprocess.Popen[bytes]
    workers: list[subprocess.Popen[bytes]]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def started_cluster(directory: Path) -> Iterator[Cluster]:
    """A scheduler and two single-thread workers whose working and local directories are in
    ``directory``; every process of it is killed on the way out."""
    address = f"tcp://127.0.0.1:{free_port()}"
    logs = directory / "cluster-logs"
    logs.mkdir()
    started: list[subprocess.Popen[bytes]] = []

    def start(name: str, *argv: str) -> subprocess.Popen[bytes]:
        with open(logs / f"{name}.log", "wb") as log:
            process = subprocess.Popen([DASK, *argv], stdout=log, stderr=subprocess.STDOUT,
                                       start_new_session=True, cwd=directory)
        started.append(process)
        return process

    try:
        scheduler = start("scheduler", "scheduler", "--host", "127.0.0.1",
                          "--port", address.rsplit(":", 1)[1], "--no-dashboard", "--no-show")
        workers = [start(f"worker{i}", "worker", address, "--nthreads", "1", "--no-nanny",
                         "--no-dashboard", "--host", "127.0.0.1",
                         "--local-directory", str(directory / f"worker{i}"))
                   for i in range(2)]
        client = None
        end = time.monotonic() + START_DEADLINE
        while client is None:
            try:
                client = distributed.Client(address, timeout=2, set_as_default=False)
            except OSError:
                if time.monotonic() > end or scheduler.poll() is not None:
                    raise AssertionError("the scheduler did not start: "
                                         + (logs / "scheduler.log").read_text()[-2000:]) from None
        try:
            wait_for(lambda: len(client.nthreads()) == 2, START_DEADLINE, "two workers")
        finally:
            client.close()
        yield Cluster(address, scheduler, workers)
    finally:
        for process in started:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
        for process in started:
            process.wait(timeout=30)


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[Cluster]:
    """A cluster of this test's own: the test kills part of it or looks into its workers'
    directories."""
    with started_cluster(tmp_path) as started:
        yield started


@pytest.fixture(scope="module")
def long_lived_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """One cluster serving the runs of several tests in turn, as an organiser's cluster serves
    tournament after tournament (each test process of pytest-xdist starts its own): three Dask
    processes started once instead of per test."""
    with started_cluster(tmp_path_factory.mktemp("cluster")) as started:
        yield started


def tournament_dir(tmp_path: Path, rounds: int, bots: int = 4) -> Path:
    """A run directory of its own, with copies of the starter bots in it (the cluster ships these)."""
    (tmp_path / "bots").mkdir()
    shutil.copytree(ROOT / "bots" / "python", tmp_path / "bots" / "python")
    c_dir = tmp_path / "bots" / "c"
    c_dir.mkdir()
    for name in ("Makefile", "random_bot.c"):
        shutil.copy(ROOT / "bots" / "c" / name, c_dir / name)
    lines = ["name: t", "game: blackout", "players: 4", f"rounds: {rounds}", "seed: 9",
             "time: {move_ms: 3000, bank_ms: 10000}", "bots:",
             "  - name: py", "    cmd: python3 bots/python/random_bot.py"]
    for i in range(bots - 1):
        lines += [f"  - name: c{i}", "    cmd: bots/c/random_bot", "    build: make -C bots/c"]
    (tmp_path / "t.yaml").write_text("\n".join(lines) + "\n")
    return tmp_path


def games(out: Path) -> list[dict]:
    return sorted((orjson.loads(line) for line in (out / "games.jsonl").read_bytes().splitlines()),
                  key=lambda line: line["id"])


def untimed(line: dict) -> dict:
    """A result line without its measured times: decision times, bank use, faults' elapsed."""
    line = without_times(line)
    return {**line, "faults": [{k: v for k, v in fault.items() if k not in ("elapsed", "elapsed_ms")}
                               for fault in line.get("faults", ())]}


def scheduled_ids(run_dir: Path) -> list[str]:
    return sorted(spec.id for spec in schedule(load_tournament(run_dir / "t.yaml")))


def test_a_cluster_run_plays_the_same_games_as_a_local_run(cluster: Cluster, tmp_path: Path) -> None:
    run_dir = tournament_dir(tmp_path, rounds=2)
    remote = arena("run", "t.yaml", "--cluster", cluster.address, "--out", "remote", cwd=run_dir)
    assert remote.returncode == 0, remote.stderr
    local = arena("run", "t.yaml", "--jobs", "2", "--out", "local", cwd=run_dir)
    assert local.returncode == 0, local.stderr
    on_cluster = games(run_dir / "remote")
    assert [line["id"] for line in on_cluster] == scheduled_ids(run_dir)
    assert [untimed(line) for line in on_cluster] == [untimed(line) for line in games(run_dir / "local")]
    assert "2 workers" in remote.stderr
    # The bots ran from the copies shipped to each worker, built there, not from the run directory.
    for worker in ("worker0", "worker1"):
        unpacked = list((tmp_path / worker).rglob("arena-bots/*/bots/c/random_bot"))
        assert unpacked, f"{worker} has no built C bot"
        assert list((tmp_path / worker).rglob("arena-bots/*/logs/py-*.stderr.log"))


def test_a_worker_killed_mid_run_costs_no_game_and_repeats_none(cluster: Cluster,
                                                                tmp_path: Path) -> None:
    run_dir = tournament_dir(tmp_path, rounds=6, bots=5)  # 120 games
    run = start_arena("run", "t.yaml", "--cluster", cluster.address, "--out", "out", cwd=run_dir)
    results = run_dir / "out" / "games.jsonl"
    try:
        wait_for(lambda: results.exists() and results.read_bytes().count(b"\n") >= 20, what="the first games")
        assert run.poll() is None, "the run ended before the worker could be killed"
        cluster.workers[0].send_signal(signal.SIGKILL)
        stdout, stderr = run.communicate(timeout=180)
    finally:
        if run.poll() is None:
            run.kill()
    assert cluster.workers[0].wait(timeout=10) == -signal.SIGKILL
    assert run.returncode == 0, stderr
    ids = [line["id"] for line in games(run_dir / "out")]
    assert ids == scheduled_ids(run_dir)  # every game, each exactly once
    assert f"{len(ids)} played now" in stdout


def test_a_lost_scheduler_ends_the_run_with_one_line_and_resume_finishes_it(
        cluster: Cluster, tmp_path: Path) -> None:
    run_dir = tournament_dir(tmp_path, rounds=6, bots=5)  # 120 games
    run = start_arena("run", "t.yaml", "--cluster", cluster.address, "--out", "out", cwd=run_dir)
    results = run_dir / "out" / "games.jsonl"
    try:
        wait_for(lambda: results.exists() and results.read_bytes().count(b"\n") >= 10, what="the first games")
        os.killpg(cluster.scheduler.pid, signal.SIGKILL)
        _, stderr = run.communicate(timeout=120)
    finally:
        if run.poll() is None:
            run.kill()
    assert run.returncode == 2, stderr
    last = stderr.strip().splitlines()[-1]
    assert last.startswith("arena: error: lost the Dask scheduler at " + cluster.address)
    assert "--resume" in last and "Traceback" not in stderr
    saved = len(games(run_dir / "out"))
    resumed = arena("run", "t.yaml", "--resume", "--jobs", "2", "--out", "out", cwd=run_dir)
    assert resumed.returncode == 0, resumed.stderr
    assert [line["id"] for line in games(run_dir / "out")] == scheduled_ids(run_dir)
    assert f"{saved} from before" in resumed.stdout


def test_an_unreachable_scheduler_is_one_line(tmp_path: Path) -> None:
    run_dir = tournament_dir(tmp_path, rounds=1)
    address = f"tcp://127.0.0.1:{free_port()}"  # nothing listens there
    done = arena("run", "t.yaml", "--cluster", address, "--out", "out", cwd=run_dir)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        line for line in done.stderr.strip().splitlines() if line.startswith("arena: error: ")]
    assert f"cannot reach the Dask scheduler at {address}" in done.stderr
    both = arena("run", "t.yaml", "--cluster", address, "--jobs", "2", cwd=run_dir)
    assert both.returncode == 2 and "--jobs and --cluster contradict" in both.stderr


def test_a_match_on_the_cluster_plays_the_same_games_as_locally(long_lived_cluster: Cluster,
                                                                tmp_path: Path) -> None:
    run_dir = tournament_dir(tmp_path, rounds=1)
    args = ["match", "python3 bots/python/greedy_bot.py", "python3 bots/python/random_bot.py",
            "--field", "bots/c/random_bot", "--games", "8", "--option", "deals=3"]
    subprocess.run(["make", "-s", "-C", "bots/c"], cwd=run_dir, check=True, capture_output=True)
    remote = arena(*args, "--cluster", long_lived_cluster.address, "--out", "remote", cwd=run_dir)
    assert remote.returncode == 0, remote.stderr
    local = arena(*args, "--jobs", "2", "--out", "local", cwd=run_dir)
    assert local.returncode == 0, local.stderr
    on_cluster = games(run_dir / "remote")
    assert [line["id"] for line in on_cluster] == [f"u{u:05d}-{t}" for u in range(4) for t in "bc"]
    assert [untimed(line) for line in on_cluster] == [untimed(line) for line in games(run_dir / "local")]


def test_a_league_runs_its_games_on_the_cluster(cluster: Cluster, tmp_path: Path) -> None:
    run_dir = tournament_dir(tmp_path, rounds=1)
    assert arena("league", "init", "lg", "--game", "blackout", "--players", "3",
                 "--option", "deals=3", "--cluster", cluster.address, cwd=run_dir).returncode == 0
    for manifest in ("random.bot.yaml", "greedy.bot.yaml"):  # in process: a set-up
        submitted(run_dir / "lg", run_dir / "bots" / "python" / manifest)
    mine = run_dir / "mine"
    shutil.copytree(ROOT / "bots" / "python", mine)
    (mine / "random.bot.yaml").write_text("name: third\nrun: python3 random_bot.py\n")
    submitted(run_dir / "lg", mine / "random.bot.yaml")
    done = arena("league", "run", "lg", "--games", "6", cwd=run_dir)  # the league's own cluster
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("6 games played")
    # The games ran on the workers, from the league's bot copies shipped there.
    assert list((tmp_path / "worker0").rglob("arena-bots/*/lg/bots")) or \
        list((tmp_path / "worker1").rglob("arena-bots/*/lg/bots"))


def test_each_game_is_written_as_it_ends_not_when_its_task_ends(
        long_lived_cluster: Cluster, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A bot that thinks 20 ms a move makes each game last a second or two, so the run's first
    # tasks (two games each, before it knows how long games take) are still playing their second
    # game when their first is written.
    run_dir = tournament_dir(tmp_path, rounds=4, bots=3)
    (run_dir / "bots" / "spy").mkdir()
    shutil.copy(ROOT / "tests" / "bots" / "spy_bot.py", run_dir / "bots" / "spy")
    with open(run_dir / "t.yaml", "a") as tournament:
        tournament.write("  - name: spy\n    cmd: python3 bots/spy/spy_bot.py spy.log 0.02\n")
    client = distributed.Client(long_lived_cluster.address, timeout=10, set_as_default=False)
    run = start_arena("run", "t.yaml", "--cluster", long_lived_cluster.address, "--out", "out",
                      cwd=run_dir)
    results = run_dir / "out" / "games.jsonl"
    try:
        wait_for(lambda: results.exists() and results.read_bytes().count(b"\n") >= 1, what="the first game")
        running = [str(key) for keys in client.processing().values() for key in keys]
        first = orjson.loads(results.read_bytes().splitlines()[0])["id"]
        _, stderr = run.communicate(timeout=180)
    finally:
        client.close()
        if run.poll() is None:
            run.kill()
    # Task keys end with the id of their first game: the task that played it is still running.
    assert any(key.endswith(f"-{first}") for key in running), (first, running)
    assert run.returncode == 0, stderr
    monkeypatch.chdir(run_dir)  # the spy's path is relative to the run directory
    assert [line["id"] for line in games(run_dir / "out")] == scheduled_ids(run_dir)


def test_tasks_last_about_a_second_of_a_thread_and_shrink_at_the_end() -> None:
    from arena.executors.cluster import FIRST_TASK_GAMES, MAX_TASK_GAMES, TASK_SECONDS, task_size

    assert TASK_SECONDS == 1.0  # the figures below assume it
    assert task_size(600, 2, finished=0, seconds=0.0) == FIRST_TASK_GAMES  # no rate known yet
    assert task_size(10_000, 2, finished=500, seconds=5.0) == 50  # 100 games/s on 2 threads
    assert task_size(10_000, 2, finished=10**6, seconds=1.0) == MAX_TASK_GAMES
    assert task_size(60, 2, finished=500, seconds=5.0) == 10  # a sixth of what is left
    assert task_size(12, 2, finished=500, seconds=5.0) == 6  # but not below an eighth of 50
    assert task_size(1_000, 64, finished=10, seconds=3.5) == 1  # games of 20 s: one per task


@pytest.mark.parametrize("command", ["run", "gauntlet", "match", "league"])
def test_matrix_cells_on_the_cluster(long_lived_cluster: Cluster, tmp_path: Path,
                                     command: str) -> None:
    """The combination matrix's Dask cells (tests/arena/test_matrix.py has the local ones): bots
    named by relative paths and a bot directory, fresh then --resume; every game exactly once."""
    run_dir = tournament_dir(tmp_path, rounds=1, bots=3)
    for manifest in ("random.bot.yaml", "first.bot.yaml"):
        shutil.copy(ROOT / "bots" / "c" / manifest, run_dir / "bots" / "c" / manifest)
    subprocess.run(["make", "-s", "-C", "bots/c"], cwd=run_dir, check=True, capture_output=True)
    on = ["--cluster", long_lived_cluster.address]

    def once(path: Path, expected: int) -> None:
        ids = [line["id"] for line in games(path)]
        assert len(ids) == expected == len(set(ids)), ids

    if command in ("run", "gauntlet"):
        text = (run_dir / "t.yaml").read_text().replace("players: 4", "players: 3")
        if command == "gauntlet":
            text += "format: gauntlet\nchallengers:\n  - {dir: bots/c/random.bot.yaml, name: ch}\n"
        for rounds in (1, 2):
            (run_dir / "t.yaml").write_text(text.replace("rounds: 1", f"rounds: {rounds}"))
            done = arena("run", "t.yaml", "--out", "out", *on,
                         *(["--resume"] if rounds == 2 else []), cwd=run_dir)
            assert done.returncode == 0, done.stderr
            once(run_dir / "out", (9 if command == "gauntlet" else 3) * rounds)
    elif command == "match":
        args = ["match", "bots/c/random.bot.yaml", "python3 bots/python/random_bot.py",
                "--field", "bots/c/random_bot", "--option", "deals=2", "--out", "m", *on]
        for count in (4, 8):
            done = arena(*args, "--games", str(count), *(["--resume"] if count == 8 else []),
                         cwd=run_dir)
            assert done.returncode == 0, done.stderr
            once(run_dir / "m", count)
    else:
        assert arena("league", "init", "lg", "--game", "blackout", "--players", "3",
                     "--option", "deals=2", *on, cwd=run_dir).returncode == 0
        for bot in ("bots/c/random.bot.yaml", "bots/c/first.bot.yaml", "bots/python/random.bot.yaml"):
            done = arena("league", "submit", "lg", bot, cwd=run_dir)
            assert done.returncode == 0, done.stdout + done.stderr
        for _ in range(2):  # a second run takes up where the first left off
            assert arena("league", "run", "lg", "--games", "3", cwd=run_dir).returncode == 0
        export_games(run_dir / "lg", run_dir / "all.jsonl")  # in process: only the games are wanted
        ids = [orjson.loads(line)["id"] for line in (run_dir / "all.jsonl").read_bytes().splitlines()]
        assert len(ids) == 6 == len(set(ids))
