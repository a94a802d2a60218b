"""Ratings: pairwise outcomes, the Bradley-Terry fit, bootstrap intervals, LOS and the flags."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from arena.errors import ConfigError, ResultsError
from arena.ratings import bootstrap as bootstrap_module
from arena.ratings.fit import ELO_PER_NAT, fit_elo, with_prior
from arena.ratings.model import PRIOR_DRAWS, Flag, Ratings, pairwise_outcomes, rate
from arena.records.result import GameResult, check_result

EXACT_GAP = 400 * math.log10(3)  # P = 3/4 and P = 9/10 on the Elo curve: 190.849 Elo apart


def three_player_tables() -> list[dict[str, object]]:
    """100 three-player games whose pairwise records are A-B 75/25, A-C 90/10, B-C 75/25."""
    finishes = {"ABC": 60, "ACB": 15, "BAC": 15, "CBA": 10}
    games = []
    for finish, count in finishes.items():
        for _ in range(count):
            # Seats in a fixed order, scores by finishing position (30, 20, 10).
            scores = [30 - 10 * finish.index(name) for name in "ABC"]
            games.append({"entrants": ["A", "B", "C"], "scores": scores})
    return games


def two_player_games_with_draws() -> list[dict[str, object]]:
    """The same pairwise scores from two-player games, some of them drawn (a draw = 1/2 each)."""
    records = {("A", "B"): (70, 10, 20), ("A", "C"): (85, 10, 5), ("B", "C"): (60, 30, 10)}
    games = []
    for (a, b), (won, drawn, lost) in records.items():
        games += [{"entrants": [a, b], "scores": [1, 0]}] * won
        games += [{"entrants": [b, a], "scores": [5, 5]}] * drawn
        games += [{"entrants": [b, a], "scores": [3, 0]}] * lost
    return games


def simulated_games(strengths: list[float], games: int, players: int, seed: int,
                    ) -> list[dict[str, object]]:
    """Games among entrants of known Elo strengths, seats drawn at random.

    Each seat's performance is its strength in natural units plus independent standard Gumbel
    noise, and the scores rank the performances. The difference of two independent standard Gumbel
    variables is standard logistic, so for ANY two seats P(i ahead of j) = P(G_j - G_i < t_i - t_j)
    = 1 / (1 + e^-(t_i - t_j)): exactly the Bradley-Terry (Elo) probability, whatever the other
    seats do (Plackett-Luce rankings have Bradley-Terry pairwise marginals). So the truth is what
    the fit estimates; only the dependence between the pairs of one game is not in the pairwise
    likelihood, and that is what the bootstrap over whole games is for.
    """
    rng = np.random.default_rng(seed)
    theta = np.array(strengths) / ELO_PER_NAT
    seats = rng.random((games, len(strengths))).argsort(axis=1)[:, :players]
    performance = theta[seats] + rng.gumbel(size=(games, players))
    return [
        {"entrants": [f"bot{i}" for i in row], "scores": [round(float(x), 9) for x in perf]}
        for row, perf in zip(seats.tolist(), performance, strict=True)
    ]


def by_name(ratings: Ratings) -> dict[str, float | None]:
    return {row.name: row.rating for row in ratings.standings}


@pytest.fixture(scope="module")
def simulation() -> tuple[list[float], Ratings]:
    strengths = [400 * i / 7 for i in range(8)]  # Elo 0 to 400
    games = simulated_games(strengths, games=10_000, players=4, seed=20240601)
    return strengths, rate(games, resamples=400, seed=1)


# Pairwise outcomes -------------------------------------------------------------------------------

def test_pairwise_outcomes_follow_scores_ties_and_forfeits() -> None:
    result = check_result({
        "entrants": ["a", "b", "c", "d"],
        "scores": [10, 30, 10, 40],
        "forfeits": [False, False, True, True],
    })
    outcomes = {(a, b): points for a, b, points in pairwise_outcomes(result)}
    assert outcomes == {
        ("a", "b"): 0.0,  # lower score
        ("a", "c"): 1.0,  # equal scores, but c forfeited
        ("a", "d"): 1.0,  # d scored more but forfeited
        ("b", "c"): 1.0,
        ("b", "d"): 1.0,
        ("c", "d"): 0.0,  # both forfeited: by score
    }
    tie = pairwise_outcomes({"entrants": ["a", "b"], "scores": [7, 7]})
    assert tie == [("a", "b", 0.5)]


def test_seats_of_one_entrant_are_not_compared() -> None:
    result = {"entrants": ["x", "y", "x", "y"], "scores": [4, 3, 2, 1], "ranks": [1, 2, 3, 4]}
    assert sorted(pairwise_outcomes(result)) == [("x", "y", 1.0), ("x", "y", 1.0),
                                                 ("x", "y", 1.0), ("y", "x", 1.0)]
    ratings = rate([result, {"entrants": ["x", "x"], "scores": [1, 0]},
                    {"entrants": ["y", "x"], "scores": [5, 1]}], resamples=0)
    rows = {row.name: row for row in ratings.standings}
    assert rows["x"].games == 3 and rows["y"].games == 2  # a game counts once per entrant
    assert rows["x"].pairings == 5 and rows["y"].pairings == 5
    assert rows["x"].average_place == pytest.approx((1 + 3 + 1 + 2 + 2) / 5)  # over its seats


def test_partnership_teams_are_rated_as_entrants() -> None:
    # Partnership results are by team: a team of two copies of one bot carries that bot's name.
    games = ([{"entrants": ["greedy", "random"], "scores": [320, 110]}] * 3
             + [{"entrants": ["random", "greedy+random"], "scores": [200, 150]}] * 2
             + [{"entrants": ["greedy+random", "greedy"], "scores": [90, 300]}] * 2
             + [{"entrants": ["random", "greedy"], "scores": [250, 100]}]
             + [{"entrants": ["greedy", "greedy"], "scores": [250, 100]}])  # mirror: no pairing
    ratings = rate(games, resamples=0)
    rows = {row.name: row for row in ratings.standings}
    assert set(rows) == {"greedy", "random", "greedy+random"}
    assert rows["greedy"].games == 7 and rows["greedy"].pairings == 6
    assert rows["greedy"].pairwise_score == pytest.approx(5 / 6)


def test_rated_record_matches_the_pairwise_outcomes_of_every_game() -> None:
    rng = random.Random(5)
    names = ["a", "b", "c", "d", "e"]
    games: list[dict[str, object]] = []
    for _ in range(300):
        players = rng.choice([2, 3, 4, 5])
        games.append({
            "entrants": [rng.choice(names) for _ in range(players)],  # repeats: self-play
            "scores": [rng.randint(0, 3) for _ in range(players)],  # many ties
            "forfeits": [rng.random() < 0.15 for _ in range(players)],
            "faults": [rng.randint(0, 1) for _ in range(players)],
        })
    ratings = rate(games, resamples=0)
    expected = np.zeros((5, 5))
    order = ratings.names
    for game in games:
        for a, b, points in pairwise_outcomes(game):
            expected[order.index(a), order.index(b)] += points
            expected[order.index(b), order.index(a)] += 1 - points
    assert np.array_equal(ratings.wins, expected)
    faults = {name: 0 for name in names}
    for game in games:
        for name, fault in zip(game["entrants"], game["faults"], strict=True):
            faults[name] += fault
    assert {row.name: row.faults for row in ratings.standings} == faults


# The fit ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("games", [three_player_tables(), two_player_games_with_draws()],
                         ids=["three-player-tables", "two-player-games-with-draws"])
def test_known_exact_answer(games: list[dict[str, object]]) -> None:
    ratings = rate(games, resamples=0, prior=0)
    assert [row.name for row in ratings.standings] == ["A", "B", "C"]
    assert ratings.wins.tolist() == [[0, 75, 90], [25, 0, 75], [10, 25, 0]]
    a, b, c = (row.rating for row in ratings.standings)
    assert a is not None and b is not None and c is not None
    assert a - b == pytest.approx(EXACT_GAP, abs=1e-6)
    assert b - c == pytest.approx(EXACT_GAP, abs=1e-6)
    assert (a, b, c) == pytest.approx((1500 + EXACT_GAP, 1500, 1500 - EXACT_GAP), abs=1e-6)
    assert pytest.approx(190.849, abs=1e-3) == EXACT_GAP


def test_score_equations_hold_at_the_fit() -> None:
    games = simulated_games([0, 50, 150, 200, 420], games=300, players=3, seed=3)
    ratings = rate(games, resamples=0, prior=0)
    theta = np.array(list(by_name(ratings).values())) / ELO_PER_NAT
    expected = 1 / (1 + np.exp(theta[None, :] - theta[:, None]))  # P(row beats column)
    counts = ratings.wins + ratings.wins.T
    assert (counts * expected).sum(axis=1) == pytest.approx(ratings.wins.sum(axis=1), abs=1e-8)
    assert np.mean(theta * ELO_PER_NAT) == pytest.approx(1500)


def test_fit_elo_refuses_data_without_a_finite_maximum() -> None:
    with pytest.raises(ValueError, match="no finite ratings"):
        fit_elo(np.array([[0, 3, 1], [0, 0, 2], [0, 1, 0]]))  # nobody scored against the first
    assert fit_elo(np.array([[0, 1], [1, 0]])) == pytest.approx([0, 0])


def test_game_order_does_not_matter() -> None:
    games = simulated_games([0, 100, 200, 300], games=400, players=4, seed=8)
    shuffled = games[:]
    random.Random(1).shuffle(shuffled)
    first, second = rate(games, resamples=200), rate(shuffled, resamples=200)
    assert first.standings == second.standings  # intervals and LOS too: the draws are the same
    assert np.array_equal(first.wins, second.wins)


def test_renaming_entrants_changes_only_the_names() -> None:
    games = simulated_games([0, 100, 200, 300], games=800, players=4, seed=9)
    new_names = {"bot0": "zeta", "bot1": "alpha", "bot2": "mu", "bot3": "beta"}
    renamed = [{**game, "entrants": [new_names[e] for e in game["entrants"]]}
               for game in games]
    first, second = rate(games, resamples=400), rate(renamed, resamples=400)
    for old, new in zip(first.standings, second.standings, strict=True):
        assert new.name == new_names[old.name]
        assert new.rating == pytest.approx(old.rating, abs=1e-6)
        assert (new.games, new.pairings, new.faults) == (old.games, old.pairings, old.faults)
        assert (new.pairwise_score, new.average_place) == (old.pairwise_score, old.average_place)
        # The names fix the games' canonical order, so the resamples differ: Monte Carlo noise.
        assert old.lower is not None and new.lower is not None
        assert old.upper is not None and new.upper is not None
        width = old.upper - old.lower
        assert new.upper - new.lower == pytest.approx(width, rel=0.25)
    assert np.array_equal(first.wins, second.wins)


def test_all_ties_give_equal_ratings() -> None:
    games = [{"entrants": list(table), "scores": [3, 3, 3]}
             for table in ["abc", "abd", "acd", "bcd", "dcb"] * 4]
    ratings = rate(games, resamples=50)
    assert all(row.rating == pytest.approx(1500, abs=1e-9) for row in ratings.standings)
    assert all(row.pairwise_score == 0.5 and row.flag is None for row in ratings.standings)


def test_simulation_recovers_known_strengths(simulation: tuple[list[float], Ratings]) -> None:
    strengths, ratings = simulation
    truth = {f"bot{i}": 1500 + s - np.mean(strengths) for i, s in enumerate(strengths)}
    assert [row.name for row in ratings.standings] == [f"bot{i}" for i in reversed(range(8))]
    for row in ratings.standings:
        assert row.rating is not None and row.lower is not None and row.upper is not None
        half_width = (row.upper - row.lower) / 2
        assert 0 < half_width < 20
        assert abs(row.rating - truth[row.name]) <= 2 * half_width, row
    assert all(row.los_next is not None and row.los_next > 0.9 for row in ratings.standings[:-1])
    assert ratings.standings[-1].los_next is None
    assert ratings.degenerate_resamples == 0


def test_intervals_account_for_the_pairs_of_one_game(
        simulation: tuple[list[float], Ratings]) -> None:
    # The naive interval treats all 60,000 pairs as independent (inverse Fisher information of
    # the pairwise likelihood). The pairs of one 4-player game are positively correlated (one
    # seat's good luck wins all three of its pairs), so the game bootstrap must be wider.
    _, ratings = simulation
    theta = np.array([row.rating for row in ratings.standings]) / ELO_PER_NAT
    p = 1 / (1 + np.exp(theta[None, :] - theta[:, None]))
    weight = (ratings.wins + ratings.wins.T) * p * (1 - p)
    information = np.diag(weight.sum(axis=1)) - weight
    gauge = np.full(information.shape, 1 / len(theta))
    covariance = np.linalg.inv(information + gauge) - gauge  # ratings constrained to their mean
    naive = 1.96 * np.sqrt(np.diag(covariance)) * ELO_PER_NAT
    bootstrap = np.array([(row.upper - row.lower) / 2 for row in ratings.standings])
    assert np.mean(bootstrap / naive) > 1.1


# Flags -------------------------------------------------------------------------------------------

def test_perfect_winner_and_loser_are_flagged() -> None:
    games = []
    for i in range(30):
        games.append({"entrants": ["a", "b", "c"], "scores": [i % 3, (i + 1) % 3, (i + 2) % 3]})
        games.append({"entrants": ["loser", "champ", "a"], "scores": [0, 10, 5]})
    ratings = rate(games, resamples=100, prior=0)
    rows = ratings.standings
    assert next(row.name for row in rows) == "champ" and rows[-1].name == "loser"
    assert (rows[0].flag, rows[0].rating, rows[0].lower, rows[0].los_next) == (Flag.TOP, None,
                                                                               None, None)
    assert (rows[-1].flag, rows[-1].rating) == (Flag.BOTTOM, None)
    assert [row.place for row in rows] == [1, 2, 3, 4, 5]
    middle = rows[1:4]
    assert all(row.flag is None and row.rating == pytest.approx(1500) for row in middle)
    assert middle[-1].los_next is None  # the next one has no rating to compare with
    assert all(row.lower is not None and math.isfinite(row.lower) for row in middle)


def test_pools_that_never_met_are_apart() -> None:
    games = ([{"entrants": ["a", "b", "c"], "scores": [i % 3, (i + 1) % 3, 1]} for i in range(12)]
             + [{"entrants": ["x", "y"], "scores": [i % 2, (i + 1) % 2]} for i in range(6)])
    ratings = rate(games, resamples=50)
    rows = {row.name: row for row in ratings.standings}
    assert {name for name, row in rows.items() if row.flag is None} == {"a", "b", "c"}
    for name in "xy":
        assert (rows[name].flag, rows[name].rating, rows[name].place) == (Flag.APART, None, None)
    assert ratings.names[-2:] == ("x", "y")


def test_anchor_picks_the_rated_group() -> None:
    games = ([{"entrants": ["a", "b", "c"], "scores": [i % 3, (i + 1) % 3, 1]} for i in range(12)]
             + [{"entrants": ["x", "y"], "scores": [i % 2, (i + 1) % 2]} for i in range(6)])
    rows = {row.name: row for row in rate(games, resamples=0, anchor=("x", 1000)).standings}
    assert rows["x"].rating == 1000 and rows["y"].rating == pytest.approx(1000)
    assert all(rows[name].flag is Flag.APART for name in "abc")


def test_two_entrants_one_always_winning_have_no_finite_rating() -> None:
    ratings = rate([{"entrants": ["a", "b"], "scores": [2, 1]}] * 5, resamples=20, prior=0)
    assert [(row.name, row.flag, row.rating) for row in ratings.standings] == [
        ("a", Flag.TOP, None), ("b", Flag.BOTTOM, None)]


# Anchors, seeds and resamples ------------------------------------------------------------------

def test_anchor_fixes_one_rating_and_keeps_the_differences() -> None:
    games = simulated_games([0, 100, 200], games=200, players=3, seed=4)
    centred = by_name(rate(games, resamples=0))
    anchored = rate(games, resamples=100, anchor=("bot1", 2000.0))
    shift = 2000 - centred["bot1"]
    for name, rating in by_name(anchored).items():
        assert rating == pytest.approx(centred[name] + shift, abs=1e-9)
    row = next(row for row in anchored.standings if row.name == "bot1")
    assert row.lower == row.upper == 2000.0  # the others' intervals are relative to it
    assert anchored.anchor == ("bot1", 2000.0)


@pytest.mark.parametrize("anchor", [("nobody", 1500.0), ("bot1", math.inf)])
def test_bad_anchor_is_a_config_error(anchor: tuple[str, float]) -> None:
    games = simulated_games([0, 100], games=20, players=2, seed=4)
    with pytest.raises(ConfigError, match="--anchor"):
        rate(games, anchor=anchor)


def test_resamples_without_a_finite_fit_widen_the_intervals() -> None:
    # 5 wins to 1: about a third of the resamples give a a perfect record.
    games = [{"entrants": ["a", "b"], "scores": [1, 0]}] * 5 + [
        {"entrants": ["a", "b"], "scores": [0, 1]}]
    centred = rate(games, resamples=200, prior=0)
    assert 30 < centred.degenerate_resamples < 130
    assert all(row.lower == -math.inf and row.upper == math.inf for row in centred.standings)
    anchored = rate(games, resamples=200, anchor=("b", 1000), prior=0)
    a = anchored.standings[0]
    assert a.name == "a" and a.upper == math.inf and a.lower is not None and 900 < a.lower < 1200
    # LOS compares differences, which need no centring: the same either way.
    assert centred.standings[0].los_next == anchored.standings[0].los_next
    assert centred.standings[0].los_next is not None and centred.standings[0].los_next > 0.9


def test_bootstrap_is_seeded() -> None:
    games = simulated_games([0, 100, 200, 300], games=200, players=4, seed=6)
    first, again = rate(games, resamples=100, seed=3), rate(games, resamples=100, seed=3)
    other = rate(games, resamples=100, seed=4)
    assert first.standings == again.standings
    assert [row.lower for row in first.standings] != [row.lower for row in other.standings]
    assert [row.rating for row in first.standings] == [row.rating for row in other.standings]


def test_no_resamples_means_no_intervals() -> None:
    ratings = rate(simulated_games([0, 100], games=20, players=2, seed=4), resamples=0)
    assert all(row.lower is None and row.los_next is None for row in ratings.standings)


# Bad input ---------------------------------------------------------------------------------------

@pytest.mark.parametrize(("result", "problem"), [
    ([1, 2], "a result must be an object, not list"),
    ({"scores": [1, 2]}, "'entrants' must be a list of at least two names"),
    ({"entrants": ["a"], "scores": [1]}, "'entrants'"),
    ({"entrants": ["a", ""], "scores": [1, 2]}, "'entrants'"),
    ({"entrants": ["a", "b"], "scores": [1]}, "'scores' must be a list of 2 numbers"),
    ({"entrants": ["a", "b"], "scores": [1, "2"]}, "'scores'"),
    ({"entrants": ["a", "b"], "scores": [1, True]}, "'scores'"),
    ({"entrants": ["a", "b"], "scores": [1, math.nan]}, "'scores' must be finite"),
    ({"entrants": ["a", "b"], "scores": [1, 2], "ranks": [1, 3]}, "'ranks' must be places"),
    ({"entrants": ["a", "b"], "scores": [1, 2], "forfeits": [0, 1]}, "'forfeits'"),
    ({"entrants": ["a", "b"], "scores": [1, 2], "faults": [0, -1]}, "'faults' must be counts"),
])
def test_bad_results_are_reported(result: object, problem: str) -> None:
    with pytest.raises(ResultsError, match=problem):
        check_result(result)
    good = {"entrants": ["a", "b"], "scores": [1, 2]}
    with pytest.raises(ResultsError, match=f"result 2: {problem}"):
        rate([good, result, good])


def test_no_results_is_an_error() -> None:
    with pytest.raises(ResultsError, match="no game results"):
        rate([])


def test_missing_fields_take_defaults() -> None:
    result = check_result({"entrants": ["a", "b", "c"], "scores": [5, 9, 5],
                           "forfeits": [False, True, False]})
    assert result == GameResult(("a", "b", "c"), (5, 9, 5), (1, 3, 1),
                                (False, True, False), (0, 0, 0))
    rows = {row.name: row for row in rate([result], resamples=0).standings}
    assert (rows["b"].forfeits, rows["b"].average_place) == (1, 3.0)


def test_a_game_decided_by_the_tiebreak_is_a_win_not_a_draw() -> None:
    """Ratings read the game's places: with ``tiebreak: most_exact_bids`` equal totals are ranked
    by exact bids, and the pairwise outcome follows (it used to be recomputed from scores: a draw)."""
    from arena.records.result import result_of
    from arena.settings import FaultPolicy
    from engine.blackout import places_of

    totals, exact = [20, 20, 5], [2, 1, 0]  # a and b tie on points; a bid exactly more often
    record = {"game": "blackout", "names": ["a", "b", "c"], "scores": totals,
              "places": places_of(totals, exact, "most_exact_bids"), "faults": []}
    result = result_of(record, ["a", "b", "c"], FaultPolicy.FORFEIT)
    outcomes = {(a, b): points for a, b, points in pairwise_outcomes(result)}
    assert outcomes == {("a", "b"): 1.0, ("a", "c"): 1.0, ("b", "c"): 1.0}
    shared = {**record, "places": places_of(totals, exact, "shared")}
    assert pairwise_outcomes(result_of(shared, ["a", "b", "c"], FaultPolicy.FORFEIT))[0] == (
        "a", "b", 0.5)
    table = rate([result, result], resamples=0)
    assert table.wins[table.names.index("a"), table.names.index("b")] == 2.0


# Duplicate sets ----------------------------------------------------------------------------------

def copies_in_sets(copies: int) -> tuple[list[dict[str, object]], list[dict[str, object]]]:
    """300 simulated games, each repeated ``copies`` times: (with a set per repeated game, without)."""
    games = simulated_games([0, 100, 200], games=300, players=3, seed=7)
    named = [{**game, "set": f"s{i}"} for i, game in enumerate(games) for _ in range(copies)]
    plain = [game for game in games for _ in range(copies)]
    return named, plain


def test_bootstrap_resamples_whole_sets() -> None:
    # Four identical games per set carry the information of one: resampling sets must give
    # intervals about sqrt(4) = 2 times those of resampling the games as if independent.
    named, plain = copies_in_sets(4)
    by_set, by_game = rate(named, resamples=400, seed=3), rate(plain, resamples=400, seed=3)
    widths = {name: [(row.upper or 0) - (row.lower or 0) for row in ratings.standings]
              for name, ratings in (("set", by_set), ("game", by_game))}
    ratio = np.mean(np.array(widths["set"]) / np.array(widths["game"]))
    assert 1.6 < ratio < 2.5
    assert by_name(by_set) == pytest.approx(by_name(by_game))


def test_sets_do_not_depend_on_the_order_of_the_games() -> None:
    named, _ = copies_in_sets(2)
    shuffled = list(named)
    random.Random(5).shuffle(shuffled)
    first, second = rate(named, resamples=100, seed=1), rate(shuffled, resamples=100, seed=1)
    assert [(r.name, r.lower, r.upper) for r in first.standings] == \
        [(r.name, r.lower, r.upper) for r in second.standings]


def test_the_bootstrap_sums_by_set_as_it_does_record_by_record(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A set x cell matrix where the sets are few, else record by record: the same table, bit for
    bit, degenerate resamples (no prior, an anchor) included."""
    named, _ = copies_in_sets(2)
    duel = [{"entrants": ["a", "b"], "scores": [1, 0], "set": "ab"}] * 3 + [
        {"entrants": ["a", "b"], "scores": [0, 1]}]
    tables = []
    for limit in (bootstrap_module.DENSE_SUMS, 0):
        monkeypatch.setattr(bootstrap_module, "DENSE_SUMS", limit)
        tables.append([rate(data, resamples=200, seed=5, prior=prior, anchor=anchor)
                       for data, prior, anchor in ((named, PRIOR_DRAWS, None),
                                                   (duel, 0, ("b", 1000.0)))])
    by_set, by_record = tables
    assert [t.standings for t in by_set] == [t.standings for t in by_record]
    assert [t.degenerate_resamples for t in by_set] == [t.degenerate_resamples for t in by_record]
    assert by_set[1].degenerate_resamples > 0


