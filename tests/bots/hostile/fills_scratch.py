"""Writes 1 MB files into $TMPDIR until a write fails or it has written as many MB as its argument:
the attack succeeds if it writes them all (more than the sandbox's scratch allowance)."""

import os
import sys
import tempfile

from _hostile import report, serve

wanted = int(sys.argv[1])
directory = tempfile.gettempdir()
block = b"x" * (1 << 20)
written = 0
problem = ""
try:
    while written < wanted:
        with open(os.path.join(directory, f"fill-{written}"), "wb") as file:
            file.write(block)
        written += 1
except OSError as error:
    problem = f": {error.strerror}"
report(written >= wanted, f"wrote {written} of {wanted} MB in {directory}{problem}")
serve()
