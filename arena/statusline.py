"""The one status line of long work: redrawn in place on a terminal, a line at each step elsewhere.

A run's progress (``arena.runs.progress``), a match's (``arena.runs.match_play``) and an analysis's
(``arena.analysis.entrant``) are drawn by it, so every long command reports alike."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TextIO

HEARTBEAT = 30.0
"""Seconds at most between two progress lines written to a file or a pipe, while work is done."""


class StatusLine:
    """The one way long work reports progress: on a terminal one line redrawn in place (at most 10
    times a second, and at the end); elsewhere a line at every ``steps``-th of the work, and at
    least every ``HEARTBEAT`` seconds while it moves, so logs stay short and never fall silent
    (a league run's total is open-ended: a tenth of it can be an hour)."""

    def __init__(self, stream: TextIO | None = None, steps: int = 10) -> None:
        self.stream = stream or sys.stderr
        self.steps = steps
        self.tty = self.stream.isatty()
        self.last_draw = time.monotonic() if not self.tty else 0.0
        self.last_step = -1

    def draw(self, text: Callable[[], str], done: int, total: int, final: bool = False) -> None:
        """Show ``text()`` for ``done`` of ``total`` (built only when it is shown)."""
        if self.tty:
            now = time.monotonic()
            if now - self.last_draw >= 0.1 or done >= total or final:
                self.last_draw = now
                self.stream.write("\r" + text() + "\033[K")
                self.stream.flush()
            return
        step = done * self.steps // max(1, total)
        now = time.monotonic()
        if step != self.last_step or final or now - self.last_draw >= HEARTBEAT:
            self.last_step = step
            self.last_draw = now
            self.stream.write(text() + "\n")
            self.stream.flush()

    def finish(self) -> None:
        """End the status line."""
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()
