"""Paired duplicate matches: is CANDIDATE better than BASELINE against a field, on identical cards?

A match is a sequence of units. Unit ``k`` is two games on the same deals (one deal seed), with the
same field bots in the same seats and so the same per-seat bot seeds: one with CANDIDATE in the
tested seat, one with BASELINE there. The tested seat rotates over the seats with ``k``
(``k % players``); in Partnership Blackout the tested program holds both seats of team ``k % 2``
against a field team. Whatever luck the cards and the field's seeded choices bring, both programs
get the same, so the difference between the two games is mostly skill.

A unit's score (``arena.ratings.sprt.unit_score``) compares the two games: in each, the tested
entrant's score against the field is the share of field entrants it finished above (ties half,
forfeits placed last as in any result), and the unit scores ``(1 + candidate - baseline) / 2``:
1/2 when both did equally, 1 when the candidate beat every field bot and the baseline none. The
statistics over the units (Elo, interval, LOS, SPRT) are ``arena.ratings.sprt``'s.

Results are appended to ``games.jsonl`` as games end, like a tournament's; ``match.json`` keeps what
the match is (bots, game, seed, test) so that ``resume`` continues only the same match. Units are
counted in order: a decision is taken on the first ``n`` complete units, so a match stops at the
same unit however many jobs play it, and a resumed match reaches the same decision.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import sys
import time
from collections.abc import Callable, Generator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import orjson

import engine
from arena.errors import ConfigError, ResultsError, RunInterrupted
from arena.ratings.sprt import MIN_UNITS, Decision, MatchStats, SprtBounds, match_stats, unit_score
from arena.runs.batch import BotCommand, Finished, RunSettings
from arena.runs.executor import run_tasks_anywhere
from arena.runs.results import ResultsWriter, read_finished
from arena.runs.run import preflight
from arena.runs.schedule import GameSpec
from arena.settings import FaultPolicy, Limits, TimeControl
from engine.errors import OptionError
from engine.seeding import derive_seed

CANDIDATE = "candidate"
BASELINE = "baseline"
GAME_ID = re.compile(r"u(\d{5,})-([cb])")
SCRIPT_SUFFIXES = (".py", ".js", ".mjs", ".rb", ".pl", ".sh", ".lua", ".jar")


@dataclass(frozen=True)
class Match:
    """A validated match: the programs, the game, how long and which test."""

    game: str
    players: int
    options: dict[str, Any]
    candidate: BotCommand
    baseline: BotCommand
    field: tuple[BotCommand, ...]
    games: int = 1000
    sprt: SprtBounds | None = None
    seed: int = 1
    time_control: TimeControl = TimeControl()
    limits: Limits = Limits()
    policy: FaultPolicy = FaultPolicy.FORFEIT

    @property
    def teams(self) -> tuple[tuple[int, ...], ...] | None:
        """The game's teams (the tested program then holds every seat of one), or None."""
        return engine.game(self.game).info.teams

    @property
    def units(self) -> int:
        """The most units the match plays (two games each)."""
        return self.games // 2

    @property
    def field_names(self) -> tuple[str, ...]:
        """The field bots' names, in the order given: field1, field2..."""
        return tuple(f"field{i + 1}" for i in range(len(self.field)))

    def settings(self, log_dir: str | None = None) -> RunSettings:
        """The workers' settings: every program by name."""
        bots = {CANDIDATE: self.candidate, BASELINE: self.baseline,
                **dict(zip(self.field_names, self.field, strict=True))}
        return RunSettings(bots=bots, time_control=self.time_control, limits=self.limits,
                           policy=self.policy, log_dir=log_dir)

    def identity(self) -> dict[str, Any]:
        """What makes two runs the same match (``match.json``); ``games`` may grow on resume."""
        return {"game": self.game, "players": self.players, "options": self.options,
                "candidate": list(self.candidate.argv), "baseline": list(self.baseline.argv),
                "field": [list(bot.argv) for bot in self.field], "seed": self.seed,
                "sprt": None if self.sprt is None else vars(self.sprt),
                "time": vars(self.time_control), "policy": self.policy.value}


