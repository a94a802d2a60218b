"""Cluster throughput: the same tournament on two local pinned workers and on a local Dask cluster.

A scheduler and two single-thread workers are started on 127.0.0.1 (as ``docs/cluster.md`` says);
the schedule of ``bench.tournament`` (4-player Blackout, four C bots) is played alternately with
``run_tasks(jobs=2)`` and ``run_tasks_on_cluster``, and the figure is the median ratio of the two
rates. The per-game overhead of the cluster path is the worker time it adds to each game:
``2 workers x (1/cluster rate - 1/local rate)``. The runner's single writer is measured apart: the
cost per game of appending a real result line to ``games.jsonl``, so the games per second it can
absorb is known. ``python -m bench cluster`` runs this alone.
"""

from __future__ import annotations

import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from arena.executors.batch import close_batch_bots, play_batch
from arena.executors.workers import run_tasks
from arena.records.writer import finished_of
from arena.runs.results import ResultsWriter
from arena.values.work import BotCommand, RunSettings
from bench.tournament import ROOT, tasks

GAMES = 600
REPEATS = 3
WRITES = 2000
START_DEADLINE = 60.0


def settings() -> RunSettings:
    """Four copies of the C bot, by a path relative to the repository (shipped to the workers)."""
    bot = BotCommand(("bots/c/random_bot",), build=("make", "-C", "bots/c"))
    return RunSettings(bots={name: bot for name in ("c1", "c2", "c3", "c4")})


@contextmanager
def local_cluster(folder: Path) -> Iterator[tuple[str, int]]:
    """A scheduler and two ``--nthreads 1`` workers on free loopback ports; its address, and the
    scheduler's process id."""
    from distributed import Client

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    address = f"tcp://127.0.0.1:{port}"
    dask = str(Path(sys.executable).parent / "dask")
    argvs = [[dask, "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard",
              "--no-show"]]
    argvs += [[dask, "worker", address, "--nthreads", "1", "--no-nanny", "--no-dashboard",
               "--host", "127.0.0.1", "--local-directory", str(folder / f"worker{i}")]
              for i in range(2)]
    processes = [subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                  start_new_session=True, cwd=folder) for argv in argvs]
    try:
        deadline = time.monotonic() + START_DEADLINE
        while True:
            try:
                client = Client(address, timeout=2, set_as_default=False)
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
        try:
            while len(client.nthreads()) < 2:
                if time.monotonic() > deadline:
                    raise TimeoutError("the two Dask workers did not register")
                time.sleep(0.1)
        finally:
            client.close()
        yield address, processes[0].pid
    finally:
        for process in processes:
            with suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def local_rate() -> float:
    """Games per second with two pinned local workers."""
    start = time.perf_counter()
    done = sum(1 for _ in run_tasks(tasks(GAMES), settings(), 2))
    return done / (time.perf_counter() - start)


def cluster_rate(address: str, scheduler: int) -> tuple[float, float, float]:
    """Games per second on the cluster (bot files shipped and built, connection included), the
    runner's CPU seconds per game (all its threads: the Dask client's too), and the scheduler's."""
    from arena.executors.cluster import run_tasks_on_cluster

    start = time.perf_counter()
    cpu = time.process_time()
    scheduler_cpu = cpu_seconds(scheduler)
    done = sum(1 for _ in run_tasks_on_cluster(tasks(GAMES), settings(), address))
    return (done / (time.perf_counter() - start), (time.process_time() - cpu) / done,
            (cpu_seconds(scheduler) - scheduler_cpu) / done)


def cpu_seconds(pid: int) -> float:
    """User and system CPU seconds of process ``pid`` so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def writer_cost() -> float:
    """Seconds the runner spends appending one real result line to games.jsonl (median of runs)."""
    line = finished_of(play_batch(tasks(1), settings())[0]).line
    close_batch_bots()
    costs = []
    with tempfile.TemporaryDirectory() as folder:
        for attempt in range(REPEATS):
            writer = ResultsWriter(Path(folder) / f"games{attempt}.jsonl")
            start = time.perf_counter()
            for _ in range(WRITES):
                writer.append(line)
            writer.close()
            costs.append((time.perf_counter() - start) / WRITES)
    return statistics.median(costs)


def run() -> list[str]:
    """Measure and return the report lines."""
    try:
        import distributed  # noqa: F401
    except ImportError:
        return ["not available: install the cluster extra (pip install -e '.[cluster]')"]
    os.chdir(ROOT)  # bot paths are relative to the repository, as in a tournament file
    local, remote, runner, scheduler = [], [], [], []
    with tempfile.TemporaryDirectory() as folder, local_cluster(Path(folder)) as (address, pid):
        cluster_rate(address, pid)  # warm-up: ships and builds the bots, starts them on workers
        for _ in range(REPEATS):
            local.append(local_rate())
            rate, cpu, scheduler_cpu = cluster_rate(address, pid)
            remote.append(rate)
            runner.append(cpu)
            scheduler.append(scheduler_cpu)
    ratio = statistics.median(b / a for a, b in zip(local, remote, strict=True))
    overhead = statistics.median(2 * (1 / b - 1 / a) for a, b in zip(local, remote, strict=True))
    write = writer_cost()
    verdict = "meets" if ratio >= 0.9 else "MISSES"
    return [
        f"cluster, C random bots, {GAMES} 4-player Blackout games: local --jobs 2 "
        f"{statistics.median(local):,.0f} games/s, Dask 2 workers x 1 thread "
        f"{statistics.median(remote):,.0f} games/s",
        f"cluster / local: {ratio:.2f}x ({verdict} the goal >= 0.9x); cluster overhead "
        f"{overhead * 1e6:,.0f} us of worker time per game",
        f"runner's writer: {write * 1e6:.1f} us per game appended ({1 / write:,.0f} games/s); "
        f"the whole runner on the cluster path (Dask client included) "
        f"{statistics.median(runner) * 1e6:,.0f} us of CPU per game, so one runner absorbs about "
        f"{1 / statistics.median(runner):,.0f} games/s; the scheduler "
        f"{statistics.median(scheduler) * 1e6:,.0f} us of CPU per game",
    ]


if __name__ == "__main__":
    print("\n".join(run()))
