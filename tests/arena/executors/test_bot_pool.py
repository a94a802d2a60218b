"""Bounded bot processes: a worker keeps at most ``max_live_bots`` alive (closing the least
recently used), the locality order keeps restarts rare, and neither changes any result."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
import yaml

from arena.bots.process import live_bots
from arena.executors import batch
from arena.executors.batch import close_batch_bots, play_batch
from arena.plans.order import locality_order
from arena.plans.schedule import schedule
from arena.plans.tournament import load_tournament
from arena.records.schema import without_times
from arena.settings import TimeControl
from arena.values.work import BotCommand, RunSettings

from helpers import arena

ROOT = Path(__file__).resolve().parents[3]
C_BOT = str(ROOT / "bots" / "c" / "random_bot")

pytestmark = pytest.mark.timeout(240)


def field(tmp_path: Path, bots: int, **extra: object) -> Path:
    """A 4-player tournament of ``bots`` C random bots, one short deal a game."""
    config: dict[str, object] = {
        "name": "t", "game": "blackout", "players": 4, "seed": 7, "options": {"deals": 1},
        "time": {"move_ms": 5000, "bank_ms": 5000},
        "bots": [{"name": f"c{i:02d}", "cmd": C_BOT} for i in range(bots)], **extra}
    path = tmp_path / "t.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path


def settings_for(path: Path, cap: int | None) -> RunSettings:
    t = load_tournament(path)
    return RunSettings(bots={b.name: BotCommand(b.argv, b.workdir) for b in t.bots},
                       time_control=TimeControl(5000, 5000, 5000), max_live_bots=cap)


def test_a_worker_never_holds_more_than_the_cap(tmp_path: Path) -> None:
    path = field(tmp_path, 20, max_tables=20)
    settings = settings_for(path, 6)
    tasks = locality_order(schedule(load_tournament(path)), 6)
    peak = 0
    try:
        for task in tasks:
            play_batch([task], settings)
            peak = max(peak, len(live_bots()))
        pool = batch._LOCAL.pool  # this thread's pool
        assert pool is not None
        started = pool.started
    finally:
        close_batch_bots()
    assert peak == 6
    assert not live_bots()
    # 80 games of 4 seats: without the locality order nearly every game restarts bots.
    assert started < 80 * 4 / 2, started


def test_locality_order_keeps_every_game_and_each_set_together(tmp_path: Path) -> None:
    path = field(tmp_path, 30, max_tables=60, rounds=2)
    tasks = schedule(load_tournament(path))
    ordered = locality_order(tasks, 8)
    assert sorted(t.id for t in ordered) == sorted(t.id for t in tasks)
    assert [t.round for t in ordered] == sorted(t.round for t in ordered)
    sets = [t.set_id for t in ordered]
    assert all(sets.index(s) + sets.count(s) - 1 == len(sets) - 1 - sets[::-1].index(s)
               for s in set(sets))  # each set's games are consecutive
    assert ordered != list(tasks)
    assert locality_order(tasks, 30) == list(tasks)  # the whole field fits: schedule order


def restarts(ordered: list, cap: int) -> int:
    """Bot starts an LRU pool of ``cap`` needs for the games in this order."""
    pool: list[str] = []
    count = 0
    for task in ordered:
        for name in task.seats:
            if name in pool:
                pool.remove(name)
            else:
                count += 1
            pool.append(name)
        del pool[:max(0, len(pool) - cap)]
    return count


def test_locality_order_needs_fewer_starts_than_schedule_order(tmp_path: Path) -> None:
    path = field(tmp_path, 60, max_tables=60)
    tasks = schedule(load_tournament(path))
    assert restarts(locality_order(tasks, 24), 24) < 0.7 * restarts(tasks, 24)


@pytest.mark.slow
def test_a_capped_run_gives_the_same_results_as_an_uncapped_one(tmp_path: Path) -> None:
    path = field(tmp_path, 16, max_tables=16)
    runs = []
    for cap in ("4", "64"):
        out = tmp_path / f"out{cap}"
        done = arena("run", path, "--out", out, "--jobs", "2", "--max-live-bots", cap,
                     "--resamples", "0")
        assert done.returncode == 0, done.stderr
        lines = [orjson.loads(line) for line in (out / "games.jsonl").read_bytes().splitlines()]
        runs.append(sorted(map(without_times, lines), key=lambda line: line["id"]))
    assert len(runs[0]) == 64 and runs[0] == runs[1]


def test_max_live_bots_below_the_table_is_refused(tmp_path: Path) -> None:
    from arena.errors import ConfigError

    with pytest.raises(ConfigError, match=r"t\.yaml: max_live_bots: 3 is out of range \(4\.\.1000\)"):
        load_tournament(field(tmp_path, 8, max_live_bots=3))
    assert load_tournament(field(tmp_path, 8, max_live_bots=None)).max_live_bots is None
    assert load_tournament(field(tmp_path, 8)).max_live_bots == 24
