"""The search reference bot: it passes check-bot (sandboxed too), decides from its view alone, samples
hidden cards the view allows, and beats the greedy bot in a seeded match."""

from __future__ import annotations

import importlib.util
import json
import os
import random
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import engine
from arena.bots.sandbox import bwrap_problem
from arena.plans.match_plan import new_match
from arena.runs.match_play import play_match
from engine.cards import CARD_BY_NAME
from engine.chance import Preset, PresetDeal

from helpers import arena

ROOT = Path(__file__).resolve().parents[2]
BOTS = ROOT / "bots" / "python"
MANIFEST = str(BOTS / "search.bot.yaml")
MANIFEST_TEXT = Path(MANIFEST).read_text()

pytestmark = pytest.mark.timeout(300)


def _load(name: str) -> ModuleType:
    """A bot module from bots/python, importable by its siblings (the search bot imports greedy)."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, BOTS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


greedy = _load("greedy_bot")
search = _load("search_bot")


@pytest.fixture(scope="module")
def engine_copy() -> Path:
    """The engine and the strategy next to the bot, copied as `make bots` copies them (the sandbox
    shows only bots/python)."""
    subprocess.run(["make", "--no-print-directory", "-C", str(ROOT), "bots/python/engine/.copied",
                    "bots/python/strategy/.copied"], check=True, capture_output=True, timeout=120)
    return BOTS / "engine"


# --- real positions ------------------------------------------------------------------------------

GAMES: list[tuple[str, dict[str, object]]] = [
    ("blackout", {"deals": 8, "sequence": "down"}),
    ("blackout", {"deals": 6, "must_trump": True, "hook": True}),
    ("blackout", {"deals": 10, "sequence": "down", "no_trump_last": "always"}),
    ("partnership-blackout", {"target": 30, "max_deals": 2}),
    ("partnership-blackout", {"target": 30, "max_deals": 2, "spade_lead": "after_broken"}),
]


def positions(name: str, options: dict[str, object], seed: int) -> Iterator[tuple[Any, dict[str, Any]]]:
    """Every decision of a game the greedy bot plays in all seats: (state, the seat's view as JSON)."""
    game = engine.game(name)
    state = game.new_game(4, seed, options)
    while not state.is_over:
        seat = state.to_act
        view = json.loads(json.dumps(game.view(state, seat)))
        yield state, view
        legal = engine.actions_to_json(game.legal_actions(state))
        state = game.apply(state, game.parse_action(state, greedy.decide(state.kind, view, legal)))


def sampled_positions(count: int) -> Iterator[tuple[str, Any, dict[str, Any]]]:
    """``count`` decisions from several games and options, spread over their deals and tricks."""
    rng = random.Random(5)
    for index, (name, options) in enumerate(GAMES):
        found = list(positions(name, options, 100 + index))
        for state, view in rng.sample(found, count // len(GAMES)):
            yield name, state, view


def shown_voids(view: dict[str, Any]) -> dict[int, set[str]]:
    """The suits each seat has shown out of by not following the suit led (computed afresh)."""
    voids: dict[int, set[str]] = {seat: set() for seat in range(view["players"])}
    plays = view["plays"]
    for start in range(0, len(plays), view["players"]):
        trick = plays[start:start + view["players"]]
        for seat, card in trick[1:]:
            if card[1] != trick[0][1][1]:
                voids[seat].add(trick[0][1][1])
    return voids


# --- the view is all it reads --------------------------------------------------------------------


def other_hidden_cards(name: str, state: Any, seat: int, rng: random.Random) -> Any:
    """The same first-deal position with the cards hidden from ``seat`` dealt otherwise.

    Cards not yet played are exchanged within each suit among the other seats' hands (and, in
    Blackout, the undealt cards), so the history stays legal; the game is replayed on the new hands.
    """
    game = engine.game(name)
    deal = state.deal
    turned = getattr(deal, "trump_card", None)  # Blackout's; Partnership turns no card
    played = {card for _, card in state.plays}
    hands = [list(hand) for hand in deal.dealt]
    hidden = [c for s, hand in enumerate(hands) if s != seat for c in hand if c not in played]
    spare = sorted(set(CARD_BY_NAME.values()) - {c for hand in hands for c in hand}
                   - ({turned} if turned is not None else set()))
    for suit in range(4):
        cards = [c for c in hidden + spare if c >> 4 == suit]
        moved = cards[:]
        rng.shuffle(moved)
        swap = dict(zip(cards, moved, strict=True))
        hands = [[swap.get(c, c) if s != seat else c for c in hand] for s, hand in enumerate(hands)]
    preset = Preset(deal.dealer, (PresetDeal(tuple(tuple(sorted(h)) for h in hands), turned),))
    new = game.new_game(state.players, state.seed, state.options, preset=preset)
    for _, action in getattr(state.phase, "bids", None) or state.phase.calls:
        new = game.apply(new, action)
    for _, card in state.plays:
        new = game.apply(new, card)
    return new


def test_decides_from_its_view_alone() -> None:
    """Dealing the other seats' unseen cards otherwise changes no view and no decision."""
    rng = random.Random(3)
    checked = 0
    for name, state, view in sampled_positions(25):
        game = engine.game(name)
        if state.deal_number != 1 or len(game.legal_actions(state)) < 2:
            continue
        other = other_hidden_cards(name, state, view["seat"], rng)
        if other.masks == state.masks:
            continue  # late in a deal: no two hidden cards of one suit left to exchange
        other_view = json.loads(json.dumps(game.view(other, view["seat"])))
        assert other_view == view
        legal = engine.actions_to_json(game.legal_actions(state))
        message = {"kind": state.kind, "view": view, "legal": legal, "time_ms": 10**9}
        first = search.decide(message, random.Random(7), 6, 10**6)
        second = search.decide({**message, "view": other_view}, random.Random(7), 6, 10**6)
        assert first == second
        checked += 1
    assert checked >= 3


# --- samples the view allows ---------------------------------------------------------------------


def test_samples_agree_with_the_view() -> None:
    """Every sampled deal keeps the seat's hand and the plays, gives each seat as many cards as it
    holds, none of a suit it showed out of, and replays on the engine to this very decision."""
    rng = random.Random(11)
    checked = 0
    for _, _, view in sampled_positions(60):
        try:
            position = search.Position(view, engine.game(view["game"]))
        except search.Unsupported:
            continue
        voids = shown_voids(view)
        played = {card for _, card in view["plays"]}
        for hands in search.draw_samples(rng, position, 8):
            names = [[str(c) for c in hand] for hand in hands]
            flat = [c for hand in names for c in hand]
            assert len(flat) == len(set(flat)) == 4 * position.size
            assert view.get("trump_card") not in flat
            assert set(view["hand"]) <= set(names[view["seat"]])
            for seat, card in view["plays"]:
                assert card in names[seat]
            for seat, hand in enumerate(names):
                remaining = [c for c in hand if c not in played]
                assert len(remaining) == position.left[seat]
                assert not {c[1] for c in remaining} & voids[seat], (seat, remaining, voids[seat])
            state = position.start(hands)  # the engine accepts every play of the history
            assert state.to_act == view["seat"]
            assert sorted(str(c) for c in state.hand(view["seat"])) == sorted(view["hand"])
        checked += 1
    assert checked >= 40


def test_a_spade_led_too_early_shows_a_hand_of_spades() -> None:
    """Partnership: a spade led when only a spades-only hand may lead one voids the other suits."""
    plays = [(1, CARD_BY_NAME["AS"]), (2, CARD_BY_NAME["2S"]), (3, CARD_BY_NAME["3S"]),
             (0, CARD_BY_NAME["4S"])]
    voids = search.voids_of(plays, 4, 3, False, "only_if_only_spades")
    assert voids == [0, 0b0111, 0, 0]
    assert search.voids_of(plays, 4, 3, False, "any") == [0, 0, 0, 0]


# --- the rules a bot author follows --------------------------------------------------------------


QUICK = "python3 search_bot.py --samples 4 --ms 40"
"""The bot on a small budget: check-bot tests the protocol and the rules, not the search's strength
(the default budget costs up to 400 ms a decision; the strength test below plays it)."""


def check_bot(bot: str, *options: str, cwd: Path = BOTS) -> subprocess.CompletedProcess[str]:
    # a generous move time: the machine is shared, and the check times nothing here
    return arena("check-bot", "--move-ms", "5000", "--start-ms", "30000", *options, bot, cwd=cwd,
                 timeout=280)


@pytest.mark.slow
def test_check_bot_passes_in_both_games(engine_copy: Path) -> None:
    done = check_bot(QUICK)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "play blackout" in done.stdout and "play partnership-blackout" in done.stdout


@pytest.mark.slow
@pytest.mark.skipif(bwrap_problem() is not None, reason=f"no working bubblewrap: {bwrap_problem()}")
def test_check_bot_passes_in_the_sandbox(engine_copy: Path, tmp_path: Path) -> None:
    """In the sandbox the bot sees its own directory only: the engine it imports is the copy there.
    An author's copy of the bot with its own manifest, checked from another directory."""
    mine = tmp_path / "mine"
    shutil.copytree(BOTS, mine, ignore=shutil.ignore_patterns("__pycache__"))
    (mine / "search.bot.yaml").write_text(
        MANIFEST_TEXT.replace("run: python3 search_bot.py", f"run: {QUICK}"))
    done = check_bot(str(mine / "search.bot.yaml"), "--sandbox", "bwrap", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_manifest_runs_the_bot_on_its_default_budget() -> None:
    assert "run: python3 search_bot.py\n" in MANIFEST_TEXT


def test_without_the_engine_copy_it_says_how_to_make_it(tmp_path: Path) -> None:
    """A bot directory without the engine stops before hello with one line naming the fix."""
    for name in ("search_bot.py", "greedy_bot.py"):
        shutil.copy(BOTS / name, tmp_path / name)
    # -S: no site-packages, where the test environment installs the engine; nor a PYTHONPATH
    # (a run against the compiled build puts its copy of the engine there)
    alone = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    done = subprocess.run([sys.executable, "-S", str(tmp_path / "search_bot.py")], cwd=tmp_path,
                          capture_output=True, text=True, timeout=60, check=False,
                          stdin=subprocess.DEVNULL, env=alone)
    assert done.returncode != 0
    assert "make bots" in done.stderr and done.stdout == ""


# --- strength ------------------------------------------------------------------------------------


@pytest.mark.slow
def test_beats_the_greedy_bot_in_a_short_seeded_match(engine_copy: Path, tmp_path: Path) -> None:
    """Paired games on short Blackout deals, greedy bots in the field: the search bot scores more.

    The full SPRT is in docs/reference.md; this is a smoke check of its direction (about 30 s of CPU).
    """
    bot = f"python3 {BOTS / 'search_bot.py'} --samples 12 --ms 5000"
    greedy_bot = f"python3 {BOTS / 'greedy_bot.py'}"
    match = new_match(bot, greedy_bot, [greedy_bot], options={"deals": 6, "sequence": "down"},
                      games=48, seed=4)
    report = play_match(match, tmp_path / "match", jobs=1)
    assert report.stats.units == 24
    assert report.stats.mean > 0.5, report.stats


@pytest.mark.slow
def test_its_cut_short_notes_show_beside_the_decisions_they_were_written_for(tmp_path: Path) -> None:
    """The starter bot's own stderr (a decision its time limit cut short) in `arena show`, under
    the decision of the deal and kind it names."""
    logs = tmp_path / "logs"
    played = arena("play", "blackout", f"python3 {BOTS / 'search_bot.py'} --ms 3",
                   f"python3 {BOTS / 'greedy_bot.py'}", ROOT / "bots" / "c" / "random_bot",
                   "-o", "deals=3", "--log", tmp_path / "g.json", "--stderr-dir", logs)
    assert played.returncode == 0, played.stderr
    shown = arena("show", tmp_path / "g.json", "--logs", logs)
    assert shown.returncode == 0, shown.stderr
    record = json.loads((tmp_path / "g.json").read_text())
    where = {}  # game-wide decision number: (deal, kind)
    number_of = {}  # (deal, decision within it), as show numbers them: game-wide number
    for deal in record["deals"]:
        step = 0
        for kind in ("bids", "plays"):
            for _ in deal[kind]:
                step += 1
                where[len(where) + 1] = (deal["deal"], kind[:-1])
                number_of[(deal["deal"], step)] = len(where)
    lines = shown.stdout.splitlines()
    marks = [(re.fullmatch(r"    seat 0 stderr at deal (\d+), decision (\d+):", line), n)
             for n, line in enumerate(lines)]
    notes = [(number_of[(int(m[1]), int(m[2]))], lines[n + 1]) for m, n in marks if m]
    assert notes, shown.stdout
    said = {number: f"    | search: the 3 ms limit cut deal {deal}'s {kind} short"
            for number, (deal, kind) in where.items()}
    # The bot writes nothing as it starts: its first note may have been read (and marked) at a
    # later decision of its own, when its reply was waiting already (docs/protocol.md, Logging);
    # from then on the arena reads its stderr after each reply, and every note is where it was.
    first, note = notes[0]
    assert note in [said[number] for number in said if number <= first]
    for number, note in notes[1:]:
        assert note == said[number]
