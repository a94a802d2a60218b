"""The ``margins`` rating model (``--rating margins``): the ``deals`` comparisons, each deal scored
1/2 + d / (2M) by its margin d, M the largest margin the game's rules allow (where the results do
not say their game, the largest margin of the rated games). Known answers on hand-made
sets, symmetry on real games (honest-40-games.jsonl), M = 0, forfeits and ``arena table``."""

from __future__ import annotations

import math
from pathlib import Path

import orjson
import pytest

from arena.ratings.model import rate
from arena.ratings.table import render_table
from arena.ratings.tally import tally_results
from arena.settings import RatingModel

from helpers import arena

REAL = Path(__file__).with_name("honest-40-games.jsonl")


def margin_sets(a_deals: list[int], b_deals: list[int], sets: int = 4, *,
                forfeit: str | None = None) -> list[dict[str, object]]:
    """Duplicate sets of two 2-player games: ``a`` and ``b`` swap seats, and at either position
    ``a`` scores ``a_deals`` and ``b`` scores ``b_deals`` on the same cards (their play decides it).
    ``forfeit``: that entrant forfeits both games of every set."""
    results = []
    for number in range(sets):
        for seats in (("a", "b"), ("b", "a")):
            own = {"a": a_deals, "b": b_deals}
            scores = [[own[seats[0]][deal], own[seats[1]][deal]] for deal in range(len(a_deals))]
            totals = [sum(a_deals if seat == "a" else b_deals) for seat in seats]
            forfeits = [seat == forfeit for seat in seats]
            ranks = [1 + (totals[1] > totals[0]), 1 + (totals[0] > totals[1])]
            if forfeit:
                ranks = [1 + f for f in forfeits]
            results.append({"entrants": list(seats), "scores": totals, "ranks": ranks,
                            "forfeits": forfeits, "faults": [int(f) for f in forfeits],
                            "set": f"s{number}", "seed": number, "deal_scores": scores})
    return results


def _difference(results: list[dict[str, object]], model: str) -> float:
    rated = {row.name: row.rating for row in rate(results, resamples=0, model=model,
                                                     prior=0).standings}
    assert rated["a"] is not None and rated["b"] is not None
    return rated["a"] - rated["b"]


def test_margins_follow_the_totals_where_deals_won_do_not() -> None:
    # a wins one deal by 10 and loses four by 1: 10 - 4 = 6 points a game more on the same cards.
    results = margin_sets([10, 0, 0, 0, 0], [0, 1, 1, 1, 1])
    # deals: a wins 1 comparison in 5, so b rates above; the totals and places say a.
    assert _difference(results, "deals") == pytest.approx(400 * math.log10(1 / 4))
    assert rate(results, resamples=0, model="duplicate").standings[0].name == "a"
    # margins: M = 10, so a scores 1 on the first deal and 1/2 - 1/20 on each other: 2.8 of 5.
    assert _difference(results, "margins") == pytest.approx(400 * math.log10(2.8 / 2.2))
    rated = rate(results, resamples=100, model="margins")
    assert [row.name for row in rated.standings] == ["a", "b"]
    assert rated.model is RatingModel.MARGINS
    assert rated.margin == 10.0  # the largest margin, which the table's note and JSON show
    assert rated.pairings == 4 * 2 * 5  # sets x positions x deals, as under deals