def bot_command(text: str, key: str) -> BotCommand:
    """A bot given on the command line as a command; ConfigError naming ``key`` when it cannot run.

    Bot directories, when they exist, resolve to a command here.
    """
    try:
        argv = tuple(shlex.split(text))
    except ValueError as error:
        raise ConfigError(f"{key}: cannot split {text!r}: {error}") from None
    if not argv:
        raise ConfigError(f"{key}: empty command")
    program = argv[0]
    if "/" in program:
        if not Path(program).exists():
            raise ConfigError(f"{key}: no such file '{program}'")
    elif shutil.which(program) is None:
        raise ConfigError(f"{key}: '{program}' is not a program on PATH")
    for arg in argv[1:]:
        if not arg.startswith("-") and arg.endswith(SCRIPT_SUFFIXES) and not Path(arg).exists():
            raise ConfigError(f"{key}: no such file '{arg}'")
    return BotCommand(argv)


def new_match(candidate: str, baseline: str, field: Sequence[str], *, game: str = engine.DEFAULT_GAME,
              players: int | None = None, options: Mapping[str, object] | None = None,
              games: int = 1000, sprt: SprtBounds | None = None, seed: int = 1,
              time_control: TimeControl = TimeControl()) -> Match:  # noqa: B008 (frozen)
    """A validated match from command-line values; ConfigError naming the option at fault."""
    try:
        rules = engine.game(game)
    except OptionError as error:
        raise ConfigError(f"--game: {error}") from None
    partnership = rules.info.has_teams
    seats = players if players is not None else 4
    if seats not in rules.info.player_counts:
        counts = ", ".join(map(str, rules.info.player_counts))
        raise ConfigError(f"--players: {game} is for {counts} players, not {seats}")
    others = 1 if partnership else seats - 1
    allowed = {1, 2} if partnership else {1, others}
    if len(field) not in allowed:
        what = ("1 or 2 (the field team's two seats)" if partnership
                else f"1 (for every other seat) or {others} (one per other seat)")
        raise ConfigError(f"--field: given {len(field)} times; {game} with {seats} players "
                          f"takes {what}")
    try:
        resolved = rules.resolve_options(seats, dict(options or {}))
    except OptionError as error:
        name = "--option" if error.option is None else f"--option {error.option}"
        raise ConfigError(f"{name}: {error.problem}") from None
    if games < 2:
        raise ConfigError(f"--games: {games}: a match needs at least 2 games (one unit)")
    if seed < 0:
        raise ConfigError(f"--seed: must be 0 or more, got {seed}")
    return Match(
        game=game, players=seats, options=resolved,
        candidate=bot_command(candidate, "CANDIDATE"), baseline=bot_command(baseline, "BASELINE"),
        field=tuple(bot_command(bot, f"--field[{i + 1}]") for i, bot in enumerate(field)),
        games=games, sprt=sprt, seed=seed, time_control=time_control)


# Units -----------------------------------------------------------------------------------------

def tested_entrant(match: Match, unit: int) -> int:
    """The tested program's entrant in unit ``unit``'s results: its seat, or its team."""
    teams = match.teams
    return unit % len(teams) if teams is not None else unit % match.players


def unit_seats(match: Match, unit: int, tested: str) -> tuple[str, ...]:
    """Bots by seat in one game of ``unit``, ``tested`` (a name) in the tested seat or team."""
    entrant = tested_entrant(match, unit)
    names = match.field_names
    teams = match.teams
    if teams is not None:  # the tested team's seats, the field in the others' seats in order
        seats = [""] * match.players
        for seat in teams[entrant]:
            seats[seat] = tested
        others = sorted(seat for index, team in enumerate(teams) if index != entrant for seat in team)
        for position, seat in enumerate(others):
            seats[seat] = names[min(position, len(names) - 1)]
        return tuple(seats)
    field = iter(names * (match.players - 1) if len(names) == 1 else names)
    return tuple(tested if seat == entrant else next(field) for seat in range(match.players))


def unit_games(match: Match, unit: int) -> tuple[GameSpec, GameSpec]:
    """The two games of a unit, candidate first: the same deal seed, seats and field."""
    seed = derive_seed(match.seed, "match", unit)
    return tuple(  # type: ignore[return-value]  # two
        GameSpec(id=f"u{unit:05d}-{tag}", game=match.game, options=match.options,
                 seats=unit_seats(match, unit, name), seed=seed, round=1, table=unit,
                 rotation=rotation)
        for rotation, (tag, name) in enumerate((("c", CANDIDATE), ("b", BASELINE))))


