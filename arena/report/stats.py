"""Per-entrant statistics of a set of games: place, score, bidding, decision times, bank use, faults.

Entrants are the result's entrants: a seat's bot in Blackout, a team in Partnership Blackout (its
two seats' decisions count for it). Bidding in Blackout is each bid against the tricks its seat
took; in Partnership Blackout it is the contract of the team that won the auction against the
tricks the team took.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from arena.report.game_records import Game


@dataclass(frozen=True)
class FaultRef:
    """One fault of an entrant, with where to see it: the game's key, its deal, and its decision
    within that deal (from 1; 0: before the deal's first decision)."""

    game: str
    game_id: str
    seat: int
    deal: int
    step: int
    kind: str
    detail: str


@dataclass
class EntrantStats:
    """Everything the report shows about one entrant, summed over its games."""

    name: str
    games: int = 0
    score_sum: float = 0.0
    place_sum: int = 0
    forfeits: int = 0
    contracts: int = 0  # bids (Blackout) or contracts won (Partnership)
    exact: int = 0  # of which made exactly (Blackout) or made (Partnership)
    by_size: dict[int, list[float]] = field(default_factory=dict)  # size -> [count, bids, tricks]
    times: list[float] = field(default_factory=list)
    cpu_times: list[float] = field(default_factory=list)  # ms of the bot's own CPU per decision
    bank_shares: list[float] = field(default_factory=list)  # per seat and game: share of bank used
    faults: list[FaultRef] = field(default_factory=list)
    by_contract: bool = False  # True when the bidding figures are a team's contracts
    analysed: list[dict[str, Any]] = field(default_factory=list)  # arena analyse's decisions

    @property
    def average_score(self) -> float:
        """Mean final score per game."""
        return self.score_sum / self.games if self.games else 0.0

    @property
    def average_place(self) -> float:
        """Mean place (after the fault policy) per game."""
        return self.place_sum / self.games if self.games else 0.0

    @property
    def exact_rate(self) -> float | None:
        """Share of bids made exactly (Blackout) or of contracts made (Partnership)."""
        return self.exact / self.contracts if self.contracts else None

    def time_summary(self) -> dict[str, float] | None:
        """Median, 95th percentile and maximum decision time (wall) in ms; None when none were
        recorded."""
        return _summary(self.times)

    def cpu_summary(self) -> dict[str, float] | None:
        """The same of the CPU time the bot's process tree used per decision (records from issue
        19 on have it); None when none were recorded."""
        return _summary(self.cpu_times)

    def faults_by_kind(self) -> dict[str, int]:
        """Fault counts by kind, most frequent first."""
        return dict(Counter(f.kind for f in self.faults).most_common())


def _summary(times: list[float]) -> dict[str, float] | None:
    if not times:
        return None
    values = np.asarray(times)
    return {"median": float(np.median(values)), "p95": float(np.percentile(values, 95)),
            "max": float(values.max()), "count": float(len(values))}


def entrant_stats(games: Iterable[Game]) -> dict[str, EntrantStats]:
    """Statistics of every entrant in ``games``, by name."""
    stats: dict[str, EntrantStats] = {}
    for game in games:
        add_game(stats, game)
    return stats


def add_game(stats: dict[str, EntrantStats], game: Game) -> None:
    """Add one game to ``stats`` (by entrant name), creating the rows of new entrants."""
    record = game.record
    result = record["result"]
    entrants = game.entrants
    rows = [stats.setdefault(name, EntrantStats(name)) for name in entrants]
    for index, row in enumerate(rows):
        row.games += 1
        row.score_sum += result["scores"][index]
        row.place_sum += result["ranks"][index]
        row.forfeits += result["forfeits"][index]
    seat_rows = [rows[game.entrant_of_seat(seat)] for seat in range(len(record["names"]))]
    for deal in record["deals"]:
        if "bids" in deal:
            _blackout_bids(deal, seat_rows)
        elif deal.get("contract"):
            _partnership_contract(deal, record, rows)
        for kind, actions_key in (("bid", "bids"), ("call", "calls"), ("play", "plays")):
            if actions_key in deal:
                seats = [seat for seat, _ in deal[actions_key]]
                for row, ms in _timed(seats, deal[f"{kind}_ms"], seat_rows):
                    row.times.append(ms)
                for row, ms in _timed(seats, deal[f"{kind}_cpu_ms"], seat_rows):
                    row.cpu_times.append(ms)
    control, used = record["time_control"], record["bank_used_ms"]
    if control is not None and control["bank_ms"] and used is not None:
        for seat, spent in enumerate(used):
            seat_rows[seat].bank_shares.append(spent / control["bank_ms"])
    firsts = _first_decisions(record)
    for fault in record["faults"]:
        seat = fault["seat"]
        deal, decision = fault["deal"], fault["decision"]
        step = max(0, decision - firsts.get(deal, decision) + 1) if decision else 0
        seat_rows[seat].faults.append(FaultRef(game.key, record["id"], seat, deal, step,
                                               fault["kind"], fault["detail"]))


def _timed(seats: list[int], times: list[float | None] | None,
           seat_rows: list[EntrantStats]) -> Iterator[tuple[EntrantStats, float]]:
    """``(row, ms)`` of each decision with a time (a line that has none: null)."""
    for seat, ms in zip(seats, times or (), strict=False):
        if ms is not None:
            yield seat_rows[seat], float(ms)


def _first_decisions(record: dict[str, Any]) -> dict[int, int]:
    """Each deal's first game-wide decision number (records number faults game-wide; the report
    numbers decisions within their deal, as its replay viewer does)."""
    firsts: dict[int, int] = {}
    before = 0
    for deal in record["deals"]:
        firsts[deal["deal"]] = before + 1
        before += sum(len(deal.get(key, ())) for key in ("bids", "calls", "plays"))
    return firsts


def _blackout_bids(deal: dict[str, Any], seat_rows: list[EntrantStats]) -> None:
    size = deal["hand_size"]
    for seat, bid in deal["bids"]:
        row = seat_rows[seat]
        taken = deal["tricks"][seat]
        row.contracts += 1
        row.exact += bid == taken
        cell = row.by_size.setdefault(size, [0.0, 0.0, 0.0])
        cell[0] += 1
        cell[1] += bid
        cell[2] += taken


def _partnership_contract(deal: dict[str, Any], record: dict[str, Any],
                          rows: list[EntrantStats]) -> None:
    contract = deal["contract"]
    team = contract["team"]
    row = rows[team]
    row.by_contract = True
    seats = record["teams"][team]
    taken = sum(deal["tricks"][seat] for seat in seats)
    target = 0 if contract["kind"] == "zero" else contract["tricks"]
    row.contracts += 1
    row.exact += deal["scores"][team] > 0
    size = len(deal["hands"][0])
    cell = row.by_size.setdefault(size, [0.0, 0.0, 0.0])
    cell[0] += 1
    cell[1] += target
    cell[2] += taken


def bank_summary(stats: EntrantStats) -> dict[str, float] | None:
    """Mean and largest share of the time bank a seat of this entrant used in a game (0..1)."""
    if not stats.bank_shares:
        return None
    return {"mean": sum(stats.bank_shares) / len(stats.bank_shares), "max": max(stats.bank_shares)}

