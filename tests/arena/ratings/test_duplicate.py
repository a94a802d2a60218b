"""The duplicate rating models: comparisons of entrants that held the same cards, with known answers."""

from __future__ import annotations

import itertools
import json
import math
import random
from pathlib import Path

import pytest

from arena.errors import ConfigError, ResultsError
from arena.formats import TableFormat
from arena.ratings import bootstrap as bootstrap_module
from arena.ratings.model import rate
from arena.ratings.table import ratings_json, render_table, results_table, table_for_paths
from arena.records.result import rating_input
from arena.records.upgrade import upgrade
from arena.settings import DEFAULT_RATING, RatingModel, check_rating


def two_game_set(name: str, first: str, second: str, deals: list[tuple[int, int]],
                 *, forfeit: str | None = None, ranks: tuple[int, int] | None = None
                 ) -> list[dict[str, object]]:
    """A duplicate set of two games on the same cards: ``first`` holds position 0 in game one,
    ``second`` in game two. ``deals`` are position 0's and position 1's deal scores, the same in
    both games (the cards decide them), so every comparison is between the two entrants' play."""
    games = []
    for seats in ((first, second), (second, first)):
        scores = [[a, b] for a, b in deals]
        totals = [sum(d[0] for d in scores), sum(d[1] for d in scores)]
        forfeits = [seat == forfeit for seat in seats]
        games.append({"entrants": list(seats), "scores": totals,
                      "ranks": list(ranks) if ranks else [1 + (totals[1] > totals[0]),
                                                          1 + (totals[0] > totals[1])],
                      "forfeits": forfeits, "faults": [int(f) for f in forfeits],
                      "set": name, "seed": 7, "deal_scores": scores})
    return games


def skill_sets(wins: int, losses: int, sets: int = 10) -> list[dict[str, object]]:
    """Sets where, at each position, ``a`` outscores ``b`` in ``wins`` deals and is outscored in
    ``losses``: position by position, ``a`` scores 1 where ``b`` would score 0 and vice versa."""
    results = []
    for number in range(sets):
        # The same cards at both positions in both games; a's play adds 1 on its winning deals.
        games = []
        for seats in (("a", "b"), ("b", "a")):
            scores = []
            for deal in range(wins + losses):
                a_wins = deal < wins
                scores.append([int((seats[position] == "a") == a_wins) for position in (0, 1)])
            totals = [sum(s[p] for s in scores) for p in (0, 1)]
            games.append({"entrants": list(seats), "scores": totals, "ranks": [1, 1],
                          "set": f"s{number}", "seed": number, "deal_scores": scores})
        results += games
    return results


def test_deals_model_rates_the_share_of_deals_won_on_the_same_cards() -> None:
    # a wins 16 of every 25 deal comparisons: 64%, which is 100 Elo (400 log10(16/9)).
    rated = rate(skill_sets(16, 9), resamples=0, model="deals", prior=0)
    by_name = {row.name: row.rating for row in rated.standings}
    assert by_name["a"] is not None and by_name["b"] is not None
    assert by_name["a"] - by_name["b"] == pytest.approx(400 * math.log10(16 / 9))
    assert rated.model is RatingModel.DEALS
    assert rated.pairings == 10 * 2 * 25  # sets x positions x deals


def test_duplicate_model_compares_totals_on_the_same_cards() -> None:
    # Set by set, whoever wins more deals has the higher total: a in 3 sets of 4.
    results = []
    for number, (wins, losses) in enumerate([(3, 1), (3, 1), (3, 1), (1, 3)]):
        results += [{**g, "set": f"x{number}"} for g in skill_sets(wins, losses, sets=1)]
    rated = rate(results, resamples=0, model="duplicate", prior=0)
    by_name = {row.name: row.rating for row in rated.standings}
    assert by_name["a"] - by_name["b"] == pytest.approx(400 * math.log10(3))  # type: ignore[operator]
    assert rated.pairings == 4 * 2  # sets x positions


def test_a_forfeit_loses_every_comparison_whatever_the_score() -> None:
    # b outscores a on every deal, but b forfeited its game at position 0 of set 1.
    results = two_game_set("s0", "a", "b", [(1, 0)] * 5) + \
        two_game_set("s1", "a", "b", [(1, 0)] * 5, forfeit="b")
    for model in ("duplicate", "deals"):
        rated = rate(results, resamples=0, model=model)
        wins = dict(zip(rated.names, rated.wins.sum(axis=1), strict=True))
        per = 5 if model == "deals" else 1
        # Set 0: a and b score alike on the same cards: draws. Set 1: the position b held in its
        # forfeited game goes to a; the other is a draw.
        assert wins["a"] > wins["b"], model
        assert wins["a"] + wins["b"] == pytest.approx(2 * 2 * per)


