"""What check-bot says, in words: a game it played described, its faults reported, a start that
failed, an exit after ``quit`` judged, the bot's stderr quoted, a warning about slow decisions.

``arena.checkbot.steps`` runs the steps and decides what passed; these turn what it saw into the
lines of its ``StepResult``s, which ``arena check-bot`` prints and a league keeps.
"""

from __future__ import annotations

import signal
from collections.abc import Mapping, Sequence
from typing import Any

from arena.bots.process import BotProcess, Reply
from arena.errors import BotStartError
from arena.records.reader import decision_words
from arena.referee.referee import GameOutcome
from arena.settings import Clock
from arena.values.faults import QUOTED_STDERR_LINES, Fault, last_lines, snippet

DETAIL_CHARS = 120
"""The most characters of a line of the bot's (sent, received, stderr) a detail quotes."""


def slow_decision_note(answers: Sequence[float], move_ms: int) -> str | None:
    """A warning when the slowest answer (seconds) took over half of ``move_ms``, else None."""
    if not answers or max(answers) * 1000 <= move_ms / 2:
        return None
    slowest_ms = max(answers) * 1000
    over = sum(1 for t in answers if t * 1000 > move_ms / 2)
    return (f"warning: the slowest decision took {slowest_ms:.0f} ms, over half of move_ms "
            f"{move_ms} ({over} of {len(answers)} decisions were): on a busy tournament machine "
            f"that becomes timeouts; answer faster, or agree on a larger move_ms")


CLOCK_CHARGES = {
    Clock.FAIR: "the fair clock (the bot's own time: its wall time less its waits for a CPU and "
                "the arena's stalls)",
    Clock.CPU: "the CPU clock (its process tree's CPU time)",
    Clock.WALL: "the wall clock (its wall time less the arena's own stalls)",
}
"""What each clock charges a decision, said where a figure it charged is shown."""


def squeezed_outcome(outcome: Reply | Fault, allowance_ms: int, clock: Clock) -> str:
    """How the one ``act`` of ``allowance_ms`` went, with the figure ``clock`` judged it by:
    ``an act with time_ms 1 was answered in time and legally: charged 0.412 ms by the wall clock
    (...), 6.606 ms from request to reply``."""
    act = f"an act with time_ms {allowance_ms}"
    if isinstance(outcome, Fault):
        return (f"{act} got no reply within {allowance_ms} ms by {CLOCK_CHARGES[clock]}: recorded "
                "as a timeout, the arena played the seat's remaining decisions")
    return (f"{act} was answered in time and legally: charged {outcome.charged * 1000:.3f} ms by "
            f"{CLOCK_CHARGES[clock]}, {outcome.elapsed * 1000:.3f} ms from request to reply")


def start_failure(bot: BotProcess, error: BotStartError) -> str:
    """The start error, prefixed by the fault kind when the handshake (not the spawn) failed."""
    fault = bot.last_fault
    return f"{fault.kind.value}: {error}" if fault is not None else str(error)


def decision_counts(record: Mapping[str, Any]) -> dict[str, int]:
    """How many decisions of each kind a game record holds."""
    counts = {"bid": 0, "call": 0, "play": 0}
    for deal in record["deals"]:
        for kind, key in (("bid", "bids"), ("call", "calls"), ("play", "plays")):
            counts[kind] += len(deal.get(key, ()))
    return counts


def describe_game(record: Mapping[str, Any], answers: Sequence[float]) -> str:
    """``3 deals, no faults; answered 12 bids and 24 plays legally; slowest answer 1.2 ms``
    (``answers``: the seconds each answer of the game took)."""
    counts = decision_counts(record)
    answered = " and ".join(f"{n} {kind}s" for kind, n in counts.items() if n)
    deals = len(record["deals"])
    return (f"{deals} deal{'s' if deals != 1 else ''}, no faults; answered {answered} legally; "
            f"{slowest(answers)}")


def slowest(answers: Sequence[float]) -> str:
    """``slowest answer 1.2 ms`` of the seconds ``answers`` took, or ``no answers``."""
    if not answers:
        return "no answers"
    ms = max(answers) * 1000
    return f"slowest answer {ms:.2f} ms" if ms < 1 else f"slowest answer {ms:.1f} ms"


