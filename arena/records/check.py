"""What a results line must hold (docs/records.md): checked after ``upgrade()``, so every reader
can take each field the schema gives every line as there.

``record_problem`` checks the whole line: first what the readers rely on beyond types (lengths
by seat or entrant, seat numbers, one bid per seat, the auction of the line's game), then every
field of every part against the schema (``arena.records.schema``): present where every line has
it, of its type where present. A damaged line (by hand, by another tool, or a fuzzer) is one
error naming its file, line and field instead of a traceback deep in a page being written.
``line_problem`` checks what ``--resume`` reads (all but the deals), ``result_problem`` only what
``arena table`` reads: the result. None of them replays the game: that is ``engine.replay``'s
job, and too slow for a league export of a hundred thousand games.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import engine
from arena.errors import ResultsError
from arena.records.result import check_result
from arena.records.schema import CONTRACT, DEAL, FAULT, GAME, RESULT, TIME_CONTROL, Part, is_pairs

_INT = (int,)
_NUMBER = (int, float)
_STRINGS = frozenset((str,))


class _Bad(Exception):
    """A field that is not what the readers need; the message names it."""


def record_problem(record: object) -> str | None:
    """What is wrong with ``record`` (an upgraded line) as a game record, or None."""
    if not isinstance(record, dict):
        return "not a game record (not a JSON object)"
    for key in ("id", "game", "names", "deals", "scores", "result"):
        if key not in record:
            what = "a bare result object, not a game record" if "entrants" in record else \
                "not a game record"
            return f"{what}: no {key!r}"
    try:
        _check(record)
        _check_schema(record)
    except _Bad as bad:
        return str(bad)
    return None


def line_problem(line: object) -> str | None:
    """What is wrong with ``line`` (an upgraded line) for a run that carries on from it
    (``--resume``), or None: its own fields, its faults' and its result's, each of the schema's
    type; its deals are kept as they are, unread (``record_problem`` checks them too)."""
    if not isinstance(line, dict):
        return "not a game record (not a JSON object)"
    try:
        _part(line, GAME, "")
        for index, fault in enumerate(line["faults"]):
            _part(fault, FAULT, f"faults[{index}].")
        check_result(line["result"])
        _part(line["result"], RESULT, "result.")
    except _Bad as bad:
        return str(bad)
    except ResultsError as error:
        return f"result: {error}"
    return None


def result_problem(line: object) -> str | None:
    """What is wrong with ``line`` (an upgraded line) as a result for the ratings, or None."""
    if not isinstance(line, dict) or "result" not in line:
        return "no 'result' object in this line"
    try:
        check_result(line["result"])
    except ResultsError as error:
        return str(error)
    return None


def _check_schema(record: dict[str, Any]) -> None:
    """Every part's fields against the schema: the required ones there, each of its type."""
    _part(record, GAME, "")
    for index, deal in enumerate(record["deals"]):
        _part(deal, DEAL, f"deals[{index}].")
        if isinstance(deal.get("contract"), dict):
            _part(deal["contract"], CONTRACT, f"deals[{index}].contract.")
    for index, fault in enumerate(record["faults"]):
        _part(fault, FAULT, f"faults[{index}].")
    if isinstance(record["time_control"], dict):
        _part(record["time_control"], TIME_CONTROL, "time_control.")
    _part(record["result"], RESULT, "result.")


def _part(obj: dict[str, Any], part: Part, where: str) -> None:
    for field in part.fields:
        name = field.name
        if name not in obj:
            if field.required or (field.beside is not None and field.beside in obj):
                raise _Bad(f"{where.rstrip('.')}: no {name!r}" if where else f"no {name!r}")
        elif not field.type.test(obj[name]):
            named = f"{where}{name}" if where else repr(name)
            raise _Bad(f"{named} must be {field.type.text}, not {_kind(obj[name])}")
        elif field.beside is not None and field.beside not in obj:
            raise _Bad(f"{where}{name} without {field.beside!r}")


def _check(record: dict[str, Any]) -> None:
    if not isinstance(record["id"], str):
        raise _Bad(f"'id' must be a string, not {_kind(record['id'])}")
    if record["game"] not in engine.GAMES:
        raise _Bad(f"'game' must be one of {', '.join(engine.GAMES)}, not {_kind(record['game'])}")
    info = engine.game(record["game"]).info
    names = record["names"]
    if not (isinstance(names, list) and len(names) in info.player_counts
            and all(isinstance(n, str) for n in names)):
        low, high = min(info.player_counts), max(info.player_counts)
        counts = str(low) if low == high else f"{low} to {high}"
        raise _Bad(f"'names' must be a list of {counts} bot names, not {_kind(names)}")
    players = len(names)
    entrants = len(info.entrants(names))
    result = record["result"]
    try:
        check_result(result)
    except ResultsError as error:
        raise _Bad(f"result: {error}") from None
    if len(result["entrants"]) != entrants:
        raise _Bad(f"result: 'entrants' must list {entrants} entrants for {players} seats of "
                   f"{record['game']}, not {len(result['entrants'])}")
    _numbers(record["scores"], "'scores'", entrants, _INT)
    _numbers(record.get("places"), "'places'", entrants, _INT)
    if info.teams is not None:
        teams = record.get("teams")
        if not (isinstance(teams, list) and len(teams) == len(info.teams)
                and all(isinstance(t, list) and t and all(_is_seat(s, players) for s in t)
                        for t in teams)):
            raise _Bad(f"'teams' must be {len(info.teams)} lists of seats, not {_kind(teams)}")
    for index, fault in enumerate(_list(record.get("faults", []), "'faults'")):
        _fault(fault, f"faults[{index}]", players)
    for key in ("bank_used_ms", "stalls"):
        if record.get(key) is not None:
            _numbers(record[key], f"'{key}'", players, _NUMBER)
    auction = "calls" if "call" in info.decision_kinds else "bids"
    for index, deal in enumerate(_list(record["deals"], "'deals'")):
        _deal(deal, f"deals[{index}]", players, entrants, auction)


