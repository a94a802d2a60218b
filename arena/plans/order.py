"""The order games are handed to workers: neighbouring duplicate sets share bots.

With more bots than a worker keeps alive (``RunSettings.max_live_bots``), a schedule in random
table order would restart bots at nearly every game. Within each round, ``locality_order`` puts
next the duplicate set that shares most bots with those used most recently, so a worker's pool
holds the bots its next games need. Results do not depend on the order: each game's deals and
bots' seeds come from its own seed, and results are matched to games by id.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from arena.values.work import GameSpec


def locality_order(tasks: Sequence[GameSpec], live_bots: int | None) -> list[GameSpec]:
    """``tasks`` reordered for few bot restarts; unchanged when every bot fits in ``live_bots``.

    Rounds stay in order (an interrupted run has played whole rounds first), as do the games of
    each duplicate set. A small field keeps the schedule's own order, whose shuffled tables
    favour no bot when a run stops part-way.
    """
    bots = {name for task in tasks for name in task.seats}
    copies = max((len(task.seats) - len(set(task.seats)) for task in tasks), default=0)
    if live_bots is None or len(bots) + copies <= live_bots:
        return list(tasks)
    sets: dict[str, list[GameSpec]] = {}
    for task in tasks:
        sets.setdefault(task.set_id, []).append(task)
    rounds: dict[int, list[list[GameSpec]]] = defaultdict(list)
    for games in sets.values():
        rounds[games[0].round].append(games)
    ordered: list[GameSpec] = []
    for number in sorted(rounds):
        for games in _nearest_first(rounds[number], live_bots):
            ordered.extend(games)
    return ordered


def _nearest_first(sets: list[list[GameSpec]], live_bots: int) -> list[list[GameSpec]]:
    """Greedy: next, of the sets sharing a bot with the last one, the one with the most bots
    likely still alive (used within the last ``live_bots`` seats or so); else the first left."""
    members = [set(games[0].seats) for games in sets]
    holding: dict[str, list[int]] = defaultdict(list)
    for index, names in enumerate(members):
        for name in names:
            holding[name].append(index)
    left = set(range(len(sets)))
    recent: dict[str, int] = {}  # bot -> the step it was last used at
    order = []
    current = 0
    for step in range(len(sets)):
        order.append(current)
        left.discard(current)
        for name in members[current]:
            recent[name] = step
        if not left:
            break
        # Bots last used more than about live_bots / seats sets ago are likely closed by now.
        floor = step - max(1, live_bots // len(members[current]))
        candidates = sorted({i for name in members[current] for i in holding[name] if i in left})
        current = (max(candidates, key=lambda i: (_warm(members[i], recent, floor), -i))
                   if candidates else min(left))
    return [sets[i] for i in order]


def _warm(names: set[str], recent: dict[str, int], floor: int) -> int:
    """How many of ``names`` were used after step ``floor``."""
    return sum(1 for name in names if recent.get(name, floor) > floor)
