"""Reply lines read exactly: valid JSON is never called "not JSON".

The process layer reads every reply with orjson (fast), which refuses some valid JSON (an integer
too long for a float, past ~309 digits; a lone surrogate escape such as ``"\\ud800"``; a value
nested over 1,024 levels) and reads an integer beyond 64 bits as the nearest float. Only then,
off the fast path, a line is read again here, by the standard library: every integer exact (a
``LongInteger`` past the digits Python converts, ``sys.get_int_max_str_digits``, 4,300 by
default), every string as escaped (a lone surrogate kept: the engine finds it is no card, and
``arena.printable`` shows it as ``\\ud800``). ``NaN`` and ``Infinity`` are not JSON and stay
refused, as do bytes that are not UTF-8.
"""

from __future__ import annotations

import json
import sys
from typing import Any

NOT_JSON = "reply is not JSON"


class NotJson(ValueError):
    """A reply line that is not one JSON text; the message says why (a malformed fault's detail)."""


class LongInteger(int):
    """A JSON integer of more digits than Python converts from text: kept as its digits, and
    equal only to the same digits (so exactly: it equals no integer of fewer digits).

    As an int it is ±10 ** the conversion limit, beyond every integer of fewer digits, so a
    judge's order comparisons (``0 <= bid <= 13``) come out as they would for the number itself;
    it prints as ``(an integer of 5,000 digits)``. Its arithmetic is not the number's: no rule
    does arithmetic on an action before finding it legal, which such a number never is."""

    text: str
    """The integer as the reply wrote it (``-`` and digits)."""

    def __new__(cls, text: str) -> LongInteger:
        limit = sys.get_int_max_str_digits() or sys.int_info.default_max_str_digits
        number = super().__new__(cls, -10 ** limit if text.startswith("-") else 10 ** limit)
        number.text = text
        return number

    def __eq__(self, other: object) -> bool:
        return isinstance(other, LongInteger) and other.text == self.text

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash(self.text)

    def __repr__(self) -> str:
        sign = "a negative" if self.text.startswith("-") else "an"
        return f"({sign} integer of {len(self.text.lstrip('-')):,} digits)"

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        return format(repr(self), spec)


def _integer(text: str) -> int:
    try:
        return int(text)
    except ValueError:  # the only way int() fails on JSON's digits: past the conversion limit
        return LongInteger(text)


def _constant(text: str) -> Any:
    raise ValueError(f"{text} is not JSON")


def read_exactly(line: bytes) -> Any:
    """The JSON value of ``line``, integers exact (``LongInteger`` past Python's digit limit) and
    lone surrogates kept; NotJson if it is not JSON, or nests deeper than Python's recursion
    limit, saying which."""
    try:
        return json.loads(line.decode("utf-8"), parse_int=_integer, parse_constant=_constant)
    except RecursionError:
        raise NotJson("reply is nested too deeply for the arena to read") from None
    except ValueError:  # json's own errors, UnicodeDecodeError, _constant's
        raise NotJson(NOT_JSON) from None


