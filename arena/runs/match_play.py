"""Playing a paired match (``arena.plans.match_plan`` says what one is): units until the sequential
test decides or the games run out, each game saved the moment it ends, resumable.

Results are appended to ``games.jsonl`` as games end, like a tournament's; ``match.json`` keeps what
the match is (bots, game, seed, test) so that ``resume`` continues only the same match. Units are
counted in order: a decision is taken on the first ``n`` complete units, so a match stops at the
same unit however many jobs play it, and a resumed match reaches the same decision.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from arena.errors import ConfigError, ResultsError
from arena.names import NAME
from arena.plans.match_plan import CANDIDATE, Match, legacy_field_names, unit_games
from arena.printable import printable
from arena.ratings.sprt import (
    MIN_UNITS,
    Decision,
    MatchStats,
    estimate,
    field_score,
    match_stats,
    signed,
    unit_score,
    verdict,
)
from arena.records.reader import MATCH_FILE, RESULTS_FILE, parse_rating_input, read_finished
from arena.runs.sandboxes import sandbox_line
from arena.settings import Clock, TimeControl
from arena.statusline import StatusLine
from arena.values.ids import MATCH_GAMES, match_game_id, match_unit
from arena.values.work import Finished

if TYPE_CHECKING:
    from arena.runs.session import Session

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


def score_of_unit(candidate: Mapping[str, Any], baseline: Mapping[str, Any]) -> float:
    """The unit's score from its two games' result objects; the tested entrant is where the
    candidate sits in its game's entrants (the baseline sits in the same place in the other)."""
    entrant = list(candidate["entrants"]).index(CANDIDATE)
    return unit_score(field_score(candidate, entrant), field_score(baseline, entrant))


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
            pair = [self.results.get(match_game_id(unit, tag)) for tag in MATCH_GAMES]
            if pair[0] is None or pair[1] is None:
                break
            report.scores.append(score_of_unit(pair[0], pair[1]))
            report.stats = match_stats(report.scores, self.match.sprt)
            moved = True
        return moved


def play_match(match: Match, out_dir: Path, *, jobs: int = 1, resume: bool = False,
               on_unit: Callable[[MatchReport], None] | None = None,
               cluster: str | None = None, force: bool = False,
               keep_clock: bool = False) -> MatchReport:
    """Play units until the test decides or ``match.games`` are played; each game saved as it ends.

    ``cluster``: a Dask scheduler's address to play the games on instead of ``jobs`` local workers.
    The results directory is claimed for the whole match (``arena.runs.results.results_dir``).

    ``on_unit(report)`` is called whenever a unit completes (for progress). Ctrl-C raises
    RunInterrupted saying how to resume.
    """
    if resume:
        match = replace(match, field_names=_recorded_field_names(match, out_dir / "match.json"))
        if keep_clock:
            match = replace(match, play=replace(match.play, time=_recorded_clock(
                match, out_dir / "match.json")))
    description = json.dumps(match.description(), indent=2) + "\n"
    games = out_dir / RESULTS_FILE
    report = MatchReport(match, out_dir)

    def advice() -> str:
        return (f"{report.resumed + report.played} games are saved in {games}; continue with "
                f"the same command and --resume")

    from arena.runs.session import Session  # the executors: `arena table` imports this module

    with Session(jobs, cluster, advice=advice) as session:
        session.claim_results(out_dir, description="match.json", content=description.encode(),
                              resume=resume, force=force,
                              check=lambda saved: _check_same(match, saved))
        return _play(match, session, report, on_unit)


