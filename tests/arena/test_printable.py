"""The one function that makes bot-controlled text safe to print."""

from __future__ import annotations

import json

import pytest

from arena.printable import printable, printable_data, printable_json

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


def test_every_string_of_a_record_is_one_printable_line_but_its_blocks() -> None:
    record = {"names": ["a\x1b]0;t\x07", "b"], "n\u202e": 3, "faults": [
        {"detail": "x\ny", "stderr_tail": "one\x1b[2J\ntwo\n", "seat": 1, "cpu_ms": None}]}
    assert printable_data(record, blocks=("stderr_tail",)) == {
        "names": ["a\\x1b]0;t\\x07", "b"], "n\\u202e": 3, "faults": [
            {"detail": "x\\ny", "stderr_tail": "one\\x1b[2J\ntwo\n", "seat": 1, "cpu_ms": None}]}


@pytest.mark.parametrize("char", ACTIVE, ids=lambda c: f"U+{ord(c):04X}")
def test_json_keeps_its_data_and_holds_no_active_character_raw(char: str) -> None:
    data = {"name": f"a{char}b", "games": [1.5, None, True]}
    text = printable_json(json.dumps(data, ensure_ascii=False, indent=2))
    assert all(c.isascii() and (c.isprintable() or c in "\n") for c in text)
    assert json.loads(text) == data


def test_json_that_is_plain_stays_as_it_is() -> None:
    text = json.dumps({"name": "Zoë Łukasz 漢字", "n": [1, 2]}, ensure_ascii=False, indent=2)
    assert printable_json(text) == text
