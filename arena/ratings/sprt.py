"""Statistics of a paired match: Elo estimate with an interval, LOS and a sequential test (GSPRT).

The data are unit scores, one per unit (a pair of games on the same deals, once with the candidate
and once with the baseline in the tested seat), each in 0..1 with 1/2 for "as good as the
baseline" (`unit_score`). Units are independent of each other; the two games inside one are not,
which is why the unit, never the game, is the observation everywhere here.

- Elo: the mean unit score m read on the logistic Elo curve, Elo = -400 log10(1/m - 1), so a
  candidate that scores 0.5 + d more is rated about 695 d Elo above the baseline. The 95% interval
  maps m -+ 1.96 s/sqrt(n) the same way (s: the standard deviation of unit scores).
- LOS: the likelihood of superiority, Phi((m - 1/2) / (s / sqrt(n))).
- SPRT: the generalised SPRT of fishtest's pentanomial test, normal approximation: with
  mu0, mu1 the scores of elo0, elo1, LLR = n (mu1 - mu0) (2 m - mu0 - mu1) / (2 s^2); H1 is
  accepted when LLR >= ln((1 - beta) / alpha), H0 when LLR <= ln(beta / (1 - alpha)). The
  variance is estimated from the units themselves, so the pairing's correlation (what makes a
  paired unit less noisy than two independent games) is accounted for without a model of it.

Pure: no I/O, no clock. Every function takes plain numbers or numpy arrays (``field_score`` one
game's result), so the validation tests can run thousands of simulated tests at once. The test's
bounds (``SprtBounds``) are a setting (``arena.settings``), which a match's plan holds.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import numpy as np

from arena.errors import ConfigError
from arena.settings import SprtBounds

Z95 = 1.959963984540054
MIN_UNITS = 40
"""No decision before this many units: a variance estimated from fewer is too unreliable."""
VARIANCE_FLOOR = 1e-4
"""Stands for a smaller sample variance (e.g. every unit equal: identical programs), so the LLR
stays finite and readable; real unit scores vary far more (variance about 0.01 to 0.1)."""


class Decision(StrEnum):
    """Where a sequential test stands."""

    H0 = "H0"
    H1 = "H1"
    NONE = "none"


def parse_sprt(text: str) -> SprtBounds:
    """``elo0=0,elo1=10,alpha=0.05,beta=0.05`` (any subset) as bounds; ConfigError naming the part."""
    values = {"elo0": 0.0, "elo1": 10.0, "alpha": 0.05, "beta": 0.05}
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        key, sep, raw = part.partition("=")
        key = key.strip()
        if not sep or key not in values:
            raise ConfigError(f"--sprt: {part!r}: expected KEY=VALUE with KEY one of "
                              f"elo0, elo1, alpha, beta")
        try:
            values[key] = float(raw)
        except ValueError:
            raise ConfigError(f"--sprt: {key}: {raw.strip()!r} is not a number") from None
        if not math.isfinite(values[key]):
            raise ConfigError(f"--sprt: {key}: must be finite")
    if not values["elo0"] < values["elo1"]:
        raise ConfigError(f"--sprt: elo0 ({values['elo0']:g}) must be below elo1 "
                          f"({values['elo1']:g})")
    for key in ("alpha", "beta"):
        if not 0 < values[key] < 0.5:
            raise ConfigError(f"--sprt: {key}: {values[key]:g} is out of range (0 < {key} < 0.5)")
    return SprtBounds(**values)


def score_of_elo(elo: float | np.ndarray) -> float | np.ndarray:
    """The expected score of an Elo difference on the logistic curve."""
    return 1.0 / (1.0 + 10.0 ** (-np.asarray(elo, dtype=np.float64) / 400.0))


def elo_of_score(score: float) -> float:
    """The Elo difference of an expected score (+-inf at 1 and 0)."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def unit_score(candidate: float, baseline: float) -> float:
    """A unit's score from the tested seat's score against the field in each game (each 0..1)."""
    return 0.5 + (candidate - baseline) / 2.0  # exactly 0.5 for equal scores: (1 + 2/3 - 2/3) is not 1


