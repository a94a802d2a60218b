"""Child processes of the server that die with it: a SIGKILL of the server must not leave a
``league run`` playing on, or a build storing a bot, that nobody watches."""

from __future__ import annotations

import ctypes
import signal
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

_PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:  # pragma: no cover (runs in the child, before exec)
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
    except (OSError, AttributeError):
        pass  # not Linux: the child outlives a killed server (a stop by Ctrl-C still ends it)


ARENA = (sys.executable, "-c", "from arena.cli import main; main()")
"""The ``arena`` command, as this server runs it."""


def start_child(argv: Sequence[str], log: Path | None) -> subprocess.Popen[bytes]:
    """``argv`` started with its output appended to ``log`` (None: its stderr a pipe, its stdout
    dropped), sent SIGTERM by the kernel when the thread that started it ends (the server's
    threads live as long as it does)."""
    if log is None:
        return subprocess.Popen(list(argv), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, preexec_fn=_die_with_parent)
    with log.open("ab") as output:
        return subprocess.Popen(list(argv), stdin=subprocess.DEVNULL, stdout=output,
                                stderr=subprocess.STDOUT, preexec_fn=_die_with_parent)
