"""Random starter bot: answers every decision with a uniformly random legal action.

Plays both "blackout" and "partnership-blackout" (it never looks at the rules: the arena's
`legal` list is all it needs). The generator is re-seeded from `game_start.seed` at the start of
every game, so replaying a tournament replays this bot's choices too.

Run: python3 bots/python/random_bot.py   (standard library only; see bots/python/README.md)
"""

import json
import random
import sys

NAME = "random-py"


def main() -> None:
    """The message loop: one JSON object per line in, one reply line per `hello` / `act` out."""
    rng = random.Random(0)
    read = sys.stdin.readline
    write = sys.stdout.write
    flush = sys.stdout.flush
    while True:
        line = read()
        if not line:  # EOF: the arena closed our stdin
            return
        if not line.strip():
            continue
        message = json.loads(line)
        kind = message.get("type")
        if kind == "act":
            action = rng.choice(message["legal"])
            write(json.dumps({"id": message["id"], "action": action}) + "\n")
            flush()
        elif kind == "game_start":
            rng.seed(message.get("seed", 0))
        elif kind == "hello":
            write(json.dumps({"id": message["id"], "name": NAME, "protocol": 1}) + "\n")
            flush()
        elif kind == "quit":
            return
        # Everything else (deal_start, event, game_end, unknown types) is information we ignore.


if __name__ == "__main__":
    main()
