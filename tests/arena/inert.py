"""What the terminal-output tests check: that text holds no character that acts on a terminal.

Defined here on its own, not with ``arena.printable``'s own list, so that the tests check the
printers against what a terminal does rather than against themselves.
"""

from __future__ import annotations

import re

ACTIVE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
                    "\u2028\u2029\ud800-\udfff]")
"""What must never come out raw: C0 but newline and tab (ESC, BEL, NUL, CR...), DEL, C1, the bidi
controls, the line separators, and surrogates (what undecodable bytes become when decoded with
``surrogateescape``)."""


def decoded(data: bytes) -> str:
    """A command's output as text, every byte kept: bytes that are not UTF-8 become surrogates."""
    return data.decode("utf-8", "surrogateescape")


def assert_inert(*texts: str) -> None:
    """No active character in any of ``texts`` (the message shows them with ``ascii``, so that
    a failing test does not itself write to the terminal)."""
    for text in texts:
        raw = sorted({f"U+{ord(c):04X}" for c in ACTIVE.findall(text)})
        assert not raw, f"raw {raw} in the output: {text[:4000]!a}"
