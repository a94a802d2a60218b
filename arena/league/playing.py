"""``league run``: play duplicate sets chosen by the matchmaker, each finished game committed at once.

Sets are planned in the database before they are played, and a game is stored (one transaction)
the moment it ends, so a run stopped any way (Ctrl-C, SIGKILL) loses only the games in progress;
the next run first finishes the open sets whose entrants are all still active and not suspended
(others are abandoned), then asks the matchmaker for more. A stored game counts in its entrants'
conduct (``Games.record``): one it suspends (its ``suspend_after``-th game in a row with a
start failure, a time-out or a crash) ends the batch at once, since it sits in more of it. The
league is the planner of a session (``arena.runs.session``, as a tournament and a match are): it
holds the league's run lock and plays the batches locally or on the league's Dask cluster; the
stored copies are resolved like any bot (``arena.botfiles.resolve.resolve_copy``) and were built when
they were submitted.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from arena.botfiles.resolve import resolve_copy
from arena.errors import ConfigError
from arena.league.config import LeagueSettings
from arena.league.database import LOGS_DIR
from arena.league.entrants import Bot
from arena.league.games import PlannedSet
from arena.league.lock import league_lock
from arena.league.matchmaker import next_tables
from arena.league.standings import StandingsCache
from arena.league.store import Store
from arena.names import name_key
from arena.plans.seating import add_order, best_order
from arena.records.reader import parse_line
from arena.runs.progress import PROGRESS_LINE, Pace
from arena.runs.session import Session
from arena.settings import GameLogs, available_cpus
from arena.values.ids import LEAGUE_ROUND, league_game_id
from arena.values.work import Finished, GameSpec
from engine.seeding import derive_seed

RUN_LOCK = "run.lock"
GAME_LINE = PROGRESS_LINE
"""How a line a league run writes on stderr after a game begins (its progress line): the server,
which runs ``league run`` in a child process, knows by it that the league plays."""
SETS_PER_JOB = 2
"""Sets planned per worker between two looks at the ratings: enough to keep workers busy."""


@dataclass
class LeagueRunReport:
    """What a run did: games played and faults, seconds, and the games stored in all."""

    played: int = 0
    faults: int = 0
    seconds: float = 0.0
    total: int = 0
    started: float = field(default_factory=time.monotonic)
    """``time.monotonic()`` when the run began."""
    deadline: float | None = None
    """``time.monotonic()`` when ``--minutes`` are up; None: no time limit."""
    pace: Pace = field(default_factory=Pace)
    """The steady pace of its games, which the estimate of a run bounded by time comes from."""
    leader: str | None = None
    """Who tops the table (``standings.leader``), for progress; refreshed by ``refresh_leader``."""
    leader_at: float = 0.0
    leader_cost: float = 0.0
    suspended: list[Bot] = field(default_factory=list)
    """The versions suspended by this run's games (``Games.record``), in order."""

    def finished(self, games: int | None) -> bool:
        """Whether the run is done: ``games`` played, or its time is up."""
        return (games is not None and self.played >= games) or \
            (self.deadline is not None and time.monotonic() >= self.deadline)

    def refresh_leader(self, standings: StandingsCache, *, now: bool = False) -> None:
        """Look at the table again when ``now``, when nobody led yet, or when enough time has
        passed: at least a second, and ten times what the last look took (rating a big league
        each game would cost more than its games)."""
        since = time.monotonic() - self.leader_at
        if not now and self.leader is not None and since < max(1.0, 10 * self.leader_cost):
            return
        began = time.monotonic()
        self.leader = standings.leader(fresh=now)
        self.leader_at = time.monotonic()
        self.leader_cost = self.leader_at - began


def run_league(directory: Path, *, games: int | None = None, minutes: float | None = None,
               jobs: int | None = None, cluster: str | None = None,
               on_game: Callable[[Finished, LeagueRunReport], None] | None = None) -> LeagueRunReport:
    """Play until ``games`` more games are stored or ``minutes`` have passed; at least one of them
    is required. Time is looked at after each game: when it is up, the games in progress are
    stopped (their sets stay open for the next run). Ctrl-C: RunInterrupted after the games in
    progress are stopped, every finished one stored."""
    if games is None and minutes is None:
        raise ConfigError("league run: give --games N or --minutes M")
    store = Store.open(directory)
    report = LeagueRunReport(deadline=None if minutes is None else time.monotonic() + minutes * 60)
    try:
        settings = LeagueSettings.of(store)
        workers = jobs or len(available_cpus())
        with Session(workers, cluster if cluster is not None else settings.cluster,
                     advice=lambda: f"every finished game is saved in {directory}; "
                                    f"arena league run {directory} continues") as session:
            session.claim(only_run(store.directory))
            standings = StandingsCache(store, settings.rating)  # each game read once per run
            # The session's local workers keep their bots alive from batch to batch.
            while not report.finished(games):
                # Read again before each batch: `league config` changes the time control, the
                # limits and the sandbox's installations of the games to come (the pool restarts
                # the bots whose settings changed: ``_BotPool.adopt``).
                settings = LeagueSettings.of(store)
                _plan_and_play_batch(store, settings, session, workers, games, report,
                                     on_game, standings)
    finally:
        report.seconds = time.monotonic() - report.started
        report.total = store.games.total()
        store.close()
    return report


