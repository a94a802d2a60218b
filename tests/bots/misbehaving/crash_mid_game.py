"""Plays correctly, then exits with code 3 on act N (default 3), saying why on stderr.

usage: crash_mid_game.py [N]
"""

import sys

from _protocol import arg, serve


def crash(message, rng):
    print(f"crash_mid_game: giving up on act {message['id']}", file=sys.stderr, flush=True)
    sys.exit(3)


serve(crash, on=arg(1, 3))
