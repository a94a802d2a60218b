"""A whole run: load and check a tournament, play what is not yet saved, append each result as it ends.

Results (``arena.runs.results``): ``games.jsonl`` gets one line per finished game, serialised by the
worker and written and flushed by the runner as soon as it arrives, fsync'ed at most once a second
and at the end. A resumed run drops a half-written last line, skips every game whose id is
already there, and plays the rest.
"""


from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from arena.botfiles.manifest import MANIFEST_DIRECTORY
from arena.configfile import read_yaml, with_key_added
from arena.errors import ConfigError, ResultsError
from arena.plans.deals import pinned_copy
from arena.plans.extension import check_extension
from arena.plans.order import locality_order
from arena.plans.schedule import schedule
from arena.plans.seating import Seating
from arena.plans.tournament import Tournament, load_tournament
from arena.ratings.table import results_table, shown_owners
from arena.records.reader import RESULTS_FILE, parse_line, parse_rating_input, read_finished
from arena.records.result import rating_input
from arena.runs.fault_summary import FaultSummary
from arena.runs.progress import Progress
from arena.runs.sandboxes import tournament_sandboxes
from arena.runs.session import BotPlace, Session
from arena.settings import RESAMPLES, Clock, available_cpus, check_cluster_address
from arena.values.work import Finished, GameSpec


@dataclass
class RunReport:
    """What a run did: games played now, games found from before, faults, the output directory."""

    out_dir: Path
    total: int
    resumed: int = 0
    played: int = 0
    faults: int = 0
    seconds: float = 0.0
    results: list[Any] = field(default_factory=list)
    """Rating inputs (``arena.records.result.rating_input``) of every finished game."""
    fault_summary: FaultSummary = field(default_factory=FaultSummary)


def _report_of(out_dir: Path, tasks: Sequence[GameSpec],
               finished: Mapping[str, Mapping[str, Any]]) -> RunReport:
    """What a run starts from: the games of ``tasks`` already in its results (``finished``)."""
    report = RunReport(out_dir, len(tasks), resumed=len(finished))
    report.results = [rating_input(line) for line in finished.values()]
    report.faults = sum(len(line["faults"]) for line in finished.values())
    for game_id, line in finished.items():
        report.fault_summary.add(game_id, line)
        report.fault_summary.add_stalls(sum(line["stalls"] or ()))
    return report


def _recorder(session: Session, report: RunReport,
              on_game: Callable[[Finished, int, int], None]) -> Callable[[Finished], bool]:
    """What the session does with each finished game of a tournament: append it to the results,
    count it, tell the progress line; a tournament never stops early."""
    def record(game: Finished) -> bool:
        session.append(game.line)
        report.results.append(parse_rating_input(game.rated))  # with its deals' seed and scores
        report.played += 1
        report.faults += game.faults
        report.fault_summary.add_stalls(game.stalls)
        if game.faults:  # faults are rare: only those lines are parsed again
            report.fault_summary.add(game.id, parse_line(game.line))
        on_game(game, report.resumed + report.played, report.total)
        return False

    return record


def _check_saved_games(path: Path, finished: dict[str, dict[str, Any]],
                       tasks: Sequence[GameSpec]) -> None:
    """Each saved game must be the scheduled game of its id (same seats, same deals), or the
    results would mix two schedules: a schedule that changed with added bots (a sampled one), or
    results from an arena whose schedule order differed."""
    strangers = sorted(set(finished) - {task.id for task in tasks})
    if strangers:
        raise ResultsError(f"{path}: game {strangers[0]!r} is not in this tournament's schedule")
    for task in tasks:
        line = finished.get(task.id)
        if line is None:
            continue
        if line["names"] != list(task.seats) or line["seed"] != task.seed:
            raise ResultsError(
                f"{path}: game {task.id!r} was played with seats {line['names']} and seed "
                f"{line['seed']}, but the schedule now gives {list(task.seats)} and seed "
                f"{task.seed} (added bots change a sampled schedule, one of more than max_tables "
                f"tables); use --restart or another --out")


def run_clock(records: Iterable[Mapping[str, Any]]) -> Clock | None:
    """The clock a run's games were played with: their (upgraded) lines' ``clock``; None: no
    games yet."""
    for record in records:
        return Clock(record["clock"])
    return None


def _with_run_clock(tournament: Tournament, finished: Iterable[Mapping[str, Any]], file: Path,
                    out_dir: Path) -> Tournament:
    """``tournament`` with the clock its run started with, when it is resumed from a file that
    does not say ``time.clock``; ConfigError when the file says another clock than the run's."""
    started = run_clock(finished)
    time = tournament.play.time
    if started is None or started is time.clock:
        return tournament
    if tournament.clock_given:
        raise ConfigError(f"{file}: time.clock: was {started.value}, now "
                          f"{time.clock.value} since the run in {out_dir} started "
                          f"(only more rounds or added bots can extend a run); use --restart or "
                          f"another --out")
    return dataclasses.replace(tournament, play=dataclasses.replace(
        tournament.play, time=dataclasses.replace(time, clock=started)))


def _check_resume(saved: Path, tournament: Tournament, file: Path, out_dir: Path) -> None:
    """ConfigError unless the run in ``saved``'s directory can go on with ``tournament``: an
    extension of the saved file, on the clock the run's games were played with."""
    check_extension(saved, tournament.path)
    _with_run_clock(tournament, read_finished(saved.parent / RESULTS_FILE, repair=False).values(),
                    file, out_dir)


SAVED_COPY = "tournament.yaml"


