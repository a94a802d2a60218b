"""Gauntlets: ``format: gauntlet`` tournament files, their schedules, and real runs that resume."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import orjson
import pytest
import yaml

from arena.errors import ConfigError
from arena.plans.schedule import schedule
from arena.plans.tournament import load_tournament

from helpers import arena

ROOT = Path(__file__).resolve().parents[3]
C_BOT = str(ROOT / "bots" / "c" / "random_bot")
FIRST_BOT = str(ROOT / "bots" / "c" / "first_bot")

pytestmark = pytest.mark.timeout(180)


def gauntlet(tmp_path: Path, **changes: Any) -> Path:
    """A gauntlet file: two challengers against a field of five C bots (None deletes a key)."""
    config: dict[str, Any] = {
        "name": "g", "game": "blackout", "players": 4, "format": "gauntlet", "seed": 9,
        "rounds": 2, "time": {"move_ms": 2000, "bank_ms": 2000},
        "bots": [{"name": f"field{i}", "cmd": C_BOT} for i in range(5)],
        "challengers": [{"name": "first", "cmd": FIRST_BOT}, {"name": "random", "cmd": C_BOT}],
    }
    for key, value in changes.items():
        if value is None:
            config.pop(key, None)
        else:
            config[key] = value
    path = tmp_path / "g.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path


def test_every_table_holds_exactly_one_challenger_in_every_seat(tmp_path: Path) -> None:
    tournament = load_tournament(gauntlet(tmp_path))
    games = schedule(tournament)
    challengers = {"first", "random"}
    sets: dict[str, list[Any]] = {}
    for game in games:
        assert sum(name in challengers for name in game.seats) == 1
        assert len(set(game.seats)) == 4
        sets.setdefault(game.set_id, []).append(game)
    for rotations in sets.values():
        assert len(rotations) == 4 and len({g.seed for g in rotations}) == 1
        challenger = next(n for n in rotations[0].seats if n in challengers)
        assert sorted(g.seats.index(challenger) for g in rotations) == [0, 1, 2, 3]
    per_challenger = Counter(next(n for n in g.seats if n in challengers) for g in games)
    # C(5, 3) = 10 field tables, 4 rotations, 2 rounds, for each challenger.
    assert per_challenger == {"first": 80, "random": 80}
    assert len({g.id for g in games}) == len(games)


def test_partnership_gauntlet_plays_each_challenger_team_against_each_field_team(
        tmp_path: Path) -> None:
    path = gauntlet(tmp_path, game="partnership-blackout", players=None, rounds=1,
                    bots=[{"name": "a", "cmd": C_BOT}, {"name": "b", "cmd": C_BOT}])
    games = schedule(load_tournament(path))
    assert sorted(g.seats for g in games) == sorted([
        ("first", "a", "first", "a"), ("a", "first", "a", "first"),
        ("first", "b", "first", "b"), ("b", "first", "b", "first"),
        ("random", "a", "random", "a"), ("a", "random", "a", "random"),
        ("random", "b", "random", "b"), ("b", "random", "b", "random")])


def test_round_robin_stays_the_default(tmp_path: Path) -> None:
    tournament = load_tournament(gauntlet(tmp_path, format=None, challengers=None))
    assert tournament.format == "round-robin" and tournament.challengers == ()


@pytest.mark.parametrize(("changes", "message"), [
    ({"format": "swiss"}, "format: 'swiss' is not one of round-robin, gauntlet"),
    ({"challengers": None}, "challengers: missing (required by format: gauntlet)"),
    ({"format": "round-robin"}, "challengers: only format: gauntlet has challengers"),
    ({"challengers": [{"name": "field1", "cmd": C_BOT}]},
     "challengers[0].name: 'field1' is already the name of a bot"),
    ({"challengers": [{"name": "x", "cmd": "bots/nope"}]}, "challengers[0].cmd: no such file"),
    ({"bots": [{"name": "f", "cmd": C_BOT}, {"name": "g", "cmd": C_BOT}]},
     "bots: 2 entrants: at least 3 field bots besides the challenger"),
])
def test_bad_gauntlet_files_name_the_key(tmp_path: Path, changes: dict[str, Any],
                                         message: str) -> None:
    with pytest.raises(ConfigError) as error:
        load_tournament(gauntlet(tmp_path, **changes))
    assert message in str(error.value)


@pytest.mark.slow
def test_gauntlet_runs_resumes_and_rates_the_challengers(tmp_path: Path) -> None:
    path = gauntlet(tmp_path, rounds=1, bots=[{"name": f"field{i}", "cmd": C_BOT}
                                              for i in range(3)])
    out = tmp_path / "out"
    first = arena("run", path, "--out", out, "--jobs", "2", "--resamples", "50")
    assert first.returncode == 0, first.stderr
    games = out / "games.jsonl"
    complete = games.read_bytes().splitlines(keepends=True)
    assert len(complete) == 8  # 2 challengers x 1 field table x 4 rotations
    # An interrupted run: half the lines and a half-written one.
    games.write_bytes(b"".join(complete[:3]) + complete[3][:40])
    again = arena("run", path, "--out", out, "--jobs", "2", "--resume", "--resamples", "50")
    assert again.returncode == 0, again.stderr
    assert "(5 played now, 3 from before)" in again.stdout
    lines = [orjson.loads(line) for line in games.read_bytes().splitlines()]
    assert sorted(line["id"] for line in lines) == sorted(orjson.loads(c)["id"] for c in complete)
    assert {line["result"]["set"] for line in lines} == {"r1-t0000", "r1-t0001"}
    assert "gauntlet: challengers first, random rated against the field (field0, field1, " \
        "field2)" in again.stdout
    table = again.stdout.split("\n\n", 1)[1]
    for name in ("first", "random", "field0"):
        assert name in table
