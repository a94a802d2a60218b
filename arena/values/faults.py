"""The ways a bot can break a game, as values: a ``FaultKind`` and a ``Fault`` record of one fault.

The process layer (``arena.bots.process``) raises ``BotFaultError`` carrying a ``Fault`` for timeouts,
malformed replies and crashes; the referee decides illegal actions and builds those faults with
``Fault.illegal`` (or ``BotProcess.illegal``, which fills in the last request and reply line). A
fault is recorded with the game, never printed as free text.
"""

from __future__ import annotations

import dataclasses
import enum
from dataclasses import dataclass
from typing import Any

from arena.errors import ProtocolError

SNIPPET_CHARS = 200
"""How much of what was sent and what came back a fault keeps."""

STDERR_TAIL_BYTES = 2048
"""How much of the end of a bot's stderr a fault keeps."""

QUOTED_STDERR_LINES = 5
"""Lines of a bot's stderr that a failed start shows its user (``quoted_stderr``)."""


class FaultKind(enum.Enum):
    """Every way a bot can fail a request (docs/protocol.md, "Faults and what they cost")."""

    TIMEOUT = "timeout"
    MALFORMED = "malformed"
    ILLEGAL = "illegal"
    CRASH = "crash"


class TimeLimit(enum.Enum):
    """Which limit ended a decision that timed out: its allowance of the bot's own time
    (``clock: fair``), its CPU allowance (``clock: cpu``), its wall-time allowance (``clock:
    wall``), or the wall cap that ends a decision under ``fair`` or ``cpu`` whatever it was
    charged."""

    FAIR = "fair"
    CPU = "cpu"
    WALL = "wall"
    WALL_CAP = "wall_cap"


def snippet(data: bytes | str, limit: int = SNIPPET_CHARS) -> str:
    """Text of at most ``limit`` characters from a line, undecodable bytes replaced, cut noted."""
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... [{len(text) - limit} more]"


def last_lines(text: str, count: int) -> list[str]:
    """The last ``count`` non-blank lines of ``text``, stripped."""
    return [line.strip() for line in text.splitlines() if line.strip()][-count:]


def quoted_stderr(stderr_tail: str) -> str:
    """`` (stderr: LINE | LINE)``: the last lines of a bot's stderr on one line, for the person
    whose bot it is (``arena play``'s and a run's start error); "" when it wrote nothing. Never
    part of a fault's detail or an error's message, which others may see."""
    lines = last_lines(stderr_tail, QUOTED_STDERR_LINES)
    return f" (stderr: {snippet(' | '.join(lines), 600)})" if lines else ""


@dataclass(frozen=True, slots=True)
class Fault:
    """One fault: which kind, why (one line), what was sent, what came back, the bot's stderr tail.

    ``elapsed`` is the seconds from writing the request to detecting the fault (None when no request
    was being timed); ``seat`` is filled in by the referee (``dataclasses.replace``) when it records
    the fault with its game. A crash carries how the process ended as data: ``exit_code`` (it
    exited by itself) or ``signal`` (the signal's name, e.g. "SIGKILL"), and ``memory_peak_mb``
    when the arena killed it for going over its memory limit. A timeout carries the bot's CPU
    time over the request (``cpu``, seconds) and the limit that ended it (``limit``).
    """

    kind: FaultKind
    bot: str
    detail: str
    sent: str = ""
    received: str = ""
    stderr_tail: str = ""
    elapsed: float | None = None
    seat: int | None = None
    exit_code: int | None = None
    signal: str | None = None
    memory_peak_mb: float | None = None
    cpu: float | None = None
    limit: TimeLimit | None = None

    @classmethod
    def illegal(
        cls, bot: str, detail: str, sent: bytes | str, received: bytes | str, stderr_tail: str = "",
        elapsed: float | None = None, seat: int | None = None,
    ) -> Fault:
        """An ILLEGAL fault (decided by the referee), cut to size like the others."""
        if isinstance(sent, bytes):
            sent = sent.rstrip(b"\n")
        return cls(FaultKind.ILLEGAL, bot, detail, snippet(sent), snippet(received), stderr_tail,
                   elapsed, seat)

    def with_seat(self, seat: int) -> Fault:
        """The same fault, recorded against ``seat``."""
        return dataclasses.replace(self, seat=seat)

    def to_json(self) -> dict[str, Any]:
        """The fault as a JSON-able dict for game records (kind as its string value)."""
        return {
            "kind": self.kind.value,
            "bot": self.bot,
            "seat": self.seat,
            "detail": self.detail,
            "sent": self.sent,
            "received": self.received,
            "stderr_tail": self.stderr_tail,
            "elapsed_ms": None if self.elapsed is None else round(self.elapsed * 1000, 3),
            "exit_code": self.exit_code,
            "signal": self.signal,
            "memory_peak_mb": self.memory_peak_mb,
            "cpu_ms": None if self.cpu is None else round(self.cpu * 1000, 3),
            "limit": None if self.limit is None else self.limit.value,
        }

    def __str__(self) -> str:
        return f"bot '{self.bot}': {self.kind.value}: {self.detail}"


class BotFaultError(ProtocolError):
    """A bot faulted while the arena talked to it; ``fault`` says how. The referee records it."""

    def __init__(self, fault: Fault) -> None:
        super().__init__(str(fault))
        self.fault = fault
