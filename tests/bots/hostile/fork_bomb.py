"""Forks children that sleep, until a fork fails or it has made as many as its argument (1000 by
default: never truly unbounded, so a test without a process limit cannot take the machine down).
Reports how many children it made; the children die with the bot's process group or sandbox."""

import os
import sys
import time

from _hostile import report, serve

wanted = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
made = 0
problem = ""
while made < wanted:
    try:
        child = os.fork()
    except OSError as error:
        problem = error.strerror or str(error)
        break
    if child == 0:
        time.sleep(600)
        os._exit(0)
    made += 1
report(made >= wanted, f"made {made} of {wanted} children" + (f": {problem}" if problem else ""))
serve()
