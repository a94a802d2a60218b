"""The league: its matchmaker against uniform scheduling, and the cost of storing a game.

- **matchmaker vs uniform**: a simulated field of 12 entrants with known strengths (0 to 330 Elo
  in steps of 30) at 4-player tables, outcomes drawn in process (Plackett-Luce: Gumbel
  performances, so pairwise odds are Bradley-Terry) with no bot processes. A duplicate set is one
  table's 4 games. Both schedulers plan 4 sets at a time (what ``league run`` does with 2 workers);
  after each batch the table is rated with ``arena.ratings.model.rate`` (200 resamples), and the run
  stops when the table orders every adjacent pair correctly with LOS >= 95%. Uniform is the
  tournament runner's round-robin (``sample_tables``: every table of 4, shuffled, cycled). Figure:
  the median games over MATCHMAKER_REPEATS fields (different seeds) of each; goal: matchmaker <= 0.6x uniform.
- **identical entrants**: six entrants, three of them copies of one bot (equal strengths), the
  others 100, 200 and 300 Elo above; the matchmaker plans IDENTICAL_GAMES games. Figure: games per
  entrant, max / min (goal <= 2.5: the copies, whose order never settles, take at most about their
  fair share).
- **pace**: a real league of five C bots (three random, two first-legal) at 4-player tables,
  ``run_league`` with 2 jobs: games per second over PACE_WINDOW games from a copy of the league at
  1,000 stored games and from one at 10,000, alternating, medians (goal: >= 0.8x: the league reads
  each game once and refits only as it grows). Each run's start-up is reported beside it.
- **storing a game**: a real-size game line (a random 4-player Blackout game's full record) stored
  with ``Store.record_game`` (one transaction, WAL) against appended with the runner's
  ``ResultsWriter`` (write, flush, fsync at most once a second). Median per game; goal: within 2x.
"""

from __future__ import annotations

import random
import shutil
import statistics
import tempfile
from collections.abc import Callable
from pathlib import Path
from time import perf_counter
from typing import Any

import numpy as np
import orjson

import engine
from arena.league.matchmaker import Entrant, next_tables
from arena.league.run import LeagueRunReport, run_league
from arena.league.settings import LeagueSettings
from arena.league.store import Store
from arena.league.submit import submit
from arena.plans.schedule import sample_tables
from arena.ratings.fit import ELO_PER_NAT
from arena.ratings.model import rate
from arena.runs.results import ResultsWriter
from arena.values.work import Finished

ENTRANTS = 12
SPACING = 30.0
PLAYERS = 4
SETS_PER_BATCH = 4
RESAMPLES = 200
LOS_GOAL = 0.95
REPEATS = 5
MATCHMAKER_REPEATS = 11
"""Fields for matchmaker vs uniform: the games one field needs scatter by a factor of four (1,800 to
7,300 for uniform over five fields), so five medians were not steady."""
MAX_GAMES = 40_000
RATIO_GOAL = 0.6
STORE_GAMES = 300
STORE_GOAL = 2.0

NAMES = [f"bot{i:02d}" for i in range(ENTRANTS)]
STRENGTH = {name: (ENTRANTS - 1 - i) * SPACING for i, name in enumerate(NAMES)}
"""bot00 is the strongest: the true order is NAMES."""


IDENTICAL_STRENGTH = {"greedy": 300.0, "cautious": 200.0, "bold": 100.0,
                      "copy-a": 0.0, "copy-b": 0.0, "copy-c": 0.0}
"""The field with three identical entrants (three copies of one random bot)."""
IDENTICAL_GAMES = 1200
SPREAD_GOAL = 2.5


def _set_results(table: tuple[str, ...], rng: np.random.Generator,
                 strength: dict[str, float] = STRENGTH) -> list[dict[str, Any]]:
    results = []
    for rotation in range(PLAYERS):
        seats = [table[(s + rotation) % PLAYERS] for s in range(PLAYERS)]
        perf = np.array([strength[n] for n in seats]) / ELO_PER_NAT + rng.gumbel(size=PLAYERS)
        ranks = (1 + (perf[None, :] > perf[:, None]).sum(axis=1)).tolist()
        results.append({"entrants": seats, "scores": [PLAYERS - r for r in ranks], "ranks": ranks,
                        "forfeits": [False] * PLAYERS, "faults": [0] * PLAYERS})
    return results


def _resolved(results: list[dict[str, Any]], seed: int) -> tuple[bool, Any]:
    ratings = rate(results, resamples=RESAMPLES, seed=seed)
    rows = ratings.standings
    ordered = [row.name for row in rows] == NAMES
    sure = all(row.los_next is not None and row.los_next >= LOS_GOAL for row in rows[:-1])
    return ordered and sure, ratings


