"""The one writer of game records and results lines: what the referee and the batch add to the
engine's record, assembled here in the order of ``arena.records.schema``, and serialised once.

- ``game_record``: the engine's record of a finished game (``Game.record``) with what the
  referee measured: faults (``fault_entry``), each decision's wall and CPU time, the time
  control, bank use, clock, wall cap and stalls. This is what ``play_game`` returns.
- ``results_line``: a game's line in ``games.jsonl``: ``format`` first, its ``id``, the record,
  and its ``result`` (``arena.records.result.result_of``) with its duplicate set.
- ``serialise``: the line's bytes, newline included: the worker that played the game makes them
  (a record is tens of KB of nested lists; bytes cross the pipe to the runner almost for free),
  and the runner appends them as they are; ``finished_of``: those bytes with what the runner
  reads of the game (``arena.values.work.Finished``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import orjson

from arena.records.result import rating_input
from arena.records.schema import FORMAT
from arena.settings import TimeControl
from arena.values.faults import Fault
from arena.values.work import Finished

_NEWLINE = orjson.OPT_APPEND_NEWLINE


def game_record(engine_record: dict[str, Any], *, faults: list[dict[str, Any]],
                times: Sequence[float | None], cpu_times: Sequence[float | None],
                time_control: TimeControl, banks_left: Sequence[float],
                stalls: Sequence[int]) -> dict[str, Any]:
    """The record of a game the referee played: ``engine_record`` (its own dict, extended in
    place) with its ``faults`` (``fault_entry``), each decision's wall and CPU ``times`` (seconds,
    in game order, None for the fallback's), the time control, the bank each seat has left
    (seconds) and each seat's stalls."""
    record = engine_record
    record["faults"] = faults
    attach_decision_times(record, milliseconds(times))
    attach_decision_times(record, milliseconds(cpu_times), "_cpu_ms")
    record["time_control"] = {"move_ms": time_control.move_ms, "bank_ms": time_control.bank_ms}
    record["bank_used_ms"] = [round((time_control.bank_ms / 1000 - max(0.0, bank)) * 1000, 1)
                              for bank in banks_left]
    record["clock"] = time_control.clock.value
    record["wall_ms"] = time_control.wall_cap_ms
    record["stalls"] = list(stalls)
    return record


def fault_entry(fault: Fault, seat: int, deal: int, decision: int) -> dict[str, Any]:
    """A fault as the record lists it: the fault's own fields (``Fault.to_json``) against
    ``seat``, and where in the game it happened (the deal, the game-wide decision number)."""
    entry = fault.with_seat(seat).to_json()
    entry["deal"] = deal
    entry["decision"] = decision
    return entry


def results_line(game_id: str, record: Mapping[str, Any], result: Mapping[str, Any],
                 set_id: str, owners: Mapping[str, str] | None = None) -> dict[str, Any]:
    """A game's results line: its format, ``game_id``, ``record`` with each seat's owner
    (``owners`` by bot name; a bot it lacks is its own owner) and ``result`` with its duplicate
    set ``set_id`` (``arena.values.ids``)."""
    return {"format": FORMAT, "id": game_id, **with_owners(record, owners or {}),
            "result": {**result, "set": set_id}}


def logged_record(record: Mapping[str, Any], result: Mapping[str, Any]) -> dict[str, Any]:
    """The record ``arena play --log`` writes: a results line without ``id`` or set (one game,
    no run around it), each bot its own owner."""
    return {"format": FORMAT, **with_owners(record, {}), "result": dict(result)}


def with_owners(record: Mapping[str, Any], owners: Mapping[str, str]) -> dict[str, Any]:
    """``record`` with ``owners`` after ``names``, where the schema has it: each seat's bot's
    owner in ``owners``, else the bot's own name."""
    out: dict[str, Any] = {}
    for key, value in record.items():
        out[key] = value
        if key == "names":
            out["owners"] = [owners.get(name, name) for name in value]
    return out


def indented(record: Mapping[str, Any]) -> bytes:
    """The record as ``arena play --log`` writes it: indented JSON, for a person to read."""
    return orjson.dumps(record, option=orjson.OPT_INDENT_2)


def serialise(line: Mapping[str, Any]) -> bytes:
    """The line as ``games.jsonl`` holds it: one JSON line, its newline included."""
    return orjson.dumps(line, option=_NEWLINE)


def serialise_rating_input(line: Mapping[str, Any]) -> bytes:
    """What the ratings read of ``line`` (``arena.records.result.rating_input``) as JSON bytes,
    for the worker to send beside the line: bytes cross the pipe almost for free, while the
    pickler (dill, in pure Python) takes microseconds per list it meets (``parse_rating_input``
    in ``arena.records.reader`` reads it back)."""
    return orjson.dumps(rating_input(line))


def finished_of(line: dict[str, Any]) -> Finished:
    """The runner's view of one results line (``results_line``): its id, the line and its rating
    input serialised, its faults and stalls counted."""
    return Finished(line["id"], serialise(line), serialise_rating_input(line), len(line["faults"]),
                    sum(line["stalls"]))


def attach_decision_times(record: dict[str, Any], times: Sequence[float | None],
                          suffix: str = "_ms") -> None:
    """Give each deal of ``record`` its decisions' times: ``bid_ms`` or ``call_ms``, and ``play_ms``
    (with ``suffix`` ``_cpu_ms``: ``bid_cpu_ms`` ...).

    ``times`` holds every decision of the game in order (ms, None for the fallback's); each list
    parallels the deal's ``bids``, ``calls`` or ``plays``. Decisions of a deal the record leaves out
    (an unfinished one) are dropped.
    """
    position = 0
    for deal in record["deals"]:
        for actions in ("bids", "calls", "plays"):
            if actions in deal:
                count = len(deal[actions])
                deal[f"{actions[:-1]}{suffix}"] = list(times[position:position + count])
                position += count


def milliseconds(seconds: Sequence[float | None]) -> list[float | None]:
    """Seconds as the record gives them: ms rounded to 0.1, None kept (rounded once a game, not
    in the decision loop).

    ``round(x, 1)`` goes through decimal conversion (~0.2 us); a fast bot's decision, under
    40 us of wall or CPU time, rounds to 0.0 whatever its digits, so it is given 0.0 without
    it: the same float (positive, as exact zero and negatives still go through ``round``)."""
    return [None if value is None else 0.0 if 0.0 < value < _ROUNDS_TO_ZERO
            else round(value * 1000, 1) for value in seconds]


_ROUNDS_TO_ZERO = 4e-5
"""Seconds below which ``round(value * 1000, 1)`` is 0.0: value * 1000 stays under 0.05."""
