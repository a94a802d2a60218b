"""How many games each rating model needs, from the bootstrap's z of each adjacent pair, on fresh
ladders: the greedy ladder of ``bench/fields/ladder.yaml`` played again under other seeds.

``bench/models.py`` measures on one field, played once; docs/ratings.md's ratio of the games
``duplicate`` needs against ``places`` (1.05x there) did not hold on two fresh ladders (0.69x
and 0.94x). Here each ladder is ``ROUNDS`` rounds under its own seed (played by ``arena run`` into
``results/bench-ladder-sSEED``, kept and reused), rated by every model with RESAMPLES resamples;
for each adjacent pair of the known order (noise 0 above 0.05 above 0.1...) z = the difference
over its bootstrap spread (the 95% interval of the difference / 3.92), and a model needs
(z_places / z_model)^2 the games of ``places`` to separate that pair as surely. Printed: each
pair's ratios, and the ratio of the pair hardest for ``places``.

``python -m bench.models_z [SEED...]`` (default seeds 21 22 23).
"""

from __future__ import annotations

import itertools
import math
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

from arena.ratings.model import Model, rate
from arena.ratings.table import read_results

ROOT = Path(__file__).resolve().parents[1]
LADDER = ROOT / "bench" / "fields" / "ladder.yaml"
ORDER = ["greedy-n00", "greedy-n05", "greedy-n10", "greedy-n20", "greedy-n30", "greedy-n45"]
ROUNDS = 20
"""Rounds of a fresh ladder: 1,200 games (a third of the bench field), a few minutes to play."""
RESAMPLES = 1000


def ladder_results(seed: int) -> list[dict[str, object]]:
    """The games of the ladder played under ``seed`` (played now unless kept from before)."""
    out = ROOT / "results" / f"bench-ladder-s{seed}"
    if not (out / "games.jsonl").exists():
        spec = yaml.safe_load(LADDER.read_text())
        spec.update(name=f"bench-ladder-s{seed}", seed=seed, rounds=ROUNDS)
        with tempfile.NamedTemporaryFile("w", suffix=".yaml", dir=ROOT / "bench" / "fields",
                                         delete=False) as handle:
            yaml.safe_dump(spec, handle)
        try:
            arena = Path(sys.executable).with_name("arena")
            subprocess.run([str(arena), "run", handle.name, "--out", str(out), "--restart",
                            "--jobs", "2"], check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
        finally:
            Path(handle.name).unlink()
    return read_results([out], chance=True).results


def pair_z(results: list[dict[str, object]], model: Model) -> list[float]:
    """z of each adjacent pair of ORDER: the difference over its bootstrap spread (anchored at the
    upper one, the lower one's interval is the difference's own; 0 when unbounded)."""
    zs = []
    for upper, lower in itertools.pairwise(ORDER):
        rows = {row.name: row for row in rate(results, resamples=RESAMPLES, seed=0, model=model,
                                              anchor=(upper, 0.0)).standings}
        row = rows[lower]
        if row.rating is None or row.lower is None or row.upper is None \
                or not math.isfinite(row.upper - row.lower):
            zs.append(0.0)
            continue
        zs.append(-row.rating / ((row.upper - row.lower) / 3.92))
    return zs


def main(seeds: list[int]) -> None:
    hardest: dict[Model, list[float]] = {model: [] for model in Model}
    every: dict[Model, list[float]] = {model: [] for model in Model}
    for seed in seeds:
        results = ladder_results(seed)
        zs = {model: pair_z(results, model) for model in Model}
        print(f"ladder seed {seed} ({len(results)} games): z of each adjacent pair, and the games "
              f"a model needs against places, (z_places / z)^2")
        for index, (upper, lower) in enumerate(itertools.pairwise(ORDER)):
            cells = [f"{model.value} z {zs[model][index]:5.2f}"
                     + ("" if model is Model.PLACES or not zs[model][index] else
                        f" {(zs[Model.PLACES][index] / zs[model][index]) ** 2:4.2f}x")
                     for model in Model]
            print(f"  {upper} > {lower}: " + "; ".join(cells))
        for model in Model:
            every[model] += [(zp / z) ** 2 for zp, z in zip(zs[Model.PLACES], zs[model],
                                                            strict=True) if z]
        pair = min(range(len(ORDER) - 1), key=lambda i: zs[Model.PLACES][i])
        for model in Model:
            hardest[model].append((zs[Model.PLACES][pair] / zs[model][pair]) ** 2)
        print(f"  hardest for places: {ORDER[pair]} > {ORDER[pair + 1]}: "
              + ", ".join(f"{model.value} {hardest[model][-1]:.2f}x" for model in Model))
    print("hardest pair, over the ladders: "
          + ", ".join(f"{model.value} median {statistics.median(hardest[model]):.2f}x "
                      f"(range {min(hardest[model]):.2f}-{max(hardest[model]):.2f})"
                      for model in Model))
    print("every adjacent pair, over the ladders: "
          + ", ".join(f"{model.value} median {statistics.median(every[model]):.2f}x "
                      f"(range {min(every[model]):.2f}-{max(every[model]):.2f}, "
                      f"{len(every[model])} pairs)" for model in Model))


if __name__ == "__main__":
    main([int(arg) for arg in sys.argv[1:]] or [21, 22, 23])
