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