def field_score(result: Mapping[str, Any], entrant: int) -> float:
    """Entrant ``entrant``'s score against the others of one game: the share it finished above
    (ties half), from the result's ranks (forfeits already placed last)."""
    ranks = result["ranks"]
    mine = ranks[entrant]
    others = [r for i, r in enumerate(ranks) if i != entrant]
    return sum(1.0 if mine < r else 0.5 if mine == r else 0.0 for r in others) / len(others)


def llr(n: np.ndarray | int, total: np.ndarray | float, total_squares: np.ndarray | float,
        bounds: SprtBounds) -> np.ndarray:
    """The GSPRT log-likelihood ratio from the count, sum and sum of squares of unit scores.

    Vectorised over any shape; 0 where there are no units.
    """
    n = np.asarray(n, dtype=np.float64)
    safe = np.maximum(n, 1.0)
    mean = np.asarray(total, dtype=np.float64) / safe
    variance = np.maximum(np.asarray(total_squares, dtype=np.float64) / safe - mean**2,
                          VARIANCE_FLOOR)
    mu0 = float(score_of_elo(bounds.elo0))
    mu1 = float(score_of_elo(bounds.elo1))
    value = n * (mu1 - mu0) * (2.0 * mean - mu0 - mu1) / (2.0 * variance)
    return np.where(n > 0, value, 0.0)


def decide(n: np.ndarray | int, value: np.ndarray | float, bounds: SprtBounds) -> np.ndarray:
    """Per element: 1 where H1 is accepted, -1 where H0 is, 0 where the test goes on."""
    n = np.asarray(n)
    value = np.asarray(value)
    ready = n >= MIN_UNITS
    return np.where(ready & (value >= bounds.upper), 1,
                    np.where(ready & (value <= bounds.lower), -1, 0))


@dataclass(frozen=True)
class MatchStats:
    """The statistics of the units so far."""

    units: int
    mean: float
    elo: float
    elo_lower: float
    elo_upper: float
    los: float
    llr: float | None
    decision: Decision
    drawn: int = 0
    """Units drawn (unit score 0.5: the two did equally against the field on the same cards)."""

    @property
    def all_drawn(self) -> bool:
        """Whether every unit, two at least, was drawn: the field did not tell the two apart, so
        the interval is narrow for want of any difference, not for a measured equality."""
        return self.units >= 2 and self.drawn == self.units

    @property
    def margin(self) -> float:
        """Half the interval's width in Elo (inf when unbounded)."""
        return (self.elo_upper - self.elo_lower) / 2.0


def match_stats(scores: list[float] | np.ndarray, bounds: SprtBounds | None = None) -> MatchStats:
    """Elo, 95% interval, LOS and, with ``bounds``, the LLR and decision of the unit scores."""
    values = np.asarray(scores, dtype=np.float64)
    n = len(values)
    if n < 2:  # one unit says nothing about the spread
        mean = float(values.mean()) if n else 0.5
        return MatchStats(n, mean, elo_of_score(mean), -math.inf, math.inf, 0.5,
                          0.0 if bounds else None, Decision.NONE, int((values == 0.5).sum()))
    mean = float(values.mean())
    spread = math.sqrt(max(float(values.var()), VARIANCE_FLOOR) / n)
    los = 0.5 * math.erfc(-(mean - 0.5) / spread / math.sqrt(2.0))
    ratio: float | None = None
    decision = Decision.NONE
    if bounds is not None:
        ratio = float(llr(n, values.sum(), (values**2).sum(), bounds))
        verdict = int(decide(n, ratio, bounds))
        decision = {1: Decision.H1, -1: Decision.H0}.get(verdict, Decision.NONE)
    return MatchStats(n, mean, elo_of_score(mean), elo_of_score(mean - Z95 * spread),
                      elo_of_score(mean + Z95 * spread), los, ratio, decision,
                      int((values == 0.5).sum()))


