"""The fault summary printed after a run's table: per bot, faults by kind, one example of each.

So that a user sees what went wrong without digging through ``games.jsonl``: for each bot that
faulted, how many faults of each kind, and for each kind the game id, place and detail of its
first one (``arena play GAME ... --seed`` or the game's line in games.jsonl shows the rest). What
it quotes from the results (names, details) is made ``printable`` as it is rendered.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from arena.printable import printable
from arena.records.reader import decision_in_deal
from arena.values.faults import FaultKind, snippet

DETAIL_CHARS = 120
"""How much of an example's detail the summary shows."""


@dataclass
class FaultExample:
    """The first fault of one kind for one bot: where it happened and why."""

    game_id: str
    deal: int | None
    decision: int | None
    """Its number within the deal (from 1), as a person reads it; the record's is game-wide."""
    detail: str


@dataclass
class FaultSummary:
    """Faults counted by bot and kind, with the first example of each; fed one game at a time."""

    counts: dict[str, dict[str, int]] = field(default_factory=dict)
    examples: dict[str, dict[str, FaultExample]] = field(default_factory=dict)
    stalls: int = 0
    """Waits for a bot that woke up late because the arena itself did not run (records' ``stalls``)."""

    def add_stalls(self, stalls: int) -> None:
        """Count one game's stalls of the arena (the sum of its record's ``stalls``)."""
        self.stalls += stalls

    def add(self, game_id: str, record: Mapping[str, Any]) -> None:
        """Count the faults of one game (the ``faults`` of its result line ``record``), each
        example's decision numbered within its deal."""
        for fault in record.get("faults") or ():
            bot, kind = str(fault.get("bot")), str(fault.get("kind"))
            by_kind = self.counts.setdefault(bot, {})
            by_kind[kind] = by_kind.get(kind, 0) + 1
            number = fault.get("decision")
            where = decision_in_deal(record, number) if isinstance(number, int) else None
            self.examples.setdefault(bot, {}).setdefault(kind, FaultExample(
                game_id, fault.get("deal") if where is None else where[0],
                None if where is None else where[1], str(fault.get("detail", ""))))

    @property
    def total(self) -> int:
        """Every fault counted."""
        return sum(sum(by_kind.values()) for by_kind in self.counts.values())

    def render(self) -> str:
        """``faults by bot:`` and a block per bot, most faults first, then the arena's stalls;
        empty when there were neither."""
        stalled = (f"the machine was overloaded: {self.stalls} decision"
                   f"{'s were' if self.stalls != 1 else ' was'} late because the arena itself "
                   f"did not run (not held against the bots)") if self.stalls else ""
        if not self.counts:
            return stalled
        order = [kind.value for kind in FaultKind]
        lines = ["faults by bot (one example of each kind; the game's line in games.jsonl has "
                 "the rest):"]
        for bot in sorted(self.counts, key=lambda b: (-sum(self.counts[b].values()), b)):
            by_kind = self.counts[bot]
            kinds = sorted(by_kind, key=lambda k: (order.index(k) if k in order else len(order), k))
            counted = ", ".join(f"{kind} {by_kind[kind]}" for kind in kinds)
            lines.append(f"  {printable(bot)}: {sum(by_kind.values())} ({printable(counted)})")
            for kind in kinds:
                example = self.examples[bot][kind]
                where = printable(example.game_id)
                if example.deal is not None:
                    where += f" deal {example.deal}"
                if example.decision is not None:
                    where += f", decision {example.decision}"
                detail = printable(snippet(example.detail, DETAIL_CHARS))  # cut, then escaped
                lines.append(f"    {printable(kind)}: {where}: {detail}")
        if stalled:
            lines.append(stalled)
        return "\n".join(lines)
