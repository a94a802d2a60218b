"""A colluding helper for the audit's tests: the greedy bot, except when a named partner sits at
its table (``game_start.names``), where it plays kingmaker in Blackout.

Run: python3 tests/bots/kingmaker_bot.py --partner NAME

The greedy bot's logic is imported from bots/python/greedy_bot.py (its bids, its estimates, its
play when the partner is absent). With the partner at the table, each card it plays serves the
partner instead of its own bid:
- the partner holds the trick so far: let it keep the trick while its bid still needs tricks
  (play a card that cannot win), take it from the partner when the partner needs none (it would
  go over its bid);
- a rival holds the trick so far: let the rival have it when the rival needs no more tricks (a
  trick it does not need breaks its bid), take it when the rival still needs it;
- leading: lead low while the partner still needs tricks (the partner may win it), else as greedy.
Its own bid is greedy's, made or missed as the help falls: the help spends its own score.
"""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bots" / "python"))

import greedy_bot


def need(view: dict, seat: int) -> int:
    """Tricks ``seat`` still needs to make its bid this deal (0 or less: made, or past it)."""
    bid = next((b for s, b in reversed(view.get("bids") or []) if s == seat), 0)
    return bid - view["tricks_won"][seat]


def kingmaker_play(view: dict, legal: list, partner: int) -> str:
    """The card that helps ``partner`` make its bid exactly and rivals miss theirs."""
    trump = view.get("trump")
    trick = view.get("trick") or []
    partner_needs = need(view, partner) > 0
    if not trick:
        return min(legal, key=lambda c: greedy_bot.danger(c, trump)) if partner_needs \
            else greedy_bot.choose_play(view, legal)
    winner, best = greedy_bot.trick_winner(trick, trump)
    winners = [c for c in legal if greedy_bot.beats(c, best, trump)]
    losers = [c for c in legal if not greedy_bot.beats(c, best, trump)]
    take = not partner_needs if winner == partner else need(view, winner) > 0
    if take and winners:
        return max(winners, key=lambda c: greedy_bot.danger(c, trump))  # surest to hold it
    if not take and losers:
        return max(losers, key=lambda c: greedy_bot.danger(c, trump))
    return min(legal, key=lambda c: greedy_bot.danger(c, trump))


def main() -> None:
    """Reply to ``hello`` and ``act`` as the greedy bot, helping the partner when it is seated."""
    args = sys.argv[1:]
    if len(args) != 2 or args[0] != "--partner":
        sys.exit("usage: kingmaker_bot.py --partner NAME")
    partner_name = args[1]
    partner: int | None = None
    for line in sys.stdin:
        if not line.strip():
            continue
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            reply: dict = {"id": message["id"], "name": "kingmaker", "protocol": 1}
        elif kind == "game_start":
            names = message.get("names") or []
            seat = message.get("seat")
            partner = next((s for s, name in enumerate(names)
                            if name == partner_name and s != seat), None)
            continue
        elif kind == "act":
            view, legal = message.get("view") or {}, message["legal"]
            if (message.get("kind") == "play" and partner is not None
                    and view.get("game") == "blackout"):
                action = kingmaker_play(view, legal, partner)
            else:
                action = greedy_bot.decide(message.get("kind", ""), view, legal)
            reply = {"id": message["id"], "action": action if action in legal else legal[0]}
        elif kind == "quit":
            return
        else:
            continue
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
