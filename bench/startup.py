"""Start-up: ``arena --help`` and ``arena table`` (on results/demo, else a small results file of
its own), against ``python -c pass``.

Issue 32's goals: ``arena --help`` within 5x ``python -c pass``, ``arena table results/demo`` within
0.4 s. Each command runs ``REPEATS`` times, the three alternating so that machine noise hits all
alike; the figures are medians of each run's CPU time (user + system, of the child: what a loaded
machine moves least) and of its wall time. Measured twice: with .pyc files written and read (as a
user's install does) and with PYTHONDONTWRITEBYTECODE=1 and no cache (every module compiled from
source at each start, as in this project's test environment; the installed packages keep the
.pyc files pip wrote).
"""

from __future__ import annotations

import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ARENA = str(Path(sys.executable).with_name("arena"))
REPEATS = int(os.environ.get("BENCH_ROUNDS", "7"))
HELP_GOAL = 5.0
TABLE_GOAL = 0.4


def timed(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """CPU seconds (user + system) and wall seconds of one run of ``argv``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, wall


def games_file(directory: Path) -> Path:
    """A small results file: one tournament's games.jsonl, as ``arena run`` writes it."""
    tournament = directory / "t.yaml"
    bot = ROOT / "bots" / "c" / "random_bot"
    tournament.write_text(
        "name: startup\ngame: blackout\nplayers: 4\noptions: {deals: 2}\nrounds: 2\nseed: 1\n"
        "sandbox: none\nbots:\n" + "".join(f"  - name: c{i}\n    cmd: {bot}\n" for i in range(5)))
    subprocess.run([ARENA, "run", str(tournament), "--out", str(directory / "results")], cwd=ROOT,
                   check=True, capture_output=True)
    return directory / "results"


def measure(commands: dict[str, list[str]], bytecode: bool) -> dict[str, tuple[float, float]]:
    """Median CPU and wall seconds of each command, run alternating."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if not bytecode:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        for cache in [*ROOT.glob("engine/**/__pycache__"), *ROOT.glob("arena/**/__pycache__"),
                      *ROOT.glob("build/compiled/*/*/**/__pycache__")]:
            shutil.rmtree(cache, ignore_errors=True)
    runs: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
    for round_ in range(REPEATS + 1):
        for name, argv in commands.items():
            figures = timed(argv, env)
            if round_:  # the first round writes the .pyc files (or warms the disk cache)
                runs[name].append(figures)
    return {name: (statistics.median(cpu for cpu, _ in rows), statistics.median(wall for _, wall in rows))
            for name, rows in runs.items()}


def run() -> list[str]:
    """Measure and return the report lines."""
    build = subprocess.run([ARENA, "--version"], cwd=ROOT, capture_output=True, text=True, check=True)
    lines = [f"{build.stdout.strip()}; medians of {REPEATS} alternating runs, CPU (user + system) "
             f"and wall seconds"]
    with tempfile.TemporaryDirectory() as scratch:
        demo = ROOT / "results" / "demo"
        results = demo if (demo / "games.jsonl").is_file() else games_file(Path(scratch))
        table = f"arena table {'results/demo' if results == demo else '(20 games)'}"
        commands = {"python -c pass": [sys.executable, "-c", "pass"],
                    "arena --help": [ARENA, "--help"],
                    table: [ARENA, "table", str(results)]}
        for bytecode in (True, False):
            figures = measure(commands, bytecode)
            base_cpu, base_wall = figures["python -c pass"]
            lines.append("with .pyc files (a pip install, or make's bytecode step)" if bytecode
                         else "PYTHONDONTWRITEBYTECODE=1 and no .pyc written (a tree without make)")
            for name, (cpu, wall) in figures.items():
                lines.append(f"  {name:24} CPU {cpu * 1000:5.0f} ms ({cpu / base_cpu:4.1f}x)  "
                             f"wall {wall * 1000:5.0f} ms ({wall / base_wall:4.1f}x)")
            help_cpu = figures["arena --help"][0] / base_cpu
            table_wall = figures[table][1]
            lines.append(f"  arena --help {help_cpu:.1f}x python -c pass in CPU "
                         f"({'meets' if help_cpu <= HELP_GOAL else 'MISSES'} the goal <= {HELP_GOAL:.0f}x); "
                         f"arena table {table_wall:.2f} s wall "
                         f"({'meets' if table_wall <= TABLE_GOAL else 'MISSES'} the goal <= {TABLE_GOAL} s)")
    return lines


if __name__ == "__main__":
    print("\n".join(run()))
