"""``arena rules GAME``: every option with its default and range, from the engine's schema; and
``arena play --help`` pointing there and listing the defaults."""

from __future__ import annotations

import os

import pytest
from typer.testing import CliRunner

import engine
from arena.cli import app

from helpers import arena

ENV = {"COLUMNS": "200", "PATH": "/usr/bin:/bin",
       **{key: os.environ[key] for key in ("ARENA_PURE", "PYTHONPATH") if key in os.environ}}
"""The commands' environment: a wide terminal, only the system's programs, and the suite's build."""


def run(*args: str) -> str:
    """The command's output, run in this process (the error exits go through ``arena``, a real
    process, in the tests below)."""
    done = CliRunner().invoke(app, list(args), terminal_width=200)
    assert done.exit_code == 0, done.output
    return done.output


def row_of(output: str, option: str) -> list[str]:
    line = next(line for line in output.splitlines() if line.startswith(option + " "))
    return line.split()


@pytest.mark.parametrize("name", sorted(engine.GAMES))
def test_rules_lists_every_option_with_its_default_and_values(name: str) -> None:
    info = engine.game(name).info
    players = info.player_counts[-1]
    output = run("rules", name, "--players", str(players))
    assert output.startswith(f"{name}: {info.title}") and "docs/rules.md" in output
    for option in info.options(players):
        row = row_of(output, option.name)
        default = str(option.default).lower()
        assert row[1] == default, (option.name, row)
        assert option.allowed.split(",")[0] in " ".join(row[2:]), (option.name, row)


def test_rules_without_players_gives_each_count_where_defaults_differ() -> None:
    output = run("rules", "blackout")
    assert row_of(output, "deals")[1:6] == ["3:15", "4:13", "5:10", "6:8", "7:7"]
    assert row_of(output, "bonus")[1:3] == ["10", "0..1000000"]


@pytest.mark.slow
def test_rules_of_an_unknown_game_or_player_count_is_one_line() -> None:
    unknown = arena("rules", "hearts", env=ENV)
    assert unknown.returncode == 2 and unknown.stdout == ""
    assert unknown.stderr == (f"arena: error: unknown game 'hearts' "
                              f"(games: {', '.join(engine.GAMES)})\n")
    wrong = arena("rules", "blackout", "--players", "2", env=ENV)
    assert wrong.returncode == 2
    assert wrong.stderr == "arena: error: blackout is for 3 to 7 players, not 2\n"


def test_play_help_points_to_rules_and_lists_the_defaults() -> None:
    text = " ".join(run("play", "--help").replace("│", " ").split())
    assert "arena rules GAME" in text
    for name in engine.GAMES:
        for option in engine.game(name).info.options():
            assert f"{option.name}=" in text, option.name
    assert "target=100" in text and "bonus=10" in text
