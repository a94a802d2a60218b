"""The protocol loop the misbehaving bots share: correct play until the request they break.

Standard library only. Requests are counted from 0: request 0 is ``hello``, request k is the k-th
``act``. A bot passes ``misbehave(message, rng)`` and the request number it breaks (``on``);
every other request gets a correct answer (a random legal action, seeded by ``game_start``).
"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Callable
from typing import Any

Message = dict[str, Any]


def write_line(obj: object) -> None:
    """Write one JSON line to stdout and flush it."""
    sys.stdout.write(json.dumps(obj, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def answer(message: Message, rng: random.Random) -> None:
    """The correct reply to ``message`` (hello or act)."""
    if message["type"] == "hello":
        write_line({"id": message["id"], "name": bot_name(), "protocol": 1})
    else:
        write_line({"id": message["id"], "action": rng.choice(message["legal"])})


def bot_name() -> str:
    """The bot's name: its file name without ``.py``."""
    return sys.argv[0].rsplit("/", 1)[-1].removesuffix(".py")


def arg(index: int, default: Any) -> Any:
    """Command-line argument ``index`` (1-based), converted to the type of ``default``."""
    if len(sys.argv) > index:
        return type(default)(sys.argv[index])
    return default


def serve(
    misbehave: Callable[[Message, random.Random], None] | None = None,
    on: int = 1,
    at_quit: Callable[[], None] | None = None,
    before_act: Callable[[Message], None] | None = None,
) -> None:
    """Answer requests correctly, except request number ``on``, which ``misbehave`` handles;
    ``before_act`` runs before each act is answered (a bot that logs, or thinks, every time)."""
    rng = random.Random(0)
    request = 0
    while True:
        line = sys.stdin.readline()
        if not line:
            break
        message = json.loads(line)
        kind = message.get("type")
        if kind == "game_start":
            rng.seed(message.get("seed", 0))
        elif kind == "quit":
            break
        elif kind in ("hello", "act"):
            if kind == "act" and before_act is not None:
                before_act(message)
            if request == on and misbehave is not None:
                misbehave(message, rng)
            else:
                answer(message, rng)
            request += 1
    if at_quit is not None:
        at_quit()
