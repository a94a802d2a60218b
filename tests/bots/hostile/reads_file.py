"""Reads the file named by its argument (another bot's source, a file in the organiser's home)
and reports its first line: the attack succeeds if it can."""

import sys

from _hostile import report, serve

try:
    with open(sys.argv[1]) as file:
        report(True, f"read {sys.argv[1]}: {file.readline().strip()}")
except OSError as error:
    report(False, f"{sys.argv[1]}: {error.strerror}")
serve()
