"""Rating models on real games: how many games each needs before the table is right and sure.

Two fields of real games, played once by ``arena run`` (``bench/fields/*.yaml``, into
``results/bench-ladder`` and ``results/bench-mixed``; kept and reused when present):
- **ladder**: the greedy starter bot at noise 0, 0.05, 0.1, 0.2, 0.3 and 0.45 (each decision random
  with that probability): close steps, the true order known. 3,600 games.
- **mixed**: the starter bots (greedy, first-legal-c and the random bots in Python, JS, C and Go).
  Its true order is by class: greedy, first-legal-c, then the random bots, which play one policy
  (their order among themselves is not scored). 2,400 games.

For each model and each of REPEATS seeded shuffles of the field's duplicate sets (whole sets, the
unit every model's bootstrap resamples), the prefixes of the shuffle are rated (200 resamples) on a
grid of sizes growing by GROWTH, and the figure is the first size at which every adjacent pair of
classes is ordered right with LOS >= 95%. Reported: the median (and mean) games per model, the
ratio of medians to ``places`` (the goal's figure: the default model at <= 0.6x on both fields),
and the median of the per-shuffle ratios (one shuffle's prefixes are the same games for every
model; a first passage is noisy, so this one scatters more).
Two more fields, **ladder-small** (``bench/fields/ladder-small.yaml``: the ladder under seed 21,
600 games, noise 0.05 and 0.1 as one class) and **ladder5-small** (the same at 5-player tables),
are measured by ``python -m bench.models ladder-small ladder5-small``. **styles**
(``bench/fields/styles.yaml``, 2,400 games) holds bots of different styles (greedy, a cautious
and a bold bidder, a bot that dumps its lowest card once its bid is made, random), ordered by
their mean total and places; ``python -m bench.totals results/bench-styles`` compares the models'
orders with the totals' (docs/ratings.md, "Validation on more fields"); **styles-search** (400
games of 7 deals) the search bot with greedy, the cautious bidder and the dumper; **styles-noise**
(1,200 games) the cautious bidder and the dumper against greedy at noise 0.1, 0.15 and 0.2.
**ladder7-small**: the greedy bot at seven noise levels and the random bot at 7-player tables,
672 games.
**partnership-small**: Partnership Blackout, teams of two greedy bots at five noise levels and of
two random bots, 600 games (there the adjusted model's estimate has the hands' features only).
Each field's lines end with what the ``adjusted`` model's play-outs cost a deal and how much of
the deal scores' spread its estimate explains (issue 42). Every model is measured, ``margins``
(``deals`` scored by each deal's margin) among them; ``--models deals,margins`` measures only
those (the ratios are then against the first of them that is ``places``, else ``deals``).
``python -m bench models``; ``python -m bench.models [--models M,...] FIELD...``.
"""

from __future__ import annotations

import random
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from arena.ratings import luck
from arena.ratings.model import DEFAULT_MODEL, Model, rate
from arena.ratings.table import read_results

