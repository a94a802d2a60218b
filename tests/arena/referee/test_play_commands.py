"""``arena play``'s bot commands: one per seat, or one per team in a team game (from GameInfo)."""

from __future__ import annotations

import pytest

from arena.errors import ConfigError
from arena.referee.command_game import seat_commands


def test_a_team_game_takes_one_command_per_team_each_in_all_its_seats() -> None:
    argvs = seat_commands("partnership-blackout", ["./a", "python3 b.py"])
    assert argvs == [["./a"], ["python3", "b.py"], ["./a"], ["python3", "b.py"]]
    assert seat_commands("partnership-blackout", ["./a", "./b", "./c", "./d"]) == [
        ["./a"], ["./b"], ["./c"], ["./d"]]


@pytest.mark.parametrize(("game", "count", "message"), [
    ("blackout", 2, "blackout needs 3 to 7 bots; got 2"),
    ("blackout", 8, "blackout needs 3 to 7 bots; got 8"),
    ("partnership-blackout", 3,
     "partnership-blackout needs 4 bots, or 2 (each then partners a copy of itself); got 3"),
])
def test_a_wrong_number_of_commands_says_what_the_game_takes(game: str, count: int, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        seat_commands(game, ["./bot"] * count)
    assert str(caught.value) == message
