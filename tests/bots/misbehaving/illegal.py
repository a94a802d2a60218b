"""Answers act N (default 1) with an action that is not in legal, then plays on.

usage: illegal.py [MODE] [N]
MODE "junk" (default): "XX" for a play, 99 for a bid or call.
MODE "card": for a play, a real card that is not in legal (a bid or call still gets 99).
"""

from _protocol import arg, serve, write_line

CARDS = [rank + suit for suit in "CDHS" for rank in "23456789TJQKA"]


def illegal(message, rng):
    mode = arg(1, "junk")
    if message["kind"] != "play":
        action = 99
    elif mode == "card":
        action = next(card for card in CARDS if card not in message["legal"])
    else:
        action = "XX"
    write_line({"id": message["id"], "action": action})


serve(illegal, on=arg(2, 1))