def test_games_without_a_set_are_each_their_own() -> None:
    games = simulated_games([0, 100, 200], games=200, players=3, seed=8)
    named = [{**game, "set": f"g{i}"} for i, game in enumerate(games)]
    assert [(r.lower, r.upper) for r in rate(games, resamples=100, seed=2).standings] == \
        [(r.lower, r.upper) for r in rate(named, resamples=100, seed=2).standings]


# The weak prior ---------------------------------------------------------------------------------

def test_the_prior_makes_a_perfect_record_finite_and_is_the_fit_of_the_padded_record() -> None:
    games = [{"entrants": ["a", "b"], "scores": [2, 1]}] * 5
    ratings = rate(games, resamples=50)
    a, b = ratings.standings
    assert (a.name, a.flag, b.flag, ratings.degenerate_resamples) == ("a", None, None, 0)
    assert a.rating is not None and b.rating is not None and a.lower is not None
    # 5 wins and d virtual draws: a scores 5 + d/2 of 5 + d, so a - b = 400 log10((5 + d/2) / (d/2)).
    half = PRIOR_DRAWS / 2
    assert a.rating - b.rating == pytest.approx(400 * math.log10((5 + half) / half), abs=1e-6)
    assert math.isfinite(a.lower) and math.isfinite(b.upper)  # type: ignore[arg-type]
    assert ratings.wins.tolist() == [[0, 5], [0, 0]]  # the table's record is the games' own
    padded = with_prior(np.array([[0.0, 5.0], [0.0, 0.0]]), PRIOR_DRAWS)
    assert padded.tolist() == [[0, 5 + PRIOR_DRAWS / 2], [PRIOR_DRAWS / 2, 0]]


