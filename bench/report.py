"""`arena report` at scale: 10,000 four-player Blackout games written as a site.

The games are real: GAMES_PLAYED games among five C starter bots (under different names) are
played through the runner, then replicated with new ids up to GAMES, as a long league export would
hold them. Figures, each the median of REPEATS runs:

- baseline: read games.jsonl and write each line into a file of its own, the least any site with
  one replay file per game must do;
- report: `arena.report.site.write_report` (ratings with 1000 resamples, the plot of ratings as
  games accumulate, per-entrant figures, every page and replay file). Goal: under 30 s.
- the index page's size. Goal: under 2 MB.

Wall-clock and CPU seconds are both given: on a shared machine, writing 10,000 files of ~10 KB can
wait on the disk for far longer than the work takes, and the baseline shows how much.
"""

from __future__ import annotations

import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import orjson

from arena.executors.workers import run_tasks
from arena.report.site import write_report
from arena.values.work import BotCommand, GameSpec, RunSettings

ROOT = Path(__file__).resolve().parents[1]
GAMES = 10_000
GAMES_PLAYED = 40
ENTRANTS = ("c-ant", "c-bee", "c-cat", "c-dog", "c-eel")
REPEATS = 3
TIME_GOAL = 30.0
INDEX_GOAL = 2_000_000


def results_file(directory: Path) -> Path:
    """games.jsonl of GAMES games: GAMES_PLAYED real ones, replicated with new ids."""
    bot = BotCommand((str(ROOT / "bots" / "c" / "random_bot"),))
    settings = RunSettings(bots={name: bot for name in ENTRANTS})
    specs = [GameSpec(f"g{i}", "blackout", {}, tuple(ENTRANTS[(i + k) % 5] for k in range(4)),
                      1000 + i, round=1, table=i, rotation=0) for i in range(GAMES_PLAYED)]
    played = [orjson.loads(finished.line) for finished in run_tasks(specs, settings, 1)]
    path = directory / "games.jsonl"
    with path.open("wb") as out:
        for number in range(GAMES):
            record = played[number % len(played)]
            record["id"] = f"league-{number:05d}"
            out.write(orjson.dumps(record) + b"\n")
    return path


def median_seconds(action: Callable[[], object]) -> tuple[float, float]:
    """Median wall-clock and CPU seconds of REPEATS runs of ``action``."""
    walls, cpus = [], []
    for _ in range(REPEATS):
        wall, cpu = time.perf_counter(), time.process_time()
        action()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return statistics.median(walls), statistics.median(cpus)


def run() -> list[str]:
    """Measure and return the lines to print."""
    work = Path(tempfile.mkdtemp(prefix="arena-bench-report-"))
    try:
        source = results_file(work)
        site = work / "site"

        def baseline() -> None:
            target = work / "copy"
            target.mkdir(exist_ok=True)
            for number, line in enumerate(source.read_bytes().splitlines()):
                (target / f"{number}.js").write_bytes(b"f(" + line + b");\n")

        def report() -> None:
            write_report([source], site)

        floor, floor_cpu = median_seconds(baseline)
        seconds, cpu = median_seconds(report)
        index = (site / "index.html").stat().st_size
        listing = (site / "data" / "games.js").stat().st_size
        total = sum(p.stat().st_size for p in site.rglob("*") if p.is_file())
        verdict = "met" if seconds < TIME_GOAL else "NOT met"
        size_verdict = "met" if index < INDEX_GOAL else "NOT met"
        return [
            f"report: {GAMES:,} 4-player Blackout games ({source.stat().st_size / 1e6:.0f} MB of "
            f"records), {len(ENTRANTS)} entrants (median of {REPEATS}):",
            f"  baseline: a file per game          {floor:7.2f} s (CPU {floor_cpu:.2f} s)",
            f"  arena report                       {seconds:7.2f} s (CPU {cpu:.2f} s) "
            f"{seconds / floor:5.1f}x  goal < {TIME_GOAL:g} s: {verdict}",
            f"  index.html                         {index / 1e3:7.1f} KB  goal < 2 MB: {size_verdict}",
            f"  game list data (data/games.js)     {listing / 1e3:7.1f} KB",
            f"  whole site                         {total / 1e6:7.1f} MB",
        ]
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    print("\n".join(run()))
