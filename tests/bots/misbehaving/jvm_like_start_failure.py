"""Fails to start the way a JVM does: a line on stdout that is not JSON, the cause on stderr after.

A JVM that cannot reserve memory prints "Error occurred during initialization of VM" and then, on
the next line, the reason; a start error must show both, not only the last line.
"""

import sys

print("Error occurred during initialization of VM", file=sys.stderr)
print("Could not allocate compressed class space: 1073741824 bytes", file=sys.stderr, flush=True)
print("Error occurred during initialization of VM", flush=True)
sys.exit(1)
