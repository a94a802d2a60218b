"""Answers correctly but late: sleeps DELAY seconds (default 2) before request N (default 1).

usage: slow.py [DELAY] [N]   (request 0 is hello, request k the k-th act)
"""

import time

from _protocol import answer, arg, serve


def late(message, rng):
    time.sleep(arg(1, 2.0))
    answer(message, rng)


serve(late, on=arg(2, 1))