def _recorded_field_names(match: Match, described: Path) -> tuple[str, ...]:
    """The field's names a resumed match's games were recorded under: those in its ``match.json``,
    ``field1``, ``field2``... for a match recorded before fields were named after their bots, and
    the match's own when there is nothing to resume (or it is not this match: ``_check_same``
    says so). A rule of match.json, like ``_recorded_clock``."""
    try:
        before = json.loads(described.read_text())
    except (OSError, ValueError):
        return match.field_names
    if not isinstance(before, dict) or not isinstance(before.get("field"), list) \
            or len(before["field"]) != len(match.field):
        return match.field_names
    names = before.get("field_names")
    if names is None:
        return legacy_field_names(len(match.field))
    if isinstance(names, list) and len(names) == len(match.field) \
            and all(isinstance(name, str) and NAME.fullmatch(name) for name in names):
        return tuple(names)
    return match.field_names


def _recorded_clock(match: Match, described: Path) -> TimeControl:
    """The match's time control with the clock its ``match.json`` records: ``wall`` for a match
    begun before clocks were recorded (it was timed by wall time); the match's own when there is
    nothing to resume. (A rule of match.json; those of results lines are
    ``arena.records.upgrade``'s.)"""
    try:
        before = json.loads(described.read_text())
        saved = before["time"]
        clock = Clock(saved.get("clock", Clock.WALL.value))
        wall_ms = saved.get("wall_ms")
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return match.play.time
    return replace(match.play.time, clock=clock,
                   wall_ms=wall_ms if isinstance(wall_ms, int) else None)


def _play(match: Match, session: Session, report: MatchReport,
          on_unit: Callable[[MatchReport], None] | None) -> MatchReport:
    """Count the units the claimed results hold, then build, start and play what is missing."""
    from arena.botfiles.manifest import MANIFEST_DIRECTORY
    from arena.runs.session import BotPlace

    path = session.games
    assert path is not None
    finished = read_finished(path)
    report.resumed = len(finished)
    units = _Units(match, report)
    for game_id in sorted(finished):
        if match_unit(game_id) is None:
            raise ResultsError(f"{path}: game {game_id!r} is not a game of a match")
        report.faults += len(finished[game_id]["faults"])
        units.add(game_id, finished[game_id]["result"])
    if report.decided or len(report.scores) >= match.units:
        return report
    todo = [game for unit in range(len(report.scores), match.units)
            for game in unit_games(match, unit) if game.id not in finished]
    settings = match.settings(str(path.parent.absolute() / "logs"))
    # A command given as text has no build: only a bot directory's manifest gives one.
    session.build(settings, {name: BotPlace(f"{key} build", key, MANIFEST_DIRECTORY)
                             for name, key in match.program_keys().items()})
    session.preflight(settings)

    def record(game: Finished) -> bool:
        session.append(game.line)
        report.played += 1
        report.faults += game.faults
        if units.add(game.id, parse_rating_input(game.rated)) and on_unit is not None:
            on_unit(report)
        return report.decided

    report.seconds = session.play(todo, settings, record).seconds
    return report


def _check_same(match: Match, described: Path) -> None:
    """ConfigError unless the match described in ``described`` is ``match`` (``games`` may grow)."""
    try:
        before = json.loads(described.read_text())
    except (OSError, ValueError):
        raise ResultsError(f"{described}: not a match description") from None
    identity = match.identity()
    if isinstance(before.get("time"), dict) and "clock" not in before["time"]:  # match.json's rule
        before["time"] = {**before["time"], "clock": Clock.WALL.value, "wall_ms": None}
    changed = sorted(key for key in identity if before.get(key) != _plain(identity[key]))
    if changed:
        raise ConfigError(f"--resume: the match in {described.parent} differs in "
                          f"{', '.join(changed)} (see {described}); use another --out")


def _plain(value: object) -> object:
    """``value`` as it reads back from JSON (tuples become lists)."""
    return json.loads(json.dumps(value))


