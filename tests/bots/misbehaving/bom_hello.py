"""Writes a UTF-8 byte-order mark before its first reply (as a .NET console set to UTF-8 does),
then plays correctly: the arena ignores a mark at the start of a bot's output."""

import sys

from _protocol import answer, serve


def hello(message, rng):
    sys.stdout.write("\ufeff")  # no flush: the mark and the reply arrive as one line
    answer(message, rng)


serve(hello, on=0)
