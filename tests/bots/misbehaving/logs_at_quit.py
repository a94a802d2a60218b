"""Plays correctly, and at quit writes MIB MiB (default 200) to stderr before it exits by itself
(0: it writes without end and never exits).

usage: logs_at_quit.py [MIB]
"""

import itertools
import sys

from _protocol import arg, serve


def flush_log():
    err = sys.stderr.buffer
    block = b"a log line saved at quit ......................................\n" * 1024
    count = arg(1, 200) * (1 << 20) // len(block)
    for _ in range(count) if count else itertools.count():
        err.write(block)
    err.flush()


serve(at_quit=flush_log)