def game_stderr(outcome: GameOutcome) -> str:
    """The stderr tail of the game's first fault (what ``game_problem`` reports), or ""."""
    faults = outcome.record["faults"]
    return str(faults[0]["stderr_tail"]) if faults else ""


def stderr_lines(stderr: str) -> list[str]:
    """A step's stderr as check-bot shows it after the detail: its last non-blank lines (as many
    as a failed start shows, ``QUOTED_STDERR_LINES``), each cut to ``DETAIL_CHARS``, the first
    labelled ``stderr:``."""
    lines = last_lines(stderr, QUOTED_STDERR_LINES)
    return [f"{'stderr:' if index == 0 else '':<10}{snippet(line, DETAIL_CHARS)}"
            for index, line in enumerate(lines)]


def stderr_summary(size: int, lines: int, processes: int, tail: str) -> list[str]:
    """What the bot wrote to stderr over a check, said whether it passed or not: ``stderr: 200
    lines (9.8 KiB) from 4 processes; the last lines of the one that wrote most:`` then those
    lines (the last ``QUOTED_STDERR_LINES``, each cut as ``stderr_lines`` cuts them);
    ``stderr: nothing written`` when it wrote nothing."""
    if not size:
        return ["stderr: nothing written"]
    amount = f"{size} bytes" if size < 1024 else (
        f"{size / 1024:.1f} KiB" if size < 1024 * 1024 else f"{size / 1024 / 1024:.1f} MiB")
    whose = "the process" if processes == 1 else f"{processes} processes"
    last = "its last lines" if processes == 1 else "the last lines of the one that wrote most"
    head = f"stderr: {lines} line{'s' if lines != 1 else ''} ({amount}) from {whose}; {last}:"
    return [head, *(f"  {snippet(line, DETAIL_CHARS)}"
                    for line in last_lines(tail, QUOTED_STDERR_LINES))]


def game_problem(outcome: GameOutcome) -> str | None:
    """The faults of a game as a report, or None for a clean game."""
    faults = outcome.record["faults"]
    if not faults:
        return None
    return fault_report(faults, outcome.record)


def fault_report(faults: Sequence[Mapping[str, Any]], record: Mapping[str, Any]) -> str:
    """The first fault in full (kind, where, detail, what was sent and received), then a one-line
    summary of the others. Its stderr is not in it: the step's ``stderr`` (``game_stderr``). The
    decision is numbered within its deal (``record``'s game-wide number converted)."""
    first = faults[0]
    lines = [f"{first['kind']}: {first['detail']} (seat {first['seat']}, "
             f"{decision_words(record, int(first['decision']))})"]
    if first["sent"]:
        lines.append(f"sent:     {snippet(first['sent'], DETAIL_CHARS)}")
    lines.append(f"received: {snippet(first['received'], DETAIL_CHARS) or '(nothing)'}")
    if len(faults) > 1:
        others = ", ".join(f"seat {f['seat']} {f['kind']}" for f in faults[1:6])
        more = f", ... ({len(faults) - 6} more)" if len(faults) > 6 else ""
        lines.append(f"{len(faults) - 1} more fault{'s' if len(faults) > 2 else ''}: {others}{more}")
    return "\n".join(lines)


def quit_problem(returncode: int | None, exit_seconds: float | None,
                 grace_ms: int) -> str | None:
    """Why a process's exit after ``quit`` fails the check: only not exiting within the grace.

    ``exit_seconds`` is how long after ``quit`` the exit was seen (None: it was not, and the
    arena killed the process group). How it exited (its status) is reported, not judged.
    """
    if exit_seconds is not None:
        return None
    if returncode is None:
        return "did not exit after quit, and could not be killed"
    return (f"did not exit within the quit grace of {grace_ms} ms; the arena killed it "
            "(a bot flushing a large log or a slow runtime may need more: --quit-grace-ms)")


def quit_status(returncode: int | None) -> str:
    """How a process ended, in words: "status 0", "status 3", "signal SIGSEGV"."""
    if returncode is None:
        return "status unknown"
    if returncode < 0:
        try:
            return f"signal {signal.Signals(-returncode).name}"
        except ValueError:
            return f"signal {-returncode}"
    return f"status {returncode}"