def games_until_resolved(scheduler: str, seed: int) -> int:
    """Games the scheduler needs until the table is right with LOS >= 95% at every step."""
    rng = np.random.default_rng(seed)
    results: list[dict[str, Any]] = []
    sets = dict.fromkeys(NAMES, 0)
    uniform = [tuple(rotations[0]) for rotations in
               sample_tables(NAMES, PLAYERS, 10_000, seed)]
    ratings = None
    batch = 0
    while len(results) < MAX_GAMES:
        if scheduler == "uniform":
            tables = [uniform[(batch * SETS_PER_BATCH + k) % len(uniform)]
                      for k in range(SETS_PER_BATCH)]
        else:
            tables = next_tables(_entrants(NAMES, sets, ratings), PLAYERS, SETS_PER_BATCH,
                                 seed=seed * 1000 + batch)
        for table in tables:
            results.extend(_set_results(table, rng))
            for name in table:
                sets[name] += 1
        batch += 1
        done, ratings = _resolved(results, seed)
        if done:
            return len(results)
    return MAX_GAMES


def _entrants(names: list[str], sets: dict[str, int], ratings: Any) -> list[Entrant]:
    """The matchmaker's view of the table, as ``arena.league.standings`` gives it."""
    rows = {} if ratings is None else {row.name: row for row in ratings.standings}
    return [Entrant(n, sets[n], *((rows[n].rating, rows[n].lower, rows[n].upper,
                                   rows[n].los_next, rows[n].gap_next)
                                  if n in rows else (None, None, None, None, None)))
            for n in names]


def identical_spread(seed: int) -> dict[str, int]:
    """Games per entrant after IDENTICAL_GAMES games of the field with three identical entrants."""
    rng = np.random.default_rng(seed)
    names = list(IDENTICAL_STRENGTH)
    results: list[dict[str, Any]] = []
    sets = dict.fromkeys(names, 0)
    games = dict.fromkeys(names, 0)
    ratings = None
    batch = 0
    while len(results) < IDENTICAL_GAMES:
        for table in next_tables(_entrants(names, sets, ratings), PLAYERS, SETS_PER_BATCH,
                                 seed=seed * 1000 + batch):
            results.extend(_set_results(table, rng, IDENTICAL_STRENGTH))
            for name in table:
                sets[name] += 1
                games[name] += PLAYERS
        batch += 1
        ratings = rate(results, resamples=RESAMPLES, seed=seed)
    return games


PACE_BOTS = (("random-a", "random_bot"), ("random-b", "random_bot"), ("random-d", "random_bot"),
             ("first-a", "first_bot"), ("first-b", "first_bot"))
PACE_WINDOW = 500
PACE_GOAL = 0.8


PACE_ROUNDS = 3
PACE_SKIP = 50
"""Games at the start of each timed run left out of its pace: the run reads the league's games and
starts its workers first (reported on its own, as the start-up)."""


def _timer(times: list[float]) -> Callable[[Finished, LeagueRunReport], None]:
    """An ``on_game`` that notes when each game was stored."""
    return lambda game, report: times.append(perf_counter())


def league_pace(directory: Path, early: int = 1000, late: int = 10_000
                ) -> tuple[list[float], list[float], list[float], list[float]]:
    """Games per second of ``league run --jobs 2`` (C bots, 4 players) over PACE_WINDOW games, from
    a copy of the league at ``early`` stored games and from one at ``late``, the two alternating
    PACE_ROUNDS times (the machine's load drifts: one long run would compare two moments); and
    each run's start-up (seconds until its first game is stored). A league must not slow down as
    it grows."""
    root = Path(__file__).resolve().parents[1]
    settings = LeagueSettings.checked("blackout", PLAYERS, {})
    store = Store.create(directory, settings.stored())
    store.close()
    for name, program in PACE_BOTS:
        source = directory.parent / f"{name}-src"
        source.mkdir()
        shutil.copy(root / "bots" / "c" / program, source / "bot")
        (source / "bot.yaml").write_text(f"name: {name}\nrun: ./bot\n")
        submission = submit(directory, source)
        assert submission.accepted, submission
    snapshots = []
    for stored in (early, late):
        store = Store.open(directory)
        so_far = store.game_total()
        store.close()
        run_league(directory, games=stored - so_far, jobs=2)
        snapshot = directory.parent / f"at-{stored}"
        shutil.copytree(directory, snapshot)
        snapshots.append(snapshot)
    paces: tuple[list[float], list[float]] = ([], [])
    starts: tuple[list[float], list[float]] = ([], [])
    work = directory.parent / "timed"
    for _ in range(PACE_ROUNDS):
        for index, snapshot in enumerate(snapshots):
            shutil.rmtree(work, ignore_errors=True)
            shutil.copytree(snapshot, work)
            stored_at: list[float] = []
            began = perf_counter()
            run_league(work, games=PACE_SKIP + PACE_WINDOW, jobs=2, on_game=_timer(stored_at))
            paces[index].append(PACE_WINDOW / (stored_at[-1] - stored_at[PACE_SKIP - 1]))
            starts[index].append(stored_at[0] - began)
    return paces[0], paces[1], starts[0], starts[1]


