"""Text that a bot controls, made safe to show a person: the one function every printer uses.

A bot controls its manifest (name, author, language, version), its ``hello`` reply, its stderr,
every reply line, and so everything quoted from those (rejection reasons, fault details, stderr
tails). Printed raw, such text can act on the reader's terminal: clear the screen, set the window
title, write the clipboard (OSC 52), hide a link (OSC 8), reorder what follows (bidi overrides),
or break a table's rows with a newline. ``printable`` shows each such character as an escape
(``\\x1b``, ``\\u202e``) instead, on terminals and in files alike; pages escape with HTML's rules
(``arena.report``), which cover the same characters in their own way.
"""

from __future__ import annotations

import re

_CONTROLS = (
    "\x00-\x08\x0b-\x1f\x7f"  # C0 (ESC, BEL, NUL, CR...) but tab and newline, and DEL
    "\x80-\x9f"  # C1: CSI, OSC, NEL... (a terminal in 8-bit mode acts on them)
    "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"  # bidi marks, embeddings, overrides, isolates
    "\u2028\u2029"  # line and paragraph separators: a new line to some terminals and editors
    "\ud800-\udfff"  # lone surrogates (from a JSON escape): not text, and unencodable
)
_IN_LINES = re.compile(f"[{_CONTROLS}]")
_IN_ONE_LINE = re.compile(f"[{_CONTROLS}\t\n]")


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
