"""``arena analyse``: an entrant's games in a results file analysed, cached, in parallel.

Games already analysed with the same settings are read from the cache (``arena.analysis.cache``);
the others are analysed, ``jobs`` at a time in worker processes, each game written to the cache
the moment it is done, so Ctrl-C keeps every finished game and a second run costs nothing more.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from arena.analysis.cache import AnalysisWriter, analysis_file, cached
from arena.analysis.decisions import analyse_game, seats_of
from arena.analysis.evaluate import VERSION
from arena.errors import ResultsError, RunInterrupted
from arena.printable import printable
from arena.records.reader import ReadNotes, read_lines, results_file
from arena.statusline import StatusLine


@dataclass(frozen=True)
class Analysed:
    """What a run of ``analyse_results`` gives: every decision of the games chosen, in game order."""

    entrant: str
    decisions: list[dict[str, Any]]
    games: int
    from_cache: int
    """Games whose analysis was read from the cache rather than computed."""
    file: Path
    notes: list[str]


def analyse_results(path: Path, entrant: str, *, game_id: str | None = None, games: int = 0,
                    samples: int, jobs: int = 1, stream: TextIO | None = None) -> Analysed:
    """Analyse ``entrant``'s decisions in the games of ``path`` (all of them with ``games`` 0, else
    the first ``games``; only ``game_id`` when given). Progress goes to ``stream`` (stderr)."""
    notes = ReadNotes()
    chosen: list[tuple[dict[str, Any], list[int]]] = []
    names: set[str] = set()
    for line in read_lines([path], notes):
        record = line.data
        if game_id is not None and str(record["id"]) != game_id:
            continue
        names.update(record["result"]["entrants"])
        names.update(record["names"])
        seats = seats_of(record, entrant)
        if seats:
            chosen.append((record, seats))
            if games and len(chosen) >= games:
                break
    if not chosen:
        where = results_file(path)
        if game_id is not None and not names:
            raise ResultsError(f"{where}: no game with id {game_id!r}")
        known = ", ".join(printable(name) for name in sorted(names)[:8])
        raise ResultsError(f"{where}: --entrant {printable(entrant)!r} played no game "
                           f"{'there' if game_id is None else repr(game_id)} (entrants: {known})")
    file = analysis_file(path)
    have = cached(file)
    results: dict[str, list[dict[str, Any]]] = {}
    todo = []
    for record, seats in chosen:
        key = (str(record["id"]), entrant, samples, VERSION)
        if key in have:
            results[key[0]] = have[key]
        else:
            todo.append((record, seats, samples))
    from_cache = len(results)
    if todo:
        stream = stream or sys.stderr
        # The first game can take a minute: say what is coming before the status line's first step.
        more = f" ({from_cache} more from the cache)" if from_cache else ""
        stream.write(f"arena: analysing {len(todo)} game{'s' * (len(todo) != 1)} of "
                     f"{printable(entrant)} in {results_file(path)}{more}, {samples} samples "
                     f"a decision\n")
        stream.flush()
        _analyse_all(todo, entrant, samples, jobs, file, results, stream)
    decisions = [d for record, _ in chosen for d in results[str(record["id"])]]
    return Analysed(entrant, decisions, len(chosen), from_cache, file, notes.messages())


def _analyse_all(todo: list[tuple[dict[str, Any], list[int], int]], entrant: str, samples: int,
                 jobs: int, file: Path, results: dict[str, list[dict[str, Any]]],
                 stream: TextIO) -> None:
    """Analyse the games of ``todo``, writing each to ``file`` and ``results`` as it finishes."""
    status = StatusLine(stream)
    start = time.monotonic()
    count = 0
    decisions = 0

    def text() -> str:
        rate = decisions / max(time.monotonic() - start, 1e-9)
        return f"analysed {count}/{len(todo)} games of {printable(entrant)}  {rate:,.1f} decisions/s"

    writer = AnalysisWriter(file)
    pool = None
    finished: Iterator[tuple[str, list[dict[str, Any]]]]
    try:
        if jobs > 1 and len(todo) > 1:
            pool = multiprocessing.get_context("fork").Pool(min(jobs, len(todo)), _quiet_worker)
            finished = pool.imap_unordered(_analyse_task, todo)
        else:
            finished = map(_analyse_task, todo)
        for game, found in finished:
            writer.write(game, entrant, samples, found)
            results[game] = found
            count += 1
            decisions += len(found)
            status.draw(text, count, len(todo))
    except KeyboardInterrupt:
        if pool is not None:
            pool.terminate()
        status.finish()
        raise RunInterrupted(f"interrupted: {count} of {len(todo)} games analysed and kept in "
                             f"{file}; run again to carry on") from None
    finally:
        writer.close()
        if pool is not None:
            pool.terminate()
            pool.join()
    status.finish()


def _quiet_worker() -> None:
    """A worker leaves Ctrl-C to the parent, which stops the pool, and dies quietly when the pool
    terminates it (the command line's handlers, inherited, would turn that SIGTERM into a
    KeyboardInterrupt and a traceback on the user's terminal)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGHUP, signal.SIG_DFL)
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def _analyse_task(task: tuple[Mapping[str, Any], list[int], int]) -> tuple[str, list[dict[str, Any]]]:
    record, seats, samples = task
    return str(record["id"]), [d.to_json() for d in analyse_game(record, seats, samples)]
