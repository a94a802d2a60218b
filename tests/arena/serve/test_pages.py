"""The served pages' templates, rendered in process: an owner (a name the organiser or a
participant wrote) reaches the page escaped and printable, in every place that shows one."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("fastapi")

from arena.serve.pages import templates

HOSTILE = "<script>alert(1)</script>\x1b[2J"
"""What no owner may put on a page as it is: markup, and a terminal's control sequence."""


def page(template: str, **values: Any) -> str:
    return templates().get_template(template).render(league="L", csrf="c", viewer=None,
                                                     deadline=None, **values)


def _clean(text: str) -> None:
    assert "<script>" not in text and "\x1b" not in text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text


def test_the_tables_show_an_owner_escaped() -> None:
    row = {"name": "bot@1", "owner": HOSTILE, "place": 1, "rating": 1500.0, "lower": 1400.0,
           "upper": 1600.0, "games_rated": 3, "pairwise_score": 0.5, "los_next": None,
           "faults": 0, "flag": None}
    table = {"rating": "deals", "pool_mean": 1500, "games": 3, "pairings": 3, "resamples": 0,
             "confidence": 0.95, "entrants": [row]}
    _clean(page("table.html", table=table, authors={}, owners_shown=True, game="blackout",
                players=3, total=3, computing=False, suspended=set()))
    final = {**table, "final": {"games_stored": 3, "games_scheduled": 3, "games_asked": 3,
                                "seed": 1, "started": "now"},
             "versions": [{"key": "bot@1", "owner": HOSTILE, "games": 3}]}
    text = page("final.html", final=final)
    _clean(text)
    assert text.count("&lt;script&gt;") == 2  # the row and the versions that played


@pytest.mark.parametrize("participant", [True, False])
def test_an_entrant_page_says_whose_it_is_escaped(participant: bool) -> None:
    text = page("entrant.html", name="bot", versions=[], owner=None, named_owner=HOSTILE,
                named_is_participant=participant, is_owner=False, row=None, opponents=[],
                plot=None, games=[], faults=[], suspended=None)
    _clean(text)
    said = "Entered by the organiser for participant " if participant else \
        "Entered by the organiser for &lt;"
    assert said in text


def test_a_table_of_a_single_duplicate_set_says_its_intervals_are_not_known() -> None:
    from arena.ratings.model import rate
    from arena.ratings.table import ratings_json

    games = [{"entrants": ["a", "b", "c"], "scores": scores, "ranks": ranks,
              "forfeits": [False] * 3, "faults": [0] * 3, "set": "r1-t0000"}
             for scores, ranks in (([3, 2, 1], [1, 2, 3]), ([1, 3, 2], [3, 1, 2]))]
    for sets, known in ((games, False), (games + [{**g, "set": "r1-t0001"} for g in games], True)):
        table = ratings_json(rate(sets, resamples=20))
        for entrant in table["entrants"]:  # type: ignore[union-attr]
            entrant["games_rated"] = entrant.pop("games")
        text = page("table.html", table=table, authors={}, owners_shown=False, game="blackout",
                    players=3, total=2, computing=False, suspended=set())
        assert (text.count(">not known</span>") == 3) is not known
        assert ("intervals and LOS not known yet" in text) is not known
        assert ("% intervals from 20 bootstrap resamples" in text) is known
