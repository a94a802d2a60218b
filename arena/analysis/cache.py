"""The analyses kept beside the results: ``analysis.jsonl`` next to ``games.jsonl``.

One JSON line per game and entrant analysed: ``{"format": 1, "game": ID, "entrant": NAME,
"samples": N, "version": V, "decisions": [...]}`` (each decision as ``Decision.to_json``). A line
is written whole, the moment its game is analysed, so an interrupted run keeps every game it
finished. A line is found again by its game, entrant, samples and the evaluator's version: an
analysis with other settings, or by an older evaluator, is not used. ``arena report`` reads the
file to show the analysis; an ``arena play --log`` file's analyses go to ``FILE.analysis.jsonl``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from arena.analysis.evaluate import VERSION
from arena.errors import ResultsError
from arena.records.reader import RESULTS_FILE, results_file

FORMAT = 1
ANALYSIS_FILE = "analysis.jsonl"
Key = tuple[str, str, int, int]
"""(game id, entrant, samples, evaluator version)."""


def analysis_file(results: Path) -> Path:
    """Where the analyses of the results at ``results`` (a directory or a file) are kept."""
    path = results_file(results)
    if path.name == RESULTS_FILE:
        return path.with_name(ANALYSIS_FILE)
    return path.with_name(path.name + "." + ANALYSIS_FILE)


def read_analyses(path: Path) -> Iterator[dict[str, Any]]:
    """Each analysis line of ``path`` (none if it does not exist); a half-written last line (an
    interrupted write) is skipped, any other bad line is a ResultsError naming the line."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return
    lines = data.split(b"\n")
    for number, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        try:
            line = orjson.loads(raw)
        except orjson.JSONDecodeError:
            if number == len(lines):  # no newline after it: cut short by an interruption
                continue
            raise ResultsError(f"{path}:{number}: not an analysis line (not JSON)") from None
        if not isinstance(line, dict) or line.get("format") != FORMAT \
                or not isinstance(line.get("decisions"), list):
            raise ResultsError(f"{path}:{number}: not an analysis line of format {FORMAT}")
        yield line


def key_of(line: dict[str, Any]) -> Key:
    return (str(line.get("game")), str(line.get("entrant")), int(line.get("samples") or 0),
            int(line.get("version") or 0))


def cached(path: Path) -> dict[Key, list[dict[str, Any]]]:
    """The decisions of every analysis in ``path``, by key (the last line of a key wins)."""
    return {key_of(line): line["decisions"] for line in read_analyses(path)}


def latest(path: Path) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """For the report: each (game, entrant)'s analysis by this evaluator, the most samples first."""
    found: dict[tuple[str, str], tuple[int, list[dict[str, Any]]]] = {}
    for line in read_analyses(path):
        game, entrant, samples, version = key_of(line)
        if version != VERSION:
            continue
        if (game, entrant) not in found or found[(game, entrant)][0] <= samples:
            found[(game, entrant)] = (samples, line["decisions"])
    return {key: decisions for key, (_, decisions) in found.items()}


class AnalysisWriter:
    """Appends one line per analysed game, each whole in one write and flushed to disk."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.file = open(path, "ab")  # noqa: SIM115 (closed by close(), as a run goes)

    def write(self, game: str, entrant: str, samples: int, decisions: list[dict[str, Any]]) -> None:
        line = {"format": FORMAT, "game": game, "entrant": entrant, "samples": samples,
                "version": VERSION, "decisions": decisions}
        self.file.write(orjson.dumps(line) + b"\n")
        self.file.flush()
        os.fsync(self.file.fileno())

    def close(self) -> None:
        self.file.close()
