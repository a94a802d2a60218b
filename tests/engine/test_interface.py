"""Every registered game, through the ``Game`` interface alone: a game added to ``engine.GAMES`` is
covered here as it stands. And nothing in the arena compares game names.
"""

from __future__ import annotations

import ast
import json
import random
from pathlib import Path
from typing import Any

import pytest

import engine
from engine.cards import DECK
from engine.errors import EngineError, InvalidActionError, OptionError, UnknownGameError, shown

ARENA = Path(__file__).resolve().parents[2] / "arena"
CARD_NAMES = {str(card) for card in DECK}
GAMES = sorted(engine.GAMES)
CASES = [(name, players) for name in GAMES for players in engine.GAMES[name].info.player_counts]


def cards_in(value: Any) -> set[str]:
    """Every string in a JSON-able value that names a card."""
    if isinstance(value, str):
        return {value} & CARD_NAMES
    if isinstance(value, dict):
        return set().union(set(), *(cards_in(v) for v in value.values()))
    if isinstance(value, list | tuple):
        return set().union(set(), *(cards_in(v) for v in value))
    return set()


def play_random(game: engine.Game, players: int, seed: int, options: dict[str, object],
                preset: engine.Preset | None = None) -> Any:
    """A random game through the interface, checking every step; returns the final state."""
    info = game.info
    state = game.new_game(players, seed, options, preset=preset)
    rng = random.Random(seed)
    while not state.is_over:
        assert state.to_act is not None and 0 <= state.to_act < players
        assert state.kind in info.decision_kinds
        legal = game.legal_actions(state)
        assert legal, f"seat {state.to_act} has no legal action"
        check_what_seats_see(game, state, players)
        action = rng.choice(legal)
        wire = engine.action_to_json(action)
        assert game.parse_action(state, json.loads(json.dumps(wire))) == action
        state = game.apply(state, game.parse_action(state, wire))
    check_what_seats_see(game, state, players)
    assert game.legal_actions(state) == ()
    return state


def check_what_seats_see(game: engine.Game, state: Any, players: int) -> None:
    """Views and events hide every other seat's cards; only ``deal_start`` differs between seats."""
    hands = [{str(c) for c in state.hand(s)} for s in range(players)]
    public = None
    for seat in range(players):
        others = set().union(*(hands[s] for s in range(players) if s != seat))
        view = game.view(state, seat)
        json.dumps(view)  # JSON-able (tuples stand for lists)
        assert not cards_in(view) & others, f"seat {seat}'s view shows another seat's card"
        messages = game.events(state, seat)
        for message in messages:
            if message["type"] == "deal_start":
                assert set(message["hand"]) == hands[seat]
                assert not cards_in(message) & others
        shared = [m for m in messages if m["type"] != "deal_start"]
        assert public is None or shared == public, "seats see different public events"
        public = shared


@pytest.mark.parametrize(("name", "players"), CASES, ids=[f"{n}-{p}" for n, p in CASES])
def test_random_games_through_the_interface(name: str, players: int) -> None:
    game = engine.game(name)
    info = game.info
    options = dict(info.short_options)  # full default games are test_invariants' (and slow)
    for seed in range(4):
        final = play_random(game, players, seed, options)
        scores, places = game.totals(final), game.places(final)
        count = players if info.score_by == "seat" else len(info.teams or ())
        assert len(scores) == len(places) == count == len(info.entrants(["x"] * players))
        assert all(1 <= place <= count for place in places) and min(places) == 1
        record = game.record(final, [f"bot{s}" for s in range(players)])
        stored = json.loads(json.dumps(record))
        replayed = engine.replay(stored)
        assert game.record(replayed, stored["names"]) == record
        again = play_random(game, players, seed, options)
        assert game.record(again, stored["names"]) == record  # same seed, same game


@pytest.mark.parametrize(("name", "players"), CASES, ids=[f"{n}-{p}" for n, p in CASES])
def test_a_recorded_deal_given_as_a_preset_is_dealt_again_and_replays(name: str, players: int) -> None:
    game = engine.game(name)
    options = dict(game.info.short_options)
    seeded = game.record(play_random(game, players, 1, options), ["x"] * players)
    first = seeded["deals"][0]  # every game's record gives a deal's dealer, hands and turned card
    preset = engine.Preset.parse({"dealer": first["dealer"], "deals": [first]})
    final = play_random(game, players, 2, options, preset)
    record = game.record(final, ["x"] * players)
    assert record["deals"][0]["hands"] == first["hands"]
    assert record["deals"][0]["dealer"] == first["dealer"]
    assert game.record(engine.replay(json.loads(json.dumps(record))), record["names"]) == record


