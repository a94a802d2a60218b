"""Owners kept apart: no table seats two bots of one owner when the field allows it, the same
schedule as before when no two bots share an owner, and one line when it cannot. Tournaments are
real YAML files loaded by load_tournament."""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml

from arena.connectivity import is_connected
from arena.errors import ConfigError
from arena.plans.apart import apart_pairs, apart_tables
from arena.plans.schedule import schedule
from arena.plans.tables import sample_tables
from arena.plans.tournament import Tournament, load_tournament
from arena.values.work import GameSpec

PY_BOT = "python3 bots/python/random_bot.py"  # never run: the schedule only needs valid files

pytestmark = pytest.mark.usefixtures("in_repo")


def tournament(tmp_path: Path, owners: list[str | None], players: int = 3, **extra: Any
               ) -> Tournament:
    """A tournament of bots b00, b01... with these owners (None: none given)."""
    config: dict[str, Any] = {"name": "own", "game": extra.pop("game", "blackout")}
    if config["game"] == "blackout":
        config["players"] = players
    config["bots"] = [{"name": f"b{i:02d}", "cmd": PY_BOT, **({} if o is None else {"owner": o})}
                      for i, o in enumerate(owners)]
    config.update(extra)
    path = tmp_path / "own.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return load_tournament(path)


def together(games: list[GameSpec], tournament: Tournament) -> list[tuple[str, ...]]:
    """The games that seat two different bots of one owner (compared without case)."""
    owners = {name: owner.lower() for name, owner in tournament.owners.items()}
    return [game.seats for game in games
            if len({owners[b] for b in set(game.seats)}) < len(set(game.seats))]


def test_without_shared_owners_the_design_is_the_plain_one() -> None:
    names = [f"b{i}" for i in range(9)]
    for size, max_tables in ((3, 200), (4, 30), (4, 5)):
        seated = apart_tables(names, {"b0": "ann", "b1": "bob"}, size, max_tables, 7)
        assert seated.problem is None
        assert seated.tables == sample_tables(names, size, max_tables, 7)


@pytest.mark.parametrize(("n", "size", "max_tables"),
                         [(6, 3, 200), (9, 4, 200), (12, 4, 60), (20, 5, 40), (30, 3, 20)])
def test_no_table_seats_two_bots_of_one_owner(n: int, size: int, max_tables: int) -> None:
    names = [f"b{i:02d}" for i in range(n)]
    owner_of = {name: f"o{i % (size + 1)}" for i, name in enumerate(names)}  # size + 1 owners
    seated = apart_tables(names, owner_of, size, max_tables, 3)
    assert seated.problem is None
    members = [rotations[0] for rotations in seated.tables]
    assert all(len({owner_of[b] for b in table}) == size for table in members)
    assert is_connected(members, names)
    assert set(Counter(b for table in members for b in table)) == set(names)  # every bot plays
    if math.comb(n, size) > max_tables:  # a sample: as many tables as the plain design
        assert len(members) == len(sample_tables(names, size, max_tables, 3))
    assert apart_tables(names, owner_of, size, max_tables, 3) == seated  # from the seed alone


def test_a_round_robin_with_owners_plays_only_tables_of_different_owners(tmp_path: Path) -> None:
    t = tournament(tmp_path, ["ann", "ANN", "bob", "bob", None, None], rounds=2)
    games = schedule(t)
    assert together(games, t) == []
    tables = {frozenset(game.seats) for game in games}
    # 20 combinations of 6 bots at 3 seats, less the 4 + 4 with both of ann's or of bob's
    assert len(tables) == 20 - 8
    assert len(games) == 12 * 3 * 2
    assert [(g.id, g.seats, g.seed) for g in schedule(t)] == [(g.id, g.seats, g.seed)
                                                             for g in games]


def test_a_sampled_round_robin_with_owners(tmp_path: Path) -> None:
    owners: list[str | None] = ["ann"] * 4 + ["bob"] * 3 + [None] * 9
    t = tournament(tmp_path, owners, players=4, max_tables=30)
    games = schedule(t)
    assert games and together(games, t) == []


def test_a_gauntlet_keeps_each_challenger_from_its_owners_field_bots(tmp_path: Path) -> None:
    t = tournament(tmp_path, ["ann", "bob", None, None, None], players=3, format="gauntlet",
                   challengers=[{"name": "c", "cmd": PY_BOT, "owner": "ann"},
                                {"name": "d", "cmd": PY_BOT}])
    games = schedule(t)
    assert together(games, t) == []
    assert not any("c" in g.seats and "b00" in g.seats for g in games)
    assert any("d" in g.seats and "b00" in g.seats for g in games)


def test_teams_of_one_owner_never_meet(tmp_path: Path) -> None:
    t = tournament(tmp_path, ["ann", "ann", "bob", "cy"], game="partnership-blackout")
    games = schedule(t)
    assert not any({"b00", "b01"} <= set(g.seats) for g in games)
    assert {frozenset(g.seats) for g in games} == {
        frozenset(pair) for pair in [("b00", "b02"), ("b00", "b03"), ("b01", "b02"),
                                     ("b01", "b03"), ("b02", "b03")]}
    # one bot named in two teams is the file's design, not two owners
    teams = [("a", "b"), ("a", "c"), ("d", "e")]
    assert apart_pairs(teams, {})[0] == [(teams[0], teams[1]), (teams[0], teams[2]),
                                         (teams[1], teams[2])]


def test_too_few_owners_is_refused_in_one_line_unless_allowed(tmp_path: Path) -> None:
    owners: list[str | None] = ["ann", "ann", "ann", "bob", "bob"]
    t = tournament(tmp_path, owners)
    with pytest.raises(ConfigError) as refused:
        schedule(t)
    message = str(refused.value)
    assert "\n" not in message
    assert message.startswith(f"{t.path}: same_owner_tables: owner 'ann' enters 3 of the 5 bots "
                              "(b00, b01, b02): 3-player tables of different owners need 3 "
                              "owners, and these bots have 2")
    allowed = tournament(tmp_path, owners, same_owner_tables="allow")
    plain = tournament(tmp_path, [None] * 5)
    assert [(g.id, g.seats, g.seed) for g in schedule(allowed)] == \
        [(g.id, g.seats, g.seed) for g in schedule(plain)]


def test_owner_and_same_owner_tables_are_checked(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"own\.yaml: bots\[1\]\.owner: 'a b': use letters"):
        tournament(tmp_path, ["ann", "a b", None])
    with pytest.raises(ConfigError, match=r"same_owner_tables: 'maybe' is not one of apart, allow"):
        tournament(tmp_path, [None] * 3, same_owner_tables="maybe")