def field_score(result: Mapping[str, Any], entrant: int) -> float:
    """Entrant ``entrant``'s score against the others of one game: the share it finished above
    (ties half), from the result's ranks (forfeits already placed last)."""
    ranks = result["ranks"]
    mine = ranks[entrant]
    others = [r for i, r in enumerate(ranks) if i != entrant]
    return sum(1.0 if mine < r else 0.5 if mine == r else 0.0 for r in others) / len(others)


def score_of_unit(match: Match, unit: int, candidate: Mapping[str, Any],
                  baseline: Mapping[str, Any]) -> float:
    """The unit's score from its two games' result objects."""
    entrant = tested_entrant(match, unit)
    return unit_score(field_score(candidate, entrant), field_score(baseline, entrant))


# Playing ---------------------------------------------------------------------------------------

@dataclass
class MatchReport:
    """Where a match stands: unit scores in order, their statistics, games played and found."""

    match: Match
    out_dir: Path
    scores: list[float] = field(default_factory=list)
    stats: MatchStats = field(default_factory=lambda: match_stats([]))
    played: int = 0
    resumed: int = 0
    faults: int = 0
    seconds: float = 0.0

    @property
    def decided(self) -> bool:
        """Whether the test has accepted a hypothesis."""
        return self.stats.decision is not Decision.NONE


class _Units:
    """Finished games by id, turned into unit scores in unit order as units complete."""

    def __init__(self, match: Match, report: MatchReport) -> None:
        self.match = match
        self.report = report
        self.results: dict[str, dict[str, Any]] = {}

    def add(self, game_id: str, result: dict[str, Any]) -> bool:
        """Record one game; True when the statistics moved (one or more units completed)."""
        self.results[game_id] = result
        report = self.report
        moved = False
        while not report.decided and len(report.scores) < self.match.units:
            unit = len(report.scores)
            pair = (self.results.get(f"u{unit:05d}-c"), self.results.get(f"u{unit:05d}-b"))
            if pair[0] is None or pair[1] is None:
                break
            report.scores.append(score_of_unit(self.match, unit, pair[0], pair[1]))
            report.stats = match_stats(report.scores, self.match.sprt)
            moved = True
        return moved


def play_match(match: Match, out_dir: Path, *, jobs: int = 1, resume: bool = False,
               on_unit: Callable[[MatchReport], None] | None = None,
               cluster: str | None = None) -> MatchReport:
    """Play units until the test decides or ``match.games`` are played; each game saved as it ends.

    ``cluster``: a Dask scheduler's address to play the games on instead of ``jobs`` local workers.

    ``on_unit(report)`` is called whenever a unit completes (for progress). Ctrl-C raises
    RunInterrupted saying how to resume.
    """
    path = out_dir / "games.jsonl"
    _prepare(match, out_dir, resume)
    finished = read_finished(path)
    report = MatchReport(match, out_dir, resumed=len(finished))
    units = _Units(match, report)
    for game_id in sorted(finished):
        found = GAME_ID.fullmatch(game_id)
        if found is None:
            raise ResultsError(f"{path}: game {game_id!r} is not a game of a match")
        report.faults += len(finished[game_id].get("faults", ()))
        units.add(game_id, finished[game_id]["result"])
    if report.decided or len(report.scores) >= match.units:
        return report
    todo = [game for unit in range(len(report.scores), match.units)
            for game in unit_games(match, unit) if game.id not in finished]
    settings = match.settings(str(out_dir / "logs"))
    preflight(settings)
    start = time.monotonic()
    writer = ResultsWriter(path)
    arrivals: Generator[Finished, None, None] = run_tasks_anywhere(  # type: ignore[assignment]
        todo, settings, jobs, cluster)  # a generator either way
    try:
        for game in arrivals:
            writer.append(game.line)
            report.played += 1
            report.faults += game.faults
            if units.add(orjson.loads(game.line)["id"], game.result) and on_unit is not None:
                on_unit(report)
            if report.decided:
                break
    except KeyboardInterrupt:
        raise RunInterrupted(f"interrupted: {report.resumed + report.played} games are saved in "
                             f"{path}; continue with the same command and --resume") from None
    finally:
        arrivals.close()  # stops the workers and their bots, also after a decision
        writer.close()
        report.seconds = time.monotonic() - start
    return report