def _deal(deal: object, where: str, players: int, entrants: int, auction: str) -> None:
    if not isinstance(deal, dict):
        raise _Bad(f"{where}: a deal must be an object, not {_kind(deal)}")
    for key in ("deal", "dealer", "hands", auction, "plays", "tricks", "scores", "totals"):
        if key not in deal:
            raise _Bad(f"{where}: no {key!r}")
    if not isinstance(deal["deal"], int):
        raise _Bad(f"{where}.deal must be a number, not {_kind(deal['deal'])}")
    if not _is_seat(deal["dealer"], players):
        raise _Bad(f"{where}.dealer must be a seat (0 to {players - 1}), not {_kind(deal['dealer'])}")
    hands = deal["hands"]
    if not (type(hands) is list and len(hands) == players and all(
            type(h) is list and _STRINGS.issuperset(map(type, h)) for h in hands)):
        raise _Bad(f"{where}.hands must be {players} lists of cards, not {_kind(hands)}")
    said = _actions(deal[auction], f"{where}.{auction}", players,
                    _INT if auction == "bids" else (int, str))
    if auction == "bids":  # every seat bids once a deal; the tables show each seat's bid
        if sorted(said) != list(range(players)):
            raise _Bad(f"{where}.bids must hold one bid of each seat")
        if not isinstance(deal.get("hand_size"), int):
            raise _Bad(f"{where}.hand_size must be a number, not {_kind(deal.get('hand_size'))}")
        if not isinstance(deal.get("trump_card"), str | None):
            raise _Bad(f"{where}.trump_card must be a card or null, not {_kind(deal['trump_card'])}")
    else:
        contract = deal.get("contract")
        if contract is not None and not (
                isinstance(contract, dict) and _is_seat(contract.get("team"), entrants)
                and isinstance(contract.get("kind"), str)
                and (contract["kind"] == "zero" or isinstance(contract.get("tricks"), int))):
            raise _Bad(f"{where}.contract must be null or a team's contract, not {_kind(contract)}")
    _actions(deal["plays"], f"{where}.plays", players, (str,))
    _numbers(deal["tricks"], f"{where}.tricks", players, _INT)
    _numbers(deal["scores"], f"{where}.scores", entrants, _INT)
    _numbers(deal["totals"], f"{where}.totals", entrants, _INT)


def _fault(fault: object, where: str, players: int) -> None:
    if not isinstance(fault, dict):
        raise _Bad(f"{where}: a fault must be an object, not {_kind(fault)}")
    if not _is_seat(fault.get("seat"), players):
        raise _Bad(f"{where}.seat must be a seat (0 to {players - 1}), not {_kind(fault.get('seat'))}")
    for key in ("bot", "kind", "detail"):
        if not isinstance(fault.get(key), str):
            raise _Bad(f"{where}.{key} must be a string, not {_kind(fault.get(key))}")
    for key in ("deal", "decision"):
        if not isinstance(fault.get(key), int) or isinstance(fault.get(key), bool):
            raise _Bad(f"{where}.{key} must be a number, not {_kind(fault.get(key))}")
    for key in ("received", "stderr_tail", "sent"):
        if not isinstance(fault.get(key, ""), str | None):
            raise _Bad(f"{where}.{key} must be a string, not {_kind(fault[key])}")


def _actions(actions: object, where: str, players: int, values: tuple[type, ...]) -> list[int]:
    """The seats of a list of ``[seat, value]`` pairs, each checked."""
    if type(actions) is list and is_pairs(actions, frozenset(values)):  # the usual case, fast
        seats = [pair[0] for pair in actions]
        if not seats or (min(seats) >= 0 and max(seats) < players):
            return seats
    seats = []
    for pair in _list(actions, where):
        if not (isinstance(pair, list) and len(pair) == 2 and _is_seat(pair[0], players)
                and isinstance(pair[1], values) and not isinstance(pair[1], bool)):
            raise _Bad(f"{where} must be [seat, action] pairs (seats 0 to {players - 1}), "
                       f"not {_kind(pair)}")
        seats.append(pair[0])
    return seats


def _numbers(value: object, where: str, count: int, types: tuple[type, ...]) -> None:
    if not (type(value) is list and len(value) == count
            and frozenset(types).issuperset(map(type, value))):
        raise _Bad(f"{where} must be a list of {count} numbers, not {_kind(value)}")


def _list(value: object, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise _Bad(f"{where} must be a list, not {_kind(value)}")
    return value


def _is_seat(value: object, players: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < players


def _kind(value: object) -> str:
    """The value in a few characters, for the message (a damaged line may hold megabytes: no
    whole ``repr`` is built)."""
    if isinstance(value, Mapping):
        return "an object"
    if isinstance(value, list):
        return f"a list of {len(value)}"
    if isinstance(value, str):
        return repr(value[:40]) + ("..." if len(value) > 40 else "")
    text = repr(value)  # a number, a bool or null: short, except a huge integer
    return text if len(text) <= 40 else text[:37] + "..."
