"""Answers request N (default 1) with the wrong id (the right one plus 1000), then plays on.

usage: wrong_id.py [N]   (N=0: a wrong id in the hello reply)
"""

from _protocol import arg, serve, write_line


def wrong_id(message, rng):
    reply = {"id": message["id"] + 1000, "name": "wrong_id", "protocol": 1}
    if message["type"] == "act":
        reply = {"id": message["id"] + 1000, "action": rng.choice(message["legal"])}
    write_line(reply)


serve(wrong_id, on=arg(1, 1))
