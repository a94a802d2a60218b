"""Schedules: a pure function from a tournament to its games, each with seats and a deal seed.

Fairness in a luck-heavy card game comes from the schedule:
- Blackout, ``round-robin``: every table of ``players`` distinct bots when there are at most
  ``max_tables`` of them; otherwise a balanced sample of tables (see ``sample_tables``).
- Duplicate deals: each table plays one deal seed once per seat rotation, so every bot at the
  table plays every hand; those games form one duplicate set.
- Partnership Blackout: entrants are teams (each bot with a copy of itself, or the file's
  ``teams``); every pair of teams plays each deal seed twice, swapping seats.
- ``format: gauntlet``: every table holds exactly one challenger, the rest from the field (the
  ``bots``, or their teams): for each challenger the field's tables as a round-robin of
  ``players - 1`` seats would choose them (up to ``max_tables`` per challenger), in every seat
  rotation on one deal seed, as above. Challengers never meet: they are rated through the field.
- Owners (a bot's ``owner:``): no table seats two entrants of one owner when the field allows it
  (``arena.plans.apart``); when it does not, the run is refused unless the file says
  ``same_owner_tables: allow``, and then the tables are the plain design's. A field in which no
  two bots share an owner gets the schedule it always had.
- ``deals: FILE`` gives the sets their deals instead of their seeds, the file's lines in set order
  (``arena.plans.deals``).
- ``rounds`` repeats the whole schedule with new deal seeds; under ``seating: balanced`` (the
  default) a table's cyclic order changes from round to round (``arena.plans.seating``) so that
  who sits directly before whom evens out.
- Extending a run: more ``rounds`` append rounds; bots (or teams) appended to the list append
  tables when every table is played (colex order, ``stable_combinations``), so the games already
  played keep their ids, seats and seeds. A sampled schedule changes with the number of bots.
A format (the file's ``format:``, a ``Format``) is a ``Scheduler``: the tables one round plays, each
as its seat rotations, and how many games that is, counted without building them. ``SCHEDULERS``
holds the one class of each format, chosen once per schedule; the rest is the same for every
format (``schedule``): rounds, deal seeds, a deals file's lines, seat orders and game ids. A new
format is a member of ``Format`` and one class here. The table designs the formats choose from
(every combination, or a balanced sample) are ``arena.plans.tables``.
The same tournament file always gives the same schedule: seeds are derived with BLAKE2b, never
Python's ``hash()``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import cached_property
from typing import Protocol

import engine
from arena.errors import ConfigError
from arena.plans.apart import Seated, apart_pairs, apart_tables, owner_keys, shared_owners
from arena.plans.seating import Seating, balanced_orders, rotations
from arena.plans.tables import sample_tables, table_count
from arena.plans.tournament import Format, Tournament
from arena.settings import MAX_GAMES
from arena.values.ids import tournament_game_id
from arena.values.work import GameSpec
from engine.game import GameInfo
from engine.seeding import derive_seed

Tables = list[list[tuple[str, ...]]]
"""A round's tables, each as its seat rotations (the games of one duplicate set), bots by seat."""


class Scheduler(Protocol):
    """One tournament format: which tables a round of it plays."""

    def tables(self) -> Tables:
        """One round's tables, in a stable order (extending a run appends tables at the end)."""
        ...

    def games_per_round(self) -> int:
        """How many games one round holds, counted without building it."""
        ...

    def entrants(self) -> list[str]:
        """Every entrant the format seats, as results name it (a bot, or a team)."""
        ...

    def together(self) -> str | None:
        """Why its tables seat two entrants of one owner together (the field does not allow
        otherwise); None when they keep owners apart."""
        ...


