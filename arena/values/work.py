"""The work items that plans produce and executors consume: a game to play, how to start each bot,
the settings every worker needs, and a finished game as it comes back.

Plain frozen values, below every layer that passes them: plans (``arena.plans``), executors
(``arena.executors``), runs (``arena.runs``), the bots that resolve a command
(``arena.botfiles.resolve``) and the records that serialise a finished game
(``arena.records.writer.finished_of``) share them without importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

import engine
from arena.settings import (
    DEFAULT_LIMITS,
    DEFAULT_NAMES,
    DEFAULT_POLICY,
    DEFAULT_TIME,
    MAX_LIVE_BOTS,
    FaultPolicy,
    GameLogs,
    Limits,
    NamesShown,
    TimeControl,
)
from arena.values import ids
from arena.values.sandbox_settings import Sandbox


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
    preset: engine.Preset | None = None
    """The deals a deals file gives this game's set (``arena.plans.deals``); None: drawn from
    ``seed``."""

    @property
    def set_id(self) -> str:
        """The duplicate set: the games of one table and round, which share a deal seed."""
        return ids.set_id(self.round, self.table)

    @property
    def entrants(self) -> list[str]:
        """Result entrants: bots by seat, or teams in a team game (``GameInfo.entrants``)."""
        return engine.game(self.game).info.entrants(self.seats)


@dataclass(frozen=True)
class BotCommand:
    """How to start one bot, resolved (``arena.botfiles.resolve``): its argv, its working directory
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
    how many bot processes it may keep alive (None: all), the bots' owners and what the bots are
    told of each other's names."""

    bots: dict[str, BotCommand]
    time_control: TimeControl = DEFAULT_TIME
    limits: Limits = DEFAULT_LIMITS
    policy: FaultPolicy = DEFAULT_POLICY
    log_dir: str | None = None
    max_live_bots: int | None = MAX_LIVE_BOTS
    silent_bot_logs: bool = True
    """Whether a bot process that writes nothing to stderr gets a log file all the same (the
    league's runs say no: thousands of files of one "[arena] started" line)."""
    owners: dict[str, str] = field(default_factory=dict)
    """Each bot's owner by name, as the records write it (``owners``); a bot it lacks is its
    own owner."""
    names: NamesShown = DEFAULT_NAMES
    """What ``game_start.names`` tells the bots."""
    game_logs: GameLogs | None = None
    """Each bot's stderr kept per game in a directory of its own under ``log_dir``, within a
    budget (``arena.settings.GameLogs``: a league's runs); None: a log per bot process."""


class Finished(NamedTuple):
    """A finished game as the runner needs it: its id, the serialised results line, its result
    as the ratings read it (serialised too), its faults and stalls.

    Workers serialise the line themselves (``arena.records.writer.serialise``): a record is tens
    of KB of nested lists, and multiprocess pickles with dill, which is slow on those, while
    bytes cross the pipe almost for free. What the runner reads of the game comes beside it, so
    the runner never parses the line again (only the rare game with faults, for their details).
    """

    id: str
    line: bytes
    rated: bytes
    """The line's result with its deals' seed and scores (``arena.records.result.rating_input``),
    as JSON (``arena.records.writer.serialise_rating_input``; read back by
    ``arena.records.reader.parse_rating_input``)."""
    faults: int
    stalls: int = 0
    """Waits for a bot that woke up late because the arena itself did not run (``stalls``)."""