def summary(report: MatchReport) -> str:
    """The closing text: what was played, the estimate and the test's verdict."""
    match, stats = report.match, report.stats
    games = 2 * stats.units
    interval = (f" (95%: {signed(stats.elo_lower)} .. {signed(stats.elo_upper)})"
                if math.isfinite(stats.margin) else "")
    candidate, baseline = match.shown_labels
    field = match.field_names or legacy_field_names(len(match.field))
    saved = report.played + report.resumed
    # Games end in any order: when the test decides, games of later units may be saved already.
    beyond = (f"; {saved - games} more saved of units left unfinished, not counted"
              if saved > games else "")
    lines = [f"match: candidate {printable(candidate)!r} vs baseline {printable(baseline)!r}, "
             f"{match.game}, {match.players} players, "
             f"field {', '.join(match.field_names)}; "
             f"{stats.units} units ({games} games{beyond}; {report.played} played now, "
             f"{report.resumed} from before) in {report.seconds:.1f} s, {report.faults} faults; "
             f"results in {report.out_dir}/",
             sandbox_line({candidate: match.candidate.sandbox, baseline: match.baseline.sandbox,
                           **dict(zip(field, (bot.sandbox for bot in match.field), strict=True))}),
             f"Elo {estimate(stats)}{interval}, LOS {100 * stats.los:.1f}%, mean unit score "
             f"{stats.mean:.4f}"]
    if stats.all_drawn:
        lines.append(f"every unit was drawn: on the same cards the two did exactly as well "
                     f"against this field in all {stats.units} units, so it cannot separate "
                     f"them (the interval above measures no difference, not an equality); "
                     f"a field that wins some games against them can")
    bounds = match.sprt
    if bounds is not None and stats.llr is not None:
        lines.append(f"SPRT elo0={bounds.elo0:g} elo1={bounds.elo1:g} alpha={bounds.alpha:g} "
                     f"beta={bounds.beta:g}: LLR {stats.llr:.2f} in [{bounds.lower:.2f}, "
                     f"{bounds.upper:.2f}]: {verdict(stats, bounds)}")
    return "\n".join(lines)




def paired_estimate(directory: Path) -> str | None:
    """For a match's results directory (its ``match.json``), the match's own paired estimate of
    candidate against baseline from the complete units in ``games.jsonl``; None for other
    results. ``arena table`` adds it: its bootstrap over a match's few large sets often gives
    unbounded intervals where the paired estimate is finite."""
    if not (directory / MATCH_FILE).is_file() or not (directory / RESULTS_FILE).is_file():
        return None
    finished = read_finished(directory / RESULTS_FILE)
    scores: list[float] = []
    while all(match_game_id(len(scores), tag) in finished for tag in MATCH_GAMES):
        candidate, baseline = (finished[match_game_id(len(scores), tag)]["result"]
                               for tag in MATCH_GAMES)
        scores.append(score_of_unit(candidate, baseline))
    if not scores:
        return None
    stats = match_stats(scores)
    return (f"{directory} is a match: candidate against baseline on the same deals, "
            f"{stats.units} units: Elo {estimate(stats)}, LOS {100 * stats.los:.1f}% (arena "
            f"match's paired estimate; the table rates every entrant from pairwise outcomes)")


def progress_line(report: MatchReport) -> str:
    """One status line: games, Elo +- interval, LLR and bounds."""
    stats, bounds = report.stats, report.match.sprt
    text = (f"{2 * stats.units}/{report.match.units * 2} games  Elo {estimate(stats)}  "
            f"LOS {100 * stats.los:.1f}%")
    if bounds is not None and stats.llr is not None:
        llr = f"{stats.llr:.2f}" if stats.units >= MIN_UNITS else f"(from {MIN_UNITS} units)"
        text += f"  LLR {llr} [{bounds.lower:.2f}, {bounds.upper:.2f}]"
    return text




class MatchProgress(StatusLine):
    """Prints ``progress_line`` as units complete (``StatusLine``: in place on a terminal,
    elsewhere one line per twentieth of ``--games`` and one at the end)."""

    def __init__(self, stream: TextIO | None = None) -> None:
        super().__init__(stream, steps=20)

    def update(self, report: MatchReport) -> None:
        """Show the state after a completed unit."""
        self.draw(lambda: progress_line(report), len(report.scores), report.match.units,
                  final=report.decided)
