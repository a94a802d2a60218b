"""An analysis as terminal text: the decisions, and the summary per entrant."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from arena.analysis.marks import MARKS, NOISE_Z
from arena.analysis.selection import Selection
from arena.analysis.summary import Summary, summarise
from arena.printable import printable
from arena.records.reader import is_play_log_id


def decision_line(decision: Mapping[str, Any]) -> str:
    """``r1-t0000-s0 deal 7, decision 3 seat 2 bid: chose 3, best 1, loss 9.4 +- 2.1  blunder``
    (without the id for the lone game of an ``arena play --log`` file). The decision is numbered
    within its deal, as `arena show` and the replays number it; an analysis cached before that
    number was kept names the game-wide one (``decision 43 of the game``)."""
    game = "" if is_play_log_id(decision["game"]) else f"{printable(str(decision['game']))} "
    in_deal = decision.get("in_deal")
    number = (f"decision {in_deal}" if in_deal is not None
              else f"decision {decision['decision']} of the game")
    where = (f"{game}deal {decision['deal']}, {number} "
             f"seat {decision['seat']} {decision['kind']}")
    if decision["best"] is None:
        return f"{where}: chose {_action(decision['chosen'])} (not analysed: no deal fits the view)"
    if len(decision["values"]) < 2:
        return f"{where}: chose {_action(decision['chosen'])} (forced)"
    loss = (f"loss {decision['loss']:.1f} +- {NOISE_Z * decision['stderr']:.1f}")
    mark = f"  {decision['mark']}" if decision["mark"] else ""
    return (f"{where}: chose {_action(decision['chosen'])}, best {_action(decision['best'])}, "
            f"{loss}{mark}")


def values_line(decision: Mapping[str, Any]) -> str:
    """Every action's expected score: ``  0: 4.1  1: 11.3 (best)  2: 6.0 (chosen)``."""
    parts = []
    for action, mean, _ in decision["values"]:
        if mean is None:
            continue
        tags = [tag for tag, which in (("chosen", decision["chosen"]), ("best", decision["best"]))
                if action == which]
        parts.append(f"{_action(action)}: {mean:.1f}" + (f" ({', '.join(tags)})" if tags else ""))
    return "    " + "  ".join(parts)


def summary_lines(entrant: str, summary: Summary) -> list[str]:
    """The summary of one entrant, a few lines."""
    def mean(part: Any) -> str:
        if not part.decisions:
            return "-"
        return f"{part.mean:.2f} +- {NOISE_Z * part.stderr:.2f} ({part.decisions} decisions)"

    marks = ", ".join(_count(summary.marks.get(name, 0), name) for name, _ in MARKS)
    games = f"{summary.games} game{'s' * (summary.games != 1)}"
    return [f"{printable(entrant)}: {games}, mean expected loss per decision "
            f"{mean(summary.every)}",
            f"  bids or calls: {mean(summary.bids)}   plays: {mean(summary.plays)}",
            f"  {marks}"]


def analysis_text(entrant: str, decisions: Sequence[Mapping[str, Any]], *, every: bool,
                  selection: Selection | None = None) -> str:
    """The decisions (every one with a choice when ``every``, else only the marked ones; those of
    ``selection``, worst first, when it selects) and the summary of them all; each decision's
    action values under it when ``every``."""
    if selection is not None and not selection.is_whole():
        shown = selection.of(decisions)
        lines = [selection.heading(len(shown))]
        for decision in shown:
            lines.append(decision_line(decision))
            if every:
                lines.append(values_line(decision))
        return "\n".join([*lines, "", *summary_lines(entrant, summarise(decisions))]) + "\n"
    lines = []
    for decision in decisions:
        if len(decision["values"]) < 2 and decision["best"] is not None:
            continue
        if every:
            lines.append(decision_line(decision))
            if decision["best"] is not None:
                lines.append(values_line(decision))
        elif decision["mark"]:
            lines.append(decision_line(decision))
    if not every:
        lines.insert(0, "marked decisions (loss beyond its noise):" if lines
                     else "no marked decision")
    return "\n".join([*lines, "", *summary_lines(entrant, summarise(decisions))]) + "\n"


def _action(action: Any) -> str:
    return printable(str(action))


def _count(count: int, mark: str) -> str:
    if count == 1:
        return f"1 {mark}"
    return f"{count} {mark[:-1]}ies" if mark.endswith("y") else f"{count} {mark}s"
