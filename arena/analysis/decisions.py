"""One game's decisions by one entrant, each valued at the view its seat had.

The record is replayed on the engine from its seed (and preset) and its actions, as the referee
played it; at each decision of an analysed seat the engine's own ``view(state, seat)`` is what the
evaluator gets, with the legal actions: never the record's ``hands``. Decisions made for a seat
after its fault (by the arena's fallback, not the bot) are left out.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from typing import Any

import engine
from arena.analysis.evaluate import Unsupported, evaluate
from arena.analysis.marks import mark_of
from arena.errors import ResultsError
from engine.chance import Preset
from engine.errors import EngineError
from engine.seeding import derive_seed


@dataclass(frozen=True)
class Decision:
    """One analysed decision: what was chosen, what was best, the expected loss and its mark."""

    game: str
    deal: int
    decision: int
    """The game-wide decision number (from 1, bids, calls and plays together), as in faults."""
    seat: int
    kind: str
    chosen: Any
    best: Any
    loss: float
    """Expected points lost: the best action's mean minus the chosen one's (never negative)."""
    stderr: float
    mark: str | None
    values: list[list[Any]]
    """Every legal action as [action, mean, stderr], in the legal order."""
    in_deal: int | None = None
    """The decision's number within its deal (from 1), the number shown to a person (``deal 3,
    decision 2``) as by `arena show` and the replay viewer; None in an analysis cached before it
    was kept."""

    def to_json(self) -> dict[str, Any]:
        """The JSON object of ``--format json`` and of the cache."""
        return asdict(self)


def seats_of(record: Mapping[str, Any], entrant: str) -> list[int]:
    """The seats ``entrant`` played in a game: seats of that name, or of a team of that name."""
    info = engine.game(record["game"]).info
    names = list(record["names"])
    entrants = info.entrants(names)
    return [seat for seat, name in enumerate(names)
            if name == entrant or entrants[info.entrant_of(seat)] == entrant]


def decisions_to_analyse(record: Mapping[str, Any], seats: list[int]) -> int:
    """How many decisions of ``seats`` ``analyse_game`` would value (for progress)."""
    return sum(1 for _ in decision_points(record, seats))


def analyse_game(record: Mapping[str, Any], seats: list[int], samples: int,
                 done: Callable[[], None] | None = None) -> list[Decision]:
    """Every decision of ``seats`` with two legal actions or more, valued with ``samples`` samples
    each (seeded from the game's seed and the decision's number); ``done`` is called after each."""
    found = []
    for point in decision_points(record, seats):
        deal, number, in_deal, seat, kind, view, legal, chosen = point
        found.append(_analyse(record, deal, number, seat, kind, view, legal, chosen, samples,
                              in_deal))
        if done is not None:
            done()
    return found


def _analyse(record: Mapping[str, Any], deal: int, number: int, seat: int, kind: str,
             view: dict[str, Any], legal: list[Any], chosen: Any, samples: int,
             in_deal: int) -> Decision:
    game_id = str(record.get("id", "game"))
    if len(legal) == 1:
        return Decision(game_id, deal, number, seat, kind, chosen, chosen, 0.0, 0.0, None,
                        [[chosen, None, None]], in_deal)
    try:
        evaluation = evaluate(view, kind, legal, samples,
                              derive_seed(record["seed"], "analysis", number, seat))
    except Unsupported:
        return Decision(game_id, deal, number, seat, kind, chosen, None, 0.0, 0.0, None, [],
                        in_deal)
    loss, stderr = evaluation.loss(chosen)
    values = [[value.action, round(value.mean, 3), round(value.stderr, 3)]
              for value in evaluation.values]
    return Decision(game_id, deal, number, seat, kind, chosen, evaluation.best_for(chosen).action,
                    round(loss, 3), round(stderr, 3), mark_of(loss, stderr), values, in_deal)


Point = tuple[int, int, int, int, str, dict[str, Any], list[Any], Any]
"""(deal, game-wide decision number, number within the deal, seat, kind, view, legal actions,
action chosen), in protocol form."""


def decision_points(record: Mapping[str, Any], seats: list[int]) -> Any:
    """Each decision of ``seats`` in the record, replayed on the engine (the bot's own, before any
    fault of its seat), with the view the seat had."""
    game = engine.game(record["game"])
    preset = record.get("preset")
    state = game.new_game(len(record["names"]), record["seed"], record["options"],
                          preset=None if preset is None else Preset.parse(preset))
    auction_key = f"{game.info.decision_kinds[0]}s"  # "bids" or "calls", as records name them
    faulted: dict[int, int] = {}  # each seat's first fault: the fallback decides from there on
    for fault in record.get("faults") or ():
        faulted[fault["seat"]] = min(fault["decision"], faulted.get(fault["seat"], fault["decision"]))
    number = 0
    for deal in record["deals"]:
        for in_deal, (seat, raw) in enumerate([*deal[auction_key], *deal["plays"]], start=1):
            number += 1
            if state.to_act != seat:
                raise ResultsError(f"game {record.get('id', 'game')}: deal {deal['deal']}: seat "
                                   f"{seat} acted but seat {state.to_act} was to act")
            try:
                action = game.parse_action(state, raw)
            except EngineError as error:
                raise ResultsError(f"game {record.get('id', 'game')}: deal {deal['deal']}: "
                                   f"{error}") from None
            if seat in seats and (seat not in faulted or number < faulted[seat]):
                legal = engine.actions_to_json(game.legal_actions(state))
                view = game.view(state, seat)
                yield (deal["deal"], number, in_deal, seat, state.kind, view, legal,
                       engine.action_to_json(action))
            state = game.apply(state, action)
