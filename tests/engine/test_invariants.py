"""Invariants over many seeded random games of every player count and option.

Each check here is computed independently of the engine's own code path: legal moves from the hand
and the trick, scores from the record's bids and tricks, card sets from the views.
"""

from __future__ import annotations

import ast
import functools
import json
import random
from pathlib import Path
from typing import Any

import pytest

import engine
from engine import blackout, partnership, trickgame
from engine.cards import Card

BLACKOUT_VARIANTS: list[dict[str, Any]] = [
    {},
    {"hook": True, "must_trump": True},
    {"scoring": "penalty", "zero_bid": "bonus_only", "points_per_trick": 3, "bonus": 5},
    {"sequence": "up_down", "deals": 4, "no_trump_last": "always"},
    {"sequence": "down", "tiebreak": "most_exact_bids", "must_trump": True},
]
PARTNERSHIP_VARIANTS: list[dict[str, Any]] = [
    {"target": 40, "max_deals": 25},
    {"target": 60, "max_deals": 25, "spade_lead": "after_broken", "contract_points": "per_trick"},
    {"target": 30, "max_deals": 25, "spade_lead": "any", "made": 5, "fail": -20},
]
OH_HELL_CASES: list[tuple[int, dict[str, Any]]] = [
    (3, {"scoring": "oh_hell", "zero_bid": "bonus_only", "hook": True}),
    (6, {"scoring": "oh_hell_penalty", "zero_bid": "bonus_only", "points_per_trick": 2}),
]
"""OpenSpiel's scoring, at one player count each: it changes only a deal's score, which
tests/engine/test_blackout.py checks against OpenSpiel's formula for every bid and tricks."""
CASES = [(blackout.GAME, n, o) for n in (3, 4, 5, 6, 7) for o in BLACKOUT_VARIANTS] + [
    (blackout.GAME, n, o) for n, o in OH_HELL_CASES] + [
    (partnership.GAME, 4, o) for o in PARTNERSHIP_VARIANTS
]
CARD_NAMES = {str(c) for c in __import__("engine.cards", fromlist=["DECK"]).DECK}
COMPILED = not (engine.cards.__file__ or "").endswith(".py")
"""Whether the compiled engine runs: `make test` runs these tests against both builds, and each
plays its own half of the seeds below (all of them over the two), not the same games twice."""
SEEDS = range(12)
"""The random games of each case."""


def own_half(seeds: range) -> range:
    """This build's half of ``seeds``: the even ones compiled, the odd ones pure."""
    return seeds[0 if COMPILED else 1::2]


def cards_in(value: Any) -> set[str]:
    """Every string in a JSON-able value that names a card."""
    if isinstance(value, str):
        return {value} if value in CARD_NAMES else set()
    if isinstance(value, dict):
        return set().union(*(cards_in(v) for v in value.values())) if value else set()
    if isinstance(value, list | tuple):
        return set().union(*(cards_in(v) for v in value)) if value else set()
    return set()


def expected_legal_plays(game: Any, state: Any) -> set[Card]:
    hand = set(state.hand(state.to_act))
    if state.trick:
        led = state.trick[0][1].suit
        follow = {c for c in hand if c.suit == led}
        if follow:
            return follow
        trump = state.deal.trump if game is blackout.GAME else None
        if game is blackout.GAME and state.options["must_trump"] and trump is not None:
            trumps = {c for c in hand if c.suit == trump}
            if trumps:
                return trumps
        return hand
    if game is partnership.GAME:
        rule = state.options["spade_lead"]
        broken = any(c.suit == 3 for _, c in state.plays)
        others = {c for c in hand if c.suit != 3}
        if others and (rule == "only_if_only_spades" or (rule == "after_broken" and not broken)):
            return others
    return hand


def play_checked(game: Any, players: int, options: dict[str, Any], seed: int) -> Any:
    """A random game, checking every decision; returns its record."""
    state = game.new_game(players, seed, options)
    rng = random.Random(seed)
    while True:
        for seat in range(players):
            messages = game.events(state, seat)
            assert cards_in(messages) <= public_cards(game, state) | set(map(str, state.hand(seat)))
        if state.last_events and state.last_events[-1][0] == "deal_start" and state.to_act is not None:
            check_deal(game, state, players)
        if state.to_act is None:
            break
        legal = game.legal_actions(state)
        assert legal, "the seat to act has no legal action"
        if state.kind == "play":
            assert set(legal) == expected_legal_plays(game, state)
        seat = state.to_act
        visible = cards_in(game.view(state, seat))
        assert visible <= public_cards(game, state) | set(map(str, state.hand(seat)))
        state = game.apply(state, rng.choice(legal))
    return game.record(state, [f"bot{i}" for i in range(players)])


