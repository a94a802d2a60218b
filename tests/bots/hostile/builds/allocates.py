"""Allocates and touches as many MB as its argument, 8 MB at a time, then sleeps ten minutes."""

import sys
import time

wanted = int(sys.argv[1])
held = []
for step in range(0, wanted, 8):
    held.append(bytearray(8 << 20))  # zeroed: every page is written, so resident
    print(f"holding {step + 8} MB", flush=True)
time.sleep(600)
