"""``arena league serve`` under load: a real server over a league of 10,000 stored games that
plays while it serves.

- **latency**: ``/api/table`` and the table page ``/``, LATENCY_REQUESTS requests each from one
  client, then requests per second from CLIENTS clients at once; p50 and p95 of the one client's
  latencies. Goal: p95 under 100 ms.
- **pace**: the league's games per second (games stored, read from its database) over windows of
  PACE_SECONDS, without requests and with VIEWS_PER_SECOND page views (the table, the API's table,
  an entrant's page, the games list, in turn), alternating PACE_ROUNDS times; medians. Goal: with
  views at least 0.9x the pace without.

Five C bots (three random, two first-legal) at 4-player tables, the league's own ``run_league``
fills it to 10,000 games first; the server plays with ``--jobs 2``.
"""

from __future__ import annotations

import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

from arena.league.config import LeagueSettings
from arena.league.database import DATABASE
from arena.league.playing import run_league
from arena.league.store import Store
from arena.league.submit import submit

PLAYERS = 4
STORED = 10_000
BOTS = (("rand-a", "random_bot"), ("rand-b", "random_bot"), ("rand-c", "random_bot"),
        ("first-a", "first_bot"), ("first-b", "first_bot"))
LATENCY_REQUESTS = 200
CLIENTS = 4
LATENCY_GOAL = 0.100
PACE_SECONDS = 15.0
PACE_ROUNDS = 5
VIEWS_PER_SECOND = 20
PACE_GOAL = 0.9
VIEWS = ("/", "/api/table", "/entrants/rand-a", "/games")


def _league(directory: Path) -> None:
    root = Path(__file__).resolve().parents[1]
    settings = LeagueSettings.checked("blackout", PLAYERS, {})
    Store.create(directory, settings.stored()).close()
    for name, program in BOTS:
        source = directory.parent / f"{name}-src"
        source.mkdir()
        shutil.copy(root / "bots" / "c" / program, source / "bot")
        (source / "bot.yaml").write_text(f"name: {name}\nrun: ./bot\n")
        assert submit(directory, source).accepted
    run_league(directory, games=STORED, jobs=2)


def _games(league: Path) -> int:
    with sqlite3.connect(league / DATABASE) as db:
        return int(db.execute("SELECT COUNT(*) FROM games").fetchone()[0])


def _latencies(client: httpx.Client, path: str, count: int) -> list[float]:
    times = []
    for _ in range(count):
        began = time.perf_counter()
        answer = client.get(path)
        times.append(time.perf_counter() - began)
        assert answer.status_code == 200, (path, answer.status_code)
    return times


def _throughput(url: str, path: str) -> float:
    def client_run(_: int) -> int:
        with httpx.Client(base_url=url, timeout=60) as client:
            return len(_latencies(client, path, LATENCY_REQUESTS // CLIENTS))

    began = time.perf_counter()
    with ThreadPoolExecutor(CLIENTS) as pool:
        done = sum(pool.map(client_run, range(CLIENTS)))
    return done / (time.perf_counter() - began)


def _pace(league: Path, url: str, views: bool) -> float:
    stop = threading.Event()

    def viewer() -> None:
        with httpx.Client(base_url=url, timeout=60) as client:
            index = 0
            next_at = time.monotonic()
            while not stop.is_set():
                client.get(VIEWS[index % len(VIEWS)])
                index += 1
                next_at += 1 / VIEWS_PER_SECOND
                stop.wait(max(0.0, next_at - time.monotonic()))

    thread = threading.Thread(target=viewer) if views else None
    if thread is not None:
        thread.start()
    first, began = _games(league), time.monotonic()
    time.sleep(PACE_SECONDS)
    last, ended = _games(league), time.monotonic()
    stop.set()
    if thread is not None:
        thread.join()
    return (last - first) / (ended - began)


def _p(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def run() -> list[str]:
    """Measure and return the lines to print."""
    lines = []
    with tempfile.TemporaryDirectory() as tmp:
        league = Path(tmp) / "league"
        began = time.perf_counter()
        _league(league)
        lines.append(f"a league of {_games(league)} games made in {time.perf_counter() - began:.0f} s")
        arena = str(Path(sys.executable).with_name("arena"))
        server = subprocess.Popen([arena, "league", "serve", str(league), "--port", "0",
                                   "--jobs", "2"], stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True)
        try:
            assert server.stdout is not None
            url = server.stdout.readline().rsplit(" at ", 1)[1].strip().rstrip("/")
            with httpx.Client(base_url=url, timeout=60) as client:
                began = time.perf_counter()
                while client.get("/api/table").status_code != 200:
                    time.sleep(0.1)
                lines.append(f"first table: {time.perf_counter() - began:.1f} s (a fit of every "
                             f"game with 1000 resamples; later ones in the background)")
                for path in ("/api/table", "/"):
                    _latencies(client, path, 10)  # warm
                    times = _latencies(client, path, LATENCY_REQUESTS)
                    p95 = _p(times, 0.95)
                    rate = _throughput(url, path)
                    lines.append(f"{path} while the league plays (--jobs 2): p50 "
                                 f"{1000 * statistics.median(times):.1f} ms, p95 {1000 * p95:.1f} ms "
                                 f"(goal < {1000 * LATENCY_GOAL:.0f} ms) "
                                 f"{'met' if p95 < LATENCY_GOAL else 'NOT met'}; {rate:.0f} "
                                 f"requests/s from {CLIENTS} clients")
            quiet, viewed = [], []
            for _ in range(PACE_ROUNDS):
                quiet.append(_pace(league, url, views=False))
                viewed.append(_pace(league, url, views=True))
            ratio = statistics.median(viewed) / statistics.median(quiet)
            lines.append(f"league pace while served: {statistics.median(quiet):.1f} games/s without "
                         f"requests ({', '.join(f'{v:.1f}' for v in quiet)}), "
                         f"{statistics.median(viewed):.1f} with {VIEWS_PER_SECOND} page views/s "
                         f"({', '.join(f'{v:.1f}' for v in viewed)}): {ratio:.2f}x "
                         f"(goal >= {PACE_GOAL}x) {'met' if ratio >= PACE_GOAL else 'NOT met'}")
        finally:
            server.terminate()
            server.wait(timeout=60)
    return lines
