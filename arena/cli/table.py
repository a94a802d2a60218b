"""`arena table`: the ratings table of one or more tournaments' results."""

import gc
import os
import sys
from pathlib import Path
from typing import Annotated

import typer

from arena import spec
from arena.cli.options import format_option
from arena.formats import TableFormat
from arena.settings import DEFAULT_RATING, RESAMPLES, SEED

RATING_HELP = (f"{spec.RATING.help} Default: {DEFAULT_RATING.value}, or places for results "
               f"without deals.")


def table_command(
    paths: Annotated[
        list[Path],
        typer.Argument(help="games.jsonl files, or results directories holding one.",
                       metavar="PATH", show_default=False),
    ],
    fmt: Annotated[TableFormat, format_option(TableFormat, "Output format: {}.")] = TableFormat.PLAIN,
    anchor: Annotated[
        str | None,
        typer.Option(help="Fix one entrant's rating, NAME=RATING, instead of a pool mean of 1500.",
                     show_default=False),
    ] = None,
    crosstable: Annotated[
        bool, typer.Option("--crosstable", help="Add the head-to-head matrix (pairwise score %).")
    ] = False,
    resamples: Annotated[
        int, typer.Option(help="Bootstrap resamples for the intervals and LOS (0: none).",
                          min=RESAMPLES.low, max=RESAMPLES.high)
    ] = RESAMPLES.default,
    seed: Annotated[int, typer.Option(help="Seed of the bootstrap's resampling.",
                                      min=SEED.low, max=SEED.high)] = 0,
    rating: Annotated[
        str | None,
        typer.Option(help=RATING_HELP, show_default=False),
    ] = None,
) -> None:
    """Rate the entrants of finished games: Elo, 95% interval, score, place, faults, LOS."""
    # One BLAS thread unless the user says otherwise: the table's matrices are small, and the
    # threads OpenBLAS starts as numpy loads only spin (~0.1 s of CPU on 2 cores). Before numpy.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    from arena.ratings.table import table_for_paths
    from arena.records.reader import MATCH_FILE

    # The modules loaded so far are never garbage: the collections the read sets off (a results
    # line parses into thousands of objects) skip them, ~12 ms less on the demo's 1,120 games.
    gc.freeze()

    output = table_for_paths(paths, fmt=fmt, anchor=anchor, crosstable=crosstable,
                             resamples=resamples, seed=seed, model=rating)
    for note in output.notes:
        print(f"arena: note: {note}", file=sys.stderr)
    sys.stdout.write(output.text)
    for path in paths:
        directory = path if path.is_dir() else path.parent
        if (directory / MATCH_FILE).is_file():  # the match runner loads for a match's results only
            from arena.runs.match import paired_estimate

            paired = paired_estimate(directory)
            if paired is not None:
                print(f"arena: note: {paired}", file=sys.stderr)
