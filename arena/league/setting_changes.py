"""``league config``: show a league's settings, and change those that may change during its life
(``arena.league.config.CHANGEABLE``), each change stored with its time (``Database.change_settings``).

A change applies to what comes after it: the games a ``league run`` plans from its next batch on
(it reads the settings again before each batch, and restarts the bots whose limits, clock or
sandbox changed), the next submission's build and check. Games already stored keep the settings
they were played under, and the records say which (each game's line holds its time control).
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from arena.errors import ConfigError
from arena.formats import PlainOrJson
from arena.league.config import CHANGEABLE, FIXED, LeagueSettings, plain_value
from arena.league.store import Store
from arena.printable import printable, printable_json
from arena.spec import INTERPRETERS, PLAYERS

TAKEN_UP = ("from now on: a league run in progress plays its next batch under them, restarting "
            "the bots whose limits, clock or sandbox changed; the next submission is built and "
            "checked under them; the games already played keep theirs")
"""When a change applies: said after every change, and in docs/league.md."""


@dataclass(frozen=True)
class SettingChange:
    """One change of a league's settings: when, which setting (its key), from what to what."""

    at: float
    key: str
    old: Any
    new: Any


def change_settings(directory: Path, values: Mapping[str, Any], *,
                    add_interpreters: Sequence[str] = (),
                    drop_interpreters: Sequence[str] = ()) -> list[SettingChange]:
    """Change the league's settings to ``values`` (by key, ``CHANGEABLE``'s only), with the
    installations ``add_interpreters`` allowed and ``drop_interpreters`` no longer; every value
    checked as ``league init`` checks it (``LeagueSettings.changed``), ConfigError naming the
    option at fault and nothing changed. The changes stored (none when every value is the
    league's already)."""
    store = Store.open(directory)
    try:
        settings = LeagueSettings.of(store)
        values = dict(values)
        if add_interpreters or drop_interpreters:
            values[INTERPRETERS.key] = _interpreters(settings.play.interpreters,
                                                     add_interpreters, drop_interpreters)
        new = settings.changed(values)
        at = time.time()
        changes = [SettingChange(at, key, old, value)
                   for key, old, value in settings.differences(new)]
        if changes:
            store.database.change_settings(new.stored(), [(c.key, c.old, c.new) for c in changes],
                                           at)
        return changes
    finally:
        store.close()


def _interpreters(current: tuple[str, ...], add: Sequence[str],
                  drop: Sequence[str]) -> tuple[str, ...]:
    """The league's installations with ``add`` after them and ``drop`` left out (each as
    ``check_interpreters`` makes a path absolute); ConfigError for one dropped that is not there."""
    kept = list(current)
    for value in drop:
        path = os.path.normpath(os.path.join(os.getcwd(), os.path.expanduser(value)))
        if path not in kept:
            listed = ", ".join(kept) or "none"
            raise ConfigError(f"--drop-interpreter: {printable(value)} is not one of the league's "
                              f"installations ({printable(listed)})")
        kept.remove(path)
    return (*kept, *add)


def league_config(directory: Path, fmt: PlainOrJson = PlainOrJson.PLAIN,
                  changes: Sequence[SettingChange] = ()) -> str:
    """The league's settings: those fixed for its life, those that may change with their values,
    and every change so far; ``changes``: those just made, said first."""
    store = Store.open(directory)
    try:
        settings = LeagueSettings.of(store)
        history = recorded_changes(store)
    finally:
        store.close()
    if fmt is PlainOrJson.JSON:
        return printable_json(orjson.dumps({
            "league": str(directory), "fixed": fixed_values(settings),
            "settings": {s.key: plain_value(settings.value(s)) for s in CHANGEABLE},
            "changed": [change_json(c) for c in changes],
            "changes": [change_json(c) for c in history]},
            option=orjson.OPT_INDENT_2).decode()) + "\n"
    lines = [f"changed {c.key} ({_option(c.key)}): {shown(c.old)} -> {shown(c.new)}"
             for c in changes]
    if changes:
        lines += [TAKEN_UP, ""]
    fixed = ", ".join(f"{key} {shown(value)}" for key, value in fixed_values(settings).items())
    lines += [f"league {directory}: fixed for its life: {fixed}",
              f"may change (arena league config {directory} --OPTION VALUE):"]
    width = max(len(s.option_name) for s in CHANGEABLE)
    lines += [f"  {s.option_name:<{width}}  {shown(settings.value(s))}" for s in CHANGEABLE]
    lines += ["", *changes_lines(history)]
    return "\n".join(lines) + "\n"


def recorded_changes(store: Store) -> list[SettingChange]:
    """Every change of the league's settings, oldest first."""
    return [SettingChange(*row) for row in store.database.setting_changes()]


def changes_lines(history: Sequence[SettingChange]) -> list[str]:
    """The "settings changed" lines of ``league config`` and ``league status``."""
    if not history:
        return ["settings changed: never (as made by league init)"]
    return ["settings changed (each for the games and submissions after it):",
            *(f"  {_when(c.at)}  {c.key}: {shown(c.old)} -> {shown(c.new)}" for c in history)]


def change_json(change: SettingChange) -> dict[str, Any]:
    """A change as ``--format json`` shows it."""
    return {"at": change.at, "key": change.key, "old": change.old, "new": change.new}


def fixed_values(settings: LeagueSettings) -> dict[str, Any]:
    """What never changes, by key: the game, its players, its options."""
    values = {"game": settings.game, PLAYERS.key: settings.players, "options": settings.options}
    assert set(values) == {s.key for s in FIXED}
    return values


def shown(value: Any) -> str:
    """A setting's value for a person: ``none`` for no value (no limit, the default wall cap, no
    installation), a list joined, options as NAME=VALUE."""
    if value is None or value == [] or value == ():
        return "none"
    if isinstance(value, list | tuple):
        return printable(", ".join(map(str, value)))
    if isinstance(value, dict):
        return printable(", ".join(f"{k}={v}" for k, v in value.items()) or "none")
    return printable(str(plain_value(value)))


def _option(key: str) -> str:
    return next(s.option_name for s in CHANGEABLE if s.key == key)


def _when(timestamp: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(timestamp))
