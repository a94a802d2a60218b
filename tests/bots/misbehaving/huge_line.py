"""Instead of answering act N (default 1), writes MIB MiB (default 5) with no newline, waits
PAUSE seconds (default 0.5), then ends the line; later acts get correct answers.

usage: huge_line.py [MIB] [PAUSE] [N]
"""

import sys
import time

from _protocol import arg, serve


def huge(message, rng):
    out = sys.stdout.buffer
    block = b"x" * (1 << 20)
    for _ in range(arg(1, 5)):
        out.write(block)
    out.flush()
    time.sleep(arg(2, 0.5))
    out.write(b"\n")
    out.flush()


serve(huge, on=arg(3, 1))