def public_cards(game: Any, state: Any) -> set[str]:
    """Cards every seat has seen: this deal's plays and turned card, and the deal just ended."""
    cards = {str(c) for _, c in state.plays}
    deals = [state.deal]
    if any(event[0] == "deal_end" for event in state.last_events):
        finished = state.history[-1]
        deals.append(finished.deal)
        cards |= {str(c) for _, c in finished.plays}
    if game is blackout.GAME:
        cards |= {str(d.trump_card) for d in deals if d.trump_card is not None}
    return cards


def check_deal(game: Any, state: Any, players: int) -> None:
    hands = [state.hand(s) for s in range(players)]
    size = len(hands[0])
    assert all(len(h) == size for h in hands)
    dealt = [c for h in hands for c in h]
    if game is blackout.GAME and state.deal.trump_card is not None:
        dealt.append(state.deal.trump_card)
    assert len(dealt) == len(set(dealt)), "a card was dealt twice"


def check_scores(game: Any, record: dict[str, Any]) -> None:
    options = record["options"]
    totals = [0] * len(record["scores"])
    low, high = game.deal_score_range(len(record["names"]), options)
    for deal in record["deals"]:
        assert all(low <= score <= high for score in deal["scores"])
        tricks = deal["tricks"]
        if game is blackout.GAME:
            assert sum(tricks) == deal["hand_size"]
            bids = dict(deal["bids"])
            ppt, bonus = options["points_per_trick"], options["bonus"]
            for seat, t in enumerate(tricks):
                b = bids[seat]
                if t == b:
                    want = ppt * b + bonus if b else (
                        ppt + bonus if options["zero_bid"] == "as_one_trick" else bonus)
                elif options["scoring"] == "penalty" and t < b:
                    want = -ppt * (b - t)
                elif options["scoring"] == "oh_hell":
                    want = ppt * t
                elif options["scoring"] == "oh_hell_penalty":
                    want = -ppt * abs(t - b)
                else:
                    want = 0
                assert deal["scores"][seat] == want
        else:
            contract = deal["contract"]
            if contract is None:
                assert deal["plays"] == [] and deal["scores"] == [0, 0]
            else:
                assert sum(tricks) == 13
                team = contract["team"]
                won = tricks[team] + tricks[team + 2]
                c = contract["tricks"]
                per = options["contract_points"] == "per_trick"
                if contract["kind"] == "zero":
                    want = options["nil"] if won == 0 else options["fail"]
                elif won == 13:
                    want = options["all_tricks"]
                elif won >= c:
                    made = options["made"] * c if per else options["made"]
                    want = made + options["overtrick"] * (won - c)
                else:
                    want = options["fail"] * c if per else options["fail"]
                assert deal["scores"][team] == want and deal["scores"][1 - team] == 0
        totals = [a + b for a, b in zip(totals, deal["scores"], strict=True)]
        assert deal["totals"] == totals
    assert record["scores"] == totals
    best = sorted(totals, reverse=True)
    if game is partnership.GAME or options["tiebreak"] == "shared":
        assert record["places"] == [1 + best.index(t) for t in totals]


@pytest.mark.parametrize(("game", "players", "options"), CASES,
                         ids=[f"{g.info.name}-{n}-{i}" for i, (g, n, _) in enumerate(CASES)])
@pytest.mark.slow
def test_random_games_keep_every_rule(game: Any, players: int, options: dict[str, Any]) -> None:
    for seed in own_half(SEEDS):
        record = play_checked(game, players, options, seed)
        check_scores(game, record)
        replayed = engine.replay(json.loads(json.dumps(record)))
        assert game.record(replayed, record["names"]) == record


RANGES = [
    # Blackout, classic: 0 for a missed bid; the most, the largest hand bid and made (D + 10).
    (blackout.GAME, 4, {}, (0, 13 + 10)),
    (blackout.GAME, 7, {}, (0, 7 + 10)),
    (blackout.GAME, 3, {"deals": 5, "sequence": "down"}, (0, 5 + 10)),
    # penalty: the largest hand bid and no trick taken (-ppt * D); zero bid for the bonus only
    (blackout.GAME, 4, {"scoring": "penalty", "points_per_trick": 3, "bonus": 5}, (-39, 39 + 5)),
    (blackout.GAME, 5, {"scoring": "oh_hell_penalty", "zero_bid": "bonus_only"}, (-10, 20)),
    # a bonus above the largest hand's tricks: a made zero bid scores ppt + bonus, less than D + bonus
    (blackout.GAME, 4, {"deals": 1, "bonus": 50}, (0, 51)),
    # Partnership, flat: fail -10, all tricks or nil 40, and the other team's 0.
    (partnership.GAME, 4, {}, (-10, 40)),
    # per trick: a contract of 12 made (120) or failed (-120).
    (partnership.GAME, 4, {"contract_points": "per_trick"}, (-120, 120)),
    # a made 1 with 11 overtricks above all tricks and nil; a positive fail: the other team's 0
    (partnership.GAME, 4, {"all_tricks": 5, "nil": 5, "overtrick": 3, "fail": 2}, (0, 10 + 33)),
]


