"""Resuming with a changed tournament file: more ``rounds`` and appended bots (or challengers, or
teams) extend a run, any other change to what defines the games is refused with the key that changed.

The schedule keeps every earlier game's id, seats and seed under those two changes
(``arena.plans.schedule``); ``arena.runs.runner`` checks each saved game against the new schedule
too, so a schedule that cannot be extended (a sampled one) is refused there.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from arena.errors import ConfigError
from arena.plans.deals import DealSuite
from arena.plans.seating import Seating
from arena.plans.tournament import BotSpec, Tournament, load_tournament
from arena.spec import PlaySettings
from engine.errors import shown

FREE = frozenset({"path", "jobs", "max_live_bots", "cluster", "sandbox", "sandbox_interpreters",
                  "left_out", "clock_given", "rating"})
"""Tournament fields (the play settings' by their file keys, ``by_key``) that say how or where
games are played, or how they are rated, not which games: they may change freely."""
APPENDABLE = ("bots", "challengers", "teams")
"""Lists that may gain entries at the end; every entry already there must stay as it was."""
BOT_FREE = frozenset({"sandbox"})
"""Fields of a bot that may change (how it is confined, not what it is)."""


def changed_key(before: Tournament, after: Tournament) -> tuple[str, str] | None:
    """The first file key whose change is not an extension, with what changed; None if none.

    Derived from the fields of ``Tournament``, of its play settings (``by_key``) and of
    ``BotSpec``: every field defines the games and must stay as it was, except those in
    ``FREE``; ``rounds`` may grow; ``bots``, ``challengers`` and ``teams`` may gain entries at
    the end; ``seating`` may be left out (the run keeps its own, ``saved_seating``) but not
    changed. A new field is covered without editing anything here. Layout, comments and key
    order never count (files compared as loaded). ``time.clock`` is compared only when both
    files say it: a file without it means "the clock the run started with", which the run's
    records tell (``arena.runs.runner``).
    """
    olds, news = by_key(before), by_key(after)
    for key, old in olds.items():
        if key in FREE:
            continue
        new = news[key]
        if key == "time" and not (before.clock_given and after.clock_given):
            old = dataclasses.replace(old, clock=new.clock)
        if key == "seating":  # a saved copy without it was played cyclic; a new file may omit it
            old, new = saved_seating(before), after.seating
            if new is not None and new != old:
                return key, f"was {_shown(old)}, now {_shown(new)}"
        elif key == "rounds":
            if new < old:
                return key, f"was {old}, now {new}: a run can gain rounds, not lose them"
        elif key in APPENDABLE:
            change = _appended(key, old, new)
            if change is not None:
                return change
            if len(new) > len(old) and after.deals is not None and before.rounds > 1:
                return key, (f"{len(new) - len(old)} added to a run of {before.rounds} rounds "
                             f"with a deals file: its later rounds' tables would be dealt other "
                             f"lines of the file than the games already played")
        elif key == "deals":
            if old != new:
                return key, f"was {_suite(old)}, now {_suite(new)}"
        elif old != new and dataclasses.is_dataclass(old):  # name the part: time.move_ms
            part = next(f.name for f in dataclasses.fields(old)
                        if getattr(old, f.name) != getattr(new, f.name))
            return (f"{key}.{part}",
                    f"was {_shown(getattr(old, part))}, now {_shown(getattr(new, part))}")
        elif old != new:
            return key, f"was {_shown(old)}, now {_shown(new)}"
    return None


def by_key(tournament: Tournament) -> dict[str, Any]:
    """Its fields in order by their key in a tournament file: the play settings' in their place
    by theirs (``time``, ``limits``, ``fault_policy``, ``sandbox``...), the others by their name."""
    values: dict[str, Any] = {}
    for field in dataclasses.fields(Tournament):
        value = getattr(tournament, field.name)
        if isinstance(value, PlaySettings):
            values.update((key, getattr(value, name)) for name, key in value.file_keys().items())
        else:
            values[field.name] = value
    return values


def saved_seating(saved: Tournament) -> Seating:
    """The seat-order design of a run's saved copy: ``cyclic`` when the copy predates ``seating``
    (``arena run`` records the design in every copy it writes now). A resumed run keeps it; a
    file that names another design is a change (``changed_key``)."""
    return Seating.CYCLIC if saved.seating is None else saved.seating


def _appended(key: str, old: tuple[object, ...], new: tuple[object, ...]) -> tuple[str, str] | None:
    """The change to list ``key`` unless ``new`` is ``old`` with entries appended."""
    for index, entry in enumerate(old):
        if index >= len(new):
            return key, f"{_label(entry)} ({key}[{index}]) was removed"
        if not isinstance(entry, BotSpec):
            if entry != new[index]:
                return f"{key}[{index}]", f"changed; {key} may only be added at the end of the list"
            continue
        other = new[index]
        for part in dataclasses.fields(BotSpec):
            if part.name not in BOT_FREE and getattr(entry, part.name) != getattr(other, part.name):
                what = "name" if part.name == "name" else "cmd"
                return (f"{key}[{index}].{what}",
                        f"changed (the program, its directory or its build); {key} may only be "
                        f"added at the end of the list")
    return None


def _suite(suite: object) -> str:
    """A deals file as a change names it: its path and the start of its SHA-256."""
    if isinstance(suite, DealSuite):
        return f"{suite.path} (SHA-256 {suite.sha256[:12]}...)"
    return "none" if suite is None else _shown(suite)


def _label(entry: object) -> str:
    return repr(entry.name) if isinstance(entry, BotSpec) else repr(entry)


def check_extension(saved: Path, source: Path) -> None:
    """ConfigError unless ``source`` differs from the run's saved copy only by extending it."""
    if saved.read_bytes() == source.read_bytes():
        return
    before, after = load_tournament(saved), load_tournament(source)
    change = changed_key(before, after)
    if change is not None:
        key, what = change
        raise ConfigError(f"{source}: {key}: {what} since the run in {saved.parent} started "
                          f"(only more rounds or added bots can extend a run); use --restart or "
                          f"another --out")


def _shown(value: object) -> str:
    return shown(getattr(value, "value", value))  # enums by their file value; never a whole repr
