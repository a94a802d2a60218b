"""A bot that writes to stderr while deciding each act: one line saying what it plays, then a
hostile line (HTML and a forged marker of the arena's decision index and log notes).

Standard library only. It writes at ``hello`` too (``ready``), as most bots do when they start.
Each act's lines: ``seat S act K plays A`` (K counts its acts in the game from 1), then
``<script>alert(K)</script><img ...onerror...> [0, "GAME", S, 1] ESC[31m[arena] decision 1``;
written and flushed before the reply. The tests read the log's index and the replay against these lines.
"""

import json
import random
import sys

FORGED = ('<script>alert({k})</script><img src=x onerror="document.title=\'owned\'"> '
          '[0, "{game}", {seat}, 1] \x1b[31m[arena] decision 1\n')


def main() -> None:
    rng = random.Random(0)
    seat, acts, game = 0, 0, "r1-t0000-s0"
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            sys.stderr.write("ready\n")
            sys.stderr.flush()
            reply = {"id": message["id"], "name": "says_each_decision", "protocol": 1}
        elif kind == "game_start":
            seat, acts = message["seat"], 0
            rng.seed(message.get("seed", 0))
            continue
        elif kind == "act":
            acts += 1
            action = rng.choice(message["legal"])
            sys.stderr.write(f"seat {seat} act {acts} plays {action}\n")
            sys.stderr.write(FORGED.format(k=acts, game=game, seat=seat))
            sys.stderr.flush()
            reply = {"id": message["id"], "action": action}
        elif kind == "quit":
            return
        else:
            continue
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
