"""``upgrade()``: a results line of any format the arena ever wrote, in the current format.

Every rule for lines written before a field existed lives here, made from the schema's
declarations (``arena.records.schema``: each field's ``since`` and ``older``), so no reader
needs one: a line without ``format`` is format 1, and each field it lacks that every line has
since a later format gets what its ``older`` says (null for a time not measured then, ``wall``
for the clock the arena timed by then, the duplicate set from the game's id). The fields come in
the order the writer writes them; a field the schema does not know is kept, after them.

A line of the current format is returned as it is (no copy). A line of a newer format than this
arena knows is a ResultsError: what it holds cannot be read right.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena.errors import ResultsError
from arena.records.schema import DEAL, FAULT, FORMAT, GAME, RESULT, Part

FIRST_FORMAT = 1
"""The format of a line that does not say one: every line written before formats existed."""


def line_format(line: Mapping[str, Any]) -> int:
    """The format ``line`` is in; ResultsError for one that is not a format this arena reads."""
    found = line.get("format", FIRST_FORMAT)
    if type(found) is not int or found < FIRST_FORMAT:
        raise ResultsError(f"'format' must be a format number (1 to {FORMAT}), not {found!r:.40}")
    if found > FORMAT:
        raise ResultsError(f"format {found}: written by a newer arena (this one reads formats 1 "
                           f"to {FORMAT}); upgrade the arena to read it")
    return found


def upgrade(line: dict[str, Any]) -> dict[str, Any]:
    """``line`` (a parsed results line or game record) in the current format: itself when it
    is; ResultsError for a format this arena cannot read."""
    found = line_format(line)
    if found == FORMAT:
        return line
    upgraded = _filled(line, GAME, found, line)
    upgraded["format"] = FORMAT
    for key, part in (("deals", DEAL), ("faults", FAULT)):
        items = upgraded.get(key)
        if type(items) is list:
            upgraded[key] = [_filled(item, part, found, line) if type(item) is dict else item
                             for item in items]
    result = upgraded.get("result")
    if type(result) is dict:
        upgraded["result"] = _filled(result, RESULT, found, line)
    return upgraded


def _filled(obj: dict[str, Any], part: Part, found: int, line: Mapping[str, Any]) -> dict[str, Any]:
    """``obj`` (one ``part`` of a format-``found`` line) with the fields it lacks that it would
    have now, in the schema's order."""
    out: dict[str, Any] = {}
    for field in part.fields:
        name = field.name
        if name in obj:
            out[name] = obj[name]
        elif (field.older is not None and found < field.since
              and (field.beside is None or field.beside in obj)):
            older = field.older
            out[name] = older.value if older.derive is None else older.derive(line)
    for key, value in obj.items():  # fields the schema does not know: kept, after the others
        if key not in out:
            out[key] = value
    return out