def first_decisions(outcomes: np.ndarray, bounds: SprtBounds,
                    block: int = 500) -> tuple[np.ndarray, np.ndarray]:
    """Run one sequential test per row of ``outcomes`` (runs x units of unit scores).

    Returns (decision per run: 1 H1, -1 H0, 0 none within the columns; units used per run).
    Vectorised: cumulative sums over ``block`` units at a time, carried from block to block, the
    first crossing found with argmax; rows already decided are dropped from later blocks.
    """
    runs, units = outcomes.shape
    decision = np.zeros(runs, dtype=np.int64)
    used = np.full(runs, units, dtype=np.int64)
    total = np.zeros(runs)
    squares = np.zeros(runs)
    open_rows = np.arange(runs)
    for first in range(0, units, block):
        if open_rows.size == 0:
            break
        chunk = outcomes[open_rows, first:first + block].astype(np.float64)
        n = np.arange(first + 1, first + chunk.shape[1] + 1)
        sums = total[open_rows, None] + np.cumsum(chunk, axis=1)
        sums_sq = squares[open_rows, None] + np.cumsum(chunk**2, axis=1)
        verdict = decide(n, llr(n, sums, sums_sq, bounds), bounds)
        crossed = verdict != 0
        done = crossed.any(axis=1)
        where = np.argmax(crossed, axis=1)
        rows = open_rows[done]
        decision[rows] = verdict[done, where[done]]
        used[rows] = first + where[done] + 1
        total[open_rows] = sums[:, -1]
        squares[open_rows] = sums_sq[:, -1]
        open_rows = open_rows[~done]
    return decision, used


def verdict(stats: MatchStats, bounds: SprtBounds) -> str:
    """What the test decided, in the words of what it tested: ``not 30 Elo stronger: H0
    accepted, estimate +4.8 +- 11.6``."""
    elo0, elo1 = bounds.elo0, bounds.elo1
    if stats.decision is Decision.H1:
        what = ("stronger" if elo0 == 0 else f"more than {elo0:g} Elo stronger" if elo0 > 0
                else f"not {-elo0:g} Elo weaker")
        return f"{what} ({elo1:g} Elo likelier than {elo0:g}): H1 accepted, estimate {estimate(stats)}"
    if stats.decision is Decision.H0:
        return (f"not {elo1:g} Elo stronger ({elo0:g} likelier than {elo1:g}): H0 accepted, "
                f"estimate {estimate(stats)}")
    if stats.units < MIN_UNITS and stats.llr is not None \
            and not bounds.lower < stats.llr < bounds.upper:
        return (f"no decision: the test decides from {MIN_UNITS} units on, and --games allowed "
                f"{stats.units}; estimate {estimate(stats)}")
    return f"no decision within --games (the LLR stayed between its bounds); estimate {estimate(stats)}"


def estimate(stats: MatchStats) -> str:
    """The Elo estimate with its 95% interval's half width, never ``+- inf``: an interval open on
    one side is said as a bound, and one unit gives no interval at all."""
    elo, lower, upper, units = stats.elo, stats.elo_lower, stats.elo_upper, stats.units
    few = f"no interval from {units} unit{'s' if units != 1 else ''}"
    if not math.isfinite(elo):  # a mean unit score of 1 or 0
        side, bound, word = ("won", lower, "above") if elo > 0 else ("lost", upper, "below")
        shown = f"95%: {word} {signed(bound)}" if units >= 2 and math.isfinite(bound) else few
        return f"every unit {side} so far ({shown})"
    if units < 2:
        return f"{signed(elo)} ({few})"
    if math.isfinite(lower) and math.isfinite(upper):
        return f"{signed(elo)} +- {stats.margin:.1f}"
    if math.isfinite(lower):
        return f"{signed(elo)} (95%: above {signed(lower)})"
    if math.isfinite(upper):
        return f"{signed(elo)} (95%: below {signed(upper)})"
    return f"{signed(elo)} (no finite interval yet)"


def signed(value: float) -> str:
    """``+4.8``, ``-12.0``, ``+0.0`` (never ``-0.0``); an infinite value as plus or minus ∞ (the
    typographic minus)."""
    if math.isinf(value):
        return "+∞" if value > 0 else "−∞"  # noqa: RUF001 (typographic minus, on purpose)
    text = f"{value:+.1f}"
    return "+0.0" if text == "-0.0" else text
