"""A well-behaved bot that takes its time: a random legal action after PAUSE seconds (default
0.005), never more than a twentieth of the act's ``time_ms``. A served league of these plays a few
games a second on next to no CPU, where one of C random bots plays as fast as a core allows for as
long as a test's server lives.

usage: paced_bot.py [PAUSE]
"""

import json
import random
import sys
import time

pause = float(sys.argv[1]) if len(sys.argv) > 1 else 0.005
rng = random.Random(0)
for line in sys.stdin:
    message = json.loads(line)
    kind = message.get("type")
    if kind == "hello":
        reply = {"id": message["id"], "name": "paced", "protocol": 1}
    elif kind == "act":
        time.sleep(min(pause, message.get("time_ms", 0) / 20_000))
        reply = {"id": message["id"], "action": rng.choice(message["legal"])}
    elif kind == "game_start":
        rng.seed(message.get("seed", 0))
        continue
    elif kind == "quit":
        break
    else:
        continue
    sys.stdout.write(json.dumps(reply, separators=(",", ":")) + "\n")
    sys.stdout.flush()
