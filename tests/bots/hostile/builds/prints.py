"""Prints as many MB of lines as its argument, then "the last line", and fails."""

import sys

block = b"a line of a build that prints without end\n" * 25_000  # about 1 MB
out = sys.stdout.buffer
for _ in range(int(sys.argv[1])):
    out.write(block)
out.write(b"the last line\n")
out.flush()
sys.exit(1)
