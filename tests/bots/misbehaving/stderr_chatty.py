"""Writes KIB KiB (default 4) to stderr before answering every act, each line naming the act:
a bot that logs a lot all the time, as a chatty bot in a league does.

usage: stderr_chatty.py [KIB]
"""

import itertools
import sys

from _protocol import arg, serve

acts = itertools.count(1)


def log(message):
    said = f"chatty act {next(acts)} ".encode()
    sys.stderr.buffer.write((said + b"." * (1023 - len(said)) + b"\n") * arg(1, 4))
    sys.stderr.flush()


serve(before_act=log)
