"""Reads PATH (a file under /etc) as it starts, as a runtime reads its configuration, and exits
with the error its runtime would print when it cannot; else plays correctly.

usage: needs_etc_file.py PATH
"""

import sys

from _protocol import serve

try:
    with open(sys.argv[1], encoding="utf-8") as config:
        config.read()
except OSError as error:
    sys.exit(f"needs_etc_file: cannot read its configuration: {error.filename}: {error.strerror}")
serve()
