"""The one way the arena writes HTML: Jinja2 templates, in an environment that makes every value a
template prints ``shown``.

Both sites use it: `arena report`'s static pages (``arena/report/templates``) and the served
league's (``arena/serve/templates``). Each value is first made printable (``arena.printable``:
controls and bidi overrides shown as escapes, as on a terminal; lines kept), then escaped by
HTML's rules (autoescape), by the environment itself, so no template can forget either. Markup
made by code (a plot, ``arena.report.svg``) comes in as ``Markup``, having escaped by HTML's rules
each string it took in; it is made printable here like any other value.
"""

from __future__ import annotations

from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import Markup

from arena.printable import printable


def environment(package: str) -> Environment:
    """The templates in ``package``'s ``templates/`` folder (package data), every value they
    print made ``shown``. Each site adds its own filters, and keeps one environment."""
    return Environment(loader=PackageLoader(package, "templates"),
                       autoescape=select_autoescape(default=True, default_for_string=True),
                       finalize=shown)


def shown(value: Any) -> Any:
    """A value as a page prints it, before autoescape: text made ``printable`` (controls and
    bidi overrides shown as escapes, as on a terminal; lines kept), markup too (a plot drawn by
    code, text a template escaped with ``| e``: the escapes are plain text in HTML)."""
    if isinstance(value, Markup):
        return Markup(printable(str(value), lines=True))
    if isinstance(value, str):
        return printable(value, lines=True)
    return value
