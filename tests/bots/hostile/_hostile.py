"""What the hostile bots share: report an attack's outcome on stderr, then play correctly.

Standard library only. Each bot attacks once, right after it starts, and writes one line to
stderr, ``ATTACK <bot>: SUCCEEDED: <detail>`` or ``ATTACK <bot>: BLOCKED: <detail>``, which the
tests read from the bot's log; then it answers every request with a random legal action, so a
sandboxed game finishes normally whatever the attack did.
"""

from __future__ import annotations

import json
import random
import sys


def bot_name() -> str:
    """The bot's name: its file name without ``.py``."""
    return sys.argv[0].rsplit("/", 1)[-1].removesuffix(".py")


def report(succeeded: bool, detail: str) -> None:
    """Write the attack's outcome line to stderr."""
    outcome = "SUCCEEDED" if succeeded else "BLOCKED"
    print(f"ATTACK {bot_name()}: {outcome}: {detail}", file=sys.stderr, flush=True)


def serve() -> None:
    """Play correctly until quit or end of input."""
    rng = random.Random(0)
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "quit":
            break
        if kind == "game_start":
            rng.seed(message.get("seed", 0))
        elif kind == "hello":
            reply = {"id": message["id"], "name": bot_name(), "protocol": 1}
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()
        elif kind == "act":
            sys.stdout.write(json.dumps({"id": message["id"],
                                         "action": rng.choice(message["legal"])}) + "\n")
            sys.stdout.flush()
