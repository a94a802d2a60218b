"""Progress lines for long work: the one status-line printer, and a run's games done of total,
games per second, time left, faults."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TextIO

from arena.printable import printable

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


class Progress(StatusLine):
    """Games done of total, games per second, time left, faults (and a cluster's workers, a
    league's leader)."""

    def __init__(self, total: int, already: int = 0, faults: int = 0,
                 stream: TextIO | None = None) -> None:
        super().__init__(stream)
        self.total = total
        self.already = already
        self.done = already
        self.faults = faults
        self.start = time.monotonic()
        self.workers: int | None = None
        self.leader: str | None = None
        self.deadline: float | None = None

    def until(self, deadline: float | None) -> None:
        """Work bounded by time (``league run --minutes``): the bar and the time left measure
        the time to ``deadline`` (``time.monotonic()``), and the total is an estimate."""
        self.deadline = deadline

    def show_workers(self, count: int) -> None:
        """Show ``count`` workers in use (a cluster's, which come and go) from the next redraw."""
        self.workers = count

    def show_leader(self, leader: str | None) -> None:
        """Show who leads the table (a league's), from the next redraw; None: nobody yet."""
        self.leader = leader

    def update(self, faults: int, done: int, total: int) -> None:
        """Count one finished game and its faults; ``total`` may change (a run bounded by time
        estimates it as it goes)."""
        self.done = done
        self.total = total
        self.faults += faults
        now = time.monotonic()
        if self.deadline is None:
            self.draw(lambda: self.render(now), done, total)
        else:  # steps of the time given, which do not jump with the estimate
            span = max(self.deadline - self.start, 1e-9)
            self.draw(lambda: self.render(now), round(1000 * min(now - self.start, span)),
                      round(1000 * span))

    def render(self, now: float) -> str:
        """The status line."""
        played = self.done - self.already
        elapsed = max(now - self.start, 1e-9)
        rate = played / elapsed
        width = 24
        if self.deadline is None:
            left = (self.total - self.done) / rate if rate > 0 else float("inf")
            filled = width * self.done // max(1, self.total)
            games = f"{self.done}/{self.total} games"
        else:
            left = max(self.deadline - now, 0.0)
            filled = round(width * min(elapsed / max(self.deadline - self.start, 1e-9), 1.0))
            games = f"{self.done} games (about {self.total} in all)"
        bar = "#" * filled + "." * (width - filled)
        eta = "--:--" if left == float("inf") else _clock(left)
        workers = "" if self.workers is None else f"  {self.workers} workers"
        leader = "" if self.leader is None else f"  leader {printable(self.leader)}"  # a bot's name
        return (f"[{bar}] {games}  {rate:,.1f} games/s  "
                f"{eta} left  {self.faults} faults{workers}{leader}")


def _clock(seconds: float) -> str:
    seconds = int(seconds + 0.5)
    hours, rest = divmod(seconds, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"