class RoundRobin:
    """``format: round-robin``: every table of ``players`` bots (a balanced sample of them when
    there are more than ``max_tables``: ``sample_tables``); in a team game, every pair of teams,
    each in the game's first team seats and then in its second. Owners apart
    (``arena.plans.apart``) where the field allows it."""

    def __init__(self, tournament: Tournament) -> None:
        self.tournament = tournament

    @cached_property
    def _seated(self) -> Seated:
        tournament = self.tournament
        seats_of = engine.game(tournament.game).info.teams
        if seats_of is None:
            names = [bot.name for bot in tournament.bots]
            return apart_tables(names, tournament.owners, tournament.players,
                                tournament.max_tables, tournament.seed)
        assert len(seats_of) == 2
        teams = list(tournament.teams) or [(bot.name, bot.name) for bot in tournament.bots]
        pairs, problem = apart_pairs(teams, tournament.owners)
        return Seated([[_seated(seats_of, (a, b)), _seated(seats_of, (b, a))] for a, b in pairs],
                      problem)

    def tables(self) -> Tables:
        """Every table of the field (or its sample), or every pair of teams."""
        return self._seated.tables

    def together(self) -> str | None:
        """Why its tables cannot keep owners apart (``arena.plans.apart``), or None."""
        return self._seated.problem

    def games_per_round(self) -> int:
        """Tables times seat rotations (two sides for a pair of teams)."""
        tournament = self.tournament
        if shared_owners([bot.name for bot in tournament.bots], tournament.owners):
            # tables of different owners: at most every combination or the sample's count
            return sum(len(table) for table in self.tables())
        if tournament.has_teams:
            return math.comb(len(tournament.teams) or len(tournament.bots), 2) * 2
        return table_count(len(tournament.bots), tournament.players, tournament.max_tables) \
            * tournament.players

    def entrants(self) -> list[str]:
        """The bots, or the teams."""
        return _field(self.tournament)


class Gauntlet:
    """``format: gauntlet``: every challenger at every field table, in its own seat (or team) with
    the field's tables as a round-robin of ``players - 1`` seats would choose them; challengers
    never meet. With owners, a challenger's field is the bots of other owners, at tables of
    different owners (``arena.plans.apart``) where the field allows it."""

    def __init__(self, tournament: Tournament) -> None:
        self.tournament = tournament

    @cached_property
    def _seated(self) -> Seated:
        """Each challenger's tables, challenger by challenger: with a team of its copies against
        each field team, or in one seat with ``players - 1`` of the field's."""
        tournament = self.tournament
        challengers = [bot.name for bot in tournament.challengers]
        owners = tournament.owners
        keys = owner_keys([bot.name for bot in tournament.programs], owners)
        seats_of = engine.game(tournament.game).info.teams
        if seats_of is not None:
            teams = list(tournament.teams) or [(bot.name, bot.name) for bot in tournament.bots]
            met = [(c, b) for c in challengers for b in teams
                   if all(keys[member] != keys[c] for member in b)]
            problem = next((f"every field team has a bot of {owners[c]!r}, the owner of "
                            f"challenger {c}" for c in challengers
                            if not any(m == c for m, _ in met)), None)
            if problem is not None:
                met = [(c, b) for c in challengers for b in teams]
            return Seated([[_seated(seats_of, ((c, c), b)), _seated(seats_of, (b, (c, c)))]
                           for c, b in met], problem)
        size = tournament.players
        names = [bot.name for bot in tournament.bots]
        plain: list[tuple[str, ...]] | None = None
        tables: Tables = []
        problems = []
        for challenger in challengers:
            field = [name for name in names if keys[name] != keys[challenger]]
            if field == names and not shared_owners(names, owners):
                if plain is None:  # the schedule a field without owners always had
                    plain = [rotations[0] for rotations in
                             sample_tables(names, size - 1, tournament.max_tables,
                                           tournament.seed)]
                members_of = plain
            else:
                seated = (apart_tables(field, owners, size - 1, tournament.max_tables,
                                       tournament.seed) if len(field) >= size - 1 else
                          Seated([], f"{len(field)} field bots are not of challenger "
                                     f"{challenger}'s owner {owners[challenger]!r}: "
                                     f"{size}-player tables need {size - 1}"))
                if seated.problem is not None:
                    problems.append(seated.problem)
                    seated = apart_tables(names, {}, size - 1, tournament.max_tables,
                                          tournament.seed)
                members_of = [rotations[0] for rotations in seated.tables]
            for members in members_of:
                seats = (challenger, *members)
                tables.append([tuple(seats[(seat + r) % size] for seat in range(size))
                               for r in range(size)])
        return Seated(tables, problems[0] if problems else None)

    def tables(self) -> Tables:
        """Each challenger's tables, challenger by challenger."""
        return self._seated.tables

    def together(self) -> str | None:
        """Why its tables cannot keep owners apart (``arena.plans.apart``), or None."""
        return self._seated.problem

    def games_per_round(self) -> int:
        """Challengers times field tables (or teams) times seat rotations."""
        tournament = self.tournament
        if shared_owners([bot.name for bot in tournament.programs], tournament.owners):
            return sum(len(table) for table in self.tables())
        challengers = len(tournament.challengers)
        if tournament.has_teams:
            return challengers * (len(tournament.teams) or len(tournament.bots)) * 2
        size = tournament.players
        return challengers * table_count(len(tournament.bots), size - 1, tournament.max_tables) * size

    def entrants(self) -> list[str]:
        """The field's bots (or teams), then the challengers (or their teams of copies)."""
        info = engine.game(self.tournament.game).info
        challengers = [bot.name for bot in self.tournament.challengers]
        if info.teams is not None:
            challengers = [_team_name(info, (name, name)) for name in challengers]
        return _field(self.tournament) + challengers


