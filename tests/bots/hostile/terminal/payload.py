"""Writes text that acts on a terminal wherever a bot's text reaches the organiser: its hello reply
(name and version), its stderr, the first reply of a game (a line that is not JSON), a build's
output; its manifests (``sly.bot.yaml``, ``garbled.bot.yaml``, ``broken.bot.yaml``) carry the same
in ``author`` and ``language``.

usage: payload.py MODE [HEX]
  MODE sly       garbles only in games against other bots (so it passes the check)
       garbled   garbles in every game
       mute      writes its stderr and exits before replying to hello
       build     prints as a failing build does, and exits 1
  HEX            the payload's bytes in hex (any bytes, UTF-8 or not; default: PAYLOAD)

Standard library only; after the garbled line the arena plays the seat itself, and the bot plays
every other request correctly (a random legal action).
"""

from __future__ import annotations

import json
import random
import sys

PAYLOAD = (
    "\x1b[2J\x1b[H"  # clear the screen, cursor home
    "\x1b]52;c;cHduZWQ=\x07"  # OSC 52: put "pwned" on the clipboard
    "\x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\"  # OSC 8: a link that hides its target
    "\x1b]0;owned\x07"  # the window title
    "\x07\x00\x7f\x9b31m"  # BEL, NUL, DEL, CSI in its one-byte (C1) form
    "\r\u2028fake\u202etxt.exe"  # carriage return, line separator, right-to-left override
)
"""Every kind of character that acts on a terminal, with a visible word after each."""


def write(stream: str, data: bytes) -> None:
    handle = sys.stdout if stream == "out" else sys.stderr
    handle.buffer.write(data)
    handle.buffer.flush()


def main() -> None:
    mode = sys.argv[1] if len(sys.argv) > 1 else "sly"
    payload = bytes.fromhex(sys.argv[2]) if len(sys.argv) > 2 else PAYLOAD.encode()
    text = payload.decode("utf-8", "replace")  # for the hello reply, which is JSON
    if mode == "build":
        write("out", b"compiling %b\nerror: %b\n" % (payload, payload))
        sys.exit(1)
    write("err", b"starting %b\nsecond line %b\n" % (payload, payload))
    if mode == "mute":
        sys.exit(3)
    rng = random.Random(0)
    garble = False
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "quit":
            break
        if kind == "hello":
            reply = {"id": message["id"], "name": f"payload {text}", "version": text,
                     "protocol": 1}
        elif kind == "game_start":
            rng.seed(message.get("seed", 0))
            garble = mode == "garbled" or len(set(message.get("names", ()))) > 1
            continue
        elif kind == "act" and garble:
            garble = False
            write("err", b"garbling %b\n" % payload)
            write("out", b"not json %b\n" % payload.replace(b"\n", b" "))
            continue
        elif kind == "act":
            reply = {"id": message["id"], "action": rng.choice(message["legal"])}
        else:
            continue
        write("out", json.dumps(reply).encode() + b"\n")


if __name__ == "__main__":
    main()