def test_equal_totals_go_to_the_better_place_in_its_own_game() -> None:
    # Equal totals at both positions; a won its games on the tie-break, b lost its.
    results = []
    for number in range(3):
        games = two_game_set(f"s{number}", "a", "b", [(2, 2)])
        games[0]["ranks"] = [1, 2]  # a (position 0) first on the tie-break
        games[1]["ranks"] = [2, 1]  # a (position 1) first again
        results += games
    rated = rate(results, resamples=0, model="duplicate", prior=0)
    wins = dict(zip(rated.names, rated.wins.sum(axis=1), strict=True))
    assert wins == {"a": 6.0, "b": 0.0}
    assert rated.standings[0].name == "a" and rated.standings[0].rating is None  # won every one


def test_an_entrant_meeting_itself_is_not_compared() -> None:
    results = two_game_set("s0", "a", "a", [(1, 0)]) + skill_sets(2, 1, sets=2)
    rated = rate(results, resamples=0, model="deals")
    assert rated.pairings == 2 * 2 * 3


def test_the_default_falls_back_to_places_without_duplicate_comparisons() -> None:
    bare = [{"entrants": ["a", "b", "c"], "scores": [3, 2, 1]},
            {"entrants": ["c", "b", "a"], "scores": [3, 2, 1]},
            {"entrants": ["b", "a", "c"], "scores": [3, 2, 1]}]
    assert rate(bare, resamples=0).model is RatingModel.PLACES
    assert rate(skill_sets(2, 1), resamples=0).model is DEFAULT_RATING
    with pytest.raises(ResultsError, match="rate them with --rating places"):
        rate(bare, resamples=0, model="deals")


def test_unknown_model_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match=r"--rating: 'elo' is not a rating model \(models: "
                                          r"places, duplicate, deals, adjusted, margins\)"):
        check_rating("elo")
    with pytest.raises(ConfigError, match="not a rating model"):
        rate(skill_sets(2, 1), model="elo")


def test_bad_deal_scores_are_reported() -> None:
    results = skill_sets(2, 1)
    results[3] = {**results[3], "deal_scores": [[1, 2, 3]]}
    with pytest.raises(ResultsError, match=r"result 4: 'deal_scores' must be a list of deals"):
        rate(results, model="deals")


def noisy_field(sets: int = 60, seed: int = 3) -> list[dict[str, object]]:
    """Four entrants of known order at 4-position sets (4 rotations), deal scores that depend on
    the cards and on the holder's skill."""
    rng = random.Random(seed)
    skill = {"w": 0.6, "x": 0.4, "y": 0.2, "z": 0.0}
    results = []
    for number in range(sets):
        members = rng.sample(sorted(skill), 4)
        cards = [[rng.random() for _ in range(4)] for _ in range(6)]  # by deal, by position
        for rotation in range(4):
            seats = [members[(p + rotation) % 4] for p in range(4)]
            deals = [[int(10 * (cards[d][p] + skill[seats[p]] + rng.gauss(0, 0.3)))
                      for p in range(4)] for d in range(6)]
            totals = [sum(d[p] for d in deals) for p in range(4)]
            results.append({"entrants": seats, "scores": totals,
                            "ranks": [1 + sum(t > s for t in totals) for s in totals],
                            "set": f"r1-t{number:04d}", "seed": number, "deal_scores": deals})
    return results


@pytest.mark.parametrize("model", list(RatingModel))
def test_every_model_recovers_the_known_order(model: RatingModel) -> None:
    rated = rate(noisy_field(), resamples=50, seed=1, model=model)
    assert list(rated.names) == ["w", "x", "y", "z"]
    assert all(row.los_next is not None and row.los_next > 0.9 for row in rated.standings[:-1])


@pytest.mark.parametrize("model", list(RatingModel))
def test_the_bootstrap_sums_by_set_as_it_does_record_by_record(
        model: RatingModel, monkeypatch: pytest.MonkeyPatch) -> None:
    """The bootstrap's two ways of summing a resample (a set x cell matrix where the sets are
    few, else record by record) give the same table, bit for bit; some deals unfinished, one
    forfeit, and a few degenerate resamples (no prior) on the way."""
    results = noisy_field(sets=12)
    results[5] = {**results[5], "deal_scores": results[5]["deal_scores"][:4],  # type: ignore[index]
                  "forfeits": [True, False, False, False], "faults": [1, 0, 0, 0]}
    by_set = rate(results, resamples=300, seed=2, model=model, prior=0)
    monkeypatch.setattr(bootstrap_module, "DENSE_SUMS", 0)
    by_record = rate(results, resamples=300, seed=2, model=model, prior=0)
    assert by_set.standings == by_record.standings
    assert by_set.degenerate_resamples == by_record.degenerate_resamples


