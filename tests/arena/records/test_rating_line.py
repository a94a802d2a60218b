"""The parts of a results line the ratings read: what a whole parse gives them, for any line."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from arena.records.rating_line import rating_parts
from arena.records.result import rating_input
from arena.records.schema import FORMAT

RESULT = {"entrants": ["a", "b", "c"], "scores": [12, 0, 7.5], "ranks": [1, 3, 2],
          "forfeits": [False, False, False], "faults": [0, 0, 0], "set": "r1-t0000"}
DEAL = {"deal": 1, "dealer": 0, "hands": [["AS"], ["2H"], ["TD"]], "bids": [[0, 1], [1, 0]],
        "plays": [[1, "2H"]], "scores": [11, 0, 1], "bid_ms": [0.1, 0.2, 0.3]}


def line(**fields: Any) -> bytes:
    """A results line of the current format (``format`` first, as the writer puts it)."""
    return orjson.dumps({"format": FORMAT, "id": "r1-t0000-s0", "game": "blackout",
                         "seed": 2**64 - 1, "deals": [DEAL, {**DEAL, "scores": [0, 0, 11]}],
                         "result": RESULT, **fields})


LINES = [
    line(),
    # beyond 64 bits (no writer writes it): orjson makes it a float, and so must this
    line().replace(b"18446744073709551615", b"1180591620717411303424"),
    line(deals=[DEAL, {"deal": 2}, {**DEAL, "scores": None}]),  # a deal without scores
    line(deals=None),
    line(deals=[DEAL, "not a deal"]),
    line(deals={"1": DEAL}),
    line(result={**RESULT, "scores": [-9223372036854775808, -1e300, 0]}).replace(
        b"-9223372036854775808", b"-9223372036854775809"),
    line(deals=[{**DEAL, "scores": [18446744073709551615, 1e300, -0.0]}]).replace(
        b"18446744073709551615", b"18446744073709551616"),
    line(result={**RESULT, "entrants": ["é", "b", "c"]}),  # outside ASCII: parsed whole
    line(result=[1, 2]),
    line(result=None),
    line(id=7),
    line().replace(b'"result"', b'"result":{},"result"'),  # a key twice: the last one counts
    line().replace(b'"format":%d' % FORMAT, b'"format":%d' % (FORMAT + 1)),
    line().replace(b'"format":%d' % FORMAT, b'"format":1.0'),
    orjson.dumps({"format": 1, "id": "old", "result": RESULT}),
    orjson.dumps({k: v for k, v in orjson.loads(line()).items() if k != "result"}),
    orjson.dumps(RESULT),  # a bare result object
    b'{"format":%d,"id":"x","result":{}}' % FORMAT,
]


def rated(parsed: Any, chance: bool = True) -> str:
    """What the ratings read of a parsed line, with the types of its numbers (without the deals'
    chance events, and the game and options their play-outs need, unless ``chance``)."""
    if isinstance(parsed, dict) and isinstance(parsed.get("result"), dict):
        parsed = {"id": parsed.get("id"), "format": parsed.get("format"), **rating_input(parsed)}
        if not chance:
            for key in ("deal_chance", "game", "options"):
                parsed.pop(key, None)
    return repr(parsed)


@pytest.mark.parametrize("chance", [False, True])
@pytest.mark.parametrize("raw", LINES, ids=range(len(LINES)))
def test_the_ratings_read_of_a_line_what_a_whole_parse_gives(raw: bytes, chance: bool) -> None:
    assert rated(rating_parts(raw, chance), chance) == rated(orjson.loads(raw), chance)


def test_the_deals_are_read_for_their_scores_only() -> None:
    parts = rating_parts(line())
    assert parts["deals"] == [{"scores": [11, 0, 1]}, {"scores": [0, 0, 11]}]
    # and the game (with its players and options, where the line has them), for a deal's range
    assert set(parts) == {"format", "id", "seed", "game", "deals", "result"}


def test_the_adjusted_model_reads_the_deals_chance_events_too() -> None:
    parts = rating_parts(line(), chance=True)
    assert [deal["scores"] for deal in parts["deals"]] == [[11, 0, 1], [0, 0, 11]]
    assert parts["deals"][0]["hands"] == [["AS"], ["2H"], ["TD"]]
    assert all(set(deal) <= {"scores", "dealer", "trump", "hands", "trump_card"}
               for deal in parts["deals"])
    assert rated(parts) == rated(orjson.loads(line()))
    assert set(parts) == {"format", "id", "seed", "game", "deals", "result"}


@pytest.mark.parametrize("raw", [line()[:-1], line() + b"x", line().replace(b"AS", b"A\x01"),
                                 line().replace(b"2H", b"\\ud800")])
def test_a_line_that_is_not_json_fails_as_orjson_says(raw: bytes) -> None:
    with pytest.raises(orjson.JSONDecodeError) as whole:
        orjson.loads(raw)
    with pytest.raises(orjson.JSONDecodeError) as parts:
        rating_parts(raw)
    assert str(parts.value) == str(whole.value)
