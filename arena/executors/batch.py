"""The unit of parallel work: ``play_batch(specs, settings) -> lines``.

A plain function from game specs to result lines (one JSON-able dict per game). It keeps the bot
processes of the process it runs in alive between calls, so any executor that calls it repeatedly
in long-lived workers (the local workers of ``arena.executors.workers``; a Dask cluster) gets persistent
bots without knowing about them.
"""


from __future__ import annotations

import dataclasses
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from arena.bots.process import BotProcess
from arena.bots.shutdown import close_bots
from arena.errors import BotStartError
from arena.records.result import result_of
from arena.records.writer import results_line
from arena.referee.referee import play_game
from arena.values.faults import Fault, FaultKind
from arena.values.work import BotCommand, GameSpec, RunSettings


class _BotPool:
    """This process's bot processes, by (bot name, copy), started on first use and kept alive.

    At most ``settings.max_live_bots`` stay alive: past that, the least recently seated are
    closed (the dict's order is the order of last use) and started again when next seated.
    """

    def __init__(self, settings: RunSettings) -> None:
        self.settings = settings
        self.bots: dict[tuple[str, int], BotProcess] = {}
        self.commands: dict[tuple[str, int], BotCommand] = {}
        """The command each live bot was started with (settings may name others later)."""
        self.started = 0

    def seat_bots(self, seats: Sequence[str]) -> list[BotProcess]:
        """One running (or failed-to-start) process per seat; repeated names get separate copies."""
        copies: dict[str, int] = {}
        keys = []
        for name in seats:
            copy = copies.get(name, 0)
            copies[name] = copy + 1
            keys.append((name, copy))
        self._make_room(keys)
        chosen = []
        for key in keys:
            bot = self.bots.pop(key, None)
            if bot is None:
                bot = self._new(*key)
                self.commands[key] = self.settings.bots[key[0]]
                _start(bot)
                self.started += 1
            self.bots[key] = bot  # now the most recently used
            chosen.append(bot)
        return chosen

    def _make_room(self, keys: list[tuple[str, int]]) -> None:
        """Close the least recently used bots not in ``keys``, before any new one starts, so that
        the pool never holds more than the cap (or than one table, if the cap is smaller)."""
        cap = self.settings.max_live_bots
        if cap is None:
            return
        needed = set(keys)
        surplus = len(self.bots) + len(needed - self.bots.keys()) - max(cap, len(needed))
        if surplus > 0:
            oldest = [key for key in self.bots if key not in needed][:surplus]
            close_bots([self.bots.pop(key) for key in oldest])
            for key in oldest:
                del self.commands[key]

    def _new(self, name: str, copy: int) -> BotProcess:
        command = self.settings.bots[name]
        log = None
        suffix = "" if copy == 0 else f"-copy{copy + 1}"
        if self.settings.log_dir is not None and self.settings.game_logs is not None:
            # Its games' logs go beside this one, in its own directory (``GameLogs``)
            log = Path(self.settings.log_dir) / name / f"start-{os.getpid()}{suffix}.stderr.log"
        elif self.settings.log_dir is not None:
            log = Path(self.settings.log_dir) / f"{name}{suffix}-{os.getpid()}.stderr.log"
        return bot_process(name, command, self.settings, log, suffix)

    def adopt(self, settings: RunSettings) -> bool:
        """Take ``settings`` for the next games, keeping the bots whose command they keep (a
        league's batches name only the bots they seat); False, changing nothing, when they
        differ in more than their bots (limits, clock, policy, logs: every bot must start anew).
        A bot these settings do not name stays alive for a later batch that seats it again (the
        cap on live bots closes the least recently seated)."""
        if dataclasses.replace(settings, bots={}) != dataclasses.replace(self.settings, bots={}):
            return False
        changed = [key for key, command in self.commands.items()
                   if settings.bots.get(key[0], command) != command]
        close_bots([self.bots.pop(key) for key in changed])
        for key in changed:
            del self.commands[key]
        self.settings = settings
        return True

    def close(self) -> None:
        """Stop every bot of this pool (quit to all, one shared grace, then kill)."""
        close_bots(self.bots.values())
        self.bots.clear()
        self.commands.clear()


