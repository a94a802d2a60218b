"""The value of every legal action of one decision, from the seat's view alone.

The evaluator is handed what the bot was handed, the view (``engine``'s ``view(state, seat)``) and
the legal actions, and nothing else: it never sees the record's hands. It draws ``samples`` deals of
the cards the seat could not see, consistent with the view (``engine.sampling.draw_sample``: the
search bot's sampler), and in each plays every legal action and then the rest of the deal as the
greedy bot would (``engine.sampling.Playouts``). Every action is played out on the same samples
(common random numbers), so the difference between two actions is measured on the same deals and
its noise is the noise of the difference, not of each value. The value of an action is the mean
score of the deal for the seat's entrant (its team in Partnership Blackout); the samples come from
a generator seeded by ``seed``, so the same view and settings always give the same values.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Any

from engine import game as engine_game
from engine.sampling import Playouts, Position, Unsupported, draw_sample, run_heads

VERSION = 1
"""The evaluator's version: a cached analysis of another version is computed again."""


@dataclass(frozen=True)
class ActionValue:
    """One legal action's expected deal score for the seat's entrant, with its standard error."""

    action: Any
    """The action as the protocol writes it (a bid, a call, a card name)."""
    mean: float
    stderr: float


@dataclass(frozen=True)
class Evaluation:
    """Every legal action of one decision valued on the same samples."""

    values: tuple[ActionValue, ...]
    """In the order of the legal actions."""
    outcomes: dict[Any, tuple[float, ...]]
    """Each action's score on each sample, in sample order (the common random numbers)."""

    @property
    def best(self) -> ActionValue:
        """The action with the highest mean (the first of the legal order on a tie)."""
        return max(self.values, key=lambda value: value.mean)

    def best_for(self, chosen: Any) -> ActionValue:
        """The best action, ``chosen`` itself when nothing scores more (ties go to the choice)."""
        best = self.best
        mine = next(value for value in self.values if value.action == chosen)
        return mine if mine.mean >= best.mean else best

    def loss(self, chosen: Any) -> tuple[float, float]:
        """(The expected points lost by ``chosen`` against the best action, never negative; the
        standard error of that estimate.)

        Zero when ``chosen`` is the best on all the samples. Otherwise the best action is picked
        on one half of the samples and the difference measured on the other, both ways round,
        averaged: picking the best and measuring it on the same samples would favour an action
        that was merely lucky on them, and count that luck as the chosen action's loss.
        """
        if self.best_for(chosen).action == chosen:
            return 0.0, 0.0
        mine = self.outcomes[chosen]
        halves = (slice(0, None, 2), slice(1, None, 2))
        differences: list[float] = []
        for pick, measure in (halves, halves[::-1]):
            best = max(self.values, key=lambda value: _mean(self.outcomes[value.action][pick]))
            theirs = self.outcomes[best.action]
            differences += [b - m for b, m in zip(theirs[measure], mine[measure], strict=True)]
        return max(0.0, _mean(differences)), _stderr(differences)

def evaluate(view: dict[str, Any], kind: str, legal: list[Any], samples: int,
             seed: int) -> Evaluation:
    """Value every action of ``legal`` (protocol form) for the seat of ``view`` deciding ``kind``.

    Unsupported (from ``engine.sampling``) when no deal of the unseen cards fits the view.
    """
    game = engine_game(view["game"])
    position = Position(view, game)
    playouts = Playouts(position, kind)
    entrant = game.info.entrant_of(position.seat)
    stands_for = run_heads(legal, position) if kind == "play" else {a: a for a in legal}
    played = list(dict.fromkeys(stands_for.values()))
    engine_actions = {action: playouts.engine_action(action) for action in played}
    rng = random.Random(seed)
    scores: dict[Any, list[float]] = {action: [] for action in played}
    for _ in range(samples):
        state = position.start(draw_sample(rng, position))
        for action in played:
            scores[action].append(float(playouts.scores(state, engine_actions[action])[entrant]))
    outcomes = {action: tuple(scores[stands_for[action]]) for action in legal}
    values = tuple(ActionValue(action, _mean(outcomes[action]), _stderr(outcomes[action]))
                   for action in legal)
    return Evaluation(values, outcomes)


def _mean(values: tuple[float, ...] | list[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def _stderr(values: tuple[float, ...] | list[float]) -> float:
    """The standard error of the mean (0 with fewer than two values)."""
    count = len(values)
    if count < 2:
        return 0.0
    mean = _mean(values)
    return math.sqrt(sum((v - mean) ** 2 for v in values) / (count - 1) / count)


__all__ = ["VERSION", "ActionValue", "Evaluation", "Unsupported", "evaluate"]
