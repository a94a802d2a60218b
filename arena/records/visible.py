"""What of a game record a viewer may see: ``visible_record``, the one function every page, route
and export that shows a game to someone passes the record through (STYLE 28).

What a bot wrote to its stderr, and any text made from it, is its owner's and the organiser's
alone. In a record that is each fault's private fields (``arena.records.schema``: the fields
declared ``private``, ``stderr_tail``), emptied for the seats whose bot the viewer does not own.
A fault's ``detail`` never quotes stderr: the arena writes it from what it measured, and the hints
it adds only classify (``the sandbox hides that program``), quoting nothing the bot wrote.

Records from before that rule held are covered here too, at the same boundary: a start failure's
detail then ended with the last lines of the bot's stderr, ``... exited with code 3 (stderr: a |
b)``, and the fault's ``stderr_tail`` was empty. ``visible_fault`` moves that quote out of the
detail into ``stderr_tail``, for every viewer, so the owner still sees it where stderr is shown and
nobody else sees it at all. Here rather than in ``upgrade()``: those lines are of the current
format (2), and marking them older would make every reader upgrade every stored line of a league.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from arena.records.reader import parse_line
from arena.records.schema import FAULT
from arena.records.writer import serialise

PRIVATE_FIELDS = tuple(field.name for field in FAULT.fields if field.private)
"""The fields of a fault that only the bot's owner and the organiser see."""

OLD_QUOTE = " (stderr: "
"""How a start failure's detail began its quote of the bot's stderr, before details held none."""
OLD_HINTS = (
    "; inside the sandbox the bot runs as a uid of its own, so its files must be world-readable "
    "(chmod -R a+rX BOT_DIR; docs/sandbox.md)",
    "; the sandbox hides that program (or the interpreter on its #! line): it shows only the "
    "system directories, the bot's directory and the interpreters this arena allows (arena "
    "check-bot --sandbox-report lists them; the organiser adds one with --interpreter DIR)",
)
"""The arena's hints that followed the quote then, word for word: kept, they quote nothing."""


@dataclass(frozen=True)
class Viewer:
    """Who is looking at a record: the ``NAME@VERSION`` keys of the bots whose stderr they may see
    (a participant's own), or every bot's (``is_organiser``: the league's owner, at its files)."""

    owns: frozenset[str] = frozenset()
    is_organiser: bool = False

    def may_see_stderr(self, key: object) -> bool:
        """Whether the stderr of the bot called ``key`` in a record is this viewer's to see."""
        return self.is_organiser or (isinstance(key, str) and key in self.owns)


ANYONE = Viewer()
"""A viewer who owns no bot: an anonymous visitor, a published export."""
ORGANISER = Viewer(is_organiser=True)
"""The league's organiser, who sees every bot's stderr (its logs are in their league)."""


def visible_record(record: Mapping[str, Any], viewer: Viewer) -> dict[str, Any]:
    """``record`` (a game record or results line, current format) as ``viewer`` may see it: a new
    dict sharing what it does not change (``record`` itself is left as it is), each fault through
    ``visible_fault``, its private fields kept only for the seats whose bot ``viewer`` owns."""
    shown = dict(record)
    faults = record.get("faults")
    if not faults or type(faults) is not list:
        return shown
    names = record.get("names")
    names = names if type(names) is list else []
    shown["faults"] = [visible_fault(fault, viewer.may_see_stderr(_name_of(fault, names)))
                       if type(fault) is dict else fault for fault in faults]
    return shown


def visible_line(raw: bytes, viewer: Viewer) -> bytes:
    """A stored results line (any format) as ``viewer`` may see it: in the current format, without
    its newline (``visible_record``)."""
    return serialise(visible_record(parse_line(raw), viewer)).rstrip(b"\n")


def visible_fault(fault: Mapping[str, Any], may_see_stderr: bool) -> dict[str, Any]:
    """One fault of a record: its detail without any quote of stderr (a record from before details
    held none has its quote moved to ``stderr_tail``), and its private fields emptied unless
    ``may_see_stderr`` (the viewer owns the bot, or is the organiser)."""
    shown = dict(fault)
    detail = fault.get("detail")
    if type(detail) is str:
        shown["detail"], quoted = split_old_quote(detail)
        if quoted and not shown.get("stderr_tail"):
            shown["stderr_tail"] = quoted
    if not may_see_stderr:
        for name in PRIVATE_FIELDS:
            if name in shown:
                shown[name] = ""
    return shown


def visible_detail(detail: str) -> str:
    """A fault's detail as any viewer may see it (``visible_fault``'s rule), for the details the
    league keeps beside its records (its ``faults`` table)."""
    return split_old_quote(detail)[0]


def split_old_quote(detail: str) -> tuple[str, str]:
    """``(detail without it, the quoted stderr)`` of a detail written when start failures quoted
    the bot's stderr; ``(detail, "")`` for any other. Everything from the first quote on goes,
    but an arena hint the detail ends with: what came before the quote may be the bot's own
    (a hello reply it sent) and hold the quote's opening, so the cut may take more, never less."""
    at = detail.find(OLD_QUOTE)
    if at < 0:
        return detail, ""
    hint = next((hint for hint in OLD_HINTS if detail.endswith(hint)), "")
    quoted = detail[at + len(OLD_QUOTE):len(detail) - len(hint)]
    return detail[:at] + hint, quoted.removesuffix(")")


def _name_of(fault: Mapping[str, Any], names: list[Any]) -> object:
    """The name (``NAME@VERSION`` in a league) of the bot in the fault's seat; None if unknown."""
    seat = fault.get("seat")
    if type(seat) is int and 0 <= seat < len(names):
        return names[seat]
    return None

