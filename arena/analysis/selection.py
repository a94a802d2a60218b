"""Which analysed decisions to list, and in what order: the costliest first, the ``N`` worst,
only those with some marks (``arena analyse --top N --marks mistake,blunder``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from arena.analysis.marks import MARKS

D = TypeVar("D", bound=Mapping[str, Any])


@dataclass(frozen=True)
class Selection:
    """The decisions to list: at most ``top`` (None: every one), of those whose mark is in
    ``marks`` (None: marked or not), the largest expected loss first."""

    top: int | None = None
    marks: frozenset[str] | None = None

    def is_whole(self) -> bool:
        """True when nothing is selected or reordered: the decisions are listed in game order."""
        return self.top is None and self.marks is None

    def of(self, decisions: Iterable[D]) -> list[D]:
        """The decisions selected, worst first (equal losses in game order). Only decisions with
        a choice that were analysed are ranked: a forced one, or one no deal fitted, has no loss."""
        chosen = [d for d in decisions if d["best"] is not None and len(d["values"]) > 1
                  and (self.marks is None or d["mark"] in self.marks)]
        chosen.sort(key=lambda d: -d["loss"])
        return chosen if self.top is None else chosen[:self.top]

    def heading(self, count: int) -> str:
        """What the list below holds: ``the 3 costliest decisions marked mistake or blunder``."""
        marked = "" if self.marks is None else " marked " + " or ".join(
            name for name, _ in reversed(MARKS) if name in self.marks)
        if not count:
            return f"no decision{marked}"
        return (f"the {count} costliest decisions{marked}, worst first:" if count > 1
                else f"the costliest decision{marked}:")
