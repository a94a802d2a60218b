"""Writes CANARY to stderr, then breaks the game the way KIND says: the bot of the tests that what
a bot writes to stderr reaches nobody but its owner.

usage: canary.py KIND[,KIND...] CANARY [WHERE]

KIND: exit_before_hello (exits with code 3), hello_timeout (never answers hello), bad_hello (a
reply that is not JSON), timeout (reads on but never answers its first act, and exits at quit, so
that it costs its allowance and no more), malformed (a line that is not
JSON for its first act), illegal (an action not in legal), crash (exits with code 3 at its first
act), memory (allocates at its first act until the arena kills it), or none (plays correctly).
CANARY is written as it starts and again just before it breaks.

WHERE: "always" (the default): every process breaks the first KIND's way. "stored": only where a
league keeps its accepted bots (``LEAGUE/bots/NAME/VERSION``), not in the staging copy that a
submission's check-bot runs, so the bot is accepted and then breaks the league's games; there
each KIND once, in turn: the process that breaks counts it in the file ``broken`` in its
directory first, the next process takes the next KIND, and once all are done the bot plays
correctly. A league thus records one fault of each KIND, in that order.
"""

import os
import sys
import time
from pathlib import Path

from _protocol import answer, serve, write_line

KINDS, CANARY = sys.argv[1].split(","), sys.argv[2]
WHERE = sys.argv[3] if len(sys.argv) > 3 else "always"
COUNT = Path("broken")


def kind_to_break() -> str:
    """How this process breaks its game ("none": it does not)."""
    if WHERE == "always":
        return KINDS[0]
    if Path.cwd().parent.parent.name != "bots":  # a submission's check: behave
        return "none"
    done = int(COUNT.read_text()) if COUNT.exists() else 0
    return KINDS[done] if done < len(KINDS) else "none"


def counted() -> None:
    """Count this process's break (before it happens: it may not live to count it after)."""
    if WHERE == "stored":
        COUNT.write_text(str(int(COUNT.read_text()) + 1 if COUNT.exists() else 1))


def say() -> None:
    print(f"canary {KIND}: {CANARY}", file=sys.stderr, flush=True)


KIND = kind_to_break()
say()
if KIND in ("exit_before_hello", "hello_timeout", "bad_hello"):
    counted()
if KIND == "exit_before_hello":
    sys.exit(3)
if KIND == "hello_timeout":
    time.sleep(3600)


def breaks(message, rng):
    if KIND == "bad_hello":
        sys.stdout.write("this is not a hello\n")
        sys.stdout.flush()
        return
    counted()
    say()
    if KIND == "timeout":
        return
    if KIND == "malformed":
        sys.stdout.write("thinking... not JSON\n")
        sys.stdout.flush()
    elif KIND == "illegal":
        write_line({"id": message["id"], "action": 99 if message["kind"] != "play" else "XX"})
    elif KIND == "crash":
        os._exit(3)
    elif KIND == "memory":
        hoard = []
        while len(hoard) < 64:  # a guard for a limit that did not apply: 4 GiB, then answer
            hoard.append(bytearray(64 << 20))
        hoard.clear()
        answer(message, rng)


if KIND == "none":
    serve()
else:
    serve(breaks, on=0 if KIND == "bad_hello" else 1)
