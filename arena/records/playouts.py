"""Deals' play-out values kept beside the results: ``playouts.jsonl`` next to ``games.jsonl``.

One JSON line per game: ``{"format": 1, "game": KEY, "version": V, "values": [[...], ...]}``, each
deal's seat values as ``arena.ratings.luck.playout_values`` gives them. The ``adjusted`` rating
plays every deal out once (about 10 ms a game of 13 deals) and ``arena table`` finds the values
here afterwards. A line is found by its KEY (the game's id and a digest of its game, options and
dealt cards, ``arena.ratings.table``: a file written again under the same ids is played again)
and the play-out's version: values of an older play-out are played again. A half-written or
unreadable line is skipped (it is played again), as is a file that cannot be read or written: the
values are a cache, never the results.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import orjson

from arena.records.reader import RESULTS_FILE, results_file

FORMAT = 1
PLAYOUTS_FILE = "playouts.jsonl"


def playouts_file(results: Path) -> Path:
    """Where the play-outs of the results at ``results`` (a directory or a file) are kept."""
    path = results_file(results)
    if path.name == RESULTS_FILE:
        return path.with_name(PLAYOUTS_FILE)
    return path.with_name(path.name + "." + PLAYOUTS_FILE)


def read_playouts(path: Path, version: int) -> dict[str, list[list[float]]]:
    """The kept values of each game in ``path`` by this play-out ``version`` (none if the file
    does not exist or cannot be read)."""
    try:
        data = path.read_bytes()
    except OSError:
        return {}
    found: dict[str, list[list[float]]] = {}
    for raw in data.split(b"\n"):
        try:
            line = orjson.loads(raw)
        except orjson.JSONDecodeError:
            continue
        if (isinstance(line, dict) and line.get("format") == FORMAT
                and line.get("version") == version and isinstance(line.get("values"), list)):
            found[str(line.get("game"))] = line["values"]
    return found


def keep_playouts(path: Path, version: int, values: Mapping[str, list[list[int]]]) -> bool:
    """Append the values of more games to ``path``; False when it cannot be written."""
    if not values:
        return True
    lines = b"".join(orjson.dumps({"format": FORMAT, "game": game, "version": version,
                                   "values": found}) + b"\n" for game, found in values.items())
    try:
        with path.open("ab") as handle:
            handle.write(lines)
    except OSError:
        return False
    return True
