"""Names of bots and entrants: how one may be written, and when two are the same name.

A name is shown as it was written; it is compared by its key (``name_key``): Unicode NFKC
normalisation, case folding, and trailing dots and spaces dropped. So ``OKONE``, ``okone`` and
``okone.`` are one name, as they are one file name on a case-insensitive file system and on
Windows (which drops trailing dots and spaces), and as a reader of a table would take them: a
second bot or entrant whose name has the key of another's is refused, not made a second entrant.
A league's versions are compared the same way (``v1`` and ``V1`` are one version).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
"""Tournament, bot and seat names: they become file and directory names."""
NAME_RULE = "use letters, digits, '-', '_', '.', starting with a letter or digit (64 at most)"
"""What ``NAME`` asks for, as an error message says it."""


def name_key(name: str) -> str:
    """What ``name`` is compared by: NFKC-normalised, case-folded, trailing dots and spaces gone.

    Normalised again after folding (folding can undo NFKC: Unicode's NFKC_Casefold does the
    same), so the key of a key is itself."""
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())
    return folded.rstrip(". ")


def same_name(name: str, others: Iterable[str]) -> str | None:
    """The first of ``others`` that is the same name as ``name`` (written alike or not), or None."""
    key = name_key(name)
    return next((other for other in others if name_key(other) == key), None)
