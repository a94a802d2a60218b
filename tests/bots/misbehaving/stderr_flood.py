"""Writes MIB MiB (default 100) to stderr before answering act N (default 1), and answers it.

usage: stderr_flood.py [MIB] [N]
"""

import sys

from _protocol import answer, arg, serve


def flood(message, rng):
    err = sys.stderr.buffer
    block = b"stderr flood " * 5041 + b"\n"  # about 64 KiB a write
    for _ in range(arg(1, 100) * 16):
        err.write(block)
    err.flush()
    answer(message, rng)


serve(flood, on=arg(2, 1))
