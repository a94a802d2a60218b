"""On act N (default 1), allocates (and touches) memory 64 MiB at a time until it fails.

Under the arena's memory limit that ends in MemoryError and exit 1 (a crash). As a guard for a
limit that did not apply, it stops at 4 GiB, says so on stderr and answers normally.

usage: memory_hog.py [N]
"""

import sys

from _protocol import answer, arg, serve

hoard = []


def hog(message, rng):
    while len(hoard) < 64:  # 64 x 64 MiB = 4 GiB
        hoard.append(bytearray(64 << 20))
    print("memory_hog: 4 GiB allocated and no limit stopped me", file=sys.stderr, flush=True)
    hoard.clear()
    answer(message, rng)


serve(hog, on=arg(1, 1))
