"""strategy.bidding is the greedy starter bot's bidding: the same bid or call on every view."""

from __future__ import annotations

import importlib.util
import random
import sys
from pathlib import Path
from types import ModuleType

import engine
from strategy import bidding

BOTS = Path(__file__).resolve().parents[2] / "bots" / "python"


def _greedy() -> ModuleType:
    if "greedy_bot" in sys.modules:
        return sys.modules["greedy_bot"]
    spec = importlib.util.spec_from_file_location("greedy_bot", BOTS / "greedy_bot.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["greedy_bot"] = module
    spec.loader.exec_module(module)
    return module


def test_bids_and_calls_are_the_greedy_bots() -> None:
    greedy = _greedy()
    rng = random.Random(5)
    checked = 0
    for name in engine.GAMES:
        game = engine.game(name)
        for seed in range(40):
            players = 4 if game.info.has_teams else rng.randint(3, 7)
            state = game.new_game(players, seed, None if game.info.has_teams else {"deals": 7})
            while not state.is_over and state.deal_number <= 3:
                legal = engine.actions_to_json(game.legal_actions(state))
                if state.kind != "play":
                    view = game.view(state, state.to_act)
                    assert bidding.choose_auction(state.kind, view, legal) == \
                        greedy.decide(state.kind, view, legal)
                    checked += 1
                state = game.apply(state, game.parse_action(state, rng.choice(legal)))
    assert checked > 500
