"""The store's queries of games by entrant (``Games.recent``): the right games, newest first,
at a cost that does not grow with the league for an entrant that is unknown, rare or never met
the other (the cost counted in SQLite's virtual machine steps, a measure of work, not of time)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

import arena.league.games as games_module
from arena.league.store import Store

from helpers import new_league

pytestmark = pytest.mark.slow  # leagues of 300 and 1500 games

POOL = ("b0", "b1", "b2", "b3", "b4")


def _play(store: Store, ids: dict[str, int], names: list[str]) -> None:
    planned = store.games.plan_sets([(1, [[ids[name] for name in names]])])[0]
    entrants = [f"{name}@1" for name in names]
    line = orjson.dumps({"names": entrants, "result": {"entrants": entrants, "ranks": [1, 2, 3]},
                         "pad": "x" * 2000})  # a game's line is kilobytes
    store.games.record(planned.id, 0, planned.rotations[0], line, [])


def _league(path: Path, games: int) -> Store:
    """A league whose ``rare`` played 3 games first, ``old`` the next half (then no more), and the
    pool of five the rest."""
    store = Store.open(new_league(path))
    for name in (*POOL, "rare", "old"):
        store.entrants.add(name, "1", f"bots/{name}/1", ["./bot"], None, None)
    store.entrants.add("b0", "2", "bots/b0/2", ["./bot"], None, None)  # two versions of b0
    ids = {bot.name: bot.id for bot in store.entrants.bots()}
    rng = random.Random(1)
    for _ in range(3):
        _play(store, ids, ["rare", "b1", "b2"])
    for _ in range(games // 2):
        _play(store, ids, ["old", *rng.sample(POOL, 2)])
    for _ in range(games - games // 2):
        _play(store, ids, rng.sample(POOL, 3))
    return store


WINDOW = 100
"""The latest games looked through first, here: both leagues are many windows long, as a real
league is many of the store's windows long."""


@pytest.fixture(scope="module")
def leagues(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Store, Store]]:
    small = _league(tmp_path_factory.mktemp("small") / "league", 300)
    large = _league(tmp_path_factory.mktemp("large") / "league", 1500)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(games_module, "RECENT_WINDOW", WINDOW)
        yield small, large
    small.close()
    large.close()


def _steps(store: Store, names: tuple[str, ...], before: int | None = None) -> int:
    """SQLite virtual machine steps ``recent_games(names)`` takes (counted 100 at a time)."""
    steps = [0]

    def count() -> int:
        steps[0] += 100
        return 0

    store.database.db.set_progress_handler(count, 100)
    try:
        store.games.recent(names, 50, before)
    finally:
        store.database.db.set_progress_handler(None, 100)
    return steps[0]


def test_the_games_of_entrants_are_the_latest_that_seat_them_all(leagues):
    _, store = leagues
    every = [(int(rowid), str(game_id), bytes(line),
              {name.partition("@")[0] for name in orjson.loads(line)["names"]})
             for rowid, game_id, line in store.database.db.execute(
                 "SELECT rowid, id, line FROM games ORDER BY rowid DESC")]
    rng = random.Random(2)
    names = [*POOL, "rare", "old", "nobody"]
    for _ in range(60):
        wanted = tuple(rng.sample(names, rng.choice((0, 1, 1, 2))))
        limit = rng.choice((1, 20, 50, 500))
        before = rng.choice((None, rng.randint(1, 1600)))
        plain = [(rowid, game_id, line) for rowid, game_id, line, seated in every
                 if (before is None or rowid < before) and seated.issuperset(wanted)][:limit]
        assert store.games.recent(wanted, limit, before) == plain, (wanted, limit, before)


@pytest.mark.parametrize("names", [("nobody",), ("b3", "nobody"), ("rare",), ("old", "rare"),
                                   ("b1",), ("b0",)])
def test_a_query_costs_the_same_in_a_league_five_times_as_large(leagues, names):
    """Unknown, rare, never met, or frequent (b0 has two versions): never a read of the league.
    (Where the latest games hold too few, the rest cost the seats of the rarer entrant: an
    entrant of many games none of them recent, or two frequent ones that seldom meet.)"""
    small, large = leagues
    assert _steps(large, names) <= _steps(small, names) + 300, names

