"""Human-readable reports of one game record: a deal-by-deal table, the final places, the faults.

The record's text (names, fault details, what a bot sent, its stderr) is a bot's or a results
file's, so the report is made from a ``printable_data`` copy: every string one line (table cells
stay cells), the stderr tail a block of lines.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tabulate import tabulate

import engine
from arena.printable import printable_data
from arena.records.reader import decision_words

BLOCKS = ("stderr_tail",)
"""A record's fields that are blocks of lines (shown line by line); every other string is one line."""


def game_report(record: Mapping[str, Any]) -> str:
    """The deal-by-deal table, the final places and any faults, as text (every string of the
    record made printable: ``arena.printable``)."""
    record = printable_data(record, blocks=BLOCKS)
    info = engine.game(record["game"]).info
    # The table follows the game's auction: bids by seat, or calls ending in one team's contract.
    table = _call_deals(record, info) if "call" in info.decision_kinds else _bid_deals(record)
    parts = [table, "", _final(record)]
    if record.get("faults"):
        parts += ["", _faults(record)]
    return "\n".join(parts)


def _bid_deals(record: Mapping[str, Any]) -> str:
    names = record["names"]
    rows = []
    for deal in record["deals"]:
        bids = dict(deal["bids"])
        cells = [f"{bids[s]}/{deal['tricks'][s]} {deal['scores'][s]:+d} ={deal['totals'][s]}"
                 for s in range(len(names))]
        trump = deal["trump_card"] or "-"
        rows.append([deal["deal"], deal["hand_size"], trump, names[deal["dealer"]], *cells])
    headers = ["deal", "cards", "trump", "dealer", *names]
    note = "each seat: bid/tricks taken, the deal's score, =running total"
    return f"{tabulate(rows, headers=headers, disable_numparse=True)}\n({note})"


def _call_deals(record: Mapping[str, Any], info: engine.GameInfo) -> str:
    names = record["names"]
    teams = info.entrants(names)
    rows = []
    for deal in record["deals"]:
        calls = " ".join(f"{names[s]}:{c}" for s, c in deal["calls"])
        contract = deal["contract"]
        if contract is None:
            what = "void (both pass)"
        else:
            target = "zero" if contract["kind"] == "zero" else str(contract["tricks"])
            what = f"{teams[contract['team']]} {target}"
        tricks = deal["tricks"]
        rows.append([deal["deal"], names[deal["dealer"]], calls, what,
                     f"{tricks[0] + tricks[2]}-{tricks[1] + tricks[3]}",
                     f"{deal['scores'][0]:+d} ={deal['totals'][0]}",
                     f"{deal['scores'][1]:+d} ={deal['totals'][1]}"])
    headers = ["deal", "dealer", "calls", "contract", "tricks", *teams]
    note = (f"tricks: {teams[0]}'s-{teams[1]}'s; each team: the deal's score, =running total")
    return f"{tabulate(rows, headers=headers, disable_numparse=True)}\n({note})"


def _final(record: Mapping[str, Any]) -> str:
    names = record["names"]
    entrants = engine.game(record["game"]).info.entrants(names)
    places, forfeits = record["result"]["ranks"], record["result"]["forfeits"]
    order = sorted(range(len(entrants)), key=lambda i: (places[i], i))
    headers = ["place", "entrant" if len(entrants) == 2 else "bot", "score"]
    rows = [[places[i], entrants[i], record["scores"][i]] for i in order]
    if any(forfeits):  # the column only when it says something
        headers.append("forfeit")
        rows = [[*row, "forfeit" if forfeits[i] else ""] for row, i in zip(rows, order, strict=True)]
    return tabulate(rows, headers=headers)


def _faults(record: Mapping[str, Any]) -> str:
    lines = ["faults:"]
    for fault in record["faults"]:
        where = decision_words(record, int(fault["decision"]))  # per deal, as a person reads
        lines.append(f"  seat {fault['seat']} ({fault['bot']}), {where}: "
                     f"{fault['kind']}: {fault['detail']}")
        if fault.get("received"):
            lines.append(f"    received: {fault['received']}")
        if fault.get("stderr_tail"):
            tail = fault["stderr_tail"].rstrip().splitlines()[-3:]
            lines += [f"    stderr: {line}" for line in tail]
    return "\n".join(lines)
