"""``league final``: the closed league's active versions ranked on fresh duplicate deals, its
games kept apart from the ladder's (``arena.league.finals``).

A final plays a closed field: submissions must have closed (``league close``: a final of a league
still taking bots would rank a field that can change under it). Its entrants are the active,
unsuspended versions when it starts, fixed in the database. Its tables are a tournament's: the
final is a round-robin ``Tournament`` of those versions (named ``NAME@VERSION``, as the ladder
names them) made by ``arena.plans.schedule``, so every entrant plays every seat of each of its
sets' deals, seat orders vary as a tournament's do (``seating: balanced``), and whatever the
tournaments' schedules learn (owners kept apart at a table: issue 39) the final learns with
them in ``final_tournament``. ``--games N`` asks for at least N games: whole duplicate sets in
which every entrant plays equally often (all the field's tables, in as many rounds as N needs;
below one round of them, a balanced sample of tables). Its deals are drawn from the final's own
seed (``--seed``, else a random one, drawn when the final starts and stored: a seed known before
the close would let a participant tune a bot to the deals): the same seed and field give the
same deals and the same tables.

It is played as ``league run`` plays, in a session (``arena.runs.session``) holding the
league's run lock: each game is stored the moment it ends, Ctrl-C keeps every game stored, and
``--resume`` makes the same schedule again from the stored plan and plays the games missing.
"""

from __future__ import annotations

import math
import secrets
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from arena.botfiles.resolve import resolve_copy
from arena.connectivity import minimum_tables
from arena.errors import ConfigError
from arena.league.config import LeagueSettings
from arena.league.database import LOGS_DIR
from arena.league.deadline import shown
from arena.league.entrants import Bot
from arena.league.finals import Final
from arena.league.playing import league_owners, only_run
from arena.league.store import Store
from arena.plans.schedule import schedule
from arena.plans.seating import Seating
from arena.plans.tournament import BotSpec, Tournament
from arena.runs.session import Session
from arena.settings import available_cpus
from arena.values.work import Finished, GameSpec

SEED_BITS = 32
"""The bits of a final's seed drawn when none is given (short enough to say and type)."""


@dataclass
class FinalReport:
    """What a final's run did: its games played now and their faults, seconds; the final's
    seed, its games stored in all and its schedule's size."""

    seed: int = 0
    played: int = 0
    faults: int = 0
    stored: int = 0
    scheduled: int = 0
    seconds: float = 0.0
    started: float = field(default_factory=time.monotonic)


def final_tournament(directory: Path, settings: LeagueSettings, bots: Sequence[Bot], seed: int,
                     games: int, owners: Mapping[str, str]) -> Tournament:
    """The final as a round-robin tournament of ``bots`` with deal seed ``seed``: rounds (and, for
    less than a round of the field's tables, a sample of them) to play at least ``games``, two
    entrants of one owner (``owners``: by the name they play under) never at one table where
    the field allows it, as in a tournament (``arena.plans.apart``)."""
    names = [bot.key for bot in bots]
    size = settings.table_size
    if settings.teams is not None:  # every pair of entrants, each side once: 2 games a pair
        rounds, max_tables = max(1, math.ceil(games / (2 * math.comb(len(names), 2)))), 200
    else:
        wanted = math.ceil(games / size)  # a table is a set of ``size`` games, one per rotation
        full = math.comb(len(names), size)
        if wanted >= full:
            rounds, max_tables = math.ceil(wanted / full), full
        else:
            rounds, max_tables = 1, max(wanted, minimum_tables(len(names), size))
    specs = tuple(BotSpec(bot.key, resolve_copy(bot.run, directory / bot.dir),
                          owner=owners.get(bot.key)) for bot in bots)
    # Where one owner's entrants cannot all be kept apart, the final is still played (the close
    # has fixed the field); the tables then are the plain round-robin's.
    return Tournament(path=directory, name="final", game=settings.game, players=settings.players,
                      options=settings.options, bots=specs, rounds=rounds, max_tables=max_tables,
                      seed=seed, play=settings.play, rating=settings.rating,
                      seating=Seating.BALANCED, same_owner_tables=True)


def final_schedule(directory: Path, settings: LeagueSettings, bots: Sequence[Bot],
                   final: Final, owners: Mapping[str, str]) -> list[GameSpec]:
    """Every game of ``final``, in a stable order: the same for the same seed, games, field and
    owners."""
    return schedule(final_tournament(directory, settings, bots, final.seed, final.games, owners))


