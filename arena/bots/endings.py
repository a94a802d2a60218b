"""How a bot process ended, or failed its handshake, in the arena's words and as data.

The process layer (``arena.bots.process``) collects the facts: the exit status it reaped, whether
the process exited by itself within the crash grace, what the memory watch saw, the fault of a
failed ``hello``. This module says them: a crash's detail and its ending as fields of the fault
(``exit_code``, ``signal``, ``memory_peak_mb``: data, not text), and a failed start's one line.
What the bot wrote to stderr is never quoted here (it is the fault's ``stderr_tail``); a hint
made from it only classifies it.
"""

from __future__ import annotations

import signal
from typing import Any

from arena.bots.clocks import BLOCKED_HINT
from arena.bots.memory import MemoryUse, megabytes_over
from arena.bots.registry import signal_name
from arena.bots.sandbox import signal_of_status, start_hint
from arena.settings import Limits
from arena.values.faults import Fault, FaultKind
from arena.values.sandbox_settings import Sandbox


def crash(what: str, status: int | None, exited: bool, used: MemoryUse, limits: Limits,
          sandboxed: bool) -> tuple[str, dict[str, Any]]:
    """The detail of a crash and how the process ended, as a fault's fields: ``what`` the bot did
    (``exited``, ``closed its stdout``), its exit ``status`` as reaped (negative: the signal that
    killed it; None: it could not be killed), whether it ``exited`` by itself, what the memory
    watch saw (``used``) of its ``limits``; ``sandboxed``: under bubblewrap, which exits with
    128 + N for a bot killed by signal N."""
    killed_inside = signal_of_status(status) if sandboxed else None
    if killed_inside is not None:
        status = -killed_inside
    ending: dict[str, Any] = {}
    if status is not None and status >= 0:
        ending["exit_code"] = status
    elif status is not None:
        ending["signal"] = signal_name(-status)
    if used.exceeded:
        ending["memory_peak_mb"] = megabytes_over(used.peak)
        detail = f"memory limit {limits.memory_mb} MB exceeded"
    elif status is None:
        detail = f"{what} and could not be killed"
    elif not exited:
        detail = f"{what} but kept running (killed)"
    elif status >= 0:
        detail = f"exited with code {status}"
    else:
        detail = f"killed by signal {signal_name(-status)}{_limit_hint(-status, limits)}"
    return detail, ending


def _limit_hint(signum: int, limits: Limits) -> str:
    """Which limit a signal says the bot ran into, if one of its limits sends it."""
    if signum == signal.SIGXCPU and limits.cpu_seconds is not None:
        return f" (CPU limit {limits.cpu_seconds} s)"
    if signum == signal.SIGXFSZ and limits.file_mb is not None:
        return f" (file size limit {limits.file_mb} MB)"
    return ""


def handshake_failure(name: str, fault: Fault, start_timeout: float,
                      sandbox: Sandbox | None) -> str:
    """Why bot ``name``'s handshake failed (``fault``, of its ``hello``), in one line."""
    where = f"bot '{name}'"
    if fault.kind is FaultKind.TIMEOUT:
        return (f"{where}: no hello reply within {start_timeout * 1000:.0f} ms"
                f"{_timeout_note(fault)}")
    if fault.kind is FaultKind.CRASH:
        hint = "" if sandbox is None else start_hint(fault.stderr_tail, sandbox)
        return f"{where}: exited before replying to hello: {fault.detail}{hint}"
    return f"{where}: bad hello reply: {fault.detail}: {fault.received!r}"


def _timeout_note(fault: Fault) -> str:
    """`` (used N ms of CPU: HINT)`` for a timed-out hello: the hint where the bot was waiting."""
    if fault.cpu is None:
        return ""
    hint = f": {BLOCKED_HINT}" if "flush" in fault.detail or BLOCKED_HINT in fault.detail else ""
    return f" (used {fault.cpu * 1000:.0f} ms of CPU{hint})"
