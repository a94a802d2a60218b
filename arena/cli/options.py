"""The commands' options for play settings, made from the key table (``arena.spec``), and
``--format``, made from the output's formats (``arena.formats``).

A command names a setting and takes its option from here: ``move_ms: Annotated[int,
option(spec.MOVE)] = spec.MOVE.default``. The option's name, help, bounds and shown default are
the table's, so ``arena play``, ``check-bot``, ``match`` and ``league init`` cannot drift apart or
from docs/tournaments.md.
"""

from __future__ import annotations

from typing import Any

import typer

from arena.formats import OutputFormat
from arena.spec import Setting


def option(setting: Setting, *short: str, help: str | None = None, **extra: Any) -> Any:
    """The typer option of ``setting`` (``--move-ms``, its help, ``min``/``max`` of its range),
    with ``short`` names (``-o``); ``help`` replaces the table's where a command says more,
    ``extra`` goes to ``typer.Option``."""
    bounds: dict[str, Any] = {}
    if setting.range is not None:
        bounds = {"min": setting.range.low, "max": setting.range.high}
        bounds.update((key, extra.pop(key)) for key in ("min", "max") if key in extra)
    if setting.type is list:
        extra.setdefault("metavar", "DIR")
    if setting.default is None or setting.type is list:
        extra.setdefault("show_default", False)
    return typer.Option(setting.option_name, *short, help=help or setting.help, **bounds, **extra)


def format_option(formats: type[OutputFormat], help: str) -> Any:
    """The ``--format`` option of an output offering ``formats``: the value parsed where the
    command line is read (an unknown one is a one-line error naming the choices); ``help`` says
    ``{}`` where the choices go (``plain, github, csv, json or html``)."""
    return typer.Option("--format", parser=formats.parse, metavar="FORMAT",
                        help=help.format(formats.listed()))
