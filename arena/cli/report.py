"""`arena report` and `arena show`: the web report of finished games, and one game as text."""

import sys
from pathlib import Path
from typing import Annotated

import typer

from arena.cli.table import RATING_HELP
from arena.ratings.defaults import RESAMPLES as DEFAULT_RESAMPLES
from arena.settings import RESAMPLES, SEED


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
    ] = DEFAULT_RESAMPLES,
    seed: Annotated[int, typer.Option(help="Seed of the bootstrap's resampling.",
                                      min=SEED.low, max=SEED.high)] = 0,
    rating: Annotated[str | None, typer.Option(help=RATING_HELP, show_default=False)] = None,
) -> None:
    """Write a static web report of finished games: ranking, plots, per-entrant pages, replays.

    The site works offline, opened straight from disk: open OUT/index.html in a browser.
    """
    from arena.report.site import write_report

    written = write_report(paths, out, resamples=resamples, seed=seed, model=rating)
    for note in written.notes:
        print(f"arena: note: {note}", file=sys.stderr)
    typer.echo(f"report of {written.games} games written; open {written.index.resolve()}")


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
) -> None:
    """Print one game deal by deal and trick by trick, with decision times and faults."""
    from arena.report.games import find_game
    from arena.report.show import show_game

    typer.echo(show_game(find_game(results, game_id), seat))
