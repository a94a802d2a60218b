"""What a reply line says when orjson cannot say it: read again exactly, and a wrong id in words.

The process layer (``arena.bots.process``) reads every reply with orjson; only a line orjson
refuses comes here, before it is called malformed:

- Valid JSON orjson does not take (a lone surrogate escape, an integer too long for a float) is
  read by the exact reader (``arena.bots.exactjson``), and what is wrong with it said by whoever
  judges it.
- A UTF-8 byte-order mark before the first reply (``hello``) is ignored, as ``\\r\\n`` line ends
  are; it is looked for only when that first line fails to parse, so requests pay nothing for it.
- Ids compare as exact integers: ``17.0``, ``true`` and an integer beyond 64 bits (which orjson
  reads as a float) are not id 17, and the fault quotes the id as the bot wrote it.
"""

from __future__ import annotations

import contextlib
from typing import Any

from arena.bots.exactjson import NotJson, read_exactly
from arena.protocol import HELLO_ID
from engine.errors import shown

BOM = b"\xef\xbb\xbf"
"""The UTF-8 byte-order mark a first reply may start with (what a .NET program writes first)."""


def read_again(line: bytes, rid: int) -> Any:
    """A reply line orjson refused, to request ``rid``, read by the exact reader, which takes the
    valid JSON orjson does not and skips a byte-order mark before the first reply; raises
    ``NotJson`` saying why when it is not JSON the arena reads."""
    return read_exactly(without_bom(line, rid))


def wrong_id(reply: dict[str, Any], line: bytes, rid: int) -> str:
    """What is wrong with the id of ``reply`` (its ``line``) to request ``rid``, with the id as the
    bot wrote it: an integer orjson read as a float (beyond 64 bits) is read again exactly."""
    got = reply.get("id")
    if type(got) is float:
        with contextlib.suppress(NotJson):
            again = read_exactly(without_bom(line, rid))
            got = again.get("id") if type(again) is dict else got
    if "id" not in reply:
        detail = "reply has no id"
    elif isinstance(got, int) and not isinstance(got, bool):  # a LongInteger too
        detail = f"reply has id {shown(got)}"
    else:  # 17.0, true, "17": not the integer the arena sent
        detail = f"reply has id {shown(got)} (not an integer)"
    return f"{detail}, expected {rid}"


def without_bom(line: bytes, rid: int) -> bytes:
    """A reply line without the UTF-8 byte-order mark a first reply (``hello``) may have."""
    return line[len(BOM):] if rid == HELLO_ID and line.startswith(BOM) else line
