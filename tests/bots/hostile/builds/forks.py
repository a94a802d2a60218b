"""Forks as many children as its argument, each sleeping ten minutes; says how many it made when
a fork fails (then exits 1), else sleeps too."""

import os
import sys
import time

wanted = int(sys.argv[1])
made = 0
while made < wanted:
    try:
        child = os.fork()
    except OSError as error:
        print(f"fork failed after {made} children: {error.strerror}", flush=True)
        sys.exit(1)
    if child == 0:
        time.sleep(600)
        os._exit(0)
    made += 1
print(f"made {made} children", flush=True)
time.sleep(600)
