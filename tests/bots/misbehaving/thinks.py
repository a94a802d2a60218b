"""Answers every act correctly but slowly: sleeps DELAY seconds (default 0.5) before each.

usage: thinks.py [DELAY]
"""

import json
import random
import sys
import time

from _protocol import answer, arg

rng = random.Random(0)
for line in sys.stdin:
    message = json.loads(line)
    kind = message.get("type")
    if kind == "game_start":
        rng.seed(message.get("seed", 0))
    elif kind == "quit":
        break
    elif kind in ("hello", "act"):
        if kind == "act":
            time.sleep(arg(1, 0.5))
        answer(message, rng)