def expected_games(report: LeagueRunReport, games: int | None) -> int | None:
    """The games this run will have played when it stops, for a progress line: ``games``, or for a
    run bounded by time the games at its steady pace (the lesser of the two when both are given);
    None while that pace is not known yet (``Pace``)."""
    if report.deadline is None:
        return games if games is not None else report.played
    now = time.monotonic()
    rate = report.pace.rate(report.played, now)
    if rate is None:
        return None
    estimate = report.played + round(rate * max(report.deadline - now, 0.0))
    return estimate if games is None else min(games, estimate)


def _plan_and_play_batch(store: Store, settings: LeagueSettings, session: Session, jobs: int,
                         games: int | None, report: LeagueRunReport,
                         on_game: Callable[[Finished, LeagueRunReport], None] | None,
                         standings: StandingsCache) -> None:
    """Plan (or take up) a batch of sets for ``jobs`` games at once and play it in ``session``
    (on the league's cluster, or the run's local workers, whose bots outlive the batch), storing
    each game as it ends; the batch stops early when the run is done (its time is up)."""
    bots = store.entrants.by_id()
    tasks, seats, places = _next_batch(store, settings, bots, jobs, standings)
    report.refresh_leader(standings)
    if games is not None:
        tasks = tasks[:games - report.played]  # the rest stays open for the next run
    directories = {bots[b].key: (bots[b].run, store.directory / bots[b].dir)
                   for b in {b for ids in seats.values() for b in ids}}
    run_settings = settings.play.run_settings(
        bots={key: resolve_copy(run, directory).command(settings.bot_sandbox(directory))
              for key, (run, directory) in directories.items()},
        log_dir=str(store.directory / LOGS_DIR), silent_bot_logs=False, game_logs=GameLogs(),
        owners=league_owners(store, [bots[b] for b in {b for ids in seats.values() for b in ids}]))

    def record(game: Finished) -> bool:
        suspended = _record(store, game, seats, places, bots, settings.suspend_after)
        report.suspended += suspended
        report.played += 1
        report.pace.count(report.played, time.monotonic())
        report.faults += game.faults
        report.refresh_leader(standings, now=report.played == games)
        if on_game is not None:
            on_game(game, report)
        # A version just suspended sits in more of this batch's games, each of which would wait
        # its allowance again: stop the batch (the games in progress too; their sets stay open,
        # and the next batch abandons those that seat it).
        return report.finished(games) or bool(suspended)

    session.play(tasks, run_settings, record)


def league_owners(store: Store, bots: Sequence[Bot]) -> dict[str, str]:
    """The records' owners of ``bots`` by the name they play under: the participant who owns the
    entrant; the organiser's are their own (``arena.records.writer.with_owners``)."""
    owners = store.owner_names()
    return {bot.key: owners[name_key(bot.name)] for bot in bots if name_key(bot.name) in owners}


