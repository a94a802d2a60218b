"""What the ratings read from a game's line: its `result`, with its duplicate set and deal scores.

Every reader of results files (``arena table``, ``arena report``, ``arena run``'s closing table,
the league) turns a line into a rating input here, so all of them rate the same thing.
"""

from __future__ import annotations

import re

_SET_OF_ID = re.compile(r"(r\d+-t\d+)-s\d+|(u\d+)-[cb]")
"""Game ids of a tournament schedule and of a match: their duplicate set is the id's head."""


def rating_input(line: object) -> object | None:
    """The result object of a games.jsonl line (or a bare result object) with what the duplicate
    models need; None when the line has no result.

    Added when missing: ``set``, from the game's id in files written before sets were recorded
    (else none: a set of its own); ``seed``, the deals' seed; ``deal_scores``, each finished
    deal's scores indexed like the result's ``scores``. A bare result object is kept as it is."""
    if not isinstance(line, dict):
        return None
    if "result" not in line:
        return line if "entrants" in line else None
    result: object = line["result"]
    if not isinstance(result, dict):
        return result
    extra: dict[str, object] = {}
    if "set" not in result:
        found = _SET_OF_ID.fullmatch(str(line.get("id", "")))
        if found is not None:
            extra["set"] = found.group(1) or found.group(2)
    if "seed" not in result and "seed" in line:
        extra["seed"] = line["seed"]
    deals = line.get("deals")
    if "deal_scores" not in result and isinstance(deals, list):
        scores = [deal.get("scores") for deal in deals if isinstance(deal, dict)]
        if len(scores) == len(deals):
            extra["deal_scores"] = scores
    return {**result, **extra} if extra else result