# Wire values a bot may send for an action, valid JSON all, none of them an action.
HOSTILE_ACTIONS = [10 ** 5000, -(10 ** 5000), 2 ** 64, "\ud800", "x" * 100_000, [[[[[[1]]]]]],
                   {"k" * 1000: 1}, 17.0, 1e308, True, None]


@pytest.mark.parametrize("name", GAMES)
def test_an_action_that_is_no_action_is_an_engine_error_quoting_it_briefly(name: str) -> None:
    """Every phase's judge quotes a hostile action in a few dozen characters, never by printing it
    whole (a 5,000-digit integer cannot even be printed: Python refuses past 4,300 digits)."""
    game = engine.game(name)
    rng = random.Random(3)
    state = game.new_game(game.info.player_counts[0], 3, dict(game.info.short_options))
    kinds: set[str] = set()
    while not state.is_over:
        kinds.add(state.kind)
        for raw in HOSTILE_ACTIONS:
            with pytest.raises(EngineError) as caught:
                game.apply(state, game.parse_action(state, raw))
            assert len(str(caught.value)) < 200, str(caught.value)[:300]
        state = game.apply(state, rng.choice(game.legal_actions(state)))
    assert kinds == set(game.info.decision_kinds)


def test_shown_names_an_integer_too_long_to_print_by_its_digits() -> None:
    assert shown(10 ** 5000) == "(an integer of 5,001 digits)"
    assert shown(-(10 ** 4999) - 7) == "(a negative integer of 5,000 digits)"
    assert shown(2 ** 64) == "18446744073709551616" and shown(-5) == "-5"
    assert all(shown(10 ** n - 1) == f"(an integer of {n:,} digits)" for n in range(60, 400))


@pytest.mark.parametrize("name", GAMES)
def test_info_describes_the_game(name: str) -> None:
    game = engine.game(name)
    info = game.info
    assert info.name == name and info.default_players in info.player_counts
    assert {info: name}[info] == name  # a value: hashable, comparable
    assert info.score_by == ("team" if info.teams else "seat")
    if info.teams is not None:
        seats = sorted(seat for team in info.teams for seat in team)
        assert all(seats == list(range(p)) for p in info.player_counts)
        assert {info.entrant_of(s) for s in seats} == set(range(len(info.teams)))
    for players in info.player_counts:
        schema = info.options(players)
        defaults = game.resolve_options(players, {})
        assert [o.name for o in schema] == list(defaults)
        assert {o.name: o.default for o in schema} == defaults
        assert all(o.description for o in schema)
        for option in schema:
            if option.high is not None:
                with pytest.raises(OptionError, match=option.name):
                    game.resolve_options(players, {option.name: option.high + 1})
    state = game.new_game(info.default_players, 1, info.short_options)
    assert state.options == game.resolve_options(info.default_players, info.short_options)
    with pytest.raises(InvalidActionError):
        game.parse_action(state, {"not": "an action"})


def test_unknown_game_is_a_typed_error_listing_the_games() -> None:
    with pytest.raises(UnknownGameError) as caught:
        engine.game("hearts")
    assert caught.value.known == tuple(engine.GAMES)
    assert all(name in str(caught.value) for name in engine.GAMES)
    assert isinstance(caught.value, OptionError)


def test_team_game_entrants_and_commands() -> None:
    teams = [engine.GAMES[n].info for n in GAMES if engine.GAMES[n].info.teams is not None]
    assert teams, "no team game registered"
    for info in teams:
        assert info.teams is not None
        players = info.default_players
        names = [f"b{info.entrant_of(seat)}" for seat in range(players)]
        assert info.entrants(names) == [f"b{t}" for t in range(len(info.teams))]
        mixed = [f"s{seat}" for seat in range(players)]
        assert info.entrants(mixed) == ["+".join(f"s{seat}" for seat in team) for team in info.teams]
        commands = [f"cmd{t}" for t in range(len(info.teams))]
        assert info.seats_of(commands) == [f"cmd{info.entrant_of(s)}" for s in range(players)]
        assert len(info.teams) in info.command_counts


def string_constants(tree: ast.AST) -> list[ast.Constant]:
    """Every string literal that is not a docstring."""
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                docstrings.add(id(body[0].value))
    return [node for node in ast.walk(tree) if isinstance(node, ast.Constant)
            and isinstance(node.value, str) and id(node) not in docstrings]


def test_the_arena_never_names_a_game_in_its_code() -> None:
    """No ``game == "partnership-blackout"``, no ``{"blackout": ...}``: the arena asks the game."""
    files = sorted(ARENA.rglob("*.py"))
    assert files
    found = []
    for path in files:
        for node in string_constants(ast.parse(path.read_text())):
            if node.value in engine.GAMES:
                found.append(f"{path.relative_to(ARENA.parent)}:{node.lineno}: {node.value!r}")
    assert not found, "game names in the arena's code:\n" + "\n".join(found)
