"""Plays correctly, but ignores quit, stdin closing, SIGTERM, SIGINT and SIGHUP: only a kill stops
it."""

import signal
import time

from _protocol import serve

for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
    signal.signal(signum, signal.SIG_IGN)


def linger():
    while True:
        time.sleep(1)


serve(at_quit=linger)
