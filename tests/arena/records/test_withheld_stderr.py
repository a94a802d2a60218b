"""A game shown to one participant keeps the stderr of their own bots' faults only."""

from __future__ import annotations

from pathlib import Path

from arena.records.reader import line_without_stderr, parse_line
from arena.records.writer import serialise

OLD = Path(__file__).parent / "old"


def test_only_the_kept_seats_keep_their_stderr():
    record = parse_line((OLD / "clocks-blackout.jsonl").read_bytes().splitlines()[0])
    names = record["names"]
    fault = {"kind": "crash", "deal": 1, "decision": 1, "detail": "exited", "sent": "", "received": ""}
    record["faults"] = [{**fault, "seat": 0, "stderr_tail": "mine: secret plan"},
                        {**fault, "seat": 1, "stderr_tail": "theirs: secret plan"}]
    line = serialise(record)
    mine = parse_line(line_without_stderr(line, {names[0]}))
    assert [f["stderr_tail"] for f in mine["faults"]] == ["mine: secret plan", ""]
    anyone = parse_line(line_without_stderr(line))
    assert [f["stderr_tail"] for f in anyone["faults"]] == ["", ""]
    assert anyone["deals"] == record["deals"] and anyone["names"] == names
