"""Says why on stderr and exits with code 2 before reading hello."""

import sys

print("exits_before_hello: cannot load my model", file=sys.stderr, flush=True)
sys.exit(2)
