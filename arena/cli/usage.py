"""The command-line parser's exception types, from typer's own copy of click (typer 0.2x) or from
click itself (older typer)."""

from __future__ import annotations

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
"""Columns of the plain help: every command's one-line summary fits whole."""


__all__ = ["PLAIN_HELP_WIDTH", "Abort", "ClickException", "NoArgsIsHelpError", "NoSuchOption", "UsageError"]
