"""Are the rating intervals calibrated? Disjoint slices of a field against all of it (issue 42).

A field's duplicate sets (``bench/models.py``'s fields, played there once) are shuffled (seed 0)
and dealt into SLICES disjoint slices of whole sets. For each model, each slice and each adjacent
pair of the field's entrants (in ``bench/models.py``'s order), the slice's 95% interval of the
pair's rating difference (the lower entrant's with the upper anchored at 0, RESAMPLES resamples)
is checked against the difference rated on all the field's games: a calibrated interval covers it
in about 95% of the slices (a little more, as a slice is part of the whole).

The ``margins`` model's M is the largest deal margin the game's rules allow, the same for a slice
as for the whole field (a first cut took it from the games rated, which put slices on other
scales; its ``--full-m`` comparison is gone with it).

``python -m bench.calibration [--slices N] FIELD...``.
"""

from __future__ import annotations

import itertools
import random
import sys
from collections.abc import Sequence

from arena.ratings.model import Model, rate
from bench import models

SLICES = 10
RESAMPLES = 200
MODELS = (Model.DEALS, Model.MARGINS)


def _difference(results: Sequence[dict[str, object]], model: Model, upper: str, lower: str,
                resamples: int) -> tuple[float | None, float | None, float | None]:
    """(rating, lower end, upper end) of ``lower`` with ``upper`` anchored at 0."""
    rows = {row.name: row for row in rate(results, resamples=resamples, seed=0, model=model,
                                          anchor=(upper, 0.0)).standings}
    row = rows[lower]
    return row.rating, row.lower, row.upper


def coverage(name: str, slices: int) -> list[str]:
    """One line per model: how many slices' intervals cover the whole field's difference."""
    results = models.field_results(name)
    _, classes = models.FIELDS[name]
    names = [member for members in classes for member in members]
    by_set: dict[object, list[dict[str, object]]] = {}
    for result in results:
        by_set.setdefault(result.get("set"), []).append(result)
    keys = sorted(by_set, key=str)
    random.Random(0).shuffle(keys)
    parts = [[game for key in keys[k::slices] for game in by_set[key]] for k in range(slices)]
    lines = []
    for model in MODELS:
        pairs = list(itertools.pairwise(names))
        full = {pair: _difference(results, model, *pair, 0)[0] for pair in pairs}
        covered = total = 0
        for part in parts:
            for pair in pairs:
                _, low, high = _difference(part, model, *pair, RESAMPLES)
                truth = full[pair]
                if low is None or high is None or truth is None:
                    continue
                total += 1
                covered += low <= truth <= high
        share = f"{covered / total:.0%}" if total else "-"
        lines.append(f"{name} ({len(results)} games, {slices} slices): {model.value}: {covered} of "
                     f"{total} intervals cover the whole field's difference ({share})")
    return lines


def main(argv: list[str]) -> None:
    slices, fields = SLICES, []
    args = iter(argv)
    for arg in args:
        if arg == "--slices":
            slices = int(next(args, "0"))
        elif arg in models.FIELDS:
            fields.append(arg)
        else:
            sys.exit(f"bench.calibration: {arg!r} is not a field or option (fields: "
                     f"{', '.join(models.FIELDS)})")
    if slices < 2:
        sys.exit("bench.calibration: --slices must be 2 or more")
    for name in fields:
        print("\n".join(coverage(name, slices)), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