def test_a_weakest_entrant_that_almost_never_wins_leaves_the_intervals_finite() -> None:
    # A Partnership ladder gave every entrant an infinite interval at 1,760 games: a third of the
    # resamples drew none of the weakest team's rare wins, and had no finite fit.
    games = simulated_games([0, 900, 950, 1000, 1050], games=200, players=4, seed=2)
    bare = rate(games, resamples=200, prior=0)
    assert bare.degenerate_resamples > 30
    assert all(row.lower == -math.inf and row.upper == math.inf for row in bare.standings)
    ratings = rate(games, resamples=200)
    assert ratings.degenerate_resamples == 0
    assert all(row.lower is not None and row.upper is not None
               and math.isfinite(row.upper - row.lower) for row in ratings.standings)
    # The differences among the entrants with a real record hardly move (the virtual draws weigh
    # on the weakest, whose few wins they join); the order is the bare fit's.
    assert list(ratings.names) == list(bare.names)
    strong, prior = by_name(bare), by_name(ratings)
    for name in ("bot4", "bot3", "bot2"):
        assert prior[name] - prior["bot1"] == pytest.approx(strong[name] - strong["bot1"], abs=5)


def test_the_prior_is_refused_when_negative() -> None:
    with pytest.raises(ConfigError, match="prior must be 0 or more virtual draws"):
        rate(three_player_tables(), prior=-1)
