"""Sampled schedules link every bot: a grid of field sizes, seeded random configurations, the
configurations that used to split, and a real run whose games.jsonl is checked."""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from pathlib import Path

import numpy as np
import orjson
import pytest
import yaml

from arena.connectivity import groups, is_connected, minimum_tables
from arena.errors import ConfigError
from arena.plans.tables import sample_tables
from arena.plans.tournament import load_tournament

from helpers import arena

ROOT = Path(__file__).resolve().parents[3]
C_BOT = str(ROOT / "bots" / "c" / "random_bot")

SPLIT_BEFORE = [(24, 3, 24), (39, 3, 39), (60, 4, 60), (64, 3, 64), (80, 4, 80), (120, 5, 120),
                (93, 3, 60)]
"""Configurations whose sampled schedule fell apart into groups before designs had to connect."""
CYCLIC_PAIR_SPREAD = 2
GREEDY_PAIR_SPREAD = 4
"""Most pair meetings minus fewest: the cyclic design's bound, and the greedy sample's (fewer
tables than bots; only about even, measured over the grid)."""


def grid_max_tables(n: int, k: int) -> list[int]:
    """n, 2n, the default 200, and two values below n (as low as allowed, and about n / 2)."""
    values = {n, 2 * n, 200, minimum_tables(n, k), max(minimum_tables(n, k), n // 2)}
    return sorted(values)


GRID_BOTS = [*range(4, 41), *range(41, 201, 9), 200]
GRID = [(n, k, m) for k in range(3, 8) for n in GRID_BOTS if n >= k for m in grid_max_tables(n, k)]


def check(n: int, k: int, max_tables: int, seed: int) -> None:
    """Connected, every bot at the same number of tables, pair meetings within bounds."""
    names = [f"b{i:03d}" for i in range(n)]
    tables = [rotations[0] for rotations in sample_tables(names, k, max_tables, seed)]
    where = (n, k, max_tables, seed)
    assert is_connected(tables, names), where
    index = {name: i for i, name in enumerate(names)}
    seats = np.array([[index[name] for name in table] for table in tables])
    assert (np.sort(seats, axis=1)[:, 1:] != np.sort(seats, axis=1)[:, :-1]).all(), where
    per_bot = np.bincount(seats.ravel(), minlength=n)
    assert per_bot.min() == per_bot.max() >= 1, where
    met = np.zeros((n, n), dtype=np.int64)
    for a, b in itertools.combinations(range(k), 2):
        np.add.at(met, (seats[:, a], seats[:, b]), 1)
    met = met + met.T
    pairs = met[np.triu_indices(n, 1)]
    complete = math.comb(n, k) <= max_tables
    spread = 0 if complete else CYCLIC_PAIR_SPREAD if max_tables >= n else GREEDY_PAIR_SPREAD
    assert pairs.max() - pairs.min() <= spread, (where, Counter(pairs.tolist()))


@pytest.mark.slow
@pytest.mark.parametrize("k", range(3, 8))
def test_grid_every_schedule_is_connected_and_balanced(k: int) -> None:
    for n, seats, max_tables in GRID:
        if seats == k:
            check(n, k, max_tables, seed=n + k)


def test_random_configurations_are_connected_and_balanced() -> None:
    rng = random.Random(15)
    for _ in range(40):
        k = rng.randint(3, 7)
        n = rng.randint(k + 1, 200)
        low = minimum_tables(n, k)
        max_tables = rng.choice([rng.randint(low, n), rng.randint(n, 3 * n), 200])
        check(n, k, max(low, max_tables), seed=rng.randrange(2**32))


@pytest.mark.parametrize(("n", "k", "max_tables"), SPLIT_BEFORE)
def test_configurations_that_used_to_split_are_connected(n: int, k: int, max_tables: int) -> None:
    for seed in (1, 2, 3):
        check(n, k, max_tables, seed)


def test_fewer_tables_than_bots_keeps_equal_games_by_rounding_up() -> None:
    """93 bots at 3 seats: 31 tables give each bot one table (no link); 62 is the next count
    with equal games, one past max_tables 60 can only be avoided by unequal games."""
    names = [f"b{i:03d}" for i in range(93)]
    tables = sample_tables(names, 3, 60, 1)
    assert len(tables) == 62


def test_too_few_tables_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "t.yaml"
    path.write_text(yaml.safe_dump({
        "name": "t", "game": "blackout", "players": 4, "max_tables": 19,
        "bots": [{"name": f"b{i}", "cmd": C_BOT} for i in range(60)]}))
    with pytest.raises(ConfigError, match=r"t\.yaml: max_tables: 19 tables cannot link 60 bots "
                                          r"at 4-player tables: at least 20 needed"):
        load_tournament(path)
    path.write_text(path.read_text().replace("max_tables: 19", "max_tables: 20"))
    assert load_tournament(path).max_tables == 20
    with pytest.raises(ValueError, match="at least 20"):
        sample_tables([f"b{i}" for i in range(60)], 4, 19, 1)


def test_groups_names_each_group() -> None:
    found = groups([("a", "b"), ("c", "d"), ("d", "e")], ["a", "b", "c", "d", "e", "f"])
    assert found == [["c", "d", "e"], ["a", "b"], ["f"]]


REAL_RUNS = [(60, 4, 60), (93, 3, 60), (120, 5, 120)]
"""The configurations that used to split played for real: the issue's 60 bots at 4-player tables,
fewer tables than bots, and the largest field. The schedule function is checked on all of
SPLIT_BEFORE above; a real run adds what a run does with it, the same for each configuration."""


@pytest.mark.slow
@pytest.mark.timeout(300)
@pytest.mark.parametrize(("n", "k", "max_tables"), REAL_RUNS)
def test_a_real_run_links_every_bot(tmp_path: Path, n: int, k: int, max_tables: int) -> None:
    """Copies of the C random bot (one deal a game) in configurations that used to split.
    Connectivity is read back from the games written, not from the schedule function; the table
    rates every bot."""
    path = tmp_path / "t.yaml"
    path.write_text(yaml.safe_dump({
        "name": "t", "game": "blackout", "players": k, "max_tables": max_tables, "seed": 3,
        "options": {"deals": 1}, "time": {"move_ms": 5000, "bank_ms": 5000},
        "bots": [{"name": f"r{i:03d}", "cmd": C_BOT} for i in range(n)]}))
    done = arena("run", path, "--out", tmp_path / "out", "--resamples", "0", "--jobs", "2",
                 timeout=280)
    assert done.returncode == 0, done.stderr
    lines = [orjson.loads(line) for line in (tmp_path / "out" / "games.jsonl").read_bytes()
             .splitlines()]
    tables = len({line["id"].rsplit("-", 1)[0] for line in lines})
    assert len(lines) == tables * k and tables >= minimum_tables(n, k)
    names = [f"r{i:03d}" for i in range(n)]
    assert groups((line["names"] for line in lines), names) == [names]
    assert len(set(Counter(name for line in lines for name in line["names"]).values())) == 1
    assert "n/a" not in done.stdout and "never met" not in done.stdout
