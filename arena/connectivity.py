"""Whether a schedule links every entrant: the fewest tables that can, and a union-find check.

A rating compares two entrants only through chains of games that link them; a field split into
groups that never share a table cannot be ranked as one. Schedules and tournament validation
both ask these questions, so they live apart from either.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence


def minimum_tables(entrants: int, size: int) -> int:
    """The fewest tables of ``size`` seats that can link ``entrants``: each adds ``size - 1``."""
    return 1 if entrants <= size else -(-(entrants - 1) // (size - 1))


def groups(tables: Iterable[Sequence[str]], names: Sequence[str]) -> list[list[str]]:
    """The groups of ``names`` that shared tables link (union-find), largest first, then by name."""
    parent = {name: name for name in names}

    def root(name: str) -> str:
        while parent[name] != name:
            parent[name] = parent[parent[name]]
            name = parent[name]
        return name

    apart = len(parent)
    for table in tables:
        if apart == 1:  # all linked already: no later table can change that
            break
        first = root(table[0])
        for other in table[1:]:
            top = root(other)
            if top != first:
                parent[top] = first
                apart -= 1
    found: dict[str, list[str]] = {}
    for name in names:
        found.setdefault(root(name), []).append(name)
    return sorted((sorted(group) for group in found.values()), key=lambda g: (-len(g), g[0]))


def is_connected(tables: Iterable[Sequence[str]], names: Sequence[str]) -> bool:
    """Whether shared tables link every one of ``names`` to every other."""
    return len(groups(tables, names)) <= 1
