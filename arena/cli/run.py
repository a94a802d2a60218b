"""``arena run``: a whole tournament from a YAML file, resumable, with the rating table at the end."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from arena.runs.run import run_tournament


def run_command(
    file: Annotated[Path, typer.Argument(help="The tournament file (YAML; see docs/tournaments.md).",
                                         show_default=False)],
    out: Annotated[Path | None, typer.Option(
        help="Results directory (default: results/<tournament name>/).")] = None,
    jobs: Annotated[int | None, typer.Option(
        help="Games played in parallel, one pinned CPU each (default: the file's jobs, "
             "else the number of CPUs).", min=1)] = None,
    resume: Annotated[bool, typer.Option(
        help="Continue an interrupted run: finished games are kept and not played again.")] = False,
    restart: Annotated[bool, typer.Option(
        help="Discard the results already in the directory and start over.")] = False,
    resamples: Annotated[int, typer.Option(help="Bootstrap resamples for the rating intervals.",
                                           min=0)] = 1000,
    cluster: Annotated[str | None, typer.Option(
        help="Play the games on the Dask cluster whose scheduler is at this address "
             "(e.g. tcp://127.0.0.1:8786; see docs/cluster.md) instead of local workers. "
             "Default: the file's cluster, else local.", show_default=False)] = None,
) -> None:
    """Run a tournament: every scheduled game, in parallel, each result saved as it ends.

    Results go to games.jsonl in the results directory, one line per game, with each bot's stderr
    in logs/ and a copy of the tournament file. Ctrl-C stops cleanly; --resume continues.
    """
    summary = run_tournament(file, out=out, jobs=jobs, resume=resume, restart=restart,
                             resamples=resamples, cluster=cluster)
    typer.echo(summary)
