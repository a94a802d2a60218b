"""Hand-made Blackout positions for the analysis's tests (3 players, preset first deals)."""

from __future__ import annotations

from typing import Any

import engine
from engine.chance import Preset, PresetDeal

BLACKOUT = engine.game("blackout")


def preset_of(hands: list[str], trump_card: str) -> Preset:
    """A 3-player Blackout game whose first deal is ``hands``; seat 0 bids and leads first."""
    return Preset(2, (PresetDeal.parse([hand.split() for hand in hands], trump_card),))


def state_after(preset: Preset, actions: list[Any], deals: int = 2) -> Any:
    state = BLACKOUT.new_game(3, 1, {"deals": deals, "sequence": "down"}, preset=preset)
    for action in actions:
        state = BLACKOUT.apply(state, BLACKOUT.parse_action(state, action))
    return state


def finished_record(preset: Preset, actions: list[Any], deals: int = 2) -> dict[str, Any]:
    """The record of a game: ``actions`` in deal 1, the rest played as the first legal."""
    state = state_after(preset, actions, deals)
    while not state.is_over:
        state = BLACKOUT.apply(state, BLACKOUT.legal_actions(state)[0])
    return {**BLACKOUT.record(state, ["a", "b", "c"]), "id": "g1", "faults": []}


