"""Results that fall apart into groups that never met: each group rated on its own, named."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from arena.formats import TableFormat
from arena.ratings.groups import rate_groups
from arena.ratings.model import rate
from arena.ratings.table import render_table, results_table

from helpers import arena


def pool(names: list[str], games: int, seed: int) -> list[dict[str, object]]:
    """Three-seat games among ``names``; earlier names score more on average."""
    rng = random.Random(seed)
    results = []
    for _ in range(games):
        seats = rng.sample(names, 3)
        scores = [rng.random() * 10 - names.index(name) for name in seats]
        order = sorted(scores, reverse=True)
        results.append({"entrants": seats, "scores": scores,
                        "ranks": [order.index(s) + 1 for s in scores]})
    return results


def test_every_group_is_rated_and_named() -> None:
    results = pool(["a", "b", "c", "d"], 200, 1) + pool(["w", "x", "y"], 150, 2)
    rated = rate_groups(results, resamples=50, seed=1)
    assert rated.groups == 2
    rows = rated.ratings.standings
    assert all(row.rating is not None and row.flag is None for row in rows)
    by_name = {row.name: group for row, group in zip(rows, rated.group_of, strict=True)}
    assert by_name == {"a": 1, "b": 1, "c": 1, "d": 1, "w": 2, "x": 2, "y": 2}
    assert [row.name for row in rows[:4]] == ["a", "b", "c", "d"]  # the stronger first
    for group in (1, 2):  # each group centred on the pool mean on its own
        ratings = [row.rating for row, g in zip(rows, rated.group_of, strict=True) if g == group]
        assert abs(sum(ratings) / len(ratings) - 1500.0) < 1e-6
    text = render_table(rated)
    assert "group" in text.splitlines()[0]
    assert "2 groups of entrants that never met (sizes 4, 3)" in text
    assert "n/a" not in text
    data = json.loads(render_table(rated, TableFormat.JSON))
    assert data["groups"] == 2
    assert {e["name"]: e["group"] for e in data["entrants"]} == by_name


def test_one_group_is_the_plain_table() -> None:
    results = pool(["a", "b", "c", "d"], 120, 3)
    grouped = rate_groups(results, resamples=20, seed=2)
    assert grouped.groups == 1
    assert render_table(grouped) == render_table(rate(results, resamples=20, seed=2))
    assert "group" not in results_table(results, resamples=0).splitlines()[0]


def test_the_anchor_fixes_its_own_group() -> None:
    results = pool(["a", "b", "c"], 100, 4) + pool(["x", "y", "z"], 100, 5)
    rows = rate_groups(results, anchor=("y", 1000.0), resamples=0).ratings.standings
    assert next(row.rating for row in rows if row.name == "y") == 1000.0
    first = [row.rating for row in rows if row.name in "abc"]
    assert abs(sum(first) / 3 - 1500.0) < 1e-6


@pytest.mark.slow
def test_arena_table_on_two_merged_files(tmp_path: Path) -> None:
    for name, names, seed in (("one", ["a", "b", "c"], 6), ("two", ["x", "y", "z", "v"], 7)):
        (tmp_path / f"{name}.jsonl").write_text(
            "".join(json.dumps({"result": r}) + "\n" for r in pool(names, 80, seed)))
    done = arena("table", tmp_path / "one.jsonl", tmp_path / "two.jsonl", "--resamples", "0")
    assert done.returncode == 0, done.stderr
    assert "2 groups of entrants that never met (sizes 4, 3)" in done.stdout
    assert "n/a" not in done.stdout


def test_a_malformed_result_is_reported_as_rate_reports_it() -> None:
    import pytest

    from arena.errors import ResultsError

    good = pool(["a", "b", "c"], 10, 8)
    for bad in ({"entrants": [1, "a"], "scores": [1, 2]}, {"entrants": [], "scores": []},
                {"entrants": [["x"], "a"], "scores": [1, 2]}, {"scores": [1, 2]}):
        with pytest.raises(ResultsError):
            rate_groups([*good, bad], resamples=0)
