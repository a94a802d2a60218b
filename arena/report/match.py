"""A match's own section of its report: which program is which, the paired estimate, the test.

A match's results directory holds ``match.json`` (``arena.plans.match``: the programs, their
``labels`` for people, the field's names, the test) beside ``games.jsonl``. The ranking of the
report rates every entrant from pairwise comparisons; this section gives what ``arena match``
itself printed: candidate against baseline from the units' scores (``arena.ratings.sprt``), and
the sequential test's standing. Labels and commands come from the user's bot directories and
manifests: the index's template (``templates/match.html``) prints them, escaped.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from arena.ratings.sprt import MatchStats, field_score, match_stats, signed, unit_score, verdict
from arena.settings import SprtBounds
from arena.values.ids import MATCH_GAMES, match_game_id

DESCRIPTION = "match.json"
"""A match's description beside its games (what ``arena match`` writes)."""


@dataclass(frozen=True)
class MatchFacts:
    """What the report says of a match: its two programs, its field, its units' statistics."""

    labels: tuple[str, str]
    """The candidate's and the baseline's names for people (manifest name and version)."""
    commands: tuple[str, str]
    field: tuple[str, ...]
    bounds: SprtBounds | None
    stats: MatchStats | None
    """None before a unit is complete."""


def match_facts(directory: Path, results: Mapping[str, Mapping[str, Any]]) -> MatchFacts | None:
    """The facts of the match whose results directory is ``directory`` (None when it is none, or
    its description cannot be read), from ``results``: its games' result objects by game id."""
    try:
        described = orjson.loads((directory / DESCRIPTION).read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return None
    if not isinstance(described, dict):
        return None
    commands = tuple(_command(described.get(role)) for role in ("candidate", "baseline"))
    labels = described.get("labels")
    if not (isinstance(labels, list) and len(labels) == 2
            and all(isinstance(label, str) for label in labels)):
        labels = ["", ""]
    shown = (labels[0] or commands[0], labels[1] or commands[1])
    names = described.get("field_names")
    field = tuple(str(name) for name in names) if isinstance(names, list) else ()
    sprt = described.get("sprt")
    bounds = None
    if isinstance(sprt, dict):
        try:
            bounds = SprtBounds(**{key: float(sprt[key]) for key in ("elo0", "elo1", "alpha",
                                                                      "beta")})
        except (KeyError, TypeError, ValueError):
            bounds = None
    scores = _unit_scores(results)
    stats = match_stats(scores, bounds) if scores else None
    return MatchFacts(shown, (commands[0], commands[1]), field, bounds, stats)


def _command(program: object) -> str:
    if not isinstance(program, dict) or not isinstance(program.get("argv"), list):
        return "?"
    command = shlex.join(str(arg) for arg in program["argv"])
    workdir = program.get("workdir")
    return f"{command} (in {workdir})" if isinstance(workdir, str) else command


def _unit_scores(results: Mapping[str, Mapping[str, Any]]) -> list[float]:
    """The complete units' scores, in unit order up to the first incomplete one (as the match
    counts them). The tested entrant is the one the two games of a unit do not share."""
    scores: list[float] = []
    while True:
        candidate, baseline = (results.get(match_game_id(len(scores), tag)) for tag in MATCH_GAMES)
        if candidate is None or baseline is None:
            return scores
        tested = [i for i, name in enumerate(candidate["entrants"])
                  if name not in baseline["entrants"]]
        if len(tested) != 1:
            return scores  # not a match's unit
        scores.append(unit_score(field_score(candidate, tested[0]),
                                 field_score(baseline, tested[0])))


@dataclass(frozen=True)
class MatchSummary:
    """What the section says under its table of programs, in the console's words."""

    paired: str
    """The paired estimate of the candidate over the baseline."""
    test: str
    """The sequential test's standing (or that there was none)."""


def match_summary(facts: MatchFacts) -> MatchSummary | None:
    """The paired estimate and the test of the match; None before a unit is complete."""
    stats, bounds = facts.stats, facts.bounds
    if stats is None:
        return None
    interval = (f", 95% {signed(stats.elo_lower)} … {signed(stats.elo_upper)}"
                if stats.units >= 2 else " (no interval from one unit)")
    paired = (f"Paired Elo of the candidate over the baseline: {signed(stats.elo)}{interval}, "
              f"LOS {100 * stats.los:.1f}%, from {stats.units} units (two games each on the "
              f"same cards; mean unit score {stats.mean:.4f}).")
    if stats.all_drawn:
        paired += (" Every unit was drawn: this field did not tell the two apart, so the "
                   "interval measures no difference, not an equality.")
    if bounds is None:
        test = "No sequential test (the match ran without --sprt)."
    else:
        test = (f"SPRT elo0={bounds.elo0:g} elo1={bounds.elo1:g} alpha={bounds.alpha:g} "
                f"beta={bounds.beta:g}: LLR {stats.llr or 0.0:.2f} in [{bounds.lower:.2f}, "
                f"{bounds.upper:.2f}]: {verdict(stats, bounds)}.")
    return MatchSummary(paired, test)
