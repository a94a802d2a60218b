"""Text that a bot controls, made safe to show a person: the one function every printer uses.

A bot controls its manifest (name, author, language, version), its ``hello`` reply, its stderr,
every reply line, and so everything quoted from those (rejection reasons, fault details, stderr
tails). Printed raw, such text can act on the reader's terminal: clear the screen, set the window
title, write the clipboard (OSC 52), hide a link (OSC 8), reorder what follows (bidi overrides),
or break a table's rows with a newline. ``printable`` shows each such character as an escape
(``\\x1b``, ``\\u202e``) instead, on terminals and in files alike. Every HTML page (the report's
and the served league's) makes every value printable too, then escapes it with HTML's rules,
which alone leave controls and bidi overrides as they are: its template environment does both
(``arena.report.templating``).

Each printer escapes a bot's text once, where it puts it in front of a person: a table escapes its
cells, a game's transcript its record (``printable_data``), the command line a block it prints
whole (a check's step, an error). JSON printed as a command's output (``--format json``) is data
and stays exact: ``printable_json`` only writes the characters JSON lets through raw as ``\\u``
escapes, which every JSON reader reads back as the same text.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import Any

_C0 = "\x00-\x08\x0b-\x1f"  # C0 (ESC, BEL, NUL, CR...) but tab and newline
_PAST_C0 = (
    "\x7f"  # DEL
    "\x80-\x9f"  # C1: CSI, OSC, NEL... (a terminal in 8-bit mode acts on them)
    "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"  # bidi marks, embeddings, overrides, isolates
    "\u2028\u2029"  # line and paragraph separators: a new line to some terminals and editors
    "\ud800-\udfff"  # lone surrogates (from a JSON escape): not text, and unencodable
)
_IN_LINES = re.compile(f"[{_C0}{_PAST_C0}]")
_IN_ONE_LINE = re.compile(f"[{_C0}{_PAST_C0}\t\n]")
_RAW_IN_JSON = re.compile(f"[{_PAST_C0}]")
"""What a JSON encoder may leave raw in a string: all of the above but C0, which JSON escapes."""


def _escaped(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code == 0x09:
        return "\\t"
    if code == 0x0A:
        return "\\n"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str, *, lines: bool = False) -> str:
    """``text`` with every character that could act on a terminal shown as an escape.

    One line by default (a table cell, a one-line message): newline and tab become ``\\n`` and
    ``\\t`` too. With ``lines`` (a block of lines printed as such, like a stderr tail) newline and
    tab stay. Plain text comes back unchanged (and fast: most text is plain).
    """
    if text.isprintable():  # no control, format or separator character at all
        return text
    return (_IN_LINES if lines else _IN_ONE_LINE).sub(_escaped, text)


def printable_data(value: Any, *, blocks: Collection[str] = ()) -> Any:
    """A copy of a JSON-like ``value`` (a game record) with every string in it, keys included,
    made ``printable``: one line each, but blocks of lines under the keys in ``blocks`` (such as
    ``stderr_tail``). Every field, so a record from someone else's file is covered as well as
    the fields a bot fills."""
    if isinstance(value, str):
        return printable(value)
    if isinstance(value, dict):
        return {printable(key) if isinstance(key, str) else key:
                printable(item, lines=True) if key in blocks and isinstance(item, str)
                else printable_data(item, blocks=blocks)
                for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [printable_data(item, blocks=blocks) for item in value]
    return value


def printable_json(text: str) -> str:
    """JSON text with DEL, C1, the bidi controls, the line separators and lone surrogates, which
    JSON allows raw in a string, written as ``\\uXXXX`` escapes: the same data to any JSON reader,
    inert on a terminal. (Control characters below U+0020 cannot be raw in JSON; outside strings
    JSON text is ASCII, so only strings are touched.)"""
    if text.isascii() and "\x7f" not in text:  # most JSON: nothing to do
        return text
    return _RAW_IN_JSON.sub(lambda match: f"\\u{ord(match.group()):04x}", text)