def play_final(directory: Path, *, games: int | None = None, seed: int | None = None,
               resume: bool = False, jobs: int | None = None, cluster: str | None = None,
               on_start: Callable[[FinalReport], None] | None = None,
               on_game: Callable[[Finished, FinalReport], None] | None = None) -> FinalReport:
    """Start the league's final (``games``, ``seed``) or, with ``resume``, continue it, and play
    its games missing; ConfigError (one line) for a league still open, a final started already
    (without ``resume``) or none to resume. Ctrl-C: RunInterrupted, every finished game stored."""
    store = Store.open(directory)
    report = FinalReport()
    try:
        settings = LeagueSettings.of(store)
        final = _final(store, settings, games, seed, resume)
        by_id = store.entrants.by_id()
        bots = [by_id[bot] for bot in final.bot_ids]
        owners = league_owners(store, bots)
        specs = final_schedule(store.directory, settings, bots, final, owners)
        played = store.finals.played()
        tasks = [spec for spec in specs if spec.id not in played]
        report.seed, report.scheduled, report.stored = final.seed, len(specs), len(played)
        if on_start is not None:
            on_start(report)
        key_ids = {bot.key: bot.id for bot in bots}
        workers = jobs or len(available_cpus())
        with Session(workers, cluster if cluster is not None else settings.cluster,
                     advice=lambda: f"every finished game of the final is saved in {directory}; "
                                    f"arena league final {directory} --resume continues"
                     ) as session:
            session.claim(only_run(store.directory))
            run_settings = settings.play.run_settings(
                bots={bot.key: resolve_copy(bot.run, store.directory / bot.dir).command(
                    settings.bot_sandbox(store.directory / bot.dir)) for bot in bots},
                log_dir=str(store.directory / LOGS_DIR), silent_bot_logs=False, owners=owners)
            seats = {spec.id: tuple(key_ids[key] for key in spec.seats) for spec in tasks}

            def record(game: Finished) -> bool:
                if store.finals.record(game.id, seats[game.id], game.line):
                    report.stored += 1
                report.played += 1
                report.faults += game.faults
                if on_game is not None:
                    on_game(game, report)
                return False

            if tasks:
                session.play(tasks, run_settings, record)
    finally:
        report.seconds = time.monotonic() - report.started
        store.close()
    return report


def _final(store: Store, settings: LeagueSettings, games: int | None, seed: int | None,
           resume: bool) -> Final:
    """The final to play: the stored one (``resume``), or a new one of the playing versions."""
    directory = store.directory
    closes = store.deadline.closes()
    if closes is None or time.time() < closes:
        when = "with no close set" if closes is None else f"until {shown(closes)}"
        raise ConfigError(f"{directory}: open for submissions ({when}): a final ranks a closed "
                          f"field; close it first: arena league close {directory}")
    final = store.finals.current()
    if resume:
        if final is None:
            raise ConfigError(f"{directory}: --resume: no final has started: arena league final "
                              f"{directory} --games N starts one")
        for option, given, stored in (("--games", games, final.games), ("--seed", seed, final.seed)):
            if given is not None and given != stored:
                raise ConfigError(f"{option}: {given}, but the final started with {stored}: "
                                  f"--resume continues it as it started (leave {option} out)")
        return final
    if final is not None:
        raise ConfigError(f"{directory}: a final has started ({final.played} games stored, seed "
                          f"{final.seed}): --resume continues it")
    if games is None:
        raise ConfigError("league final: give --games N (the final's games, at least)")
    bots = [bot for bot in store.entrants.bots() if bot.is_playing]
    if len(bots) < settings.table_size:
        raise ConfigError(f"{directory}: {len(bots)} active, unsuspended entrants: a final needs "
                          f"at least {settings.table_size}")
    chosen = secrets.randbits(SEED_BITS) if seed is None else seed
    # The schedule is made before the plan is stored: one too large is refused with nothing kept.
    planned = Final(chosen, games, tuple(bot.id for bot in bots), time.time(), 0)
    final_schedule(directory, settings, bots, planned, league_owners(store, bots))
    return store.finals.start(chosen, games, planned.bot_ids)

