"""`arena show`: one game from a results file as text, deal by deal and trick by trick.

Each deal: the dealer, the turned card and trump, the hands (all of them, or one seat's only), the
bids or calls and every trick with each decision's time, the faults where they happened; then the
deal-by-deal table and places that `arena play` prints (`arena.report.transcript.game_report`).
Like that report, it is made from a copy of the record whose every string is printable (bots'
names and fault details, or whatever a results file from elsewhere holds). What each bot wrote to
stderr while deciding (``arena.report.replay_stderr``, escaped there) follows the line of its decision.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena.errors import ConfigError
from arena.printable import printable_data
from arena.records.reader import decision_words, is_play_log_id
from arena.report.transcript import BLOCKS, game_report


def show_game(record: Mapping[str, Any], seat: int | None = None,
              said: Mapping[str, Any] | None = None) -> str:
    """The game as text; with ``seat``, only what that seat knew (its own hand, public play, and
    only its own stderr). ``said``: the bots' stderr by decision (``StderrShown.of``)."""
    if seat is not None and not 0 <= seat < len(record["names"]):  # the CLI prints errors
        raise ConfigError(f"--seat: {seat} is not a seat of game {record['id']} "
                          f"(seats 0 to {len(record['names']) - 1})")
    raw, record = record, printable_data(record, blocks=BLOCKS)  # game_report escapes its own
    names = record["names"]
    faults: dict[int, list[Mapping[str, Any]]] = {}
    for fault in record["faults"]:
        faults.setdefault(fault["decision"], []).append(fault)
    stderr: dict[int, list[str]] = {}
    for number, writer, text in (said or {}).get("decisions", ()):
        if seat is None or writer == seat:
            stderr.setdefault(number, []).extend(
                [f"    seat {writer} stderr at {decision_words(raw, number)}:",
                 *(f"    | {line}" for line in str(text).splitlines())])
    who = "every hand" if seat is None else f"seat {seat} ({names[seat]})'s view"
    named = "" if is_play_log_id(record["id"]) else f"game {record['id']}: "
    lines = [f"{named}{record['game']}, seats: "
             + ", ".join(f"{s} {name}" for s, name in enumerate(names)) + f"; showing {who}"]
    if said and said.get("note"):  # why stderr is missing: on a cluster, cut, dropped
        lines.append(f"stderr: {said['note']}")
    for fault in faults.get(0, ()):
        lines.append(_fault_line(raw, fault))
    decision = 0
    for deal in record["deals"]:
        lines.append("")
        trump = deal["trump"] or "none"
        turned = deal["trump_card"] or "-"
        cards = deal.get("hand_size")
        size = f", {cards} card{'' if cards == 1 else 's'}" if cards is not None else ""
        lines.append(f"deal {deal['deal']}{size}: dealer seat {deal['dealer']}, turned {turned}, "
                     f"trump {trump}")
        for s, hand in enumerate(deal["hands"]):
            hidden = f"({len(hand)} card{'' if len(hand) == 1 else 's'})"
            shown = " ".join(hand) if seat is None or seat == s else hidden
            lines.append(f"  seat {s} {names[s]:<14} {shown}")
        auction_key = "bids" if "bids" in deal else "calls"
        times = deal[f"{auction_key[:-1]}_ms"] or []  # null: not recorded
        bids = []
        for index, (s, value) in enumerate(deal[auction_key]):
            decision += 1
            bids.append(f"{s}:{value}{_ms(times, index)}")
        lines.append(f"  {auction_key}: " + "  ".join(bids))
        lines += [_fault_line(raw, f) for d in range(decision - len(bids) + 1, decision + 1)
                  for f in faults.get(d, ())]
        lines += [text for d in range(decision - len(bids) + 1, decision + 1)
                  for text in stderr.get(d, ())]
        if deal.get("contract", 0) is None:
            lines.append("  contract: none (void deal)")
        elif "contract" in deal:
            contract = deal["contract"]
            target = "zero" if contract["kind"] == "zero" else f"{contract['tricks']} tricks"
            lines.append(f"  contract: team {contract['team']} {target}")
        players = len(names)
        plays = deal["plays"]
        play_ms = deal["play_ms"] or []
        counted = [0] * players
        for start in range(0, len(plays), players):
            trick = plays[start:start + players]
            cells = []
            for offset, (s, card) in enumerate(trick):
                decision += 1
                cells.append(f"{s}:{card}{_ms(play_ms, start + offset)}")
            winner = _winner(deal, plays, start + players, counted)
            if winner is not None:
                counted[winner] += 1
            won = "" if winner is None else f"  -> seat {winner}{_team_of(record, winner)}"
            lines.append(f"  trick {start // players + 1:>2}: " + "  ".join(cells) + won)
            lines += [_fault_line(raw, f) for d in range(decision - len(trick) + 1, decision + 1)
                      for f in faults.get(d, ())]
            lines += [text for d in range(decision - len(trick) + 1, decision + 1)
                      for text in stderr.get(d, ())]
        lines.append(f"  tricks {deal['tricks']}  score {deal['scores']}  totals {deal['totals']}")
    lines += ["", "(each decision: seat:action (ms the bot took; 'fb': the fallback played it))",
              "", game_report(raw)]
    return "\n".join(lines)


def _winner(deal: Mapping[str, Any], plays: list[list[Any]], end: int,
            counted: list[int]) -> int | None:
    """Who won the trick ending before ``end``: the next trick's leader, or for the last trick
    the seat with a trick not yet counted (the record's tricks, so no rules are repeated here)."""
    if end < len(plays):
        return int(plays[end][0])
    if end > len(plays):
        return None
    left = [seat for seat, taken in enumerate(deal["tricks"]) if taken > counted[seat]]
    return left[0] if left else None


def _team_of(record: Mapping[str, Any], seat: int) -> str:
    """`` (team T NAME)`` for a seat of a partnership, whose tricks count for its team."""
    for team, seats in enumerate(record.get("teams") or ()):
        if seat in seats:
            return f" (team {team} {record['result']['entrants'][team]})"
    return ""


def _ms(times: list[float | None], index: int) -> str:
    if index >= len(times):
        return ""
    value = times[index]
    return " (fb)" if value is None else f" ({value:.1f} ms)"


def _fault_line(record: Mapping[str, Any], fault: Mapping[str, Any]) -> str:
    """A fault where it happened, its decision numbered within its deal as everywhere a person
    reads (the record keeps the game-wide number)."""
    return (f"  ! fault at {decision_words(record, int(fault.get('decision', 0)))}: "
            f"seat {fault['seat']} "
            f"({fault['bot']}) {fault['kind']}: {fault['detail']}")