SCHEDULERS: dict[Format, Callable[[Tournament], Scheduler]] = {
    Format.ROUND_ROBIN: RoundRobin,
    Format.GAUNTLET: Gauntlet,
}
"""The scheduler of each format (a test holds every ``Format`` to having one)."""


def scheduler_for(tournament: Tournament) -> Scheduler:
    """The scheduler of ``tournament``'s format."""
    return SCHEDULERS[tournament.format](tournament)


def schedule(tournament: Tournament, *, refuse_together: bool = True) -> list[GameSpec]:
    """Every game of the tournament, in a stable order; ConfigError, before anything is built,
    for a schedule of more than ``MAX_GAMES`` games, and (``refuse_together``: a run's, not a
    dry run's) for one that seats two entrants of one owner at a table when the file does not
    say ``same_owner_tables: allow``."""
    scheduler = scheduler_for(tournament)
    check_size(tournament, scheduler.games_per_round())
    tables = scheduler.tables()
    problem = scheduler.together()
    if refuse_together and problem is not None and not tournament.same_owner_tables:
        raise ConfigError(f"{tournament.path}: same_owner_tables: {problem}; 'same_owner_tables: "
                          f"allow' would seat them together")
    games = []
    # Team games swap sides (two entrants): only tables of three or more have an order to vary.
    seating = Seating.CYCLIC if tournament.has_teams else tournament.seating_design
    orders = (balanced_orders([by_rotation[0] for by_rotation in tables])
              if seating is Seating.BALANCED else None)
    suite = tournament.deals
    for round_number in range(1, tournament.rounds + 1):
        for index, seats_by_rotation in enumerate(tables):
            seed = derive_seed(tournament.seed, "deals", round_number, index)
            # a deals file's lines go to the sets in this order, round by round, table by table
            preset = (None if suite is None
                      else suite.preset_for((round_number - 1) * len(tables) + index))
            if orders is not None:
                cycle = orders[index]
                seats_by_rotation = rotations(cycle[(round_number - 1) % len(cycle)])
            for rotation, seats in enumerate(seats_by_rotation):
                games.append(GameSpec(
                    id=tournament_game_id(round_number, index, rotation), game=tournament.game,
                    options=tournament.options, seats=tuple(seats), seed=seed,
                    round=round_number, table=index, rotation=rotation, preset=preset))
    return games


def check_size(tournament: Tournament, per_round: int) -> None:
    """ConfigError naming the key to lower when ``per_round`` games a round (the tournament's
    scheduler counts them) would make a schedule of more than ``MAX_GAMES`` games."""
    total = per_round * tournament.rounds
    if total <= MAX_GAMES:
        return
    if per_round > MAX_GAMES:
        key = "max_tables" if not tournament.has_teams else "bots"
        raise ConfigError(f"{tournament.path}: {key}: one round is {per_round} games: a run "
                          f"schedules at most {MAX_GAMES}")
    raise ConfigError(f"{tournament.path}: rounds: {tournament.rounds} rounds of {per_round} games "
                      f"are {total} games: a run schedules at most {MAX_GAMES} "
                      f"(at most {MAX_GAMES // per_round} rounds here)")


def _field(tournament: Tournament) -> list[str]:
    """The bots, or in a team game the teams (each bot with a copy of itself, or the file's
    ``teams``), as results name them."""
    info = engine.game(tournament.game).info
    if info.teams is None:
        return [bot.name for bot in tournament.bots]
    teams = list(tournament.teams) or [(bot.name, bot.name) for bot in tournament.bots]
    return [_team_name(info, team) for team in teams]


def _team_name(info: GameInfo, team: tuple[str, ...]) -> str:
    """The name results give ``team`` (``GameInfo.entrants``)."""
    assert info.teams is not None
    return info.entrants(_seated(info.teams, (team, team)))[0]


def _seated(seats_of: tuple[tuple[int, ...], ...],
            teams: tuple[tuple[str, ...], ...]) -> tuple[str, ...]:
    """Bots by seat: the i-th member of each team in the i-th seat of its team."""
    seats = [""] * sum(len(team) for team in seats_of)
    for team_seats, members in zip(seats_of, teams, strict=True):
        for seat, member in zip(team_seats, members, strict=True):
            seats[seat] = member
    return tuple(seats)
