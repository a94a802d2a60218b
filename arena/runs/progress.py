"""A progress line for long runs: games done of total, games per second, time left, faults."""

from __future__ import annotations

import sys
import time
from typing import TextIO


class Progress:
    """Redraws one status line on a terminal (at most 10 times a second); elsewhere, prints a
    line at every tenth of the run, so logs stay short."""

    def __init__(self, total: int, already: int = 0, faults: int = 0,
                 stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stderr
        self.total = total
        self.already = already
        self.done = already
        self.faults = faults
        self.start = time.monotonic()
        self.last_draw = 0.0
        self.last_tenth = -1
        self.tty = self.stream.isatty()
        self.workers: int | None = None

    def show_workers(self, count: int) -> None:
        """Show ``count`` workers in use (a cluster's, which come and go) from the next redraw."""
        self.workers = count

    def update(self, faults: int, done: int, total: int) -> None:
        """Count one finished game and its faults; ``total`` may change (a run bounded by time
        estimates it as it goes)."""
        self.done = done
        self.total = total
        self.faults += faults
        now = time.monotonic()
        if self.tty:
            if now - self.last_draw >= 0.1 or done == total:
                self.last_draw = now
                self.stream.write("\r" + self.render(now) + "\033[K")
                self.stream.flush()
        else:
            tenth = done * 10 // max(1, total)
            if tenth != self.last_tenth:
                self.last_tenth = tenth
                self.stream.write(self.render(now) + "\n")
                self.stream.flush()

    def render(self, now: float) -> str:
        """The status line."""
        played = self.done - self.already
        elapsed = max(now - self.start, 1e-9)
        rate = played / elapsed
        left = (self.total - self.done) / rate if rate > 0 else float("inf")
        width = 24
        filled = width * self.done // max(1, self.total)
        bar = "#" * filled + "." * (width - filled)
        eta = "--:--" if left == float("inf") else _clock(left)
        workers = "" if self.workers is None else f"  {self.workers} workers"
        return (f"[{bar}] {self.done}/{self.total} games  {rate:,.1f} games/s  "
                f"{eta} left  {self.faults} faults{workers}")

    def finish(self) -> None:
        """End the status line."""
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()


def _clock(seconds: float) -> str:
    seconds = int(seconds + 0.5)
    hours, rest = divmod(seconds, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"
