"""The output formats the commands offer (``--format``): one enum for each set of formats an
output offers, parsed once, where the command line is read (``arena.cli.options``).

Each output keeps one writer per format in a table by its enum, beside the output's own code:
the ratings table's in ``arena.ratings.table``, ``league status``'s in ``arena.league.status``,
``run --dry-run``'s in ``arena.plans.preview``, ``analyse``'s and ``league invite``'s in their
commands. A new format is a member here and a writer in that table; the option's choices, its
help and its error come from the enum.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Self

from arena.errors import ConfigError


class OutputFormat(StrEnum):
    """What every set of formats does (a base without members): parse a ``--format`` value."""

    @classmethod
    def parse(cls, text: str) -> Self:
        """The format named ``text``; ConfigError naming the option and the choices."""
        try:
            return cls(text)
        except ValueError:
            raise ConfigError(f"--format: {text!r} is not one of {', '.join(cls)}") from None

    @classmethod
    def listed(cls) -> str:
        """The choices in words: ``plain, github, csv, json or html``."""
        *most, last = list(cls)
        return f"{', '.join(most)} or {last}" if most else last


class TableFormat(OutputFormat):
    """A ratings table's formats (``arena table``, ``league table``)."""

    PLAIN = "plain"
    GITHUB = "github"
    CSV = "csv"
    JSON = "json"
    HTML = "html"


class PlainOrJson(OutputFormat):
    """Text for a person, or JSON (``league status``, ``run --dry-run``, ``league invite``)."""

    PLAIN = "plain"
    JSON = "json"


class TextOrJson(OutputFormat):
    """Text for a person, or a JSON object a line (``analyse``)."""

    TEXT = "text"
    JSON = "json"


class AuditFormat(OutputFormat):
    """The collusion audit's formats (``arena audit``, ``league audit``)."""

    PLAIN = "plain"
    JSON = "json"
