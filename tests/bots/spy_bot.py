"""Spy bot: plays a random legal action and writes every line it receives, verbatim, to a file.

The hidden-information tests read that file to check what a seat was told, message by message, in
the order it was told (tests/arena/test_hidden_information.py). Standard library only. The file is
opened once, unbuffered and in append mode: each line is written by one os.write as it arrives,
so everything received before ``quit`` is on disk once the process has exited.

usage: spy_bot.py LOG [DELAY]
  LOG    the file to write the received lines to (appended to; created if missing)
  DELAY  seconds to sleep before answering every ``act`` (default 0): a bot that is a little slow
         on every decision, for the time-bank tests
"""

import json
import os
import random
import sys
import time


def main() -> None:
    """The message loop: log each line, answer ``hello`` and ``act``, stop at ``quit`` or EOF."""
    log = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    delay = float(sys.argv[2]) if len(sys.argv) > 2 else 0.0
    rng = random.Random(0)
    stdin = sys.stdin.buffer
    out = sys.stdout
    while True:
        line = stdin.readline()
        if not line:
            break
        os.write(log, line)
        message = json.loads(line)
        kind = message.get("type")
        if kind == "act":
            if delay:
                time.sleep(delay)
            out.write(json.dumps({"id": message["id"], "action": rng.choice(message["legal"])}))
            out.write("\n")
            out.flush()
        elif kind == "game_start":
            rng.seed(message.get("seed", 0))
        elif kind == "hello":
            out.write(json.dumps({"id": message["id"], "name": "spy", "protocol": 1}) + "\n")
            out.flush()
        elif kind == "quit":
            break
    os.close(log)


if __name__ == "__main__":
    main()
