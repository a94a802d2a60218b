"""Writes KIB KiB (default 4) to stderr before answering every act, each line naming the act:
a bot that logs a lot all the time, as a chatty bot in a league does.

usage: stderr_chatty.py [KIB]
"""

import json
import random
import sys

from _protocol import answer, arg


def main() -> None:
    rng = random.Random(0)
    acts = 0
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "game_start":
            rng.seed(message.get("seed", 0))
        elif kind == "quit":
            break
        elif kind == "act":
            acts += 1
            said = f"chatty act {acts} ".encode()
            sys.stderr.buffer.write((said + b"." * (1023 - len(said)) + b"\n") * arg(1, 4))
            sys.stderr.flush()
            answer(message, rng)
        elif kind == "hello":
            answer(message, rng)


main()
