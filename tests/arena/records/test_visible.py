"""What of a game record a viewer may see (``arena.records.visible``): a bot's stderr is its
owner's alone, in the fault's private field, and no detail quotes it, old records' included."""

from __future__ import annotations

from pathlib import Path

import orjson

from arena.records.reader import parse_line
from arena.records.schema import FAULT
from arena.records.visible import (
    ANYONE,
    OLD_HINTS,
    ORGANISER,
    PRIVATE_FIELDS,
    Viewer,
    visible_detail,
    visible_line,
    visible_record,
)
from arena.records.writer import serialise

OLD = Path(__file__).parent / "old"
FAULT_FIELDS = {"kind": "crash", "deal": 1, "decision": 1, "sent": "", "received": ""}


def a_record(*faults: dict[str, object]) -> dict[str, object]:
    record = parse_line((OLD / "clocks-blackout.jsonl").read_bytes().splitlines()[0])
    record["faults"] = [{**FAULT_FIELDS, **fault} for fault in faults]
    return record


def test_only_the_viewers_own_seats_keep_their_stderr():
    record = a_record({"seat": 0, "detail": "exited", "stderr_tail": "mine: secret plan"},
                      {"seat": 1, "detail": "exited", "stderr_tail": "theirs: secret plan"})
    names = record["names"]
    line = serialise(record)
    mine = parse_line(visible_line(line, Viewer(frozenset({names[0]}))))
    assert [f["stderr_tail"] for f in mine["faults"]] == ["mine: secret plan", ""]
    anyone = parse_line(visible_line(line, ANYONE))
    assert [f["stderr_tail"] for f in anyone["faults"]] == ["", ""]
    assert anyone["deals"] == record["deals"] and anyone["names"] == names
    everyone = parse_line(visible_line(line, ORGANISER))
    assert [f["stderr_tail"] for f in everyone["faults"]] == ["mine: secret plan",
                                                               "theirs: secret plan"]
    assert record["faults"][1]["stderr_tail"] == "theirs: secret plan"  # the record is left as is


def test_the_private_fields_are_the_schemas():
    assert PRIVATE_FIELDS == ("stderr_tail",)
    assert all(FAULT.field(name).type.text == "string" for name in PRIVATE_FIELDS)


def test_a_fault_of_a_seat_that_is_not_in_the_record_is_nobodys_but_the_organisers():
    record = a_record({"seat": 7, "detail": "exited", "stderr_tail": "secret"},
                      {"seat": None, "detail": "exited", "stderr_tail": "secret"})
    names = frozenset(record["names"])
    assert b"secret" not in serialise(visible_record(record, Viewer(names)))
    assert b"secret" in serialise(visible_record(record, ORGANISER))


# A start failure's detail as the arena wrote it before details held no stderr: the faults of
# leagues played before this rule, still in their databases.
OLD_DETAILS = [
    ("could not be started: bot 'x@1': exited before replying to hello: exited with code 3 "
     "(stderr: api_key=CANARY | second line)",
     "could not be started: bot 'x@1': exited before replying to hello: exited with code 3",
     "api_key=CANARY | second line"),
    ("could not be started: bot 'x@1': no hello reply within 500 ms (used 1 ms of CPU: blocked "
     "on input, or the reply is not flushed) (stderr: CANARY (with parentheses))",
     "could not be started: bot 'x@1': no hello reply within 500 ms (used 1 ms of CPU: blocked "
     "on input, or the reply is not flushed)", "CANARY (with parentheses)"),
    ("could not be started: bot 'x@1': bad hello reply: reply is not JSON: b'nope' (stderr: "
     "CANARY)" + OLD_HINTS[1],
     "could not be started: bot 'x@1': bad hello reply: reply is not JSON: b'nope'" + OLD_HINTS[1],
     "CANARY"),
    ("could not be started: bot 'x@1': exited before replying to hello: exited with code 1 "
     "(stderr: CANARY" + OLD_HINTS[0] + ")" + OLD_HINTS[0],
     "could not be started: bot 'x@1': exited before replying to hello: exited with code 1"
     + OLD_HINTS[0], "CANARY" + OLD_HINTS[0]),
    # cut at 500 characters by the league's faults table: no closing parenthesis
    ("could not be started: bot 'x@1': exited with code 3 (stderr: CANARY CANARY",
     "could not be started: bot 'x@1': exited with code 3", "CANARY CANARY"),
    ("exited with code 3", "exited with code 3", ""),
]


def test_an_old_start_failures_quote_of_stderr_moves_to_its_private_field():
    for old, detail, quoted in OLD_DETAILS:
        record = a_record({"seat": 0, "detail": old, "stderr_tail": ""})
        owner = Viewer(frozenset({record["names"][0]}))
        [mine] = visible_record(record, owner)["faults"]
        assert (mine["detail"], mine["stderr_tail"]) == (detail, quoted)
        [theirs] = visible_record(record, ANYONE)["faults"]
        assert (theirs["detail"], theirs["stderr_tail"]) == (detail, "")
        assert visible_detail(old) == detail


def test_a_quote_in_what_the_bot_sent_before_it_only_cuts_more():
    old = ("could not be started: bot 'x@1': bad hello reply: reply is not JSON: "
           "b'hi (stderr: ' (stderr: CANARY)")
    assert visible_detail(old) == "could not be started: bot 'x@1': bad hello reply: reply is " \
                                  "not JSON: b'hi"
    record = a_record({"seat": 0, "detail": old, "stderr_tail": "newer tail"})
    [shown] = visible_record(record, Viewer(frozenset({record["names"][0]})))["faults"]
    assert shown["stderr_tail"] == "newer tail" and "CANARY" not in orjson.dumps(shown).decode()
