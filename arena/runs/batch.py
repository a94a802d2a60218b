"""The unit of parallel work: ``play_batch(specs, settings) -> lines``.

A plain function from game specs to result lines (one JSON-able dict per game). It keeps the bot
processes of the process it runs in alive between calls, so any executor that calls it repeatedly
in long-lived workers (the local workers of ``arena.runs.workers``; a Dask cluster) gets persistent
bots without knowing about them.
"""


from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import orjson

from arena.bots.faults import Fault, FaultKind
from arena.bots.process import BotProcess, close_bots
from arena.bots.sandbox import Sandbox
from arena.errors import BotStartError
from arena.game.referee import play_game, result_of
from arena.runs.schedule import GameSpec
from arena.settings import FaultPolicy, Limits, TimeControl


@dataclass(frozen=True)
class BotCommand:
    """How to start one bot: its argv, working directory and sandbox (None: unconfined)."""

    argv: tuple[str, ...]
    workdir: str | None = None
    sandbox: Sandbox | None = None


@dataclass(frozen=True)
class RunSettings:
    """Everything a worker needs besides the games: bot commands, limits, policy, log directory."""

    bots: dict[str, BotCommand]
    time_control: TimeControl = TimeControl()
    limits: Limits = Limits()
    policy: FaultPolicy = FaultPolicy.FORFEIT
    log_dir: str | None = None


class Finished(NamedTuple):
    """A finished game as the runner needs it: the serialised result line, its ``result``, faults.

    Workers serialise the line themselves: a record is tens of KB of nested lists, and
    multiprocess pickles with dill, which is slow on those, while bytes cross the pipe almost for
    free.
    """

    line: bytes
    result: dict[str, Any]
    faults: int


def finished_of(line: dict[str, Any]) -> Finished:
    """The runner's view of one result line."""
    return Finished(orjson.dumps(line) + b"\n", line["result"], len(line.get("faults", ())))



class _BotPool:
    """This process's bot processes, by (bot name, copy), started on first use and kept alive."""

    def __init__(self, settings: RunSettings) -> None:
        self.settings = settings
        self.bots: dict[tuple[str, int], BotProcess] = {}

    def seat_bots(self, seats: Sequence[str]) -> list[BotProcess]:
        """One running (or failed-to-start) process per seat; repeated names get separate copies."""
        copies: dict[str, int] = {}
        chosen = []
        for name in seats:
            copy = copies.get(name, 0)
            copies[name] = copy + 1
            bot = self.bots.get((name, copy))
            if bot is None:
                bot = self.bots[(name, copy)] = self._new(name, copy)
                _start(bot)
            chosen.append(bot)
        return chosen

    def _new(self, name: str, copy: int) -> BotProcess:
        command = self.settings.bots[name]
        log = None
        if self.settings.log_dir is not None:
            suffix = "" if copy == 0 else f"-copy{copy + 1}"
            log = Path(self.settings.log_dir) / f"{name}{suffix}-{os.getpid()}.stderr.log"
        return BotProcess(name, command.argv, cwd=command.workdir, limits=self.settings.limits,
                          log_path=log, start_timeout=self.settings.time_control.start_ms / 1000,
                          sandbox=command.sandbox)

    def close(self) -> None:
        """Stop every bot of this pool (quit to all, one shared grace, then kill)."""
        close_bots(self.bots.values())
        self.bots.clear()


def _start(bot: BotProcess) -> None:
    """Start or restart a bot; a failure leaves it stopped with the reason as its last fault."""
    try:
        bot.restart()
    except BotStartError as error:
        bot.last_fault = Fault(FaultKind.CRASH, bot.name, f"could not be started: {error}")


_POOL: _BotPool | None = None


def play_batch(tasks: Sequence[GameSpec], settings: RunSettings) -> list[dict[str, Any]]:
    """Play ``tasks`` in order with this process's bots; one result line per game.

    Bots stay alive between calls in the same process; a bot that faulted is restarted before its
    next game. Never raises for anything a bot does.
    """
    global _POOL
    if _POOL is None or _POOL.settings != settings:
        if _POOL is not None:
            _POOL.close()
        _POOL = _BotPool(settings)
    lines = []
    for task in tasks:
        bots = _POOL.seat_bots(task.seats)
        outcome = play_game(task.game, bots, task.seed, task.options, names=list(task.seats),
                            time_control=settings.time_control, policy=settings.policy)
        for seat in outcome.faulted_seats:
            _start(bots[seat])
        record = outcome.record
        lines.append({"id": task.id, **record,
                      "result": {**result_of(record, task.entrants, settings.policy),
                                 "set": task.set_id}})
    return lines


def close_batch_bots() -> None:
    """Stop the bots ``play_batch`` keeps in this process."""
    global _POOL
    if _POOL is not None:
        _POOL.close()
        _POOL = None


