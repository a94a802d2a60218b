"""`arena analyse`: every decision of an entrant valued against the reference search."""

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from arena.cli.options import format_option
from arena.formats import TextOrJson
from arena.settings import ANALYSED_GAMES, JOBS, SAMPLES, TOP

if TYPE_CHECKING:
    from arena.analysis.entrant import Analysed
    from arena.analysis.selection import Selection

SAMPLES_HELP = "Samples of the unseen cards per decision (more: a smaller standard error, slower)."


def analyse_command(
    results: Annotated[Path, typer.Argument(
        help="A results directory, a games.jsonl file (a tournament's, a match's, a league "
             "export), or an `arena play --log` file.", metavar="RESULTS_OR_LOG",
        show_default=False)],
    game_id: Annotated[str | None, typer.Argument(
        help="Only this game (e.g. r1-t0000-s0).", metavar="[GAME_ID]", show_default=False)] = None,
    entrant: Annotated[str, typer.Option(
        help="The entrant (a bot's name, or a team's) whose decisions to analyse.",
        show_default=False)] = "",
    games: Annotated[int, typer.Option(
        help="Analyse the entrant's first N games in the file (fewer if it played fewer).",
        min=ANALYSED_GAMES.low, max=ANALYSED_GAMES.high)] = ANALYSED_GAMES.default,
    samples: Annotated[int, typer.Option(help=SAMPLES_HELP, min=SAMPLES.low,
                                         max=SAMPLES.high)] = SAMPLES.default,
    jobs: Annotated[int | None, typer.Option(
        help="Games analysed at once, each in its own process (default: one per CPU).",
        min=JOBS.low, max=JOBS.high, show_default=False)] = None,
    top: Annotated[int | None, typer.Option(
        help="Only the N costliest decisions (by expected loss), worst first.",
        min=TOP.low, max=TOP.high, show_default=False)] = None,
    marks: Annotated[str | None, typer.Option(
        help="Only decisions with these marks, worst first: a comma-separated list of "
             "inaccuracy, mistake, blunder.", metavar="MARKS", show_default=False)] = None,
    fmt: Annotated[TextOrJson, format_option(
        TextOrJson, "Output format: {} (json: one object per decision, a line each).")] = \
        TextOrJson.TEXT,
) -> None:
    """Value each decision of an entrant against the reference search: the action chosen, the
    best one, the expected loss in points and its noise, marked inaccuracy, mistake or blunder
    (docs/analysis.md). Results are kept beside the games (analysis.jsonl), so a second run, and
    `arena report`, cost nothing more.
    """
    from arena.analysis.entrant import analyse_results
    from arena.analysis.marks import marks_named
    from arena.analysis.selection import Selection
    from arena.errors import ConfigError

    if not entrant:
        raise ConfigError("--entrant: name the entrant whose decisions to analyse")
    selection = Selection(top, None if marks is None else marks_named(marks))
    analysed = analyse_results(results, entrant, game_id=game_id, games=games, samples=samples,
                               jobs=jobs or len(os.sched_getaffinity(0)))
    for note in analysed.notes:
        print(f"arena: note: {note}", file=sys.stderr)
    WRITERS[fmt](analysed, selection)


def _write_text(analysed: "Analysed", selection: "Selection") -> None:
    """The decisions (those selected, worst first, when ``selection`` selects) and the summary;
    then, on stderr, how many games and where they are kept."""
    from arena.analysis.text import analysis_text

    sys.stdout.write(analysis_text(analysed.entrant, analysed.decisions,
                                   every=analysed.games == 1, selection=selection))
    cache = "from the cache" if analysed.from_cache == analysed.games else (
        f"{analysed.from_cache} from the cache" if analysed.from_cache else "")
    games = f"{analysed.games} game{'s' * (analysed.games != 1)}"
    print(f"arena: analysed {games}{' (' + cache + ')' if cache else ''}; "
          f"kept in {analysed.file}", file=sys.stderr)


def _write_json(analysed: "Analysed", selection: "Selection") -> None:
    """One JSON object a decision, a line each (those selected, worst first, when ``selection``
    selects)."""
    import orjson

    keys = ("game", "deal", "decision", "in_deal", "seat", "kind", "chosen", "best", "loss",
            "stderr", "mark", "values")
    shown = analysed.decisions if selection.is_whole() else selection.of(analysed.decisions)
    for decision in shown:  # in_deal: None in an analysis cached before it was kept
        sys.stdout.write(orjson.dumps({key: decision.get(key) for key in keys}).decode() + "\n")


WRITERS: dict[TextOrJson, Callable[["Analysed", "Selection"], None]] = {
    TextOrJson.TEXT: _write_text,
    TextOrJson.JSON: _write_json,
}
"""One writer for each format of ``arena analyse``: what it prints of the decisions analysed."""
