"""How bad a decision's expected loss is: the marks and their thresholds (docs/analysis.md).

A mark counts only when the loss is beyond its noise: more than ``NOISE_Z`` standard errors of the
paired difference. Below that the search cannot tell the chosen action from the best one.
"""

from __future__ import annotations

from arena.errors import ConfigError

MARKS: tuple[tuple[str, float], ...] = (("blunder", 6.0), ("mistake", 3.0), ("inaccuracy", 1.0))
"""Each mark and the least expected loss, in points of the deal's score, that earns it (the worst
first). With the default scoring a missed bid costs its bonus (10) and its tricks: a blunder costs
more than half of that, a mistake a fair part of it, an inaccuracy about a trick's point."""
MARKED = frozenset(name for name, _ in MARKS)
"""Every mark: the decisions that earned one."""
NOISE_Z = 2.0
"""A loss counts only above this many standard errors (about 95% one-sided confidence that it is
a loss at all)."""


def mark_of(loss: float, stderr: float) -> str | None:
    """The mark a decision earns with expected ``loss`` and its ``stderr``; None for none."""
    if loss <= NOISE_Z * stderr:
        return None
    return next((name for name, least in MARKS if loss >= least), None)


def marks_named(value: str, where: str = "--marks") -> frozenset[str]:
    """The marks of a comma-separated ``value`` (``mistake,blunder``); ConfigError naming ``where``
    and the marks there are otherwise."""
    names = [name.strip() for name in value.split(",")]
    known = [name for name, _ in reversed(MARKS)]
    unknown = [name for name in names if name not in known]
    if unknown:
        raise ConfigError(f"{where}: {unknown[0]!r} is not a mark (marks: {', '.join(known)})")
    return frozenset(names)
