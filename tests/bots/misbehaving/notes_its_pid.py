"""A bot that plays correctly and appends its process id to ``starts.txt`` in its working directory
as it starts: how many times a run started it, and how many of those were alive at once."""

import os

from _protocol import serve

with open("starts.txt", "a") as starts:
    starts.write(f"{os.getpid()}\n")
serve()