def _game_line(seed: int) -> bytes:
    """A real-size result line: a random 4-player Blackout game's record."""
    rules = engine.game("blackout")
    state = rules.new_game(PLAYERS, seed)
    choice = random.Random(seed)
    while not state.is_over:
        state = rules.apply(state, choice.choice(rules.legal_actions(state)))
    names = NAMES[:PLAYERS]
    record = rules.record(state, names)
    record["faults"] = []
    line = {"id": "s000001-r0", **record,
            "result": {"entrants": names, "scores": [0] * PLAYERS, "ranks": [1] * PLAYERS,
                       "forfeits": [False] * PLAYERS, "faults": [0] * PLAYERS}}
    return orjson.dumps(line, default=str) + b"\n"


def store_costs() -> tuple[float, float, int]:
    """Median seconds per game: stored in the league database, appended to games.jsonl."""
    line = _game_line(1)
    db_times, jsonl_times = [], []
    for _ in range(REPEATS):
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            settings = LeagueSettings.checked("blackout", PLAYERS, {})
            store = Store.create(root / "league", settings.stored())
            ids = [store.add_bot(n, "1", f"bots/{n}/1", ["true"], None, None).id
                   for n in NAMES[:PLAYERS]]
            planned = store.plan_sets([(i, [ids] * PLAYERS) for i in range(STORE_GAMES)])
            began = perf_counter()
            for planned_set in planned:
                store.record_game(planned_set.id, 0, ids, line, [])
            db_times.append((perf_counter() - began) / STORE_GAMES)
            store.close()
            writer = ResultsWriter(root / "games.jsonl")
            began = perf_counter()
            for _ in range(STORE_GAMES):
                writer.append(line)
            writer.close()
            jsonl_times.append((perf_counter() - began) / STORE_GAMES)
    return statistics.median(db_times), statistics.median(jsonl_times), len(line)


def run() -> list[str]:
    """Measure and return the lines to print."""
    lines = []
    counts = {scheduler: [games_until_resolved(scheduler, seed)
                          for seed in range(1, MATCHMAKER_REPEATS + 1)]
              for scheduler in ("uniform", "matchmaker")}
    uniform = statistics.median(counts["uniform"])
    matched = statistics.median(counts["matchmaker"])
    ratio = matched / uniform
    lines.append(f"games until every adjacent pair is ordered right with LOS >= 95% "
                 f"({ENTRANTS} entrants {SPACING:.0f} Elo apart, median of {MATCHMAKER_REPEATS} fields):")
    lines.append(f"  uniform {uniform:.0f} {sorted(counts['uniform'])}")
    lines.append(f"  matchmaker {matched:.0f} {sorted(counts['matchmaker'])}: "
                 f"{ratio:.2f}x uniform (goal <= {RATIO_GOAL}x) "
                 f"{'met' if ratio <= RATIO_GOAL else 'NOT met'}")
    spreads = [identical_spread(seed) for seed in range(1, REPEATS + 1)]
    ratios = [max(g.values()) / min(g.values()) for g in spreads]
    worst = spreads[ratios.index(max(ratios))]
    lines.append(f"three identical entrants among six, {IDENTICAL_GAMES} games, games per entrant "
                 f"(max / min over {REPEATS} fields: {', '.join(f'{r:.2f}' for r in ratios)}; "
                 f"goal <= {SPREAD_GOAL}x) {'met' if max(ratios) <= SPREAD_GOAL else 'NOT met'}; "
                 f"the worst: " + ", ".join(f"{name} {count}" for name, count in worst.items()))
    with tempfile.TemporaryDirectory() as tmp:
        early_runs, late_runs, early_starts, late_starts = league_pace(Path(tmp) / "league")
    early, late = statistics.median(early_runs), statistics.median(late_runs)
    pace = late / early
    lines.append(f"league run pace (C bots, --jobs 2, medians of {PACE_ROUNDS} alternating runs "
                 f"from copies of one league): {early:.1f} games/s at 1,000 stored games "
                 f"({', '.join(f'{r:.1f}' for r in early_runs)}), {late:.1f} at 10,000 "
                 f"({', '.join(f'{r:.1f}' for r in late_runs)}): {pace:.2f}x (goal >= {PACE_GOAL}x) "
                 f"{'met' if pace >= PACE_GOAL else 'NOT met'}; a run's start-up (reading the "
                 f"league, starting workers): {statistics.median(early_starts):.1f} s at 1,000, "
                 f"{statistics.median(late_starts):.1f} s at 10,000")
    db, jsonl, size = store_costs()
    store_ratio = db / jsonl
    lines.append(f"storing a game ({size / 1024:.0f} KB line): league db {db * 1e6:.0f} us, "
                 f"games.jsonl {jsonl * 1e6:.0f} us: {store_ratio:.2f}x (goal <= {STORE_GOAL}x) "
                 f"{'met' if store_ratio <= STORE_GOAL else 'NOT met'}")
    return lines
