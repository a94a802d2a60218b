"""The match statistics: the sequential test's error rates are checked by simulation, not assumed."""

from __future__ import annotations

import math

import numpy as np
import pytest

from arena.errors import ConfigError
from arena.ratings.sprt import (
    MIN_UNITS,
    Decision,
    elo_of_score,
    field_score,
    first_decisions,
    match_stats,
    parse_sprt,
    score_of_elo,
    unit_score,
)
from arena.settings import SprtBounds

RUNS = 2000
VALUES = np.arange(7) / 6  # the unit scores of 4-player Blackout: (1 + c - b) / 2, c, b in k/3
SHAPES = {
    # Unit scores as a paired match gives them: mostly near 1/2, tails both ways.
    "paired": np.array([1, 3, 8, 12, 8, 3, 1], dtype=np.float64),
    # Unpaired-like: the two games independent, so the unit scores spread much more.
    "spread": np.array([4, 8, 10, 10, 10, 8, 4], dtype=np.float64),
}


def tilted(shape: np.ndarray, mean: float) -> np.ndarray:
    """The distribution on VALUES closest to ``shape`` (exponential tilt) with the given mean."""
    base = shape / shape.sum()
    low, high = -60.0, 60.0
    for _ in range(200):
        middle = (low + high) / 2
        p = base * np.exp(middle * VALUES)
        p /= p.sum()
        low, high = (middle, high) if p @ VALUES < mean else (low, middle)
    return p


def simulate(bounds: SprtBounds, elo: float, shape: str, units: int, seed: int,
             ) -> tuple[np.ndarray, np.ndarray]:
    """RUNS sequential tests on synthetic unit scores whose true Elo is ``elo``."""
    p = tilted(SHAPES[shape], float(score_of_elo(elo)))
    rng = np.random.default_rng(seed)
    outcomes = VALUES.astype(np.float32)[rng.choice(len(VALUES), size=(RUNS, units), p=p)]
    return first_decisions(outcomes, bounds)


CASES = [
    (SprtBounds(0, 30, 0.05, 0.05), "paired", 3000),
    (SprtBounds(0, 10, 0.05, 0.05), "paired", 6000),
    (SprtBounds(-5, 5, 0.1, 0.05), "spread", 8000),
]


@pytest.mark.parametrize(("bounds", "shape", "units"), CASES)
@pytest.mark.slow
def test_error_rates_hold_at_both_hypotheses(bounds: SprtBounds, shape: str, units: int) -> None:
    at_elo0, used0 = simulate(bounds, bounds.elo0, shape, units, seed=11)
    at_elo1, used1 = simulate(bounds, bounds.elo1, shape, units, seed=12)
    # Nearly every run must decide within the simulated units, or the rates below mean little.
    assert (at_elo0 != 0).mean() > 0.99 and (at_elo1 != 0).mean() > 0.99
    assert (at_elo0 == 1).mean() <= bounds.alpha + 0.02
    assert (at_elo1 == -1).mean() <= bounds.beta + 0.02
    assert used0.min() >= MIN_UNITS and used1.min() >= MIN_UNITS


def test_a_clearly_better_candidate_is_accepted_quickly() -> None:
    decisions, used = simulate(SprtBounds(0, 30), 100, "paired", 3000, seed=3)
    assert (decisions == 1).mean() > 0.99
    assert np.median(used) < 100


def test_less_spread_needs_fewer_units() -> None:
    bounds = SprtBounds(0, 30)
    _, paired = simulate(bounds, 30, "paired", 3000, seed=4)
    _, spread = simulate(bounds, 30, "spread", 3000, seed=4)
    assert np.median(paired) < np.median(spread)


def test_stats_of_known_units() -> None:
    scores = [0.5 + 0.1 * (-1) ** i for i in range(100)] + [0.6] * 100  # mean 0.55
    stats = match_stats(scores, SprtBounds(0, 30))
    assert stats.units == 200 and stats.mean == pytest.approx(0.55)
    assert stats.elo == pytest.approx(-400 * math.log10(1 / 0.55 - 1))
    assert stats.elo_lower < stats.elo < stats.elo_upper
    assert stats.los > 0.99
    assert stats.decision is Decision.H1


def test_equal_units_accept_h0_but_not_before_the_minimum() -> None:
    bounds = SprtBounds(0, 30)
    assert match_stats([0.5] * (MIN_UNITS - 1), bounds).decision is Decision.NONE
    assert match_stats([0.5] * MIN_UNITS, bounds).decision is Decision.H0


def test_scales_round_trip() -> None:
    for elo in (-200.0, -10.0, 0.0, 30.0, 400.0):
        assert elo_of_score(float(score_of_elo(elo))) == pytest.approx(elo)
    assert unit_score(1.0, 0.0) == 1.0 and unit_score(0.5, 0.5) == 0.5


def test_field_score_is_the_share_of_the_field_finished_above() -> None:
    assert field_score({"ranks": [1, 2, 3, 4]}, 0) == 1.0
    assert field_score({"ranks": [2, 2, 1, 4]}, 0) == pytest.approx((0.5 + 0 + 1) / 3)
    assert field_score({"ranks": [2, 1]}, 0) == 0.0


def test_parse_sprt_reads_every_key_and_keeps_defaults() -> None:
    assert parse_sprt("elo0=-5, elo1=5,alpha=0.1") == SprtBounds(-5, 5, 0.1, 0.05)
    assert parse_sprt("") == SprtBounds()


@pytest.mark.parametrize(("text", "problem"), [
    ("elo0=10,elo1=5", "elo0 (10) must be below elo1 (5)"),
    ("alpha=0.7", "alpha: 0.7 is out of range"),
    ("elo2=3", "'elo2=3': expected KEY=VALUE"),
    ("elo1=abc", "elo1: 'abc' is not a number"),
])
def test_bad_sprt_is_one_clear_error(text: str, problem: str) -> None:
    with pytest.raises(ConfigError, match="--sprt: " + problem.replace("(", r"\(").replace(")", r"\)")):
        parse_sprt(text)
