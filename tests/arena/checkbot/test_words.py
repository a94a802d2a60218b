"""check-bot's words: what a step's line says of what the step saw."""

from __future__ import annotations

from arena.bots.process import Reply
from arena.checkbot.words import squeezed_outcome, stderr_summary
from arena.settings import Clock
from arena.values.faults import Fault, FaultKind


def test_the_squeezed_act_shows_the_charge_it_was_judged_by_and_names_its_clock() -> None:
    # The arena stalled: 6.606 ms passed from request to reply, the wall clock charged 0.412 ms.
    reply = Reply({"id": 7, "action": 0}, elapsed=0.006606, cpu=0.0001, charged=0.000412)
    text = squeezed_outcome(reply, 1, Clock.WALL)
    assert "answered in time and legally: charged 0.412 ms by the wall clock (" in text
    assert "6.606 ms from request to reply" in text
    assert "fair" not in text


def test_a_squeezed_act_that_timed_out_says_which_clock_it_ran_out_of() -> None:
    fault = Fault(FaultKind.TIMEOUT, "bot", "no reply within 1 ms")
    text = squeezed_outcome(fault, 1, Clock.FAIR)
    assert "got no reply within 1 ms by the fair clock (" in text
    assert "recorded as a timeout" in text


def test_the_stderr_summary_says_how_much_and_quotes_the_last_lines_cut() -> None:
    assert stderr_summary(0, 0, 0, "") == ["stderr: nothing written"]
    tail = "\n".join(f"line {n}" for n in range(9)) + "\n\n" + "x" * 500
    said = stderr_summary(3 * 1024 * 1024, 1200, 4, tail)
    assert said[0] == ("stderr: 1200 lines (3.0 MiB) from 4 processes; the last lines of the one "
                       "that wrote most:")
    assert said[1:5] == ["  line 5", "  line 6", "  line 7", "  line 8"]
    assert said[5].startswith("  xxx") and len(said[5]) < 200 and len(said) == 6
    assert stderr_summary(10, 1, 1, "oops")[0] == ("stderr: 1 line (10 bytes) from the process; "
                                                   "its last lines:")
