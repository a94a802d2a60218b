"""A bot that plays the actions it is given, in order: to replay a game whose moves are known.

Standard library only. ``hello`` is answered with the bot's name; each ``act`` with the next action
of the JSON list given as the first argument (the protocol doc's examples are replayed so:
tests/arena/test_protocol.py). It exits at ``quit`` or at the end of its input.

usage: plays_given.py ACTIONS_JSON
"""

import json
import sys


def main() -> None:
    """Answer each request from the list, in order."""
    actions = iter(json.loads(sys.argv[1]))
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            reply = {"id": message["id"], "name": "plays-given", "protocol": 1}
        elif kind == "act":
            reply = {"id": message["id"], "action": next(actions)}
        elif kind == "quit":
            return
        else:
            continue
        sys.stdout.write(json.dumps(reply, separators=(",", ":")) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
