"""Forks a child that sleeps for ten minutes (holding stdout and stderr open), then plays correctly
and exits on quit, leaving the child behind: only a process-group kill takes the child too.
The child's pid is in the hello reply as "child"."""

import os
import sys
import time

from _protocol import arg, bot_name, serve, write_line

child = os.fork()
if child == 0:
    time.sleep(arg(1, 600.0))
    os._exit(0)


def hello(message, rng):
    write_line({"id": message["id"], "name": bot_name(), "protocol": 1, "child": child})


print(f"forks_child: child pid {child}", file=sys.stderr, flush=True)
serve(hello, on=0)
