"""`arena report` and `arena show`: the web report of finished games, and one game as text."""

import os
import sys
from pathlib import Path
from typing import Annotated

import typer

from arena.cli.table import RATING_HELP
from arena.errors import ConfigError
from arena.printable import printable
from arena.settings import ANALYSED_GAMES, RESAMPLES, SAMPLES, SEED


def report_command(
    paths: Annotated[
        list[Path],
        typer.Argument(help="Results directories or games.jsonl files (a tournament's, a match's, "
                            "a league export), or a league's directory.", metavar="RESULTS",
                       show_default=False),
    ],
    out: Annotated[Path, typer.Option(
        "--out", "-o", help="Directory to write the site into (created; files in it are replaced).",
        show_default=False)],
    resamples: Annotated[
        int, typer.Option(help="Bootstrap resamples for the ranking's intervals (0: none).",
                          min=RESAMPLES.low, max=RESAMPLES.high)
    ] = RESAMPLES.default,
    seed: Annotated[int, typer.Option(help="Seed of the bootstrap's resampling.",
                                      min=SEED.low, max=SEED.high)] = 0,
    rating: Annotated[str | None, typer.Option(help=RATING_HELP, show_default=False)] = None,
    analyse: Annotated[list[str] | None, typer.Option(
        "--analyse", help="Analyse this entrant's decisions first (as `arena analyse --entrant "
        "NAME`: its first 10 games of each results file, default samples); repeat for more.",
        metavar="ENTRANT", show_default=False)] = None,
    logs: Annotated[list[Path] | None, typer.Option(
        "--logs", help="A directory of bots' stderr logs whose decisions the replays show, "
        "beside the logs/ next to each results file: `arena play --stderr-dir`'s; repeat for "
        "more.", metavar="DIR", show_default=False)] = None,
) -> None:
    """Write a static web report of finished games: ranking, plots, per-entrant pages, replays.

    The site works offline, opened straight from disk: open OUT/index.html in a browser. The
    decisions `arena analyse` analysed (kept beside the results) show in the replays and on the
    entrants' pages; so does what each bot wrote to stderr while deciding each move.
    """
    from arena.league.status import league_games
    from arena.report.site import write_report

    for entrant in analyse or ():
        from arena.analysis.entrant import analyse_results

        for path in paths:
            analysed = analyse_results(path, entrant, games=ANALYSED_GAMES.default,
                                       samples=SAMPLES.default, jobs=len(os.sched_getaffinity(0)))
            games = f"{analysed.games} game{'s' * (analysed.games != 1)}"
            print(f"arena: analysed {games} of {printable(entrant)} in {path}", file=sys.stderr)

    _check_log_dirs(logs)
    written = write_report(paths, out, resamples=resamples, seed=seed, model=rating,
                           logs=logs or (), league_games=league_games)
    for note in written.notes:
        print(f"arena: note: {note}", file=sys.stderr)
    games = f"{written.games} game{'' if written.games == 1 else 's'}"
    typer.echo(f"report of {games} written; open {written.index.resolve()}")


def show_command(
    results: Annotated[Path, typer.Argument(
        help="A results directory, a games.jsonl file, or an `arena play --log` file.",
        metavar="RESULTS", show_default=False)],
    game_id: Annotated[str | None, typer.Argument(
        help="The game's id, e.g. r1-t0000-s0; not needed when the file holds one game.",
        metavar="[GAME_ID]", show_default=False)] = None,
    seat: Annotated[int | None, typer.Option(
        help="Show only what this seat knew: its own hand, and the public bids and plays.",
        show_default=False)] = None,
    analyse: Annotated[bool, typer.Option(
        "--analyse", help="Then each decision of the seat (--seat, else every seat) valued "
        "against the reference search, as `arena analyse` does (kept beside the results).")] = False,
    logs: Annotated[list[Path] | None, typer.Option(
        "--logs", help="A directory of bots' stderr logs (`arena play --stderr-dir`'s) whose "
        "decisions to show, beside the logs/ next to the results; repeat for more.",
        metavar="DIR", show_default=False)] = None,
) -> None:
    """Print one game deal by deal, trick by trick: decision times, faults, bots' stderr.

    Each decision's stderr is what the bot wrote while deciding it, from the logs beside the
    results (or --logs)."""
    from arena.league.status import league_games
    from arena.report.game_records import find_game
    from arena.report.replay_stderr import StderrShown
    from arena.report.show import show_game

    _check_log_dirs(logs)
    record = find_game(results, game_id, league_games)
    said = StderrShown.beside([results], logs or ()).of(str(record["id"]), record=record)
    typer.echo(show_game(record, seat, said))
    if analyse:
        from arena.analysis.entrant import analyse_results
        from arena.analysis.text import analysis_text

        names = list(record["names"])
        chosen = names if seat is None else [names[seat]] if 0 <= seat < len(names) else []
        for entrant in dict.fromkeys(chosen):
            analysed = analyse_results(results, entrant, game_id=str(record["id"]),
                                       samples=SAMPLES.default,
                                       jobs=len(os.sched_getaffinity(0)))
            decisions = [d for d in analysed.decisions if seat is None or d["seat"] == seat]
            typer.echo(f"\nAnalysis of {printable(entrant)}:")
            typer.echo(analysis_text(entrant, decisions, every=True), nl=False)


def _check_log_dirs(logs: list[Path] | None) -> None:
    for directory in logs or ():
        if not directory.is_dir():
            raise ConfigError(f"--logs: {directory}: not a directory")
