"""How bad a decision's expected loss is: the marks and their thresholds (docs/analysis.md).

A mark counts only when the loss is beyond its noise: more than ``NOISE_Z`` standard errors of the
paired difference. Below that the search cannot tell the chosen action from the best one.
"""

from __future__ import annotations

MARKS: tuple[tuple[str, float], ...] = (("blunder", 6.0), ("mistake", 3.0), ("inaccuracy", 1.0))
"""Each mark and the least expected loss, in points of the deal's score, that earns it (the worst
first). With the default scoring a missed bid costs its bonus (10) and its tricks: a blunder costs
more than half of that, a mistake a fair part of it, an inaccuracy about a trick's point."""
NOISE_Z = 2.0
"""A loss counts only above this many standard errors (about 95% one-sided confidence that it is
a loss at all)."""


def mark_of(loss: float, stderr: float) -> str | None:
    """The mark a decision earns with expected ``loss`` and its ``stderr``; None for none."""
    if loss <= NOISE_Z * stderr:
        return None
    return next((name for name, least in MARKS if loss >= least), None)
