"""Game ids and duplicate sets: how a results line names its game and the set of games it shares
deals with, in one place.

A duplicate set is the games of one table and round, which share a deal seed; results name it
``r{round}-t{table:04d}`` (``set_id``). Each kind of run names its games by their place in a set:

- a tournament: ``r3-t0002-s1``, round 3, table 2, seat rotation 1;
- a match: ``u00012-c`` and ``u00012-b``, unit 12's candidate and baseline games (round 1,
  table 12: the set ``r1-t0012``);
- a league: ``s000017-r2``, its stored set 17, rotation 2 (round 0, table 17: ``r0-t0017``).

``set_of_game`` is the inverse: the set of a game from its id alone, as ``set_id`` names it, for
lines written before sets were recorded (``arena.records.upgrade``).
"""

from __future__ import annotations

import re
from typing import NamedTuple

MATCH_GAMES = ("c", "b")
"""A match unit's games, in the order they are played: candidate, then baseline."""


class GamePlace(NamedTuple):
    """Where a game sits in its run: round, table and rotation (a match's game: 0 candidate, 1
    baseline)."""

    round: int
    table: int
    rotation: int


def set_id(round_number: int, table: int) -> str:
    """The duplicate set of the games of ``table`` in ``round_number``, as results record it."""
    return f"r{round_number}-t{table:04d}"


def tournament_game_id(round_number: int, table: int, rotation: int) -> str:
    """A tournament game's id: its set and seat rotation (``r3-t0002-s1``)."""
    return f"{set_id(round_number, table)}-s{rotation}"


def match_game_id(unit: int, tag: str) -> str:
    """A match game's id: its unit and ``c`` (candidate) or ``b`` (baseline) (``u00012-c``)."""
    return f"u{unit:05d}-{tag}"


def league_game_id(stored_set: int, rotation: int) -> str:
    """A league game's id: its stored set and rotation (``s000017-r2``)."""
    return f"s{stored_set:06d}-r{rotation}"


MATCH_ROUND = 1
"""The round of every match game: a unit is table ``unit`` of round 1."""
LEAGUE_ROUND = 0
"""The round of every league game: a stored set is table ``set`` of round 0."""

_TOURNAMENT = re.compile(r"r(\d+)-t(\d+)-s(\d+)")
_MATCH = re.compile(r"u(\d{5,})-([cb])")
_LEAGUE = re.compile(r"s(\d{6,})-r(\d+)")


def place_of_game(game_id: str) -> GamePlace | None:
    """Round, table and rotation of a game from its id; None for an id none of the arena's runs
    gives (a hand-made file's)."""
    if (found := _TOURNAMENT.fullmatch(game_id)) is not None:
        return GamePlace(int(found[1]), int(found[2]), int(found[3]))
    if (found := _MATCH.fullmatch(game_id)) is not None:
        return GamePlace(MATCH_ROUND, int(found[1]), MATCH_GAMES.index(found[2]))
    if (found := _LEAGUE.fullmatch(game_id)) is not None:
        return GamePlace(LEAGUE_ROUND, int(found[1]), int(found[2]))
    return None


def set_of_game(game_id: str) -> str | None:
    """The duplicate set of the game ``game_id`` names (``set_id`` of its round and table); None
    for an id none of the arena's runs gives."""
    place = place_of_game(game_id)
    return None if place is None else set_id(place.round, place.table)


def match_unit(game_id: str) -> tuple[int, str] | None:
    """``(unit, tag)`` of a match game's id; None for any other id."""
    found = _MATCH.fullmatch(game_id)
    return None if found is None else (int(found[1]), found[2])