ROOT = Path(__file__).resolve().parents[1]
FIELDS = {
    "ladder": (ROOT / "bench" / "fields" / "ladder.yaml",
               [["greedy-n00"], ["greedy-n05"], ["greedy-n10"], ["greedy-n20"], ["greedy-n30"],
                ["greedy-n45"]]),
    "mixed": (ROOT / "bench" / "fields" / "mixed.yaml",
              [["greedy"], ["first-legal-c"],
               ["random-py", "random-js", "random-c", "random-go"]]),
    # noise 0.05 and 0.1 as one class: no model separates them in 600 games (z under 0.5)
    "ladder-small": (ROOT / "bench" / "fields" / "ladder-small.yaml",
                     [["greedy-n00"], ["greedy-n05", "greedy-n10"], ["greedy-n20"], ["greedy-n30"],
                      ["greedy-n45"]]),
    # the same ladder at 5-player tables, where the cards' luck within a deal is larger
    "ladder5-small": (ROOT / "bench" / "fields" / "ladder5-small.yaml",
                      [["greedy-n00"], ["greedy-n05", "greedy-n10"], ["greedy-n20"], ["greedy-n30"],
                       ["greedy-n45"]]),
    # styles, not noise (bench/bots/style_bot.py): cautious and dumper tie on total score and on
    # places in 2,400 games (one class); `deals` and `adjusted` put dumper above at LOS 100%
    "styles": (ROOT / "bench" / "fields" / "styles.yaml",
               [["greedy"], ["cautious", "dumper"], ["bold"], ["random"]]),
    # the search bot against greedy and two styles, 7 deals a game: every model orders it as the
    # totals do
    "styles-search": (ROOT / "bench" / "fields" / "styles-search.yaml",
                      [["search"], ["greedy"], ["dumper"], ["cautious"]]),
    # the cautious bidder and the dumper against noisy greedy bots: by total and places cautious,
    # greedy-n10 and dumper lead (their order not sure), then n15, then n20; `deals` puts cautious
    # last, so it never resolves this field
    "styles-noise": (ROOT / "bench" / "fields" / "styles-noise.yaml",
                     [["cautious", "greedy-n10", "dumper"], ["greedy-n15"], ["greedy-n20"]]),
    "ladder7-small": (ROOT / "bench" / "fields" / "ladder7-small.yaml",
                      [["greedy-n00"], ["greedy-n05"], ["greedy-n10"], ["greedy-n20"], ["greedy-n30"],
                       ["greedy-n45"], ["greedy-n60"], ["random"]]),
    "partnership-small": (ROOT / "bench" / "fields" / "partnership-small.yaml",
                          [["greedy-n00"], ["greedy-n10"], ["greedy-n20"], ["greedy-n30"],
                           ["greedy-n45"], ["random"]]),
}
DEFAULT_FIELDS = ("ladder", "mixed")
"""The fields ``python -m bench models`` measures; ``python -m bench.models FIELD...`` any."""
REPEATS = {"ladder": 41, "mixed": 101, "ladder-small": 21, "ladder5-small": 21, "styles": 21,
           "styles-search": 21, "styles-noise": 21, "ladder7-small": 21, "partnership-small": 21}
"""Shuffles per field: the mixed field is resolved within a dozen sets, where one set more or less
is a large step, so it needs more shuffles for a steady median (and costs little)."""
RESAMPLES = 200
LOS_GOAL = 0.95
GROWTH = 1.1
FIRST_SETS = 1
RATIO_GOAL = 0.6
PLAYOUT_GAMES = 40
"""Games whose deals are played out again to time the adjusted model's play-outs."""


