"""An entrant's analysis in a few numbers: mean expected loss per decision, bids and plays apart,
and how many decisions earned each mark."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from arena.analysis.marks import MARKS

AUCTION_KINDS = ("bid", "call")


@dataclass(frozen=True)
class MeanLoss:
    """The mean expected loss of some decisions, and the standard error of that mean across them."""

    decisions: int
    mean: float
    stderr: float

    @classmethod
    def of(cls, losses: list[float]) -> MeanLoss:
        count = len(losses)
        mean = sum(losses) / count if count else 0.0
        spread = (sum((x - mean) ** 2 for x in losses) / (count - 1)) if count > 1 else 0.0
        return cls(count, mean, math.sqrt(spread / count) if count else 0.0)


@dataclass(frozen=True)
class Summary:
    """Mean loss over the decisions that had a choice (forced ones cost nothing and are left out),
    over bids or calls and over plays, and the count of each mark."""

    games: int
    every: MeanLoss
    bids: MeanLoss
    plays: MeanLoss
    marks: dict[str, int] = field(default_factory=dict)


def summarise(decisions: Iterable[Mapping[str, Any]]) -> Summary:
    """The summary of ``decisions`` (``Decision.to_json`` objects)."""
    chosen = [d for d in decisions if d["best"] is not None and len(d["values"]) > 1]
    games = len({d["game"] for d in chosen})
    marks = {name: sum(1 for d in chosen if d["mark"] == name) for name, _ in MARKS}
    return Summary(
        games,
        MeanLoss.of([d["loss"] for d in chosen]),
        MeanLoss.of([d["loss"] for d in chosen if d["kind"] in AUCTION_KINDS]),
        MeanLoss.of([d["loss"] for d in chosen if d["kind"] not in AUCTION_KINDS]),
        marks)
