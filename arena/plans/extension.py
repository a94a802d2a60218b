"""Resuming with a changed tournament file: more ``rounds`` and appended bots extend a run,
any other change is refused with the key that changed.

The schedule keeps every earlier game's id, seats and seed under those two changes
(``arena.plans.schedule``); ``arena.runs.run`` checks each saved game against the new schedule
too, so a schedule that cannot be extended (a sampled one) is refused there.
"""

from __future__ import annotations

from pathlib import Path

from arena.errors import ConfigError
from arena.plans.tournament import Tournament, load_tournament

UNCHANGEABLE = {
    "name": "name", "game": "game", "players": "players", "options": "options",
    "schedule": "schedule", "max_tables": "max_tables", "seed": "seed", "time": "time",
    "limits": "limits", "fault_policy": "fault_policy",
}
"""Tournament fields that must stay as they were, by the file key that sets them."""


def changed_key(before: Tournament, after: Tournament) -> tuple[str, str] | None:
    """The first file key whose change is not an extension, with what changed; None if none.

    Allowed: ``rounds`` raised, bots and teams appended, ``jobs`` (it does not change results),
    and any layout, comment or key order (the files are compared as loaded, not as text).
    """
    for field, key in UNCHANGEABLE.items():
        old, new = getattr(before, field), getattr(after, field)
        if old != new:
            return key, f"was {_shown(old)}, now {_shown(new)}"
    if after.rounds < before.rounds:
        return "rounds", f"was {before.rounds}, now {after.rounds}: a run can gain rounds, not lose them"
    for index, old_bot in enumerate(before.bots):
        if index >= len(after.bots):
            return "bots", f"bot {old_bot.name!r} (bots[{index}]) was removed"
        new_bot = after.bots[index]
        for part in ("name", "argv", "workdir", "build"):
            if getattr(old_bot, part) != getattr(new_bot, part):
                key = "cmd" if part == "argv" else part
                return (f"bots[{index}].{key}",
                        "changed; bots may only be added at the end of the list")
    if after.teams[:len(before.teams)] != before.teams:
        return "teams", "changed; teams may only be added at the end of the list"
    return None


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
    text = getattr(value, "value", value)  # enums by their file value
    return repr(text)[:60]
