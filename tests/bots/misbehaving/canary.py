"""Writes CANARY to stderr, then breaks the game the way KIND says: the bot of the tests that what
a bot writes to stderr reaches nobody but its owner.

usage: canary.py KIND CANARY [WHERE]

KIND: exit_before_hello (exits with code 3), hello_timeout (never answers hello), bad_hello (a
reply that is not JSON), timeout (never answers its first act), malformed (a line that is not
JSON for its first act), illegal (an action not in legal), crash (exits with code 3 at its first
act), memory (allocates at its first act until the arena kills it), or none (plays correctly).

WHERE: "always" (the default), or "stored": only where a league keeps its accepted bots
(``LEAGUE/bots/NAME/VERSION``), not in the staging copy a submission's check-bot runs, so the
bot is accepted and then breaks the league's games; and there only once: the process that
breaks writes ``broken`` in its directory first, and the processes after it play correctly, so
each kind costs a league one fault.
"""

import os
import sys
import time
from pathlib import Path

from _protocol import answer, serve, write_line

KIND, CANARY = sys.argv[1], sys.argv[2]
WHERE = sys.argv[3] if len(sys.argv) > 3 else "always"
MARK = Path("broken")


def breaks() -> bool:
    """Whether this process breaks its game (and, when stored, is the one that does)."""
    if WHERE == "always":
        return True
    if Path.cwd().parent.parent.name != "bots" or MARK.exists():
        return False
    MARK.write_text(KIND)
    return True


def say() -> None:
    print(f"canary {KIND}: {CANARY}", file=sys.stderr, flush=True)


say()
BREAKS = KIND != "none" and breaks()
if BREAKS and KIND == "exit_before_hello":
    sys.exit(3)
if BREAKS and KIND == "hello_timeout":
    time.sleep(3600)


def first_act(message, rng):
    if message["type"] == "hello":  # on=0: only bad_hello breaks at the hello
        sys.stdout.write("this is not a hello\n")
        sys.stdout.flush()
        return
    say()
    if KIND == "timeout":
        time.sleep(3600)
    elif KIND == "malformed":
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


if not BREAKS:
    serve()
elif KIND == "bad_hello":
    serve(first_act, on=0)
else:
    serve(first_act, on=1)
