"""Prints a line that is not JSON instead of answering request N (default 1), then plays on.

usage: garbage_line.py [N] [KIND]   (N=0: garbage instead of the hello reply;
KIND "text" (default): readable non-JSON text; "bytes": bytes that are not even UTF-8)
"""

import sys

from _protocol import arg, serve

LINES = {"text": b"thinking... this is not JSON {\n", "bytes": b"\xff\xfe\x00 not utf-8 \xc3\n"}


def garbage(message, rng):
    sys.stdout.buffer.write(LINES[arg(2, "text")])
    sys.stdout.buffer.flush()


serve(garbage, on=arg(1, 1))
