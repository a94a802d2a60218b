"""A game's options as text, from the engine's schema: what ``arena rules`` and ``--help`` show."""

from __future__ import annotations

import engine
from engine.game import GameInfo


def rules_report(game_name: str, players: int | None = None) -> str:
    """What the game is and every option with its default, values and meaning, as text.

    With ``players``, the defaults and ranges of that player count; otherwise, where they depend
    on it, one value per count (``3:15 4:13 ...``). UnknownGameError / OptionError for bad input.
    """
    from tabulate import tabulate  # here: `arena play --help` shows option_defaults without it

    info = engine.game(game_name).info
    counts = info.player_counts if players is None else (players,)
    schemas = [info.options(count) for count in counts]  # OptionError for a count the game lacks
    rows = []
    for index, option in enumerate(schemas[0]):
        per_count = [schema[index] for schema in schemas]
        rows.append([option.name, _varying(counts, [_text(o.default) for o in per_count]),
                     _varying(counts, [o.allowed for o in per_count]), option.description])
    table = tabulate(rows, headers=["option", "default", "values", "what it sets"],
                     disable_numparse=True)
    return "\n".join([
        f"{info.name}: {_summary(info)}", "",
        table, "",
        "Set an option with `arena play ... -o NAME=VALUE`, or under `options:` in a tournament "
        "file.",
        "The rules in full, with worked examples: docs/rules.md.",
    ])


def option_defaults(game_name: str) -> str:
    """One line of every option's default, e.g. ``deals=3:15 4:13 ..., sequence=up, ...``."""
    info = engine.game(game_name).info
    schemas = [info.options(count) for count in info.player_counts]
    defaults = [_varying(info.player_counts, [_text(schema[i].default) for schema in schemas])
                for i in range(len(schemas[0]))]
    return ", ".join(f"{o.name}={d}" for o, d in zip(schemas[0], defaults, strict=True))


def _summary(info: GameInfo) -> str:
    counts = info.player_counts
    seats = f"{counts[0]} players" if len(counts) == 1 else f"{counts[0]} to {counts[-1]} players"
    if info.teams is None:
        sides = "each for themselves"
    else:
        sides = "teams " + " and ".join("+".join(f"seat {s}" for s in team) for team in info.teams)
    return (f"{info.title}, {seats}, {sides}; decisions: {', '.join(info.decision_kinds)}; "
            f"scores by {info.score_by}.")


def _varying(counts: tuple[int, ...], values: list[str]) -> str:
    """The value, or ``3:a 4:b ...`` when it depends on the player count."""
    if len(set(values)) == 1:
        return values[0]
    return " ".join(f"{count}:{value}" for count, value in zip(counts, values, strict=True))


def _text(value: int | str | bool | None) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
