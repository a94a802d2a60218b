"""What the referee needs of a bot in a seat: ``SeatedBot``, a protocol.

``arena.bots.process.BotProcess`` is the real one (a program behind pipes); anything with these
members can sit at a table, so a test or a benchmark can hand the referee a scripted stand-in.
"""

from __future__ import annotations

from collections.abc import Sized
from typing import Protocol

from arena.bots.process import Reply
from arena.settings import Clock
from arena.values.faults import Fault


class SeatedBot(Protocol):
    """A bot as the referee uses it: it says its name, takes messages, answers requests, and
    tells what went wrong (``request`` raises ``arena.values.faults.BotFaultError``)."""

    name: str
    last_fault: Fault | None
    """The most recent fault, kept after a crash so the next game can record it."""

    @property
    def stalls(self) -> int:
        """Waits for it that woke up late because the arena itself was not running."""
        ...

    @property
    def is_running(self) -> bool:
        """Whether it is still there to play."""
        ...

    @property
    def reply_line(self) -> bytes:
        """The line of the last answered request's reply, as it came."""
        ...

    def hold_line(self, data: bytes) -> None:
        """Queue message lines (``arena.protocol``'s) to go with the next request or send."""
        ...

    def send(self, message: bytes) -> None:
        """Write a message line that needs no reply (``arena.protocol``'s)."""
        ...

    def request(self, message: bytes, timeout: float, clock: Clock = Clock.WALL,
                cap: float | None = None) -> Reply:
        """Ask: an open request (``arena.protocol``'s ``act``), closed with the bot's next id;
        and wait for the reply within ``timeout`` seconds of ``clock``."""
        ...

    def stderr_tail(self) -> str:
        """The end of what it wrote to stderr."""
        ...

    def mark_stderr(self, game: str | None, seat: int, decisions: Sized | None) -> None:
        """Mark what it writes to stderr from now on with its decision in ``game`` at ``seat``
        (the decision being asked is ``len(decisions) + 1``); None: with no decision."""
        ...
