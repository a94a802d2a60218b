"""Answers request N (default 1) with a valid JSON reply that orjson does not read as written
(a lone surrogate escape, an integer beyond 64 bits or past Python's 4,300 digits), then plays on.

usage: valid_json.py MODE [N]
MODE, for an act: surrogate-action, long-action (5,000 digits), wide-action (2**64), long-id,
wide-id (the id plus 2**64), float-id (17.0 for 17), true-id (true, for request 1),
surrogate-extra and long-extra (a legal action with an extra key holding such a value);
for the hello (N=0): odd-hello (a 5,000-digit name, a lone surrogate version), true-protocol.
"""

import json
import sys

from _protocol import arg, serve

LONG = "9" * 5000
WIDE = 2 ** 64


def valid_json(message, rng):
    rid = message["id"]
    action = json.dumps(rng.choice(message["legal"])) if message["type"] == "act" else None
    line = {
        "surrogate-action": f'{{"id":{rid},"action":"\\ud800"}}',
        "long-action": f'{{"id":{rid},"action":{LONG}}}',
        "wide-action": f'{{"id":{rid},"action":{WIDE}}}',
        "long-id": f'{{"id":{LONG},"action":{action}}}',
        "wide-id": f'{{"id":{rid + WIDE},"action":{action}}}',
        "float-id": f'{{"id":{rid}.0,"action":{action}}}',
        "true-id": f'{{"id":true,"action":{action}}}',
        "surrogate-extra": f'{{"id":{rid},"action":{action},"note":"\\ud800","\\udfff":[1]}}',
        "long-extra": f'{{"id":{rid},"action":{action},"n":{LONG}}}',
        "odd-hello": f'{{"id":{rid},"name":{LONG},"version":"\\ud800","protocol":1}}',
        "true-protocol": f'{{"id":{rid},"name":"valid_json","protocol":true}}',
    }[arg(1, "")]
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


serve(valid_json, on=arg(2, 1))
