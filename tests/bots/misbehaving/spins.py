"""Answers correctly after spinning: burns SECONDS of CPU (default 0.05) before request N.

usage: spins.py [SECONDS] [N] [WHERE]   (request 0 is hello, request k the k-th act)

WHERE ``self`` (default) spins in this process, then answers; ``child`` starts a child process
that spins forever and never answers (its CPU time is the bot's: its process tree's).
"""

import subprocess
import sys
import time

from _protocol import answer, arg, serve


def spin(message, rng):
    if arg(3, "self") == "child":
        subprocess.Popen([sys.executable, "-S", "-c", "while 1: pass"])
        time.sleep(3600)
    end = time.process_time() + arg(1, 0.05)
    while time.process_time() < end:
        pass
    answer(message, rng)


serve(spin, on=arg(2, 1))
