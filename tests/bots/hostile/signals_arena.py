"""Looks for the arena's pid (its argument) in /proc and sends it SIGUSR1: the attack succeeds if
the signal is delivered (the test's handler also records it)."""

import os
import signal
import sys

from _hostile import report, serve

arena = int(sys.argv[1])
listed = str(arena) in os.listdir("/proc")
others = sum(name.isdigit() for name in os.listdir("/proc"))
try:
    os.kill(arena, signal.SIGUSR1)
    report(True, f"signalled pid {arena} (listed in /proc: {listed}, {others} processes seen)")
except OSError as error:
    report(False, f"pid {arena}: {error.strerror} (listed in /proc: {listed}, "
                  f"{others} processes seen)")
serve()