@pytest.mark.parametrize("model", list(RatingModel))
def test_anchor_groups_and_formats_work_under_every_model(model: RatingModel) -> None:
    field = noisy_field(20)
    apart = [{**g, "entrants": [f"{e}2" for e in g["entrants"]],  # type: ignore[attr-defined]
              "set": f"other-{g['set']}"} for g in field]
    for fmt in TableFormat:
        text = results_table(field + apart, fmt=fmt, anchor=("w", 1000.0), resamples=20,
                             model=model, crosstable=True)
        assert "w" in text
    data = json.loads(results_table(field + apart, fmt=TableFormat.JSON, anchor=("w", 1000.0),
                                    resamples=20, model=model))
    assert data["rating"] == model.value and data["groups"] == 2
    anchored = next(e for e in data["entrants"] if e["name"] == "w")
    assert anchored["rating"] == 1000.0


def test_an_upgraded_line_gives_the_ratings_its_set_seed_and_deal_scores() -> None:
    line = {"id": "r2-t0003-s1", "seed": 99, "deals": [{"scores": [1, 0, 3]}, {"scores": [0, 2, 0]}],
            "result": {"entrants": ["a", "b", "c"], "scores": [1, 2, 3]}}
    assert rating_input(upgrade(line)) == {"entrants": ["a", "b", "c"], "scores": [1, 2, 3],
                                           "set": "r2-t0003", "seed": 99,
                                           "deal_scores": [[1, 0, 3], [0, 2, 0]]}


def test_table_for_paths_takes_the_model(tmp_path: Path) -> None:
    lines = []
    for number, result in enumerate(noisy_field(10)):
        line = {"id": f"{result['set']}-s{number % 4}", "seed": result["seed"],
                "deals": [{"scores": d} for d in result["deal_scores"]],  # type: ignore[attr-defined]
                "result": {k: v for k, v in result.items()
                           if k not in ("seed", "deal_scores", "set")}}
        lines.append(json.dumps(line))
    path = tmp_path / "games.jsonl"
    path.write_text("\n".join(lines) + "\n")
    default = table_for_paths([path], resamples=0).text
    deals = table_for_paths([path], resamples=0, model="deals").text
    places = table_for_paths([path], resamples=0, model="places").text
    assert "(rating: margins)" in default and "(rating: deals)" in deals
    assert "(rating: places)" in places
    with pytest.raises(ConfigError, match="--rating"):
        table_for_paths([path], model="best")
    assert render_table(rate([json.loads(x)["result"] for x in lines], resamples=0))
    assert ratings_json(rate(noisy_field(10), resamples=0))["rating"] == "margins"


def test_a_field_that_kept_its_seats_is_said_to_be_uncompared_not_never_linked() -> None:
    # A match's unit: the field holds the same seat in both games, so under a duplicate model
    # nobody else held its cards. It sat at every table: "never linked" was wrong.
    games = []
    for unit in range(6):
        for tested in ("candidate", "baseline"):
            deals = [[3 + (tested == "candidate") * (unit % 2), 2, 1]]
            games.append({"entrants": [tested, "field1", "field2"],
                          "scores": [sum(d[i] for d in deals) for i in range(3)],
                          "set": f"u{unit}", "seed": unit, "deal_scores": deals})
    text = render_table(rate(games, resamples=20, model="deals"))
    assert "never linked" not in text
    assert ("n/a: no rating for field1, field2: rating deals compares an entrant only with those "
            "that held the same cards") in text
    assert "--rating places rates them" in text


@pytest.mark.parametrize("model", [DEFAULT_RATING, RatingModel.DEALS])
def test_intervals_cover_the_whole_fields_difference_in_disjoint_slices(model: RatingModel) -> None:
    """Calibration on a small ladder (four entrants of known order, 200 sets): in each of ten
    disjoint slices of 20 sets, the 95% interval of every adjacent pair's difference (the lower
    one anchored at 0) should hold the difference rated on the whole field about 95% of the
    time: 28.5 of 30. Intervals half as wide (a bootstrap that took the games of a set as
    independent, say) cover about two thirds; so did margins with M taken from each slice's own
    games (19 of 30: each slice on its own scale), where with one M, as the rules give, 29."""
    results = noisy_field(sets=200, seed=11)
    # the range of a deal's scores, as a record's rules give it (margins' M): one for every slice
    scores = [score for result in results for deal in result["deal_scores"] for score in deal]  # type: ignore[attr-defined]
    results = [{**result, "deal_range": [min(scores), max(scores)]} for result in results]
    order = ["w", "x", "y", "z"]
    whole = {row.name: row.rating for row in rate(results, resamples=0, model=model).standings}
    covered = total = 0
    for part in range(10):
        names = {f"r1-t{number:04d}" for number in range(20 * part, 20 * part + 20)}
        games = [result for result in results if result["set"] in names]
        for upper, lower in itertools.pairwise(order):
            rows = {row.name: row for row in rate(games, resamples=200, seed=part, model=model,
                                                   anchor=(lower, 0.0)).standings}
            low, high = rows[upper].lower, rows[upper].upper
            assert low is not None and high is not None and whole[upper] is not None
            difference = whole[upper] - whole[lower]  # type: ignore[operator]
            covered += low <= difference <= high
            total += 1
    assert total == 30 and covered >= 26, covered
