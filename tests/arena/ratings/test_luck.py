"""The luck-adjusted rating (arena.ratings.luck, ``--rating adjusted``) on real games of real bot
processes: the adjustment has mean zero for every entrant, the estimate never trains on the deals
it adjusts, identical bots rate alike, an overbidder gains nothing, the intervals of identical
pairs cover zero, and ``arena table --rating adjusted`` on a results directory. Identical bots
rate alike, and the overbidder last, under the margin-scored model (``--rating margins``) too."""

from __future__ import annotations

import itertools
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np
import orjson
import pytest

from arena.ratings import luck
from arena.ratings.model import Model, rate
from arena.ratings.table import read_results

from helpers import ROOT, arena, played_tournament

COPY = f"{sys.executable} -S {ROOT}/bots/python/greedy_bot.py --noise 0.2"
OVERBID = f"{sys.executable} -S {ROOT}/tests/bots/overbid_bot.py"
COPIES = [f"copy-{tag}" for tag in "abcd"]


@pytest.fixture(scope="module")
def field(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """80 games of 8 deals: four copies of one greedy bot (noise 0.2) and an overbidder, every
    table of four in its four seat rotations (20 duplicate sets)."""
    bots = {**{name: COPY for name in COPIES}, "overbid": OVERBID}
    return played_tournament(tmp_path_factory.mktemp("luck"), "luck", bots, players=4,
                             options={"deals": 8}, rounds=4, seed=42, jobs=2)


@pytest.fixture(scope="module")
def results(field: Path) -> list[dict[str, Any]]:
    return read_results([field], chance=True).results


def _adjusted(results: list[dict[str, Any]]) -> luck.Adjusted:
    """Adjusted as the model adjusts: by the hands' features and the deals' play-outs."""
    return luck.adjust([luck.chance_of(result) for result in results],
                       [result["deal_scores"] for result in results],
                       [[[seat] for seat in range(4)]] * len(results),
                       [result["set"] for result in results],
                       [result["deal_values"] for result in results])


def _luck_by_entrant(results: list[dict[str, Any]], adjusted: luck.Adjusted
                     ) -> dict[str, float]:
    found: dict[str, float] = defaultdict(float)
    for result, term in zip(results, adjusted.luck, strict=True):
        assert term is not None
        for seat, name in enumerate(result["entrants"]):
            found[name] += float(term[:, seat].sum())
    return found


@pytest.mark.slow
def test_the_adjustment_has_mean_zero_for_every_entrant(results: list[dict[str, Any]]) -> None:
    adjusted = _adjusted(results)
    assert adjusted.explained is not None  # a model was fitted, not left at zero
    # the play-outs are the greedy policy's, the same for every game of a set
    by_deals = {(result["set"], result["seed"]): result["deal_values"] for result in results}
    assert all(result["deal_values"] == by_deals[(result["set"], result["seed"])]
               for result in results)
    terms = np.concatenate([term.ravel() for term in adjusted.luck if term is not None])
    assert np.abs(terms).max() > 0.1  # the cards moved single deals' scores
    # every entrant held every position of its sets once: its terms cancel, whatever V is
    assert all(abs(total) < 1e-6 for total in _luck_by_entrant(results, adjusted).values())


@pytest.mark.slow
def test_the_estimate_never_trains_on_the_deals_it_adjusts(results: list[dict[str, Any]]) -> None:
    before = _adjusted(results)
    one_set = results[0]["set"]
    changed = [dict(result, deal_scores=[[score * 3 + 7 for score in deal]
                                         for deal in result["deal_scores"]])
               if result["set"] == one_set else result for result in results]
    after = _adjusted(changed)
    for result, old, new in zip(results, before.luck, after.luck, strict=True):
        assert old is not None and new is not None
        if result["set"] == one_set:  # its own fold's model never saw its scores
            assert np.array_equal(old, new)
    assert any(not np.array_equal(old, new) for old, new in zip(before.luck, after.luck,
                                                                 strict=True))


@pytest.mark.slow
@pytest.mark.parametrize("model", [Model.ADJUSTED, Model.MARGINS])
def test_identical_bots_are_centred_on_zero(results: list[dict[str, Any]], model: Model) -> None:
    for anchor in COPIES:
        rows = {row.name: row for row in rate(results, model=model, resamples=300,
                                              anchor=(anchor, 0.0)).standings}
        for other in COPIES:
            row = rows[other]
            assert row.lower is not None and row.upper is not None
            assert row.lower <= 0.0 <= row.upper, (anchor, other, row)


@pytest.mark.slow
def test_an_overbidder_gains_nothing_from_the_adjustment(results: list[dict[str, Any]]) -> None:
    adjusted = _adjusted(results)
    # its mean deal score is its raw one: the luck terms of its seats sum to zero
    assert abs(_luck_by_entrant(results, adjusted)["overbid"]) < 1e-6
    for model in (Model.DEALS, Model.ADJUSTED, Model.MARGINS):
        rows = rate(results, model=model, resamples=300).standings
        assert rows[-1].name == "overbid", (model, rows)
        assert rows[-2].los_next is not None and rows[-2].los_next > 0.95, (model, rows)


@pytest.mark.slow
@pytest.mark.parametrize("model", [Model.ADJUSTED, Model.MARGINS])
def test_intervals_of_identical_pairs_cover_zero_in_disjoint_halves(
        results: list[dict[str, Any]], model: Model) -> None:
    sets = sorted({result["set"] for result in results})
    covered = total = 0
    for half in (sets[0::2], sets[1::2]):
        games = [result for result in results if result["set"] in half]
        for anchor, other in itertools.combinations(COPIES, 2):
            row = next(row for row in rate(games, model=model, resamples=200,
                                           anchor=(anchor, 0.0)).standings if row.name == other)
            assert row.lower is not None and row.upper is not None
            covered += row.lower <= 0.0 <= row.upper
            total += 1
    assert covered >= total - 2, f"{covered} of {total} intervals cover the true 0"


@pytest.mark.slow
def test_margins_m_is_the_rules_largest_deal_margin_in_every_slice(
        results: list[dict[str, Any]]) -> None:
    # 8 deals of Blackout: a deal scores 0 to 8 + 10, so M = 18, in the whole field and in any
    # part of it (a slice's own largest margin would rescale its ratings)
    assert all(result["deal_range"] == [0, 18] for result in results)
    sets = sorted({result["set"] for result in results})
    for part in (sets, sets[:3], sets[-1:]):
        games = [result for result in results if result["set"] in part]
        assert rate(games, model=Model.MARGINS, resamples=0).margin == 18.0
    seen = max(abs(a - b) for result in results for deal in result["deal_scores"]
               for a in deal for b in deal)
    assert seen < 18  # what the games alone would have made M


def test_arena_table_rates_adjusted(field: Path) -> None:
    done = arena("table", field, "--rating", "adjusted", "--resamples", "50")
    assert done.returncode == 0, done.stderr
    assert "luck-adjusted deals" in done.stdout
    assert all(name in done.stdout for name in [*COPIES, "overbid"])
    # the deals were played out once, by the fixture's read, and kept beside the results
    kept = (field / "playouts.jsonl").read_bytes().splitlines()
    assert len(kept) == len((field / "games.jsonl").read_bytes().splitlines())


@pytest.mark.slow
def test_kept_play_outs_of_other_cards_under_the_same_ids_are_played_again(
        field: Path, tmp_path: Path) -> None:
    """A results file written again under the same game ids (a run restarted with another seed)
    is not valued by the play-outs kept for the old one's cards."""
    lines = [orjson.loads(line) for line in (field / "games.jsonl").read_bytes().splitlines()[:4]]
    (tmp_path / "games.jsonl").write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in lines))
    first = read_results([tmp_path], chance=True).results
    for deal in lines[0]["deals"]:  # the first game's hands passed one seat on
        deal["hands"] = deal["hands"][1:] + deal["hands"][:1]
    (tmp_path / "games.jsonl").write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in lines))
    again = read_results([tmp_path], chance=True).results
    assert again[0]["deal_values"] == luck.playout_values(again[0]) != first[0]["deal_values"]
    assert [r["deal_values"] for r in again[1:]] == [r["deal_values"] for r in first[1:]]


FIXTURE = Path(__file__).with_name("honest-40-games.jsonl")


@pytest.mark.parametrize("chance", ["x", [[0, "S"]], [[0, "S", [["AS"], ["2H"]]]] * 8,
                                    [["0", None, []]] * 8])
def test_chance_events_that_are_not_a_deals_leave_the_scores_unadjusted(chance: object) -> None:
    plain = [orjson.loads(line) for line in FIXTURE.read_bytes().splitlines()]
    damaged = [dict(result, deal_chance=chance) for result in plain]
    expected = rate(plain, model=Model.ADJUSTED, resamples=20).standings
    assert rate(damaged, model=Model.ADJUSTED, resamples=20).standings == expected
