"""Engine speed: random full Blackout games through the public API, against OpenSpiel's oh_hell.

Both sides play uniformly random legal actions driven from Python. OpenSpiel cannot deal 13 cards to
four players (it always turns a trump card), so the like-for-like workload is a 4-player game of
deals with 1..12 cards: this engine with ``deals: 12``, OpenSpiel with one game of each
``num_tricks_fixed`` 1..12 (its chance nodes, the deal and the turned card, are sampled as part of
the work, as our engine deals from its seed). The ratio is ours / OpenSpiel's, each the median of
several rounds alternating between the two so that machine noise hits both alike.
"""

from __future__ import annotations

import random
import statistics
import time

from engine import blackout

ROUNDS = 5
GAMES_PER_ROUND = 60


def ours(games: int, deals: int | None) -> float:
    """Random 4-player games per second through this engine's public API."""
    options = None if deals is None else {"deals": deals}
    rng = random.Random(1)
    choice, legal_actions, apply = rng.choice, blackout.legal_actions, blackout.apply
    start = time.perf_counter()
    for seed in range(games):
        state = blackout.new_game(4, seed, options)
        while state.to_act is not None:
            state = apply(state, choice(legal_actions(state)))
    return games / (time.perf_counter() - start)


def openspiel(games: int) -> float | None:
    """OpenSpiel oh_hell game-equivalents (one deal of each size 1..12) per second, or None."""
    try:
        import pyspiel  # type: ignore[import-not-found]
    except ImportError:
        return None
    variants = [pyspiel.load_game("oh_hell", {"players": 4, "num_tricks_fixed": k})
                for k in range(1, 13)]
    rng = random.Random(1)
    choice = rng.choice
    start = time.perf_counter()
    for _ in range(games):
        for game in variants:
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    outcomes = state.chance_outcomes()
                    state.apply_action(choice(outcomes)[0])
                else:
                    state.apply_action(choice(state.legal_actions()))
    return games / (time.perf_counter() - start)


def run() -> list[str]:
    """Measure and return the report lines."""
    full, like, theirs = [], [], []
    for _ in range(ROUNDS):
        full.append(ours(GAMES_PER_ROUND, None))
        like.append(ours(GAMES_PER_ROUND, 12))
        other = openspiel(GAMES_PER_ROUND)
        if other is not None:
            theirs.append(other)
    lines = [
        f"engine: full default 4-player Blackout (deals 1..13): "
        f"{statistics.median(full):,.0f} games/s (median of {ROUNDS})",
        f"engine: 4-player deals 1..12: {statistics.median(like):,.0f} games/s",
    ]
    if theirs:
        ratios = [a / b for a, b in zip(like, theirs, strict=True)]
        ratio = statistics.median(ratios)
        verdict = "meets" if ratio >= 1.0 else "MISSES"
        lines += [
            f"openspiel oh_hell: deals 1..12 (one of each size): "
            f"{statistics.median(theirs):,.0f} game-equivalents/s",
            f"engine / openspiel ratio: {ratio:.2f} ({verdict} the goal >= 1.0)",
        ]
    else:
        lines.append("openspiel: not installed (pip install open-spiel) - no ratio")
    return lines


if __name__ == "__main__":
    print("\n".join(run()))
