"""The seats of ``arena play``: ``NAME=COMMAND`` or a bare command per seat, each with its own label.

Labels follow the tournaments' rules: every seat's program gets a name of its own (copies of one
program become ``random_bot``, ``random_bot-2``, ...), except partners in Partnership Blackout
that run the same command, which are one entrant and share one name. Names are told apart by their
keys (``arena.names``): ``fast=...`` and ``FAST=...`` are two seats with one name, refused.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import engine
from arena.botfiles.resolve import split_command
from arena.errors import ConfigError
from arena.names import NAME, UNSAFE, command_label, free_name, same_name
from engine.game import GameInfo


@dataclass(frozen=True)
class Seat:
    """One seat of a game: its label and the argv of its program."""

    name: str
    argv: tuple[str, ...]


def parse_seat(text: str) -> tuple[str | None, tuple[str, ...]]:
    """``"fast=python3 bot.py"`` as ``("fast", argv)``; a bare command as ``(None, argv)``.

    The text before the first ``=`` is a name only when it is a valid name (no spaces or ``/``),
    so ``python3 bot.py --depth=3`` stays a bare command.
    """
    given, command = given_name(text)
    return given, split_command(command, f"bot command {text!r}")


def given_name(text: str) -> tuple[str | None, str]:
    """A seat's ``NAME=`` prefix, if it is a valid name, and the rest (the bot's command or
    directory); ``(None, text)`` without one."""
    name, sep, rest = text.partition("=")
    return (name, rest) if sep and NAME.fullmatch(name) else (None, text)


def player_count_text(game_name: str) -> str:
    """How many bots a game takes, as a phrase: ``3 to 7 bots``, ``4 bots (or 2, ...)``."""
    info = engine.game(game_name).info
    counts = info.player_counts
    if info.teams is not None and len(info.teams) not in counts:
        seats = " or ".join(map(str, counts))
        return f"{seats} bots, or {len(info.teams)} (each then partners a copy of itself)"
    if len(counts) > 1 and list(counts) == list(range(counts[0], counts[-1] + 1)):
        return f"{counts[0]} to {counts[-1]} bots"
    return " or ".join(map(str, counts)) + " bots"


def game_seats(game_name: str, texts: Sequence[str]) -> list[Seat]:
    """The seats of one game from its command-line arguments; ConfigError naming the problem."""
    parsed = [parse_seat(text) for text in texts]
    info = engine.game(game_name).info
    if len(parsed) not in info.command_counts:
        raise ConfigError(f"{game_name} needs {player_count_text(game_name)}; got {len(texts)}")
    parsed = info.seats_of(parsed)  # in a team game, one command per team plays all its seats
    names: list[str | None] = [None] * len(parsed)
    for seat, (given, argv) in enumerate(parsed):
        partner = _first_partner(info, seat)
        if partner is not None and parsed[partner] == (given, argv):
            names[seat] = names[partner]  # the same program as its partner: one entrant
            continue
        if given is not None:
            taken = same_name(given, [name for name in names if name is not None])
            if taken is not None:
                written = "" if taken == given else f" (as {taken!r})"
                raise ConfigError(f"seat {seat}: the name {given!r} is already another "
                                  f"seat's{written}")
            names[seat] = given
    for seat, (_, argv) in enumerate(parsed):
        if names[seat] is None:
            names[seat] = name = free_name(command_label(argv), names)
            for partner in _later_partners(info, seat):
                if parsed[partner] == parsed[seat]:
                    names[partner] = name
    return [Seat(str(name), argv) for name, (_, argv) in zip(names, parsed, strict=True)]


def _first_partner(info: GameInfo, seat: int) -> int | None:
    """The first seat of ``seat``'s team when that is another seat; None without teams."""
    if info.teams is None:
        return None
    first = info.teams[info.entrant_of(seat)][0]
    return first if first != seat else None


def _later_partners(info: GameInfo, seat: int) -> list[int]:
    """The seats after ``seat`` in its team (none without teams)."""
    if info.teams is None:
        return []
    return [other for other in info.teams[info.entrant_of(seat)] if other > seat]


def log_file_name(seat: int, name: str) -> str:
    """A stderr log's file name for a seat: one plain file name, whatever the label holds."""
    return f"seat{seat}-{UNSAFE.sub('_', name)}.stderr.log"
