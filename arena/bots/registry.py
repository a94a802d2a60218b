"""Every live bot of this process, closing them together, and cleanup at exit and on signals.

Every started ``BotProcess`` is registered by pid until it is closed. ``close_bots()`` closes
several at once (``quit`` to all, one shared grace during which all their stderr pipes keep being
drained, then SIGKILL to every process group); ``close_all()`` closes every live bot and runs at
interpreter exit; ``install_signal_handlers()`` turns SIGTERM and SIGHUP into KeyboardInterrupt so
that ``with`` blocks and atexit clean up. Processes forked from a runner (its workers) start with an
empty registry and must close their own bots (atexit does not run in a forked child that leaves by
``os._exit``: close them in a ``finally``). Not covered: a runner killed by SIGKILL (bots that exit
on stdin EOF still go), and a bot that leaves its process group (setsid) on purpose.
"""

from __future__ import annotations

import atexit
import os
import signal
import threading
from collections.abc import Iterable
from typing import TYPE_CHECKING

from arena.bots.channel import wait_exits

if TYPE_CHECKING:
    from arena.bots.process import BotProcess

LIVE: dict[int, BotProcess] = {}
"""Every running bot of this process, by pid (children forked from here start empty)."""

LOCK = threading.Lock()
"""Held while the registry changes, so a watcher thread never signals a bot being reaped."""

_atexit_installed = False


def register(bot: BotProcess, pid: int) -> None:
    """Add a started bot (and install the exit hook the first time)."""
    global _atexit_installed
    with LOCK:
        LIVE[pid] = bot
    if not _atexit_installed:
        atexit.register(_close_all_at_exit)
        _atexit_installed = True


def unregister(pid: int) -> None:
    """Forget a bot whose process group is being killed (before its leader is reaped)."""
    with LOCK:
        LIVE.pop(pid, None)


def _forget_inherited_bots() -> None:
    """In a forked child: the parent's bots are the parent's to close."""
    global LOCK
    LOCK = threading.Lock()  # another thread may have held it at the fork
    LIVE.clear()


os.register_at_fork(after_in_child=_forget_inherited_bots)


def live_bots() -> list[BotProcess]:
    """Every bot process this process started and has not closed yet."""
    return list(LIVE.values())


def close_all(grace: float | None = None) -> None:
    """Close every live bot of this process at once (see ``close_bots``)."""
    close_bots(live_bots(), grace)


def close_bots(bots: Iterable[BotProcess], grace: float | None = None) -> None:
    """Close several bots at once: ``quit`` to all, one shared grace, then kill every group.

    ``grace`` is in seconds; None gives each bot its own ``quit_grace`` (its limits' setting).
    """
    closing = [(bot, bot._channel) for bot in bots if bot._channel is not None]
    if not closing:
        return
    for bot, _ in closing:
        bot._begin_close()
    timeout = max(bot.quit_grace for bot, _ in closing) if grace is None else grace
    exits = wait_exits([channel for _, channel in closing], timeout)
    for (bot, _), seconds in zip(closing, exits, strict=True):
        bot._finish_close(seconds)


def _close_all_at_exit() -> None:
    if not LIVE:
        return
    try:  # a second Ctrl-C must not cut the cleanup short
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    except ValueError:  # not the main thread
        pass
    close_all()


def signal_name(signum: int) -> str:
    """The name of a signal number (SIGKILL), or the number itself if it has none."""
    try:
        return signal.Signals(signum).name
    except ValueError:
        return str(signum)


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt(f"received {signal_name(signum)}")


def install_signal_handlers() -> None:
    """Make SIGTERM and SIGHUP interrupt the runner like Ctrl-C (KeyboardInterrupt).

    The exception unwinds ``with`` blocks (closing their bots); whatever is still live is closed
    at interpreter exit. Call once from the main thread of the runner (the CLI does).
    """
    signal.signal(signal.SIGTERM, _interrupt)
    signal.signal(signal.SIGHUP, _interrupt)
