"""Writes as many files as its first argument into out/, each of its second argument's KB."""

import os
import sys

count, size = int(sys.argv[1]), int(sys.argv[2])
os.makedirs("out", exist_ok=True)
block = b"x" * (size << 10)
for index in range(count):
    with open(f"out/f{index}", "wb") as file:
        file.write(block)
print(f"wrote {count} files", flush=True)
