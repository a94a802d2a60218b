"""Names of bots and entrants: how one may be written, and when two are the same name.

A name is shown as it was written; it is compared by its key (``name_key``): Unicode NFKC
normalisation, case folding, and trailing dots and spaces dropped. So ``OKONE``, ``okone`` and
``okone.`` are one name, as they are one file name on a case-insensitive file system and on
Windows (which drops trailing dots and spaces), and as a reader of a table would take them: a
second bot or entrant whose name has the key of another's is refused, not made a second entrant.
A league's versions are compared the same way (``v1`` and ``V1`` are one version).
A program given without a name is labelled from its command (``command_label``), numbered
(``free_name``) where that label is taken.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from pathlib import Path

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
"""Tournament, bot and seat names: they become file and directory names."""
NAME_RULE = "use letters, digits, '-', '_', '.', starting with a letter or digit (64 at most)"
"""What ``NAME`` asks for, as an error message says it."""
ORGANISER_OWNER = "organiser"
"""The owner a league shows for the organiser's own entrants (each its own owner in the
matchmaker and the records: ``arena.league.owners``); no participant and no ``--owner`` may be
called so (``is_reserved``)."""
UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")
"""The characters a label may not carry into a file name (each run becomes one ``_``)."""


def name_key(name: str) -> str:
    """What ``name`` is compared by: NFKC-normalised, case-folded, trailing dots and spaces gone.

    Normalised again after folding (folding can undo NFKC: Unicode's NFKC_Casefold does the
    same), so the key of a key is itself."""
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())
    return folded.rstrip(". ")


def is_reserved(name: str) -> bool:
    """Whether ``name`` is ``ORGANISER_OWNER`` (written in any way): an owner of that name would
    pass for the organiser's own entrants, which are each their own owner."""
    return name_key(name) == ORGANISER_OWNER


def same_name(name: str, others: Iterable[str]) -> str | None:
    """The first of ``others`` that is the same name as ``name`` (written alike or not), or None."""
    key = name_key(name)
    return next((other for other in others if name_key(other) == key), None)


def free_name(base: str, names: Iterable[str | None]) -> str:
    """``base``, or ``base-2``, ``base-3``...: the first that is not the same name as one of
    ``names`` (``name_key``), for a label that must not pass for another seat's."""
    keys = {name_key(name) for name in names if name is not None}
    name, n = base, 2
    while name_key(name) in keys:
        name, n = f"{base}-{n}", n + 1
    return name


def command_label(argv: Sequence[str]) -> str:
    """A readable label from a command: its script or program, with one parent folder if any.

    The last word with a ``/`` or ``.`` in it, else the program: ``python3
    bots/python/random_bot.py`` is ``python/random_bot``, ``bots/c/random_bot`` is ``c/random_bot``.
    """
    path = Path(next((a for a in reversed(argv) if "/" in a or "." in a), argv[0]))
    parent = path.parent.name
    return f"{parent}/{path.stem}" if parent not in ("", ".", "bots") else path.stem
