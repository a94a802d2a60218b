"""Passes the submission's check, then hangs in every league game: plays correctly until a
``game_start`` names a league's entrants (``NAME@VERSION``, which ``check-bot`` never gives), then
stops answering (a time-out) and leaves a mark in its working directory; every later start in that
directory finds the mark and never answers ``hello`` (a start failure, each costing the start
allowance), as a bot that tells the checker from the league would.

usage: hangs_in_league.py
"""

import contextlib
import json
import os
import random
import sys
import time

from _protocol import answer

MARK = "hangs-in-league.mark"


def hang() -> None:
    with contextlib.suppress(OSError):  # a read-only directory (a sandbox): it hangs all the same
        open(MARK, "w").close()
    while True:
        time.sleep(3600)


if os.path.exists(MARK):
    hang()
rng = random.Random(0)
for line in sys.stdin:
    message = json.loads(line)
    kind = message.get("type")
    if kind == "game_start":
        if any("@" in str(name) for name in message.get("names", [])):
            hang()
        rng.seed(message.get("seed", 0))
    elif kind == "quit":
        break
    elif kind in ("hello", "act"):
        answer(message, rng)
