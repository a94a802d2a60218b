"""The parts of a results line that the ratings read, decoded without the rest (``arena table``).

A line is mostly its deals' bids, plays and times, which the ratings never read. msgspec
decodes a line of the current format into the few fields they do read (``id``, ``seed``, each
deal's ``scores``, ``result``; the ``game``, its ``players`` and ``options``, which give a deal's
range of scores and a play-out what it needs; a team game's ``teams``, and when asked each deal's
dealer, trump and hands for the ``adjusted`` model; ``names`` and ``owners`` for the table's owner
column and the audit)
and only scans past the others: on results/demo (1,120 games, 13.8 MB) about a third of the time
of orjson building every object of every line. The kept values are parsed by orjson (they come as
``msgspec.Raw``), so they are what a whole parse gives, bit for bit. A line this does not take
(another format, bytes outside ASCII, a field of another shape, not JSON at all) is parsed
whole, so it meets the reader's rules and errors as any line does (``arena.records.reader``).
"""

from __future__ import annotations

from typing import Any

import msgspec
import orjson

from arena.records.schema import FORMAT

_CURRENT = b'{"format":%d,' % FORMAT
"""How every line of the current format begins (the writer puts ``format`` first)."""


class _Deal(msgspec.Struct):
    scores: msgspec.Raw | msgspec.UnsetType = msgspec.UNSET


class _ChanceDeal(_Deal):
    dealer: msgspec.Raw | msgspec.UnsetType = msgspec.UNSET
    trump: msgspec.Raw | msgspec.UnsetType = msgspec.UNSET
    hands: msgspec.Raw | msgspec.UnsetType = msgspec.UNSET
    trump_card: msgspec.Raw | msgspec.UnsetType = msgspec.UNSET


class _Parts(msgspec.Struct):
    format: int
    id: msgspec.Raw | msgspec.UnsetType = msgspec.UNSET
    seed: msgspec.Raw | msgspec.UnsetType = msgspec.UNSET
    names: msgspec.Raw | msgspec.UnsetType = msgspec.UNSET
    owners: msgspec.Raw | msgspec.UnsetType = msgspec.UNSET
    teams: msgspec.Raw | msgspec.UnsetType = msgspec.UNSET
    game: msgspec.Raw | msgspec.UnsetType = msgspec.UNSET
    players: msgspec.Raw | msgspec.UnsetType = msgspec.UNSET
    options: msgspec.Raw | msgspec.UnsetType = msgspec.UNSET
    deals: list[_Deal] | msgspec.UnsetType = msgspec.UNSET
    result: msgspec.Raw | msgspec.UnsetType = msgspec.UNSET


class _ChanceParts(_Parts):
    deals: list[_ChanceDeal] | msgspec.UnsetType = msgspec.UNSET  # type: ignore[assignment]


_DECODER = msgspec.json.Decoder(_Parts)
_CHANCE_DECODER = msgspec.json.Decoder(_ChanceParts)
"""Decodes the deals' chance events too: on the bench's ladder a line takes 0.19 ms so against
0.04 ms without, so only the ``adjusted`` model asks for them."""


def rating_parts(raw: bytes, chance: bool = False) -> Any:
    """The line ``raw`` as JSON: of the current format with a ``result`` object, only its
    ``format``, ``id``, ``seed``, ``names``, ``owners``, ``teams``, ``game``, ``players``,
    ``options``, ``deals`` (each with its ``scores`` only; with ``chance`` also its ``dealer``,
    ``trump`` and ``hands``) and ``result``, as far as it has them; any other line whole
    (orjson's errors for one that is not JSON)."""
    if raw.startswith(_CURRENT) and raw.isascii():
        try:
            parts = (_CHANCE_DECODER if chance else _DECODER).decode(raw)
        except msgspec.DecodeError:  # not JSON, or a field of another shape: parsed whole
            return orjson.loads(raw)
        result = (None if isinstance(parts.result, msgspec.UnsetType)
                  else orjson.loads(memoryview(parts.result)))
        if parts.format == FORMAT and isinstance(result, dict):
            line: dict[str, Any] = {"format": FORMAT}
            if not isinstance(parts.id, msgspec.UnsetType):
                line["id"] = orjson.loads(memoryview(parts.id))
            kept = [("seed", parts.seed), ("names", parts.names), ("owners", parts.owners),
                    ("teams", parts.teams), ("game", parts.game), ("players", parts.players),
                    ("options", parts.options)]
            for key, raw_value in kept:
                if not isinstance(raw_value, msgspec.UnsetType):
                    line[key] = orjson.loads(memoryview(raw_value))
            if not isinstance(parts.deals, msgspec.UnsetType):
                line["deals"] = [_deal(deal) for deal in parts.deals]
            line["result"] = result
            return line
    return orjson.loads(raw)


def _deal(deal: _Deal) -> dict[str, Any]:
    """What the ratings read of one deal: its scores, and where decoded its dealer, trump and
    hands and turned card (the luck-adjusted model's chance events), as far as it has them."""
    found = [("scores", deal.scores)]
    if isinstance(deal, _ChanceDeal):
        found += [("dealer", deal.dealer), ("trump", deal.trump), ("hands", deal.hands),
                  ("trump_card", deal.trump_card)]
    return {key: orjson.loads(memoryview(raw)) for key, raw in found
            if not isinstance(raw, msgspec.UnsetType)}
