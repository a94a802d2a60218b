"""Every message has one rendering, and its text is what orjson gives for its dict, byte for byte,
at every step of many random games of both games.

The events are rendered as their lines (``events_json``, ``shared_events_json``) and their dicts are
those lines parsed, so each line must be the compact encoding of what it parses to; a view is
rendered both ways (``view`` for Python callers, ``view_json`` for the wire: its fields fixed for a
deal or a phase encoded from the dict's, the rest twice, for speed), and so are the legal actions
(``legal_actions`` in wire form, ``legal_json``): each text must equal orjson of its dict. Both
through a renderer that renders a whole game in order, remembering what it rendered last, as the
referee's does, and afresh.
"""

from __future__ import annotations

import random

import orjson
import pytest

import engine

OPTIONS = {
    "blackout": [{}, {"deals": 4, "sequence": "up_down", "hook": True, "must_trump": True},
                 {"deals": 3, "no_trump_last": "always", "scoring": "penalty"}],
    "partnership-blackout": [{"max_deals": 4}, {"max_deals": 3, "spade_lead": "after_broken"},
                             {"max_deals": 4, "spade_lead": "any", "contract_points": "per_trick"}],
}
SEEDS = range(8)
CASES = [(name, players, index) for name in sorted(engine.GAMES)
         for players in engine.GAMES[name].info.player_counts for index in range(len(OPTIONS[name]))]


def lines(messages: list[dict[str, object]]) -> bytes:
    return b"".join(orjson.dumps(m, option=orjson.OPT_APPEND_NEWLINE) for m in messages)


@pytest.mark.parametrize(("name", "players", "index"), CASES)
def test_event_lines_are_the_compact_encoding_of_the_events(name: str, players: int, index: int) -> None:
    game = engine.game(name)
    for seed in SEEDS:
        rng = random.Random(seed)
        state = game.new_game(players, seed, OPTIONS[name][index])
        views = game.renderer()
        while True:
            per_seat = [lines(game.events(state, seat)) for seat in range(players)]
            for seat in range(players):
                assert game.events_json(state, seat).encode() == per_seat[seat]
                assert views.events_json(state, seat).encode() == per_seat[seat]
            shared = views.shared_events_json(state)
            assert shared == game.shared_events_json(state)
            if shared is None:
                assert any(m["type"] == "deal_start" for m in game.events(state, 0))
            else:
                assert all(shared.encode() == text for text in per_seat)
            if state.is_over:
                break
            state = game.apply(state, rng.choice(game.legal_actions(state)))


@pytest.mark.parametrize(("name", "players", "index"), CASES)
def test_views_and_legal_actions_are_the_compact_encoding_of_their_dicts(
        name: str, players: int, index: int) -> None:
    game = engine.game(name)
    for seed in SEEDS:
        rng = random.Random(seed)
        state = game.new_game(players, seed, OPTIONS[name][index])
        views = game.renderer()
        step = 0
        while True:
            # Every seat's view, the dict or the text asked first in turn: each extends what the
            # renderer remembers of the plays, and must not be misled by the other's.
            seats = range(players) if step % 2 else range(players - 1, -1, -1)
            for seat in seats:
                if (step + seat) % 3:
                    assert views.view_json(state, seat).encode() == orjson.dumps(views.view(state, seat))
                else:
                    assert orjson.dumps(views.view(state, seat)) == views.view_json(state, seat).encode()
                assert views.view_json(state, seat) == game.view_json(state, seat)  # afresh
            assert game.legal_json(state).encode() == \
                orjson.dumps(engine.actions_to_json(game.legal_actions(state)))
            if state.is_over:
                break
            state = game.apply(state, rng.choice(game.legal_actions(state)))
            step += 1
