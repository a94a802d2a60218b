"""Closing bot processes together: ``quit`` to each, one shared grace, then each group killed.

A bot is closed in two steps (``arena.bots.process.BotProcess``): ``begin_close`` says ``quit`` and
closes its stdin, ``finish_close`` kills its process group and reaps it. Between the two, every
bot being closed has the same grace to exit by itself, while all their stderr pipes keep being
drained (``arena.bots.channel.wait_exits``): closing a table of bots costs one grace, not one per
bot, and a bot flushing a large log as it exits is never blocked. A bot kept waiting for a CPU
meanwhile, or for the arena to read its log, is given that time again (``_give_back_waits``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol

from arena.bots.channel import Channel, wait_exits

QUIT_WAIT_CAP = 10
"""A quit grace grows by the bot's waits for a CPU up to this many times the grace in all."""


class Closing(Protocol):
    """A bot as its closing sees it (``arena.bots.process.BotProcess``)."""

    @property
    def quit_grace(self) -> float:
        """Seconds it has to exit after ``quit``."""
        ...

    def begin_close(self) -> Channel | None:
        """Say ``quit`` and close its stdin: the channel to wait on (None: not started)."""
        ...

    def finish_close(self, exit_seconds: float | None) -> None:
        """Kill its process group and reap it; ``exit_seconds``: how long its exit took (None:
        it had to be killed)."""
        ...

    def waited_for_cpu(self) -> float | None:
        """How long it waited for a CPU since it was last asked; None when it is not timed."""
        ...


def close_bots(bots: Iterable[Closing], grace: float | None = None) -> None:
    """Close several bots at once: ``quit`` to all, one shared grace during which all their stderr
    pipes keep being drained, then SIGKILL to every process group.

    ``grace`` is in seconds; None gives each bot its own ``quit_grace`` (its limits' setting).
    """
    closing = [(bot, channel) for bot in bots if (channel := bot.begin_close()) is not None]
    if not closing:
        return
    timeout = max(bot.quit_grace for bot, _ in closing) if grace is None else grace
    full_reads = [channel.sink.full_reads for _, channel in closing]
    exits = wait_exits([channel for _, channel in closing], timeout)
    _give_back_waits(closing, exits, timeout, full_reads)
    for (bot, _), seconds in zip(closing, exits, strict=True):
        bot.finish_close(seconds)


def _give_back_waits(closing: Sequence[tuple[Closing, Channel]], exits: list[float | None],
                     timeout: float, full_reads: list[int]) -> None:
    """Bots still running when the grace ends are given again the time that was not theirs, and
    waited for again (``exits`` is updated): the time they waited for a CPU during it, as the fair
    clock gives a decision, and a whole grace more while the arena found their stderr pipe full
    (they were flushing a log faster than the arena could read it: blocked on the arena, not on
    their own work). On a loaded machine a bot that exits cleanly must not be killed, and faulted
    by check-bot, for the CPU it did not get or the arena's own slowness. A bot that does not exit
    (it ignores ``quit``, it spins, it writes without end) waits no more than its grace, plus what
    it is given, up to ``QUIT_WAIT_CAP`` times the grace. ``full_reads``: each sink's count of
    full reads when the grace began."""
    spent = timeout
    while spent < QUIT_WAIT_CAP * timeout:
        late = []
        owed = 0.0
        for index, seconds in enumerate(exits):
            if seconds is not None:
                continue
            waited = closing[index][0].waited_for_cpu()
            reads = closing[index][1].sink.full_reads
            if reads > full_reads[index]:  # its log was still waiting on the arena's reading
                waited = max(waited or 0.0, timeout)
            full_reads[index] = reads
            if waited is not None:
                late.append(index)
                owed = max(owed, waited)
        if not late or owed < 0.005:  # it had the CPU it needed: the grace was its own
            return
        extra = min(owed, QUIT_WAIT_CAP * timeout - spent)
        more = wait_exits([closing[index][1] for index in late], extra)
        for index, seconds in zip(late, more, strict=True):
            if seconds is not None:
                exits[index] = spent + seconds
        spent += extra
