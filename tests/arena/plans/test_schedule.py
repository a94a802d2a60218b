"""Schedules: equal games and seats for every bot, complete duplicate sets, balanced meetings,
partnership seat swaps, determinism. Tournaments are real YAML files loaded by load_tournament."""

from __future__ import annotations

import itertools
import json
import math
import os
import shutil
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import pytest
import yaml

from arena.connectivity import minimum_tables
from arena.errors import ConfigError
from arena.plans import schedule as schedule_module
from arena.plans.schedule import SCHEDULERS, Tables, schedule
from arena.plans.tables import sample_tables, table_count
from arena.plans.tournament import Format, Tournament, load_tournament
from arena.values.work import GameSpec

REPO = Path(__file__).resolve().parents[3]
PY_BOT = "python3 bots/python/random_bot.py"  # never run: the schedule only needs valid files

FULL = [(n, k) for n in range(3, 11) for k in range(3, min(n, 7) + 1) if math.comb(n, k) <= 200]
SAMPLED = [(9, 4, 60), (12, 5, 200), (12, 5, 100), (10, 3, 50), (8, 4, 30), (11, 5, 50), (20, 4, 200)]
PAIR_SPREAD = 2
"""Most pair meetings minus fewest in a sampled (cyclic) schedule. The design does not depend on
the seed, so checking every (bots, seats, max_tables) of GRID checks it for every seed."""
GRID = [(n, k, m) for m in (60, 200) for k in range(3, 8) for n in range(k + 2, 41)
        if math.comb(n, k) > m >= n]


pytestmark = pytest.mark.usefixtures("in_repo")


def tournament(tmp_path: Path, bots: int, players: int = 4, file: str = "t.yaml",
               **extra: Any) -> Tournament:
    """Write and load a tournament of ``bots`` bots named b00, b01, ..."""
    config: dict[str, Any] = {"name": "sched", "game": extra.pop("game", "blackout")}
    if config["game"] == "blackout":
        config["players"] = players
    config["bots"] = [{"name": f"b{i:02d}", "cmd": PY_BOT} for i in range(bots)]
    config.update(extra)
    path = tmp_path / file
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return load_tournament(path)


def duplicate_sets(games: list[GameSpec]) -> dict[str, list[GameSpec]]:
    sets: dict[str, list[GameSpec]] = defaultdict(list)
    for game in games:
        sets[game.set_id].append(game)
    return sets


def pair_meetings(tables: list[tuple[str, ...]], names: list[str]) -> list[int]:
    met = Counter(pair for table in tables for pair in itertools.combinations(sorted(table), 2))
    return [met[pair] for pair in itertools.combinations(sorted(names), 2)]


