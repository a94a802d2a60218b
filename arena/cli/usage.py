"""The command-line parser's exception types, from typer's own copy of click (typer 0.2x) or from
click itself (older typer)."""

from __future__ import annotations

import sys
from typing import Literal

from typer import Abort

try:
    from typer._click.exceptions import ClickException, NoArgsIsHelpError, NoSuchOption, UsageError
except ImportError:  # pragma: no cover
    from click.exceptions import (  # type: ignore[no-redef, import-not-found, assignment, unused-ignore]
        ClickException,
        NoArgsIsHelpError,
        NoSuchOption,
        UsageError,
    )

PLAIN_HELP_WIDTH = 100
"""Columns of the plain help (``help_markup``): every command's one-line summary fits whole."""


def help_markup() -> Literal["rich"] | None:
    """Typer's ``rich_markup_mode`` for this process: rich boxes on a terminal; click's plain help
    when stdout is a pipe or a file. Rich, not on a terminal, draws its boxes 80 columns wide,
    wraps every option's help into a narrow column of one-word lines and cuts long values
    (``elo0=E0,elo1=E1,a…``); the plain help keeps every word, in lines that read as prose."""
    return "rich" if sys.stdout.isatty() else None


__all__ = ["PLAIN_HELP_WIDTH", "Abort", "ClickException", "NoArgsIsHelpError", "NoSuchOption", "UsageError",
           "help_markup"]
