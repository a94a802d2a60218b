"""A run's progress line: games done of total, games per second, time left, faults (drawn by the
one status line, ``arena.statusline``), and the steady pace its estimates come from."""

from __future__ import annotations

import re
import time
from typing import TextIO

from arena.printable import printable
from arena.statusline import StatusLine

WARMUP_GAMES = 5
"""Games a run plays before its pace is measured: the first games also pay for starting the bots
(an interpreter's or a JVM's start, the first run of a build), and a pace taken from them put a
demo's first estimate several times too high (16 minutes for a run of 5)."""


class Pace:
    """Games per second at a run's steady pace: measured from its ``WARMUP_GAMES``-th finished
    game on; unknown (None) until one more has finished."""

    def __init__(self, warmup: int = WARMUP_GAMES) -> None:
        self.warmup = warmup
        self.mark: tuple[int, float] | None = None

    def count(self, played: int, now: float) -> None:
        """``played`` games of this run have finished at ``now`` (``time.monotonic()``)."""
        if self.mark is None and played >= self.warmup:
            self.mark = (played, now)

    def rate(self, played: int, now: float) -> float | None:
        """Games per second since the warm-up, or None while it is not known yet."""
        if self.mark is None or played <= self.mark[0]:
            return None
        return (played - self.mark[0]) / max(now - self.mark[1], 1e-9)


class Progress(StatusLine):
    """Games done of total, games per second, time left, faults (and a cluster's workers, a
    league's leader)."""

    def __init__(self, total: int, already: int = 0, faults: int = 0,
                 stream: TextIO | None = None) -> None:
        super().__init__(stream)
        self.total: int | None = total
        """The games at the end; None: not known yet (a run bounded by time, before its pace)."""
        self.already = already
        self.done = already
        self.faults = faults
        self.start = time.monotonic()
        self.workers: int | None = None
        self.leader: str | None = None
        self.deadline: float | None = None
        self.pace = Pace()

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

    def update(self, faults: int, done: int, total: int | None) -> None:
        """Count one finished game and its faults; ``total`` may change (a run bounded by time
        estimates it as it goes, None until it can)."""
        self.done = done
        self.total = total
        self.faults += faults
        now = time.monotonic()
        self.pace.count(done - self.already, now)
        if self.deadline is None:
            self.draw(lambda: self.render(now), done, done if total is None else total)
        else:  # steps of the time given, which do not jump with the estimate
            span = max(self.deadline - self.start, 1e-9)
            self.draw(lambda: self.render(now), round(1000 * min(now - self.start, span)),
                      round(1000 * span))

    def render(self, now: float) -> str:
        """The status line: the games per second and the time left at the steady pace (``Pace``);
        until it is known, the average so far and no time left."""
        played = self.done - self.already
        steady = self.pace.rate(played, now)
        rate = played / max(now - self.start, 1e-9) if steady is None else steady
        elapsed = max(now - self.start, 1e-9)
        width = 24
        if self.deadline is None:
            total = self.done if self.total is None else self.total
            left = ((total - self.done) / steady if steady else
                    0.0 if self.done >= total else None)
            filled = width * self.done // max(1, total)
            games = f"{self.done}/{total} games"
        else:
            left = max(self.deadline - now, 0.0)
            filled = round(width * min(elapsed / max(self.deadline - self.start, 1e-9), 1.0))
            games = (f"{self.done} games (estimating the total)" if self.total is None else
                     f"{self.done} games (about {self.total} in all)")
        bar = "#" * filled + "." * (width - filled)  # PROGRESS_LINE knows this form
        eta = "estimating time" if left is None else _clock(left)
        workers = "" if self.workers is None else f"  {self.workers} workers"
        leader = "" if self.leader is None else f"  leader {printable(self.leader)}"  # a bot's name
        return (f"[{bar}] {games}  {rate:,.1f} games/s  "
                f"{eta} left  {self.faults} faults{workers}{leader}")


PROGRESS_LINE = re.compile(r"\[[#.]{24}\] \d+")
"""The start of a progress line (``Progress.render``): a reader of a run's stderr (the server's
supervisor) knows by it that the run has finished a game."""


def _clock(seconds: float) -> str:
    seconds = int(seconds + 0.5)
    hours, rest = divmod(seconds, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"