def _next_batch(store: Store, settings: LeagueSettings, bots: dict[int, Bot], workers: int,
                standings: StandingsCache) -> tuple[list[GameSpec], dict[str, tuple[int, ...]],
                                                    dict[str, tuple[int, int]]]:
    """The games to play next: the open sets' missing games, else new sets from the matchmaker."""
    open_sets = store.games.open_sets()
    stale = [s.id for s in open_sets
             if any(not bots[b].is_playing for rotation in s.rotations for b in rotation)]
    if stale:
        store.games.abandon_sets(stale)
    pending = [s for s in open_sets if s.id not in stale]
    if not pending:
        # Only the versions this batch read: a submit that commits while the batch is planned
        # (the standings read the bots again) joins at the next batch.
        known = {bot.key for bot in bots.values() if bot.is_playing}
        entrants = [e for e in standings.entrants() if e.key in known]
        if len(entrants) < settings.table_size:
            suspended = sum(bot.state == "active" and not bot.is_playing for bot in bots.values())
            also = f" ({suspended} more suspended: arena league status says why)" if suspended else ""
            raise ConfigError(f"{store.directory}: {len(entrants)} active entrants{also}: at least "
                              f"{settings.table_size} are needed (arena league submit adds bots)")
        by_key = {bot.key: bot.id for bot in bots.values() if bot.is_playing}
        first = len(store.games.open_sets()) + store.games.total()
        tables = next_tables(entrants, settings.table_size, SETS_PER_JOB * workers,
                             seed=derive_seed(settings.seed, "matchmaker", first),
                             delta=settings.delta)
        orders = _seat_orders(standings.neighbours(),
                              [[by_key[key] for key in table] for table in tables],
                              settings.teams is None)
        pending = store.games.plan_sets([
            (derive_seed(settings.seed, "league-deals", first, index),
             _rotations(list(order), settings.teams))
            for index, order in enumerate(orders)])
    tasks: list[GameSpec] = []
    seats: dict[str, tuple[int, ...]] = {}
    places: dict[str, tuple[int, int]] = {}
    for planned in pending:
        tasks.extend(_specs(planned, settings, bots, seats, places))
    return tasks, seats, places


def _seat_orders(neighbours: Counter[tuple[int, int]], tables: list[list[int]],
                 balanced: bool) -> list[tuple[int, ...]]:
    """Each table's seat order: the cyclic order that keeps who sits directly before whom most
    even over the league's sets (``neighbours``: bot a directly before bot b, by id;
    ``arena.plans.seating.best_order``). Team games alternate sides: their tables keep the
    matchmaker's order."""
    if not balanced:
        return [tuple(table) for table in tables]
    size = 1 + max([b for pair in neighbours for b in pair] + [b for table in tables for b in table])
    counts = np.zeros((size, size), dtype=np.int64)
    for (a, b), count in neighbours.items():
        counts[a, b] = count
    chosen = []
    for table in tables:
        order = best_order(table, counts)
        add_order(order, counts)
        chosen.append(order)
    return chosen


def _rotations(members: list[int],
               teams: tuple[tuple[int, ...], ...] | None) -> list[tuple[int, ...]]:
    """Seats by rotation: every entrant plays every seat of the deal; teams swap sides."""
    size = len(members)
    if teams is not None:  # entrant i plays team (i + r)'s seats in rotation r
        rotations = []
        for r in range(size):
            seats = [0] * sum(len(team) for team in teams)
            for index, team in enumerate(teams):
                for seat in team:
                    seats[seat] = members[(index + r) % size]
            rotations.append(tuple(seats))
        return rotations
    return [tuple(members[(seat + r) % size] for seat in range(size)) for r in range(size)]


def _specs(planned: PlannedSet, settings: LeagueSettings, bots: dict[int, Bot],
           seats: dict[str, tuple[int, ...]], places: dict[str, tuple[int, int]]) -> list[GameSpec]:
    specs = []
    for rotation, ids in enumerate(planned.rotations):
        if rotation in planned.played:
            continue
        game_id = league_game_id(planned.id, rotation)
        seats[game_id] = ids
        places[game_id] = (planned.id, rotation)
        specs.append(GameSpec(id=game_id, game=settings.game, options=settings.options,
                              seats=tuple(bots[b].key for b in ids), seed=planned.seed,
                              round=LEAGUE_ROUND, table=planned.id, rotation=rotation))
    return specs


def _record(store: Store, game: Finished, seats: dict[str, tuple[int, ...]],
            places: dict[str, tuple[int, int]], bots: dict[int, Bot],
            suspend_after: int) -> list[Bot]:
    """Store one finished game with its seats (bot ids) and faults, in one transaction; the
    versions it suspended."""
    ids = seats[game.id]
    recorded = parse_line(game.line)["faults"] if game.faults else ()  # faults are rare
    faults = [(ids[fault["seat"]], fault["kind"], fault["detail"][:500]) for fault in recorded]
    set_id, rotation = places[game.id]
    return store.games.record(set_id, rotation, ids, game.line, faults, suspend_after)


def only_run(directory: Path) -> AbstractContextManager[None]:
    """Hold the league's run lock: two runs would play the same open sets, and a run beside the
    final (``arena.league.final``) would share its CPUs. The kernel drops the lock with the
    process, however it ends; one who finds it held is told the holder's pid."""
    return league_lock(directory / RUN_LOCK,
                       what="another arena league run or final on this league",
                       advice="wait for it to end, or stop it (kill -INT {pid}: the games it "
                              "finished are kept), then run again")