def test_m_is_the_largest_margin_the_rules_allow_where_the_results_say_it() -> None:
    # deal_range (rating_input adds it from the record's game, players and options): 0 to 20 a
    # deal, so M = 20 whatever the games show; a scores 1/2 + 10/40 on the first deal and
    # 1/2 - 1/40 on each other: 2.65 of 5.
    results = [{**game, "deal_range": [0, 20]}
               for game in margin_sets([10, 0, 0, 0, 0], [0, 1, 1, 1, 1])]
    assert _difference(results, "margins") == pytest.approx(400 * math.log10(2.65 / 2.35), rel=1e-4)
    assert rate(results, resamples=0, model="margins").margin == 20.0
    # a set whose results do not say it takes M from its own comparisons' largest margin (3):
    # one set at 1/2 + 3/6 for a, the others as above; no single M for the table
    unsaid = margin_sets([3], [0], sets=1)
    rated = rate(results + [{**game, "set": "u"} for game in unsaid], resamples=0, model="margins")
    assert rated.margin is None
    assert rated.wins[0, 1] == pytest.approx(4 * 2 * 2.65 + 2 * 1.0)


def test_margins_are_relative_to_the_largest_margin() -> None:
    # Scaling every deal score scales M alike: the same ratings.
    base = margin_sets([10, 0, 0, 0, 0], [0, 1, 1, 1, 1])
    scaled = margin_sets([30, 0, 0, 0, 0], [0, 3, 3, 3, 3])
    assert _difference(scaled, "margins") == pytest.approx(_difference(base, "margins"))


def test_every_comparison_is_a_draw_when_no_margin_is_above_zero() -> None:
    rated = rate(margin_sets([3, 0, 7], [3, 0, 7]), resamples=50, model="margins", prior=0)
    assert rated.wins[0, 1] == rated.wins[1, 0] == pytest.approx(4 * 2 * 3 / 2)
    assert all(row.rating == pytest.approx(1500.0) for row in rated.standings)
    assert rated.margin == 0.0
    assert "every comparison a draw" in render_table(rated)


def test_a_forfeit_loses_every_deal_whole_and_sets_no_margin() -> None:
    # b forfeits while outscoring a by 50 a deal: a takes every deal whole, and M stays 1 (the
    # margin of the set b did not forfeit), so a's one-point wins there are whole points too.
    results = margin_sets([1, 1], [0, 0], sets=2) + \
        [{**game, "set": f"f{game['set']}"} for game in
         margin_sets([0, 0], [50, 50], sets=1, forfeit="b")]
    rated = rate(results, resamples=0, model="margins")
    wins = dict(zip(rated.names, rated.wins.sum(axis=1), strict=True))
    assert wins == {"a": 3 * 2 * 2, "b": 0.0}


def _real() -> list[dict[str, object]]:
    return [orjson.loads(line) for line in REAL.read_bytes().splitlines()]


def test_each_deal_splits_one_point_between_the_two_on_real_games() -> None:
    results = _real()
    # One deal a game: each record is one deal's comparison, so its points must lie in [0, 1].
    for deal in range(8):
        single = [{**result, "deal_scores": [result["deal_scores"][deal]]}  # type: ignore[index]
                  for result in results]
        margins = tally_results(single, RatingModel.MARGINS)
        deals = tally_results(single, RatingModel.DEALS)
        assert margins.record_points.min() >= 0.0 and margins.record_points.max() <= 1.0
        # the same comparisons as deals, each worth one point in all: A vs B + B vs A = 1
        assert margins.wins + margins.wins.T == pytest.approx(deals.wins + deals.wins.T)
    whole = tally_results(results, RatingModel.MARGINS)
    deals = tally_results(results, RatingModel.DEALS)
    assert whole.wins + whole.wins.T == pytest.approx(deals.wins + deals.wins.T)
    assert not (whole.wins == deals.wins).all()  # and scored otherwise


def test_arena_table_rates_margins(tmp_path: Path) -> None:
    (tmp_path / "games.jsonl").write_bytes(REAL.read_bytes())
    done = arena("table", tmp_path, "--rating", "margins", "--resamples", "20")
    assert done.returncode == 0, done.stderr
    assert "each scored by its margin (rating: margins)" in done.stdout
    largest = rate(_real(), resamples=0, model="margins").margin
    assert largest and f"{largest:g} the largest margin" in done.stdout
    assert done.stdout.index("greedy ") < done.stdout.index("random")
