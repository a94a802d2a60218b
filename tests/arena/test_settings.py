"""Every number has a range, stated once (arena.settings): the tournament reader, the command line
and docs/tournaments.md agree, and a value past it is one line before anything runs."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer.main
import yaml

from arena.cli import app
from arena.errors import ConfigError
from arena.plans.schedule import schedule
from arena.plans.tournament import load_tournament
from arena.settings import (
    GAME_COUNT,
    JOBS,
    LIVE_BOTS,
    MAX_GAMES,
    MINUTES,
    RESAMPLES,
    SEED,
    TOURNAMENT_RANGES,
    Range,
)

from helpers import arena, option_range

REPO = Path(__file__).resolve().parents[2]
BOT = str(REPO / "bots" / "c" / "random_bot")


def tournament(tmp_path: Path, **changes: Any) -> Path:
    """A valid three-bot Blackout file with ``changes`` (dotted keys go into sections)."""
    config: dict[str, Any] = {"name": "ranges", "game": "blackout", "players": 3,
                              "bots": [{"name": f"b{i}", "cmd": BOT} for i in range(3)]}
    for key, value in changes.items():
        section, _, leaf = key.partition(".")
        if leaf:
            config.setdefault(section, {})[leaf] = value
        else:
            config[key] = value
    path = tmp_path / "t.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def assert_refused(proc: subprocess.CompletedProcess[str], *named: str) -> None:
    """Exit 2 with an error naming ``named`` (a typer usage error or `arena: error:`), no traceback."""
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    for word in named:
        assert word in proc.stderr, proc.stderr


def key_of(bounds: Range) -> str:
    return bounds.key


@pytest.mark.parametrize("bounds", TOURNAMENT_RANGES, ids=key_of)
def test_a_tournament_number_past_its_range_names_the_key_and_the_range(
        tmp_path: Path, bounds: Range) -> None:
    for value in (bounds.high + 1, 10**20, bounds.low - 1):
        if bounds is LIVE_BOTS and value == bounds.low - 1:
            continue  # its low bound in a file is the number of players
        with pytest.raises(ConfigError) as caught:
            load_tournament(tournament(tmp_path, **{bounds.key: value}))
        low = 3 if bounds is LIVE_BOTS else bounds.low
        assert str(caught.value) == (f"{tmp_path / 't.yaml'}: {bounds.key}: {value} is out of "
                                     f"range ({low}..{bounds.high})")


@pytest.mark.parametrize("bounds", TOURNAMENT_RANGES, ids=key_of)
def test_a_tournament_number_at_its_bounds_is_accepted(tmp_path: Path, bounds: Range) -> None:
    low = 3 if bounds is LIVE_BOTS else bounds.low
    for value in (low, bounds.high):
        loaded = load_tournament(tournament(tmp_path, **{bounds.key: value}))
        section, _, leaf = bounds.key.partition(".")
        holder = {"time": loaded.play.time, "limits": loaded.play.limits}.get(section, loaded)
        assert getattr(holder, leaf or section) == value


def test_the_tournament_docs_list_every_range() -> None:
    text = (REPO / "docs" / "tournaments.md").read_text()
    for bounds in TOURNAMENT_RANGES:
        row = re.search(rf"^\| `{re.escape(bounds.key)}` \| ([^|]*)\|", text, re.MULTILINE)
        assert row, f"docs/tournaments.md has no row for {bounds.key}"
        low = "`players`" if bounds is LIVE_BOTS else str(bounds.low)
        assert f"{low}..{bounds.high}" in row.group(1), (bounds.key, row.group(1))


def test_rounds_past_ten_million_games_are_refused_before_the_schedule_is_built(
        tmp_path: Path) -> None:
    # 3 bots at 3-player tables: one table, 3 games a round; a trillion rounds is refused by the
    # range, 5 million (15 million games) by the cap on the whole schedule
    with pytest.raises(ConfigError, match=r"rounds: 1000000000000 is out of range"):
        load_tournament(tournament(tmp_path, rounds=10**12))
    big = load_tournament(tournament(tmp_path, rounds=5_000_000))
    with pytest.raises(ConfigError) as caught:
        schedule(big)
    assert str(caught.value) == (f"{tmp_path / 't.yaml'}: rounds: 5000000 rounds of 3 games are "
                                 f"15000000 games: a run schedules at most {MAX_GAMES} "
                                 f"(at most 3333333 rounds here)")


@pytest.mark.slow
def test_a_dry_run_of_a_huge_schedule_is_one_line_without_growing(tmp_path: Path) -> None:
    path = tournament(tmp_path, rounds=MAX_GAMES)
    limit = "import resource; resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30)); "
    proc = subprocess.run(
        [sys.executable, "-c", limit + "import sys; from arena.cli import main; "
         "sys.argv = ['arena', 'run', sys.argv[1], '--dry-run']; main()", str(path)],
        cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert_refused(proc, "rounds: 10000000 rounds of 3 games are 30000000 games")
    assert len(proc.stderr.splitlines()) == 1


@pytest.mark.parametrize(("option", "value"), [
    ("bonus", 10**20), ("points_per_trick", 0), ("bonus", -1)])
@pytest.mark.slow
def test_a_game_option_past_its_range_is_refused(tmp_path: Path, option: str, value: int) -> None:
    with pytest.raises(ConfigError, match=rf"options\.{option}: {value} is out of range"):
        load_tournament(tournament(tmp_path, options={option: value}))
    proc = arena("play", "blackout", BOT, BOT, BOT, "-o", f"{option}={value}", cwd=tmp_path)
    assert_refused(proc, f"option '{option}': {value} is out of range")
    assert "deal" not in proc.stdout  # refused before the game


@pytest.mark.parametrize("args", [
    ["play", "blackout", BOT, BOT, BOT, "--seed", str(10**26)],
    ["play", "blackout", BOT, BOT, BOT, "--memory-mb", str(10**20)],
    ["play", "blackout", BOT, BOT, BOT, "--move-ms", "0"],
    ["check-bot", "--move-ms", "-5", BOT],
    ["check-bot", "--move-ms", "0", BOT],
    ["check-bot", "--bank-ms", "-1", BOT],
    ["check-bot", "--start-ms", "0", BOT],
    ["check-bot", "--seed", str(2**64), BOT],
    ["table", "results", "--resamples", str(10**20)],
    ["league", "run", "league", "--jobs", "99999"],
    ["run", "t.yaml", "--jobs", "257"],
    ["match", BOT, BOT, "--field", BOT, "--games", str(10**9)],
], ids=lambda args: " ".join(a for a in args if a != BOT))
@pytest.mark.slow
def test_a_command_line_number_past_its_range_is_one_error_before_anything_runs(
        tmp_path: Path, args: list[str]) -> None:
    proc = arena(*args, cwd=tmp_path)
    option = next(a for a in args if a.startswith("--") and a != "--field")
    assert_refused(proc, f"'{option}'")
    assert proc.stdout == ""  # no step, game or table ran
    assert sorted(p.name for p in tmp_path.iterdir()) == []


OPTION_RANGES = {"seed": SEED, "jobs": JOBS, "resamples": RESAMPLES, "games": GAME_COUNT,
                 "minutes": MINUTES, "max_live_bots": LIVE_BOTS}
OPTION_RANGES |= {bounds.key.rpartition(".")[2]: bounds for bounds in TOURNAMENT_RANGES}


def test_every_numeric_option_of_every_command_is_bounded_by_its_shared_range() -> None:
    checked = 0

    def walk(command: Any, name: str) -> None:
        nonlocal checked
        for sub, child in (getattr(command, "commands", None) or {}).items():
            walk(child, f"{name} {sub}")
        for param in getattr(command, "params", ()):
            if param.name not in OPTION_RANGES:
                continue
            bounds = OPTION_RANGES[param.name]
            where = f"{name} --{param.name}"
            low, high = option_range(param)
            assert low is not None and high is not None, where
            assert bounds.low <= low <= high <= bounds.high, where
            checked += 1

    walk(typer.main.get_command(app), "arena")
    assert checked >= 25