def check_blackout_fairness(t: Tournament, games: list[GameSpec]) -> list[tuple[str, ...]]:
    """The checks every Blackout schedule passes; the tables (members of each set, round 1)."""
    k = t.players
    names = [bot.name for bot in t.bots]
    sets = duplicate_sets(games)
    for set_id, members in sets.items():
        assert [g.rotation for g in members] == list(range(k)), set_id
        assert len({g.seed for g in members}) == 1, set_id
        table = set(members[0].seats)
        assert len(table) == k, set_id  # distinct bots at a table
        for game in members:
            assert set(game.seats) == table and game.set_id == set_id
        for seat in range(k):  # each member plays each seat (so each hand) once
            assert {g.seats[seat] for g in members} == table, (set_id, seat)
    games_per_bot = Counter(name for game in games for name in game.seats)
    assert set(games_per_bot) == set(names)
    assert len(set(games_per_bot.values())) == 1, games_per_bot
    seats = Counter((name, seat) for game in games for seat, name in enumerate(game.seats))
    assert set(seats.values()) == {games_per_bot[names[0]] // k}
    assert len(seats) == len(names) * k
    return [tuple(sorted(s[0].seats)) for s in sets.values() if s[0].round == 1]


@pytest.mark.parametrize(("n", "k"), FULL, ids=[f"{n}bots-{k}seats" for n, k in FULL])
def test_full_round_robin(tmp_path: Path, n: int, k: int) -> None:
    t = tournament(tmp_path, n, k, rounds=2, seed=n * 10 + k)
    games = schedule(t)
    assert len(games) == math.comb(n, k) * k * 2
    tables = check_blackout_fairness(t, games)
    names = [bot.name for bot in t.bots]
    assert sorted(tables) == sorted(itertools.combinations(sorted(names), k))  # every table, once
    assert set(pair_meetings(tables, names)) == {math.comb(n - 2, k - 2)}


@pytest.mark.parametrize(("n", "k", "max_tables"), SAMPLED, ids=[f"{n}bots-{k}seats-max{m}"
                                                                  for n, k, m in SAMPLED])
def test_sampled_round_robin(tmp_path: Path, n: int, k: int, max_tables: int) -> None:
    assert math.comb(n, k) > max_tables
    t = tournament(tmp_path, n, k, max_tables=max_tables, rounds=2, seed=3)
    games = schedule(t)
    tables = check_blackout_fairness(t, games)
    count = len(tables)
    assert count <= max_tables and count * k % n == 0
    assert count > max_tables - n  # the largest multiple that fits, not a token sample
    assert len(games) == count * k * 2
    names = [bot.name for bot in t.bots]
    tables_per_bot = Counter(name for table in tables for name in table)
    assert set(tables_per_bot.values()) == {count * k // n}
    meetings = pair_meetings(tables, names)
    assert max(meetings) - min(meetings) <= PAIR_SPREAD, Counter(meetings)
    assert min(meetings) >= 1


@pytest.mark.parametrize(("n", "k", "max_tables"), SAMPLED)
def test_sampled_balance_over_many_seeds(n: int, k: int, max_tables: int) -> None:
    names = [f"b{i:02d}" for i in range(n)]
    for seed in range(12):
        tables = [rotations[0] for rotations in sample_tables(names, k, max_tables, seed)]
        per_bot = Counter(name for table in tables for name in table)
        assert len(set(per_bot.values())) == 1 and len(per_bot) == n, (seed, per_bot)
        meetings = pair_meetings(tables, names)
        assert max(meetings) - min(meetings) <= PAIR_SPREAD, (seed, Counter(meetings))


@pytest.mark.slow
def test_sampled_balance_for_every_size() -> None:
    """Equal tables per bot and pair meetings within PAIR_SPREAD, over a grid of sizes."""
    for n, k, max_tables in GRID:
        names = [f"b{i:02d}" for i in range(n)]
        tables = [rotations[0] for rotations in sample_tables(names, k, max_tables, n + k)]
        assert len(tables) == max_tables // n * n, (n, k, max_tables)
        assert all(len(set(table)) == k for table in tables), (n, k, max_tables)
        per_bot = Counter(name for table in tables for name in table)
        assert set(per_bot.values()) == {len(tables) * k // n} and len(per_bot) == n
        meetings = pair_meetings(tables, names)
        assert max(meetings) - min(meetings) <= PAIR_SPREAD, (n, k, max_tables, Counter(meetings))


def test_sampled_design_is_the_same_for_every_seed() -> None:
    """Seeds relabel the bots; the multiset of pair meetings is the same."""
    names = [f"b{i:02d}" for i in range(12)]
    shapes = set()
    for seed in range(8):
        tables = [rotations[0] for rotations in sample_tables(names, 5, 100, seed)]
        shapes.add(tuple(sorted(Counter(pair_meetings(tables, names)).items())))
    assert len(shapes) == 1


def test_sample_tables_rotations_are_duplicate_sets() -> None:
    names = [f"b{i}" for i in range(9)]
    for rotations in sample_tables(names, 4, 60, 5):
        assert len(rotations) == 4
        for seat in range(4):
            assert {r[seat] for r in rotations} == set(rotations[0])


def check_partnership(games: list[GameSpec], teams: list[tuple[str, str]], rounds: int) -> None:
    by_pair: dict[frozenset[tuple[str, str]], list[GameSpec]] = defaultdict(list)
    for game in games:
        assert game.game == "partnership-blackout" and len(game.seats) == 4
        pair = frozenset({(game.seats[0], game.seats[2]), (game.seats[1], game.seats[3])})
        assert len(pair) == 2 and pair <= set(teams), game
        by_pair[pair].append(game)
    assert set(by_pair) == {frozenset(p) for p in itertools.combinations(teams, 2)}
    for played in by_pair.values():
        assert len(played) == 2 * rounds
        by_seed: dict[int, list[GameSpec]] = defaultdict(list)
        for game in played:
            by_seed[game.seed].append(game)
        assert len(by_seed) == rounds  # a new seed each round
        for first, second in by_seed.values():
            assert first.set_id == second.set_id
            assert (first.rotation, second.rotation) == (0, 1)
            a0, b0, a1, b1 = first.seats
            assert second.seats == (b0, a0, b1, a1)  # the teams swap seats on the same deals
            assert first.entrants[::-1] == second.entrants


@pytest.mark.parametrize("bots", [2, 3, 5])
def test_partnership_self_teams(tmp_path: Path, bots: int) -> None:
    t = tournament(tmp_path, bots, game="partnership-blackout", rounds=3, seed=9)
    games = schedule(t)
    teams = [(bot.name, bot.name) for bot in t.bots]
    assert len(games) == math.comb(bots, 2) * 2 * 3
    check_partnership(games, teams, 3)
    assert {name for game in games for name in game.entrants} == {bot.name for bot in t.bots}


def test_partnership_explicit_teams(tmp_path: Path) -> None:
    teams = [["b00", "b01"], ["b02", "b03"], ["b00", "b00"], ["b01", "b03"]]
    t = tournament(tmp_path, 4, game="partnership-blackout", teams=teams, rounds=2)
    games = schedule(t)
    assert len(games) == math.comb(4, 2) * 2 * 2
    check_partnership(games, [tuple(team) for team in teams], 2)
    assert {name for game in games for name in game.entrants} == {"b00+b01", "b02+b03", "b00", "b01+b03"}


def test_same_file_same_schedule(tmp_path: Path) -> None:
    first = schedule(tournament(tmp_path, 12, 5, max_tables=100, rounds=2, file="a.yaml"))
    second = schedule(tournament(tmp_path, 12, 5, max_tables=100, rounds=2, file="b.yaml"))
    assert first == second


@pytest.mark.slow
def test_schedule_does_not_depend_on_hash_seed(tmp_path: Path) -> None:
    t = tournament(tmp_path, 12, 5, max_tables=100)
    code = ("import json, sys; from arena.plans.tournament import load_tournament; "
            "from arena.plans.schedule import schedule; "
            "print(json.dumps([[g.id, g.seats, g.seed] for g in schedule(load_tournament(sys.argv[1]))]))")
    outputs = set()
    for hash_seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        done = subprocess.run([sys.executable, "-c", code, str(t.path)], cwd=REPO, env=env,
                              capture_output=True, text=True, timeout=60, check=True)
        outputs.add(done.stdout)
    expected = json.dumps([[g.id, list(g.seats), g.seed] for g in schedule(t)])
    assert outputs == {expected + "\n"}


@pytest.mark.parametrize(("n", "k", "extra"), [
    (5, 4, {}), (12, 5, {"max_tables": 100}), (3, 4, {"game": "partnership-blackout"})])
def test_different_seed_different_deals(tmp_path: Path, n: int, k: int, extra: dict[str, Any]) -> None:
    one = schedule(tournament(tmp_path, n, k, seed=1, rounds=2, file="one.yaml", **extra))
    two = schedule(tournament(tmp_path, n, k, seed=2, rounds=2, file="two.yaml", **extra))
    assert not {g.seed for g in one} & {g.seed for g in two}
    assert [g.id for g in one] == [g.id for g in two]  # ids name places in the schedule, not deals


@pytest.mark.parametrize(("n", "k", "extra"), [
    (5, 4, {}), (9, 4, {"max_tables": 60}), (4, 4, {"game": "partnership-blackout"})])
def test_ids_unique_and_rounds_give_new_seeds(tmp_path: Path, n: int, k: int,
                                               extra: dict[str, Any]) -> None:
    games = schedule(tournament(tmp_path, n, k, rounds=4, **extra))
    assert len({g.id for g in games}) == len(games)
    for game in games:
        assert game.id == f"r{game.round}-t{game.table:04d}-s{game.rotation}"
        assert game.id.startswith(game.set_id + "-")
    seeds_by_set = {g.set_id: g.seed for g in games}
    assert len(set(seeds_by_set.values())) == len(seeds_by_set)  # every (round, table): new deals
    rounds = {g.round for g in games}
    assert rounds == {1, 2, 3, 4}
    # Rounds repeat the tables with new deals (and, seating balanced, other seat orders).
    per_round = [[(g.table, g.rotation, tuple(sorted(g.seats))) for g in games if g.round == r]
                 for r in sorted(rounds)]
    assert all(r == per_round[0] for r in per_round)


def test_more_rounds_keep_the_earlier_games(tmp_path: Path) -> None:
    short = schedule(tournament(tmp_path, 6, 4, rounds=1, file="short.yaml"))
    long = schedule(tournament(tmp_path, 6, 4, rounds=3, file="long.yaml"))
    assert long[:len(short)] == short


@pytest.mark.parametrize(("before", "after", "players"), [(4, 5, 3), (5, 7, 4), (6, 8, 5), (3, 6, 3)])
def test_added_bots_keep_the_earlier_games(tmp_path: Path, before: int, after: int,
                                           players: int) -> None:
    """Bots appended to the list append tables: every earlier game keeps its id, seats and seed."""
    old = schedule(tournament(tmp_path, before, players, rounds=2, file="old.yaml"))
    new = {g.id: g for g in schedule(tournament(tmp_path, after, players, rounds=3, file="new.yaml"))}
    assert all(new[g.id] == g for g in old)
    assert len(new) > len(old)


def test_added_teams_keep_the_earlier_games(tmp_path: Path) -> None:
    old = schedule(tournament(tmp_path, 3, game="partnership-blackout", file="old.yaml"))
    new = {g.id: g for g in schedule(tournament(tmp_path, 5, game="partnership-blackout",
                                                file="new.yaml"))}
    assert all(new[g.id] == g for g in old) and len(new) == 10 * 2


def test_game_and_options_carried(tmp_path: Path) -> None:
    t = tournament(tmp_path, 5, 4, options={"hook": True, "deals": 3})
    games = schedule(t)
    assert all(g.game == "blackout" and g.options == t.options for g in games)
    assert games[0].options["hook"] is True


def test_every_format_has_a_scheduler() -> None:
    assert set(SCHEDULERS) == set(Format)


def test_a_format_is_its_scheduler(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A scheduler gives a round's tables and counts its games; rounds, seeds, seat orders and ids
    are the schedule's, the same for every format: a stand-in format is played as it says."""

    class TwoTables:
        def __init__(self, tournament: Tournament) -> None:
            self.tournament = tournament

        def tables(self) -> Tables:
            return [[("b00", "b01", "b02"), ("b01", "b02", "b00")], [("b02", "b01", "b00")]]

        def games_per_round(self) -> int:
            return 3

        def together(self) -> str | None:
            return None

    monkeypatch.setitem(SCHEDULERS, Format.ROUND_ROBIN, TwoTables)
    t = tournament(tmp_path, 5, 3, rounds=2, seating="cyclic")
    games = schedule(t)
    assert [(g.id, g.seats) for g in games] == [
        ("r1-t0000-s0", ("b00", "b01", "b02")), ("r1-t0000-s1", ("b01", "b02", "b00")),
        ("r1-t0001-s0", ("b02", "b01", "b00")), ("r2-t0000-s0", ("b00", "b01", "b02")),
        ("r2-t0000-s1", ("b01", "b02", "b00")), ("r2-t0001-s0", ("b02", "b01", "b00"))]
    assert len({(g.round, g.table, g.seed) for g in games}) == 4  # a seed per table and round
    monkeypatch.setattr(schedule_module, "MAX_GAMES", 5)
    with pytest.raises(ConfigError, match="rounds: 2 rounds of 3 games are 6 games"):
        schedule(t)


def test_demo_schedules_are_stable() -> None:
    """Pinned values: a change here changes every published demo result."""
    demo = schedule(load_tournament(REPO / "tournaments" / "demo.yaml"))
    # five bots always; the Java bot where javac and java are, the Go bot where go is, the Rust
    # bot where cargo is, the C# bot where mcs and mono are, the C++ bot where c++ is
    bots = (5 + bool(shutil.which("javac") and shutil.which("java")) + bool(shutil.which("go"))
            + bool(shutil.which("cargo")) + bool(shutil.which("mcs") and shutil.which("mono"))
            + bool(shutil.which("c++")))
    # every table of four up to 70 (eight bots), else a balanced sample of max_tables: 70
    tables = math.comb(bots, 4) if math.comb(bots, 4) <= 70 else bots * (70 // bots)
    assert len(demo) == tables * 4 * 4
    assert demo[0].id == "r1-t0000-s0" and demo[-1].id == f"r4-t{tables - 1:04d}-s3"
    assert demo[0].seed == 2149797646342095917
    if bots <= 8:  # the complete round-robin's first table, the same since the demo began
        assert demo[0].seats == ("random-c", "random-py", "random-js", "greedy")
    else:
        assert Counter(name for spec in demo for name in spec.seats) == \
            dict.fromkeys({name for spec in demo for name in spec.seats}, len(demo) * 4 // bots)
    partnership = schedule(load_tournament(REPO / "tournaments" / "demo-partnership.yaml"))
    assert len(partnership) == 3 * 2 * 6
    assert partnership[0].seats == ("greedy", "random-py", "greedy", "random-py")
    assert partnership[0].seed == 1810465599723791112


@pytest.mark.slow
def test_table_count_is_the_number_of_tables_sample_tables_gives() -> None:
    # the size check before a schedule is built counts its games with table_count
    for n in (3, 4, 5, 7, 9, 12, 17):
        for size in range(3, min(n, 7) + 1):
            for limit in sorted({1, 2, n - 1, n, n + 1, 2 * n, math.comb(n, size)}):
                if limit >= minimum_tables(n, size):
                    tables = sample_tables([f"b{i}" for i in range(n)], size, limit, seed=1)
                    assert len(tables) == table_count(n, size, limit), (n, size, limit)
