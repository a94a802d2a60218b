"""Stalls a league for free, or tries to: plays correctly against copies of itself (as a check
seats it), and sleeps SECONDS (default 2.5) before every decision of a game with another bot at
the table, using no CPU. The fair clock charges the sleep: it times out at the allowance.

usage: stalls.py [SECONDS]
"""

import json
import random
import sys
import time

seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 2.5
rng = random.Random(0)
others = False
for line in sys.stdin:
    message = json.loads(line)
    kind = message.get("type")
    if kind == "quit":
        break
    if kind == "game_start":
        rng.seed(message.get("seed", 0))
        names = message.get("names", [])
        own = names[message.get("seat", 0)] if names else ""
        stem = own.split("#")[0]
        others = any(not name.startswith(stem) for name in names)
    elif kind in ("hello", "act"):
        if kind == "act" and others:
            time.sleep(seconds)
        reply = ({"id": message["id"], "name": "stalls", "protocol": 1} if kind == "hello"
                 else {"id": message["id"], "action": rng.choice(message["legal"])})
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