@pytest.mark.parametrize(("game", "players", "options", "extremes"), RANGES)
def test_the_deal_score_range_is_the_rules_extremes(game: Any, players: int,
                                                    options: dict[str, Any],
                                                    extremes: tuple[int, int]) -> None:
    assert game.deal_score_range(players, options) == extremes


@pytest.mark.slow
def test_thousands_of_games_replay_and_repeat() -> None:
    rng = random.Random(7)
    for seed in own_half(range(1500)):
        game, players, options = CASES[seed % len(CASES)]
        state = game.new_game(players, seed, options)
        choose = random.Random(seed).choice
        while state.to_act is not None:
            state = game.apply(state, choose(game.legal_actions(state)))
        record = game.record(state, ["x"] * players)
        assert engine.replay(record).phase.totals == state.phase.totals
        if rng.random() < 0.05:
            again = game.new_game(players, seed, options)
            assert again.deal.dealt == game.new_game(players, seed, options).deal.dealt
            check_scores(game, record)


def test_tampered_records_do_not_replay() -> None:
    record = play_checked(blackout.GAME, 4, {}, 3)
    bad_score = json.loads(json.dumps(record))
    bad_score["deals"][2]["scores"][0] += 1
    bad_play = json.loads(json.dumps(record))
    plays = bad_play["deals"][5]["plays"]
    plays[0], plays[1] = plays[1], plays[0]
    for tampered in (bad_score, bad_play):
        with pytest.raises(engine.ReplayError):
            engine.replay(tampered)


def test_same_seed_same_game_different_seed_different_deal() -> None:
    a = play_checked(blackout.GAME, 5, {}, 11)
    assert a == play_checked(blackout.GAME, 5, {}, 11)
    b = play_checked(blackout.GAME, 5, {}, 12)
    assert a["deals"][4]["hands"] != b["deals"][4]["hands"]


VALUES = (trickgame.Deal, trickgame.DealResult, trickgame.Phase, trickgame.State)
"""What a state is made of (its ``phase``, the phase's ``deal`` and finished deals)."""


@functools.cache
def _fields() -> dict[str, list[tuple[str, bool]]]:
    """Each value class's fields as its constructor sets them: (name, whether ``Final``)."""
    tree = ast.parse((Path(engine.__file__).parent / "trickgame.py").read_text())
    found: dict[str, list[tuple[str, bool]]] = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name in {cls.__name__ for cls in VALUES}:
            init = next(item for item in node.body
                        if isinstance(item, ast.FunctionDef) and item.name == "__init__")
            found[node.name] = [
                (target.attr, isinstance(statement, ast.AnnAssign)
                 and "Final" in ast.unparse(statement.annotation))
                for statement in ast.walk(init) if isinstance(statement, ast.Assign | ast.AnnAssign)
                for target in ([statement.target] if isinstance(statement, ast.AnnAssign)
                               else statement.targets)
                if isinstance(target, ast.Attribute)]
    return found


def test_every_field_of_a_state_is_final() -> None:
    """``Final``: mypy (``make lint``) refuses a write to any of them outside the constructor."""
    fields = _fields()
    assert sorted(fields) == sorted(cls.__name__ for cls in VALUES)
    for name, assigned in fields.items():
        assert [field for field, final in assigned if not final] == [], name


def _snapshot(state: Any) -> list[tuple[object, str, object]]:
    """Every field of ``state`` and of the values it holds, as (value, field, what it holds)."""
    fields = _fields()
    held = [state, state.phase, state.phase.deal, *state.phase.history,
            *(result.deal for result in state.phase.history)]
    return [(value, field, getattr(value, field)) for value in held
            for field, _ in fields[type(value).__name__]]


@pytest.mark.parametrize("game", [blackout.GAME, partnership.GAME], ids=lambda g: g.info.name)
def test_nothing_writes_a_state_once_it_is_built(game: Any) -> None:
    """Rendering every view and event through one renderer, as the referee does, asking the legal
    actions and records, and applying, leaves every state built so far as it was built."""
    players = 4
    views = game.renderer()
    state = game.new_game(players, 5, {"deals": 4} if game is blackout.GAME else {"max_deals": 2})
    built = [(state, _snapshot(state))]
    rng = random.Random(5)
    while state.to_act is not None:
        for seat in range(players):
            views.view_json(state, seat)
            views.view(state, seat)
            views.events_json(state, seat)
            game.view(state, seat)
        views.shared_events_json(state)
        game.legal_json(state)
        game.record(state, ["x"] * players)
        state = game.apply(state, rng.choice(game.legal_actions(state)))
        built.append((state, _snapshot(state)))
    for _, snapshot in built:
        assert all(getattr(value, field) is before for value, field, before in snapshot)
    if COMPILED:  # the compiled build refuses a write at run time
        for value, field, before in built[-1][1]:
            with pytest.raises(AttributeError):
                setattr(value, field, before)
