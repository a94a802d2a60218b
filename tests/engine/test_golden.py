"""The engine plays the same seeded games as the code the golden digests were taken from.

Each case is a game (name, players, options, seed) driven by a random policy seeded by the case:
the digest covers, byte for byte (orjson, key order included), the legal actions at every step in
wire form, the view of the seat to act, the events every seat is shown, and the final record. So a
change that makes the engine faster must leave every byte a bot or a record sees as it was.

The digests in ``golden/engine.json`` were written by the engine before it was tuned (issue 22).
Regenerate only for an intended change of the rules or the wire form:
``python tests/engine/test_golden.py --write``.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

import engine

GOLDEN = Path(__file__).resolve().parent / "golden" / "engine.json"

BLACKOUT_OPTIONS: list[dict[str, object]] = [
    {},
    {"deals": 4, "sequence": "down", "hook": True},
    {"deals": 5, "sequence": "up_down", "must_trump": True, "no_trump_last": "always"},
    {"deals": 3, "scoring": "penalty", "zero_bid": "bonus_only", "points_per_trick": 2, "bonus": 5,
     "tiebreak": "most_exact_bids", "hook": True, "must_trump": True},
]
PARTNERSHIP_OPTIONS: list[dict[str, object]] = [
    {"target": 60, "max_deals": 6},
    {"target": 40, "max_deals": 5, "spade_lead": "after_broken", "contract_points": "per_trick"},
    {"target": 100, "max_deals": 4, "spade_lead": "any", "made": 7, "overtrick": 2, "fail": -5},
]


def cases() -> dict[str, tuple[str, int, dict[str, object], int]]:
    """Every case by its id: (game, players, options, seed)."""
    out: dict[str, tuple[str, int, dict[str, object], int]] = {}
    for players in (3, 4, 5, 6, 7):
        for index, options in enumerate(BLACKOUT_OPTIONS):
            for seed in (1, 20261130):
                out[f"blackout-{players}p-o{index}-s{seed}"] = ("blackout", players, options, seed)
    for index, options in enumerate(PARTNERSHIP_OPTIONS):
        for seed in (3, 77, 4242):
            out[f"partnership-o{index}-s{seed}"] = ("partnership-blackout", 4, options, seed)
    return out


def _dump(value: Any) -> bytes:
    return orjson.dumps(value)


def digest(name: str, players: int, options: dict[str, object], seed: int) -> str:
    """SHA-256 of everything the engine shows while a seeded random policy plays the game."""
    game = engine.game(name)
    state = game.new_game(players, seed, options)
    rng = random.Random(seed * 7919 + players)
    out = hashlib.sha256()
    while True:
        for seat in range(players):
            out.update(_dump(game.events(state, seat)))
        if state.to_act is None:
            break
        legal = game.legal_actions(state)
        out.update(_dump(engine.actions_to_json(legal)))
        out.update(_dump(game.view(state, state.to_act)))
        action = rng.choice(legal)
        state = game.apply(state, game.parse_action(state, engine.action_to_json(action)))
    out.update(_dump(game.record(state, [f"bot{s}" for s in range(players)])))
    out.update(_dump([game.totals(state), game.places(state)]))
    return out.hexdigest()


def compute() -> dict[str, str]:
    """Every case's digest."""
    return {case: digest(*spec) for case, spec in cases().items()}


@pytest.mark.parametrize("case", sorted(cases()))
def test_seeded_games_show_the_same_bytes_as_before(case: str) -> None:
    golden = json.loads(GOLDEN.read_text())
    assert digest(*cases()[case]) == golden[case]


def test_every_golden_case_is_played() -> None:
    assert sorted(json.loads(GOLDEN.read_text())) == sorted(cases())


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python tests/engine/test_golden.py --write")
    GOLDEN.parent.mkdir(exist_ok=True)
    GOLDEN.write_text(json.dumps(compute(), indent=1, sort_keys=True) + "\n")
    print(f"wrote {GOLDEN}")