def field_results(name: str, out: Path | None = None) -> list[dict[str, object]]:
    """The field's games (played with ``arena run`` when ``out`` holds none yet)."""
    path, _ = FIELDS[name]
    out = out or ROOT / "results" / f"bench-{name}"
    if not (out / "games.jsonl").exists():
        arena = Path(sys.executable).with_name("arena")
        subprocess.run([str(arena), "run", str(path), "--out", str(out), "--restart"],
                       check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
    return read_results([out], chance=True).results


def is_resolved(results: Sequence[dict[str, object]], classes: list[list[str]], model: Model,
                seed: int) -> bool:
    """Whether the table orders the classes right with LOS >= LOS_GOAL at every boundary."""
    rank = {name: index for index, members in enumerate(classes) for name in members}
    try:
        rows = rate(results, resamples=RESAMPLES, seed=seed, model=model).standings
    except Exception:  # too few games to rate at all: not resolved
        return False
    if len(rows) < len(rank) or any(row.rating is None for row in rows):
        return False
    order = [rank[row.name] for row in rows]
    if order != sorted(order):
        return False
    return all(row.los_next is not None and row.los_next >= LOS_GOAL
               for row, below in zip(rows, order[1:], strict=False)
               if rank[row.name] != below)


def games_needed(sets: list[list[dict[str, object]]], classes: list[list[str]], model: Model,
                 seed: int) -> int:
    """Games in the first prefix of ``sets`` (grown by GROWTH) that resolves the classes; all the
    games (a lower bound) when none does."""
    size = FIRST_SETS
    while True:
        size = min(size, len(sets))
        prefix = [result for games in sets[:size] for result in games]
        if is_resolved(prefix, classes, model, seed) or size == len(sets):
            return len(prefix)
        size = max(size + 1, round(size * GROWTH))


def measure(name: str, results: list[dict[str, object]],
            models: Sequence[Model] = tuple(Model)) -> dict[Model, list[int]]:
    """Games needed by each model under REPEATS shuffles of the field's sets."""
    _, classes = FIELDS[name]
    by_set: dict[object, list[dict[str, object]]] = {}
    for result in results:
        by_set.setdefault(result.get("set"), []).append(result)
    keys = sorted(by_set, key=str)
    needed: dict[Model, list[int]] = {model: [] for model in models}
    for repeat in range(REPEATS[name]):
        order = list(keys)
        random.Random(repeat).shuffle(order)
        sets = [by_set[key] for key in order]
        for model in models:
            needed[model].append(games_needed(sets, classes, model, repeat))
    return needed


def playout_cost(results: Sequence[dict[str, object]], games: int = PLAYOUT_GAMES) -> str:
    """What the ``adjusted`` model's play-outs cost (``luck.playout_values``, CPU time of the
    first ``games`` games), and the share of the deal scores' spread within a deal its out-of-fold
    estimate explains, with the play-outs and by the hands' features alone."""
    sample = list(results[:games])
    start = time.process_time()
    deals = sum(len(luck.playout_values(result) or ()) for result in sample)
    spent = time.process_time() - start
    chances = [luck.chance_of(result) for result in results]
    scores = [result.get("deal_scores") or [] for result in results]
    positions = [result.get("teams")  # a team's seats in Partnership Blackout, else each seat
                 or [[seat] for seat in range(len(result["entrants"]))]  # type: ignore[arg-type]
                 for result in results]
    sets = [result.get("set") for result in results]
    values = [result.get("deal_values") for result in results]
    explained = [luck.adjust(chances, scores, positions, sets, found).explained  # type: ignore[arg-type]
                 for found in (values, None)]
    shown = ["-" if share is None else f"{share:.1%}" for share in explained]
    cost = (f"play-outs {1000 * spent / deals:.2f} ms a deal (CPU, {deals} deals)" if deals
            else "no play-outs (none for this game)")
    return (f"  adjusted: {cost}; out of fold the estimate explains {shown[0]} of the deal scores' spread "
            f"within a deal ({shown[1]} by the hands' features alone)")


def run(fields: Sequence[str] = DEFAULT_FIELDS, models: Sequence[Model] = tuple(Model)
        ) -> list[str]:
    """Measure and return the lines to print."""
    lines = []
    base_model = Model.PLACES if Model.PLACES in models else models[0]
    for name in fields:
        results = field_results(name)
        needed = measure(name, results, tuple(dict.fromkeys((*models, Model.DEALS))))
        base = needed[base_model]
        deals = needed[Model.DEALS]
        lines.append(f"{name} ({len(results)} games): games until every adjacent pair is ordered "
                     f"right with LOS >= 95% (median of {REPEATS[name]} shuffles of whole sets):")
        for model, counts in needed.items():
            if model not in models:
                continue
            ratio = statistics.median(counts) / statistics.median(base)
            paired = statistics.median(c / b for c, b in zip(counts, base, strict=True))
            goal = ""
            if model is DEFAULT_MODEL and base_model is Model.PLACES:
                goal = f"  default, goal <= {RATIO_GOAL}x: {'met' if ratio <= RATIO_GOAL else 'NOT met'}"
            against_deals = statistics.median(c / b for c, b in zip(counts, deals, strict=True))
            lines.append(f"  {model.value:<10} {statistics.median(counts):6.0f} games "
                         f"(mean {statistics.mean(counts):6.0f}): {ratio:4.2f}x {base_model.value} "
                         f"(median per shuffle {paired:4.2f}x; against deals "
                         f"{statistics.median(counts) / statistics.median(deals):4.2f}x, per "
                         f"shuffle {against_deals:4.2f}x){goal}")
        if Model.ADJUSTED in models:
            lines.append(playout_cost(results))
    return lines


def main(argv: list[str]) -> None:
    models: Sequence[Model] = tuple(Model)
    if argv and argv[0].startswith("--models"):
        listed = argv[0].partition("=")[2] or (argv[1] if len(argv) > 1 else "")
        argv = argv[1:] if "=" in argv[0] else argv[2:]
        try:
            models = tuple(Model(value) for value in listed.split(","))
        except ValueError:
            sys.exit(f"bench.models: --models: {listed!r} is not a list of rating models "
                     f"(models: {', '.join(model.value for model in Model)})")
    unknown = [name for name in argv if name not in FIELDS]
    if unknown:
        sys.exit(f"bench.models: {unknown[0]!r} is not a field (fields: {', '.join(FIELDS)})")
    print("\n".join(run(argv or DEFAULT_FIELDS, models)))


if __name__ == "__main__":
    main(sys.argv[1:])
