"""The work items that plans produce and executors consume: a game to play, how to start each bot,
the settings every worker needs, and a finished game as it comes back.

Plain frozen values. This module sits just above ``arena.settings`` and imports nothing else of the
arena at run time, so plans (``arena.plans``), executors (``arena.executors``) and runs
(``arena.runs``) can all share it without importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

import orjson

import engine
from arena.settings import MAX_LIVE_BOTS, FaultPolicy, Limits, TimeControl

if TYPE_CHECKING:
    from arena.bots.sandbox import Sandbox


@dataclass(frozen=True)
class GameSpec:
    """One scheduled game: its stable id, bots by seat, deal seed and place in the schedule."""

    id: str
    game: str
    options: dict[str, Any]
    seats: tuple[str, ...]
    seed: int
    round: int
    table: int
    rotation: int

    @property
    def set_id(self) -> str:
        """The duplicate set: the games of one table and round, which share a deal seed."""
        return f"r{self.round}-t{self.table:04d}"

    @property
    def entrants(self) -> list[str]:
        """Result entrants: bots by seat, or teams in a team game (``GameInfo.entrants``)."""
        return engine.game(self.game).info.entrants(self.seats)


@dataclass(frozen=True)
class BotCommand:
    """How to start one bot, resolved (``arena.bots.resolve``): its argv, its working directory
    (absolute), its bot directory (absolute: what a sandbox shows it), its sandbox (None:
    unconfined), and its build command, which a cluster runs again on every worker."""

    argv: tuple[str, ...]
    workdir: str | None = None
    sandbox: Sandbox | None = None
    build: tuple[str, ...] | None = None
    bot_dir: str | None = None


@dataclass(frozen=True)
class RunSettings:
    """Everything a worker needs besides the games: bot commands, limits, policy, log directory,
    and how many bot processes it may keep alive (None: all)."""

    bots: dict[str, BotCommand]
    time_control: TimeControl = TimeControl()
    limits: Limits = Limits()
    policy: FaultPolicy = FaultPolicy.FORFEIT
    log_dir: str | None = None
    max_live_bots: int | None = MAX_LIVE_BOTS
    silent_bot_logs: bool = True
    """Whether a bot process that writes nothing to stderr gets a log file all the same (the
    league's runs say no: thousands of files of one "[arena] started" line)."""


class Finished(NamedTuple):
    """A finished game as the runner needs it: the serialised result line, its ``result``, faults.

    Workers serialise the line themselves: a record is tens of KB of nested lists, and
    multiprocess pickles with dill, which is slow on those, while bytes cross the pipe almost for
    free.
    """

    line: bytes
    result: dict[str, Any]
    faults: int
    stalls: int = 0
    """Waits for a bot that woke up late because the arena itself did not run (``stalls``)."""

    @property
    def id(self) -> str:
        """The game's id (parsed from the line; only the rare callers that need it pay)."""
        return str(orjson.loads(self.line)["id"])


def finished_of(line: dict[str, Any]) -> Finished:
    """The runner's view of one result line."""
    return Finished(orjson.dumps(line) + b"\n", line["result"], len(line.get("faults", ())),
                    sum(line.get("stalls", ())))