def _resumed_seating(out_dir: Path) -> Seating | None:
    """The seat-order design of the run in ``out_dir``, from its saved copy (``cyclic`` for a copy
    written before ``seating`` existed: a rule of the tournament file, not of its results);
    None when there is no run to resume."""
    games, saved = out_dir / RESULTS_FILE, out_dir / SAVED_COPY
    if not (saved.is_file() and games.is_file() and games.stat().st_size > 0):
        return None
    raw = read_yaml(saved, "tournament file")
    named = raw.get("seating") if isinstance(raw, dict) else None
    try:
        return Seating.CYCLIC if named is None else Seating(str(named))
    except ValueError:
        raise ConfigError(f"{saved}: seating: {named!r} is not one of "
                          f"{', '.join(s.value for s in Seating)}") from None


def recorded_seating(content: bytes, seating: Seating) -> bytes:
    """A tournament file's text with its seat-order design added as the last key, for the run's
    saved copy: a later ``--resume`` reads the design from there. A file the line cannot be added
    to (a flow-style mapping) is written out again as YAML with the key."""
    return with_key_added(content, "seating", seating.value,
                          "the seat-order design these games are played with")


def run_tournament(file: Path, *, out: Path | None = None, jobs: int | None = None,
                   resume: bool = False, restart: bool = False, resamples: int = RESAMPLES.default,
                   progress_stream: Any = None, max_live_bots: int | None = None,
                   cluster: str | None = None, force: bool = False) -> str:
    """Load, check, schedule and run a tournament file; the closing text (summary and table).

    ``cluster`` (a Dask scheduler's address) overrides the file's ``cluster``. The results
    directory is claimed for the whole run (``arena.runs.results.results_dir``): one writer.
    """
    if resume and restart:
        raise ConfigError("--resume and --restart contradict each other: choose one")
    if cluster is not None and jobs is not None:
        raise ConfigError("--jobs and --cluster contradict each other: --jobs is for local runs")
    if cluster is not None:
        cluster = check_cluster_address(cluster)
    again = f" --cluster {cluster}" if cluster is not None else ""
    tournament = load_tournament(file)
    for note in tournament.left_out:  # visible before the run: the table will lack this bot
        print(f"arena: warning: {note}", file=progress_stream or sys.stderr)
    cluster = cluster if cluster is not None else tournament.cluster
    out_dir = out if out is not None else Path("results") / tournament.name
    unsaid = tournament.seating is None
    if unsaid:
        tournament = replace(tournament, seating=_resumed_seating(out_dir) if resume else None)
    specs = schedule(tournament)
    sandboxes = tournament_sandboxes(tournament)
    for note in sandboxes.notes:  # before anything else is said
        print(note, file=progress_stream or sys.stderr, flush=True)
    try:
        content = tournament.path.read_bytes()
    except OSError as error:
        raise ConfigError(f"{tournament.path}: cannot read: {error.strerror}") from None
    if unsaid:  # the copy says which design these games are seated by, whatever the file omits
        content = recorded_seating(content, tournament.seating_design)
    content = pinned_copy(content, tournament.deals)  # and which deals file they are dealt from
    workers = jobs or tournament.jobs or len(available_cpus())
    total = len(specs)
    games = out_dir / RESULTS_FILE

    def advice() -> str:
        saved = len(read_finished(games, repair=False))
        return (f"{saved} of {total} games are saved in {games}; continue with: arena run "
                f"{file} --resume" + (f" --out {out}" if out is not None else "") + again)

    progress: Progress | None = None
    places = {bot.name: BotPlace(f"{tournament.path}: {key}.build", f"{tournament.path}: {key}.cmd",
                                 "its workdir" if bot.resolved.manifest is None
                                 else MANIFEST_DIRECTORY)
              for key, bot in zip(tournament.program_keys, tournament.programs, strict=True)}
    try:
        with Session(workers, cluster, advice=advice) as session:
            session.claim_results(out_dir, description=SAVED_COPY, content=content, resume=resume,
                                  restart=restart, force=force, source=tournament.path,
                                  check=lambda saved: _check_resume(saved, tournament, file, out_dir))
            finished = read_finished(games)
            _check_saved_games(games, finished, specs)
            tournament = _with_run_clock(tournament, finished.values(), file, out_dir)
            settings = tournament.play.run_settings(
                bots={bot.name: bot.resolved.command(sandboxes.by_bot[bot.name])
                      for bot in tournament.programs},
                log_dir=str(out_dir.absolute() / "logs"),
                max_live_bots=max_live_bots if max_live_bots is not None else tournament.max_live_bots,
                owners=tournament.owners)
            session.build(settings, places)
            tasks = locality_order(specs, settings.max_live_bots)
            todo = [task for task in tasks if task.id not in finished]
            if todo:
                session.preflight(settings)
            report = _report_of(out_dir, tasks, finished)
            progress = Progress(total, already=len(finished), stream=progress_stream,
                                faults=report.faults)
            session.on_workers = progress.show_workers
            report.seconds = session.play(todo, settings, _recorder(
                session, report,
                lambda game, done, total: progress.update(game.faults, done, total))).seconds
    finally:
        if progress is not None:
            progress.finish()
    results = report.results
    head = (f"{tournament.name}: {report.total} games ({report.played} played now, "
            f"{report.resumed} from before) in {report.seconds:.1f} s, {report.faults} faults; "
            f"results in {out_dir}/\n{sandboxes.describe()}")
    if tournament.challengers:
        head += (f"\ngauntlet: challengers {', '.join(b.name for b in tournament.challengers)} "
                 f"rated against the field ({', '.join(b.name for b in tournament.bots)}); "
                 f"challengers never meet each other")
    text = head + "\n\n" + results_table(results, resamples=resamples, model=tournament.rating,
                                         owners=shown_owners(tournament.owners))
    summary = report.fault_summary.render()
    return text + ("\n" + summary + "\n" if summary else "")
