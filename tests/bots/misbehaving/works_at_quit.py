"""Plays correctly, and at quit works SECONDS of CPU time (default 0.3: saving what it learnt,
say) before it exits by itself.

usage: works_at_quit.py [SECONDS]
"""

import sys
import time

from _protocol import serve


def work():
    end = time.process_time() + (float(sys.argv[1]) if len(sys.argv) > 1 else 0.3)
    while time.process_time() < end:
        pass


serve(at_quit=work)