def bot_process(name: str, command: BotCommand, settings: RunSettings,
                log_path: Path | None = None, copy_suffix: str = "") -> BotProcess:
    """The (not yet started) process of bot ``name`` as ``settings`` start it (``copy_suffix``:
    a second copy's, ``-copy2``, in the names of its logs)."""
    return BotProcess(name, command.argv, cwd=command.workdir, limits=settings.limits,
                      log_path=log_path, start_timeout=settings.time_control.start_ms / 1000,
                      sandbox=command.sandbox, silent_log=settings.silent_bot_logs,
                      game_logs=settings.game_logs, copy_suffix=copy_suffix)


def preflight(settings: RunSettings) -> None:
    """Start and stop each bot once, so that a bot that cannot even say hello stops the run
    before any game (BotStartError, one line), instead of faulting in every game."""
    for name, command in settings.bots.items():
        bot = bot_process(name, command, settings)
        try:
            bot.start()
        finally:
            bot.close()


def _start(bot: BotProcess) -> None:
    """Start or restart a bot; a failure leaves it stopped with the reason as its last fault: the
    arena's words in its detail, the bot's stderr in its ``stderr_tail`` (its owner's to see),
    how the process ended (exit code, signal, memory peak) as data."""
    try:
        bot.restart()
    except BotStartError as error:
        ended = bot.last_fault  # the handshake's own fault (None when the spawn failed)
        bot.last_fault = Fault(
            FaultKind.CRASH, bot.name, f"could not be started: {error}",
            stderr_tail=error.stderr_tail,
            exit_code=None if ended is None else ended.exit_code,
            signal=None if ended is None else ended.signal,
            memory_peak_mb=None if ended is None else ended.memory_peak_mb)


_LOCAL = threading.local()
"""This thread's pool (``.pool``): executors that run tasks in threads (a Dask worker with several
threads) get one pool per thread, so no two games ever share a bot process."""
_POOLS: set[_BotPool] = set()
"""Every thread's pool, so that ``close_all_batch_bots`` can stop them from any thread."""
_POOLS_LOCK = threading.Lock()


def play_batch(tasks: Sequence[GameSpec], settings: RunSettings) -> list[dict[str, Any]]:
    """Play ``tasks`` in order with this process's bots; one result line per game.

    Bots stay alive between calls in the same process; a bot that faulted is restarted before its
    next game. Never raises for anything a bot does.
    """
    pool: _BotPool | None = getattr(_LOCAL, "pool", None)
    if pool is not None and pool.settings != settings and not pool.adopt(settings):
        _forget(pool)
        pool.close()
        pool = None
    if pool is None:
        pool = _LOCAL.pool = _BotPool(settings)
        with _POOLS_LOCK:
            _POOLS.add(pool)
    lines = []
    for task in tasks:
        bots = pool.seat_bots(task.seats)
        outcome = play_game(task.game, bots, task.seed, task.options, names=list(task.seats),
                            time_control=settings.time_control, policy=settings.policy,
                            preset=task.preset, game_id=task.id,
                            shown=settings.names)
        for seat in outcome.faulted_seats:
            _start(bots[seat])
        record = outcome.record
        lines.append(results_line(task.id, record, result_of(record, task.entrants, settings.policy),
                                  task.set_id, settings.owners))
    return lines


def close_batch_bots() -> None:
    """Stop the bots ``play_batch`` keeps in this thread."""
    pool: _BotPool | None = getattr(_LOCAL, "pool", None)
    if pool is not None:
        _forget(pool)
        pool.close()
        _LOCAL.pool = None


def close_all_batch_bots() -> None:
    """Stop the bots ``play_batch`` keeps in every thread of this process (none may be playing)."""
    with _POOLS_LOCK:
        pools = list(_POOLS)  # kept: a closed pool starts its bots again when next used
    for pool in pools:
        pool.close()


def _forget(pool: _BotPool) -> None:
    with _POOLS_LOCK:
        _POOLS.discard(pool)


