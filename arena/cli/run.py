"""``arena run``: a whole tournament from a YAML file, resumable, with the rating table at the end."""

from pathlib import Path
from typing import Annotated

import typer

from arena.cli.options import format_option
from arena.errors import ConfigError
from arena.formats import PlainOrJson
from arena.settings import JOBS, LIVE_BOTS, RESAMPLES


def run_command(
    file: Annotated[Path, typer.Argument(help="The tournament file (YAML; see docs/tournaments.md).",
                                         show_default=False)],
    out: Annotated[Path | None, typer.Option(
        help="Results directory (default: results/<tournament name>/).")] = None,
    jobs: Annotated[int | None, typer.Option(
        help="Games played in parallel, one pinned CPU each (default: the file's jobs, "
             "else the number of CPUs).", min=JOBS.low, max=JOBS.high)] = None,
    resume: Annotated[bool, typer.Option(
        help="Continue an interrupted run: finished games are kept and not played again. Also "
             "extends a finished run whose file gained rounds or bots (added at the end); any "
             "other change to the file is refused.")] = False,
    restart: Annotated[bool, typer.Option(
        help="Discard the results already in the directory and start over (only the files the "
             "arena wrote there are removed).")] = False,
    force: Annotated[bool, typer.Option(
        help="Write into --out even if it is a directory the arena did not make (it never "
             "deletes files it did not write).")] = False,
    resamples: Annotated[int, typer.Option(help="Bootstrap resamples for the rating intervals.",
                                           min=RESAMPLES.low, max=RESAMPLES.high)] = RESAMPLES.default,
    max_live_bots: Annotated[int | None, typer.Option(
        help="Bot processes each worker keeps alive at most; the least recently used are closed "
             "and restarted when next needed (default: the file's max_live_bots, else 24).",
        min=LIVE_BOTS.low, max=LIVE_BOTS.high)] = None,
    dry_run: Annotated[bool, typer.Option(
        "--dry-run", help="Only check the file and print what would be played: tables, games, "
                          "games per entrant, pair meetings, whether the field is connected, the "
                          "run time (estimated from earlier games' records, and a bound). Plays, "
                          "starts and builds nothing.")] = False,
    estimate_from: Annotated[list[Path] | None, typer.Option(
        help="With --dry-run: earlier results (a results directory or games.jsonl; repeatable) "
             "to read the bots' decision times from, besides the run's own results directory.",
        show_default=False)] = None,
    fmt: Annotated[PlainOrJson, format_option(PlainOrJson, "With --dry-run: {}.")] = \
        PlainOrJson.PLAIN,
    cluster: Annotated[str | None, typer.Option(
        help="Play the games on the Dask cluster whose scheduler is at this address "
             "(e.g. tcp://127.0.0.1:8786; see docs/cluster.md) instead of local workers. "
             "Default: the file's cluster, else local.", show_default=False)] = None,
) -> None:
    """Run a tournament: every scheduled game, in parallel, each result saved as it ends.

    Results go to games.jsonl in the results directory, one line per game, with each bot's stderr
    in logs/ and a copy of the tournament file. Ctrl-C stops cleanly; --resume continues.

    After the ratings table: a fault summary, per bot its faults by kind with one example each.
    """
    if dry_run:
        from arena.plans.preview import preview_file

        typer.echo(preview_file(file, jobs=jobs, fmt=fmt, out=out,
                                estimate_from=estimate_from or []))
        return
    if estimate_from:
        raise ConfigError("--estimate-from applies only with --dry-run")
    if fmt is not PlainOrJson.PLAIN:  # another format than the default asked for
        raise ConfigError("--format applies only with --dry-run (the table's formats: arena table)")
    from arena.runs.run import run_tournament
    from arena.startup import running

    summary = run_tournament(file, out=out, jobs=jobs, resume=resume, restart=restart,
                             resamples=resamples, max_live_bots=max_live_bots,
                             cluster=cluster, force=force)
    typer.echo(summary)
    typer.echo(f"arena: {running().describe()}")
