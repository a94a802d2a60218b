"""A run's progress line: games done of total, games per second, time left, faults (drawn by the
one status line, ``arena.statusline``)."""

from __future__ import annotations

import time
from typing import TextIO

from arena.printable import printable
from arena.statusline import StatusLine


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
