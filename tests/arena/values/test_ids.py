"""Game ids and duplicate sets: one rule from a game's id to its set, agreeing with every planner."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import yaml

from arena.league.run import _specs
from arena.league.settings import LeagueSettings
from arena.league.store import Bot, PlannedSet
from arena.plans.match import new_match, unit_games
from arena.plans.schedule import schedule
from arena.plans.tournament import load_tournament
from arena.values.ids import (
    MATCH_GAMES,
    GamePlace,
    league_game_id,
    match_game_id,
    match_unit,
    place_of_game,
    set_id,
    set_of_game,
    tournament_game_id,
)

ROOT = Path(__file__).resolve().parents[3]
C_BOT = str(ROOT / "bots" / "c" / "random_bot")
PY_BOT = f"{sys.executable} -S {ROOT / 'bots' / 'python' / 'random_bot.py'}"


def test_each_kind_of_id_gives_back_its_place_and_set() -> None:
    rng = random.Random(7)
    for _ in range(2000):
        r, t, s = rng.randrange(0, 10_000), rng.randrange(0, 200_000), rng.randrange(0, 8)
        assert place_of_game(tournament_game_id(r, t, s)) == GamePlace(r, t, s)
        assert set_of_game(tournament_game_id(r, t, s)) == set_id(r, t)
        for rotation, tag in enumerate(MATCH_GAMES):
            assert place_of_game(match_game_id(t, tag)) == GamePlace(1, t, rotation)
            assert match_unit(match_game_id(t, tag)) == (t, tag)
        assert place_of_game(league_game_id(t, s)) == GamePlace(0, t, s)
    assert set_of_game("r3-t0002-s1") == "r3-t0002"
    assert set_of_game("u00012-b") == "r1-t0012"
    assert set_of_game("s000017-r2") == "r0-t0017"


def test_ids_no_run_gives_have_no_set() -> None:
    for odd in ("g1", "", "r1-t1", "u12-c", "u00012-x", "s17-r2", "r1-t0000-s1 ", "R1-T0000-S1"):
        assert place_of_game(odd) is None and set_of_game(odd) is None
    assert match_unit("r1-t0000-s0") is None


def test_every_planner_names_its_games_by_the_rule(tmp_path: Path) -> None:
    """A tournament's, a match's and a league's games: the set each writes (``GameSpec.set_id``)
    is the set ``set_of_game`` reads back from its id, and the games of one set share their
    deals."""
    path = tmp_path / "t.yaml"
    path.write_text(yaml.safe_dump({
        "name": "ids", "game": "blackout", "players": 3, "rounds": 3, "seed": 1,
        "bots": [{"name": f"b{i}", "cmd": C_BOT} for i in range(5)]}))
    specs = schedule(load_tournament(path))
    match = new_match(C_BOT, PY_BOT, [C_BOT], players=3)
    specs += [game for unit in range(12) for game in unit_games(match, unit)]
    bots = {i: Bot(id=i, name=f"b{i}", version="1", dir=f"bots/b{i}", run=("x",), language=None,
                   author=None, submitted=0.0, state="active") for i in range(3)}
    settings = LeagueSettings(game="blackout", players=3, options={})
    for stored in (1, 17, 123_456):
        planned = PlannedSet(stored, 99 + stored, ((0, 1, 2), (1, 2, 0), (2, 0, 1)), frozenset())
        specs += _specs(planned, settings, bots, {}, {})
    seeds: dict[tuple[str, str], int] = {}
    assert len({spec.id[0] for spec in specs}) == 3  # a tournament's, a match's and a league's
    for spec in specs:
        assert set_of_game(spec.id) == spec.set_id, spec.id
        # Within one run (a match's sets and a tournament's first round share names).
        assert seeds.setdefault((spec.id[0], spec.set_id), spec.seed) == spec.seed, spec.id
