"""Closes its stdout on act N (default 1) and keeps running (sleeping) instead of answering.

usage: closes_stdout.py [N]
"""

import os
import sys
import time

from _protocol import arg, serve


def close_stdout(message, rng):
    sys.stdout.flush()
    os.close(1)
    time.sleep(600)


serve(close_stdout, on=arg(1, 1))
