"""Every live bot of this process, and the signals that interrupt the runner.

Every started ``BotProcess`` is registered by pid until it is closed (``arena.bots.process`` closes
them, together at interpreter exit); ``install_signal_handlers()`` turns SIGTERM and SIGHUP into
KeyboardInterrupt so that ``with`` blocks and atexit clean up. Processes forked from a runner (its
workers) start with an empty registry and must close their own bots (atexit does not run in a
forked child that leaves by ``os._exit``: close them in a ``finally``). Not covered: a runner
killed by SIGKILL (bots that exit on stdin EOF still go), and a bot that leaves its process group
(setsid) on purpose.
"""

from __future__ import annotations

import os
import signal
import threading

LIVE: dict[int, object] = {}
"""Every running bot of this process, by pid (children forked from here start empty). The values
are ``BotProcess`` objects; this module only keeps them (``arena.bots.process.live_bots``)."""

LOCK = threading.Lock()
"""Held while the registry changes."""


def register(bot: object, pid: int) -> None:
    """Add a started bot."""
    with LOCK:
        LIVE[pid] = bot


def unregister(pid: int) -> None:
    """Forget a bot whose process group is being killed (before its leader is reaped)."""
    with LOCK:
        LIVE.pop(pid, None)


def registered() -> list[object]:
    """Every registered bot, oldest first."""
    with LOCK:
        return list(LIVE.values())


def _forget_inherited_bots() -> None:
    """In a forked child: the parent's bots are the parent's to close."""
    global LOCK
    LOCK = threading.Lock()  # another thread may have held it at the fork
    LIVE.clear()


os.register_at_fork(after_in_child=_forget_inherited_bots)


def signal_name(signum: int) -> str:
    """The name of a signal number (SIGKILL), or the number itself if it has none."""
    try:
        return signal.Signals(signum).name
    except ValueError:
        return str(signum)


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt(f"received {signal_name(signum)}")


def install_signal_handlers() -> None:
    """Make SIGTERM and SIGHUP interrupt the runner like Ctrl-C (KeyboardInterrupt), and SIGINT
    do so even where it was ignored when the runner started.

    A shell script that starts a command in the background (``arena league run ... &``) starts
    it with SIGINT ignored, and Python then leaves it ignored: ``kill -INT PID``, which a running
    league tells its user to send, did nothing. The exception unwinds ``with`` blocks (closing
    their bots); whatever is still live is closed at interpreter exit. Call once from the main
    thread of the runner (the CLI does).
    """
    signal.signal(signal.SIGTERM, _interrupt)
    signal.signal(signal.SIGHUP, _interrupt)
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