def _prepare(match: Match, out_dir: Path, resume: bool) -> None:
    """The output directory with ``match.json``; a directory with results needs ``resume`` and
    the same match."""
    games = out_dir / "games.jsonl"
    described = out_dir / "match.json"
    identity = match.identity()
    has_results = games.exists() and games.stat().st_size > 0
    if has_results and not resume:
        raise ConfigError(f"{games} already has results: --resume to continue that match, or "
                          f"--out for another directory")
    if has_results and described.exists():
        try:
            before = json.loads(described.read_text())
        except (OSError, ValueError):
            raise ResultsError(f"{described}: not a match description") from None
        changed = sorted(key for key in identity if before.get(key) != _plain(identity[key]))
        if changed:
            raise ConfigError(f"--resume: the match in {out_dir} differs in {', '.join(changed)} "
                              f"(see {described}); use another --out")
    (out_dir / "logs").mkdir(parents=True, exist_ok=True)
    if not has_results:
        described.write_text(json.dumps(identity, indent=2) + "\n")


def _plain(value: object) -> object:
    """``value`` as it reads back from JSON (tuples become lists)."""
    return json.loads(json.dumps(value))


def summary(report: MatchReport) -> str:
    """The closing text: what was played, the estimate and the test's verdict."""
    match, stats = report.match, report.stats
    games = 2 * stats.units
    lines = [f"match: candidate {shlex.join(match.candidate.argv)!r} vs baseline "
             f"{shlex.join(match.baseline.argv)!r}, {match.game}, {match.players} players; "
             f"{stats.units} units ({games} games; {report.played} played now, {report.resumed} "
             f"from before) in {report.seconds:.1f} s, {report.faults} faults; results in "
             f"{report.out_dir}/",
             f"Elo {_signed(stats.elo)} +- {stats.margin:.1f} (95%: {_signed(stats.elo_lower)} .. "
             f"{_signed(stats.elo_upper)}), LOS {100 * stats.los:.1f}%, mean unit score "
             f"{stats.mean:.4f}"]
    bounds = match.sprt
    if bounds is not None and stats.llr is not None:
        verdict = {Decision.H1: f"H1 accepted: the candidate is stronger (elo1 = {bounds.elo1:g})",
                   Decision.H0: f"H0 accepted: the candidate is not stronger (elo0 = {bounds.elo0:g})",
                   Decision.NONE: "no decision within --games"}[stats.decision]
        lines.append(f"SPRT elo0={bounds.elo0:g} elo1={bounds.elo1:g} alpha={bounds.alpha:g} "
                     f"beta={bounds.beta:g}: LLR {stats.llr:.2f} in [{bounds.lower:.2f}, "
                     f"{bounds.upper:.2f}]: {verdict}")
    return "\n".join(lines)


def progress_line(report: MatchReport) -> str:
    """One status line: games, Elo +- interval, LLR and bounds."""
    stats, bounds = report.stats, report.match.sprt
    text = (f"{2 * stats.units}/{report.match.units * 2} games  Elo {_signed(stats.elo)} "
            f"+- {stats.margin:.1f}  LOS {100 * stats.los:.1f}%")
    if bounds is not None and stats.llr is not None:
        llr = f"{stats.llr:.2f}" if stats.units >= MIN_UNITS else f"(from {MIN_UNITS} units)"
        text += f"  LLR {llr} [{bounds.lower:.2f}, {bounds.upper:.2f}]"
    return text


def _signed(value: float) -> str:
    return f"{value:+.1f}" if value == value and abs(value) != float("inf") else str(value)


class MatchProgress:
    """Prints ``progress_line`` as units complete: redrawn in place on a terminal (at most 10 times
    a second), elsewhere one line per twentieth of ``--games`` and one at the end, so logs stay
    short."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()
        self.last_draw = 0.0
        self.last_step = -1

    def update(self, report: MatchReport) -> None:
        """Show the state after a completed unit."""
        now = time.monotonic()
        if self.tty:
            if now - self.last_draw >= 0.1 or report.decided:
                self.last_draw = now
                self.stream.write("\r" + progress_line(report) + "\033[K")
                self.stream.flush()
            return
        step = len(report.scores) * 20 // max(1, report.match.units)
        if step != self.last_step or report.decided:
            self.last_step = step
            self.stream.write(progress_line(report) + "\n")
            self.stream.flush()

    def finish(self) -> None:
        """End the status line."""
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()
