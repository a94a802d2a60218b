"""The one function that makes bot-controlled text safe to print."""

from __future__ import annotations

import pytest

from arena.printable import printable

# Every character that acts on a terminal or reorders a line: C0 but tab and newline, DEL, C1,
# the bidi controls, the line separators and a lone surrogate.
ACTIVE = ([chr(c) for c in range(0x20) if c not in (9, 10)] + ["\x7f"]
          + [chr(c) for c in range(0x80, 0xA0)]
          + ["\u061c", "\u200e", "\u200f", *map(chr, range(0x202A, 0x202F)),
             *map(chr, range(0x2066, 0x206A)), "\u2028", "\u2029", "\ud800", "\udfff"])


@pytest.mark.parametrize("char", ACTIVE, ids=lambda c: f"U+{ord(c):04X}")
def test_every_active_character_is_shown_as_an_escape(char: str) -> None:
    shown = printable(f"a{char}b")
    assert shown == f"a{shown[1:-1]}b" and shown[1] == "\\"
    assert all(c.isascii() and c.isprintable() for c in shown)
    assert printable(f"a{char}b", lines=True) == shown


def test_a_terminal_escape_sequence_is_inert() -> None:
    assert printable("\x1b]52;c;aGk=\x07\x1b[2J") == "\\x1b]52;c;aGk=\\x07\\x1b[2J"


def test_newline_and_tab_stay_only_in_blocks_of_lines() -> None:
    assert printable("one\ntwo\tthree") == "one\\ntwo\\tthree"
    assert printable("one\ntwo\tthree", lines=True) == "one\ntwo\tthree"


def test_plain_text_is_unchanged_whatever_its_script() -> None:
    for text in ("greedy v1.2", "Zoë Łukasz 漢字 🂡", "a\u200db", ""):
        assert printable(text) == text
