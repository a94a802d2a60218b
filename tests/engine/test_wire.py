"""The JSON text the games render (``view_json``, ``legal_json``, ``events_json``) is, byte for byte,
what a compact encoder gives for their dict forms, at every step of many random games."""

from __future__ import annotations

import random

import orjson
import pytest

import engine

OPTIONS = {
    "blackout": [{}, {"deals": 4, "sequence": "up_down", "hook": True, "must_trump": True},
                 {"deals": 3, "no_trump_last": "always", "scoring": "penalty"}],
    "partnership-blackout": [{"max_deals": 4}, {"max_deals": 3, "spade_lead": "after_broken"}],
}
CASES = [(name, players, index) for name in sorted(engine.GAMES)
         for players in engine.GAMES[name].info.player_counts for index in range(len(OPTIONS[name]))]


def lines(messages: list[dict[str, object]]) -> bytes:
    return b"".join(orjson.dumps(m, option=orjson.OPT_APPEND_NEWLINE) for m in messages)


@pytest.mark.parametrize(("name", "players", "index"), CASES)
def test_json_text_is_the_compact_encoding_of_the_dicts(name: str, players: int, index: int) -> None:
    game = engine.game(name)
    for seed in range(3):
        rng = random.Random(seed)
        state = game.new_game(players, seed, OPTIONS[name][index])
        while True:
            per_seat = [lines(game.events(state, seat)) for seat in range(players)]
            for seat in range(players):
                assert game.events_json(state, seat).encode() == per_seat[seat]
                # a seat's view is asked in any order, after any other seat's
                assert game.view_json(state, seat).encode() == orjson.dumps(game.view(state, seat))
            shared = game.shared_events_json(state)
            if shared is None:
                assert any(m["type"] == "deal_start" for m in game.events(state, 0))
            else:
                assert all(shared.encode() == text for text in per_seat)
            if state.is_over:
                break
            legal = game.legal_actions(state)
            assert game.legal_json(state).encode() == orjson.dumps(engine.actions_to_json(legal))
            state = game.apply(state, rng.choice(legal))
