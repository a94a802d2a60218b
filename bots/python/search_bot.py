"""Search reference bot: determinized (PIMC) search with the project's engine, for both games.

For each decision it deals the cards it cannot see many times over, each deal consistent with what
its view shows (its hand, the cards played, the turned card, the suits each seat has shown out of,
and the bids or calls: of a few such deals one is kept, drawn by how well each bid matches the
hand the deal gives that seat). In every kept deal it plays each legal action and then the rest
of the deal with a fast copy of the greedy bot's play (``Rollout``), on the engine's own rules
(``engine.game(...).apply`` from a game started on those hands), and takes the action with the
best mean outcome over the deals. Bids and calls are chosen the same way, the
other seats bidding or calling as the greedy bot does.

The outcome it maximises is the deal's score margin: in Blackout its own score minus the mean of
the other seats' scores (a place depends on both), in Partnership Blackout its team's score minus
the other team's.

Budget, per decision: ``--samples N`` deals (default 24), and at most ``--ms M`` milliseconds
(default 400, and never more than a quarter of the ``time_ms`` the arena allows): whichever ends
first. The clock is checked before every action's play-out, so a decision ends within one
play-out of its limit; a sample cut short is dropped whole (every action is compared on the same
deals), and with no complete sample the greedy choice is played. Its random generator is seeded
from ``game_start.seed``, so with the sample budget binding (as on an idle machine) a game
replays; a decision that the time limit cut short says so on stderr.

The sampling and the play-outs are the strategy package's (``strategy/sampling.py``, over the
engine), shared with the arena's evaluator of decisions (``arena analyse``); this file adds the
budget and the choice. ``import engine`` and ``import strategy`` find the copies that ``make bots``
puts next to this file (``bots/python/engine/``, ``bots/python/strategy/``), so the bot works in
the arena's sandbox, which shows a bot only its own directory. Run: ``python3
bots/python/search_bot.py [--samples N] [--ms M]`` (see bots/README.md).
"""

import argparse
import json
import random
import sys
import time

try:
    import engine
    from strategy.sampling import (  # noqa: F401
        CARD,
        Playouts,
        Position,
        Unsupported,
        distinct_cards,
        draw_sample,
        draw_samples,
        voids_of,
    )
except ImportError as error:  # before hello: the arena shows this line as the start error
    sys.exit(f"search_bot: cannot import the engine ({error}): run `make bots` in the repository, "
             "which copies engine/ and strategy/ into bots/python/")

import greedy_bot

NAME = "search-py"
DEFAULT_SAMPLES = 24
DEFAULT_MS = 400


# --- the search ----------------------------------------------------------------------------------


class Search:
    """One decision: samples, each action played out in each, the best mean margin chosen."""

    def __init__(self, view: dict, kind: str, legal: list, rng: random.Random, samples: int,
                 deadline: float) -> None:
        self.position = Position(view, engine.game(view["game"]))
        self.playouts = Playouts(self.position, kind)
        self.view = view
        self.kind = kind
        self.legal = legal
        self.rng = rng
        self.samples = samples
        self.deadline = deadline
        self.cut_short = False

    def margin(self, scores: list[int]) -> float:
        """The outcome this seat maximises: its (team's) score minus the others' mean."""
        position = self.position
        mine = position.game.info.entrant_of(position.seat)
        others = [score for index, score in enumerate(scores) if index != mine]
        return scores[mine] - sum(others) / len(others)

    def candidates(self, fallback: object) -> list[object]:
        """The actions worth playing out (card actions that differ, bids near the greedy one)."""
        if self.kind == "play":
            return distinct_cards(self.legal, self.position)
        if self.kind == "bid":
            return [b for b in self.legal if abs(b - fallback) <= 2]
        numbers = [c for c in self.legal if isinstance(c, int) and abs(c - fallback) <= 1] \
            if isinstance(fallback, int) else [c for c in self.legal if isinstance(c, int)][:2]
        return [*numbers, *(c for c in ("pass", "zero") if c in self.legal)]

    def run(self, fallback: object) -> object:
        """The action with the best mean margin; ``fallback`` (the greedy choice) on ties."""
        actions = self.candidates(fallback)
        if fallback in self.legal and fallback not in actions:
            actions.append(fallback)
        if len(actions) == 1:
            return actions[0]
        totals = dict.fromkeys(actions, 0.0)
        position = self.position
        playouts = self.playouts
        wire = {action: playouts.engine_action(action) for action in actions}
        done = 0
        while done < self.samples and not self.cut_short:
            state = position.start(draw_sample(self.rng, position))
            margins = []
            for action in actions:
                if time.perf_counter() > self.deadline:  # a sample counts whole or not at all
                    self.cut_short = True
                    break
                margins.append(self.margin(playouts.scores(state, wire[action])))
            else:
                for action, margin in zip(actions, margins, strict=True):
                    totals[action] += margin
                done += 1
        if not done:
            return fallback
        return max(actions, key=lambda a: (totals[a], a == fallback))


# --- the message loop ----------------------------------------------------------------------------


def decide(message: dict, rng: random.Random, samples: int, ms: int,
           received: float | None = None) -> object:
    """The action for one ``act`` message: the search's, or the greedy bot's where it cannot run.

    The search stops ``ms`` milliseconds (at most a quarter of the ``time_ms`` allowed) after
    ``received``, the moment the message was read (default: now).
    """
    allowed = min(ms, message.get("time_ms", ms) // 4)
    deadline = (time.perf_counter() if received is None else received) + allowed / 1000
    legal = message["legal"]
    kind = message.get("kind", "")
    view = message.get("view") or {}
    fallback = greedy_bot.decide(kind, view, legal)
    if len(legal) == 1:
        return legal[0]
    try:
        search = Search(view, kind, legal, rng, samples, deadline)
        action = search.run(fallback)
    except Unsupported as why:
        print(f"search: {why}; playing the greedy choice", file=sys.stderr, flush=True)
        return fallback
    if search.cut_short:
        print(f"search: the {allowed} ms limit cut deal {view.get('deal')}'s {kind} short",
              file=sys.stderr, flush=True)
    return action if action in legal else fallback


def parse_args(argv: list) -> argparse.Namespace:
    """``--samples N`` and ``--ms M``."""
    parser = argparse.ArgumentParser(prog="search_bot.py", description=__doc__.split("\n")[0])
    parser.add_argument("--samples", type=int, default=DEFAULT_SAMPLES,
                        help=f"deals sampled per decision (default {DEFAULT_SAMPLES})")
    parser.add_argument("--ms", type=int, default=DEFAULT_MS,
                        help=f"most milliseconds per decision (default {DEFAULT_MS})")
    args = parser.parse_args(argv)
    if args.samples < 1 or args.ms < 1:
        parser.error("--samples and --ms must be at least 1")
    return args


def main() -> None:
    """Read one JSON message per line; reply to ``hello`` and ``act``; stop on ``quit`` or EOF."""
    args = parse_args(sys.argv[1:])
    rng = random.Random(0)
    read = sys.stdin.readline
    write = sys.stdout.write
    flush = sys.stdout.flush
    while True:
        line = read()
        received = time.perf_counter()
        if not line:
            return
        if not line.strip():
            continue
        message = json.loads(line)
        kind = message.get("type")
        if kind == "act":
            legal = message["legal"]
            try:
                action = decide(message, rng, args.samples, args.ms, received)
            except Exception as error:  # a bug here must not cost the game: log it, play safe
                print(f"search: {type(error).__name__}: {error}; playing {legal[0]!r}",
                      file=sys.stderr, flush=True)
                action = legal[0]
            write(json.dumps({"id": message["id"], "action": action}) + "\n")
            flush()
        elif kind == "hello":
            write(json.dumps({"id": message["id"], "name": NAME, "protocol": 1}) + "\n")
            flush()
        elif kind == "game_start":
            rng.seed(message.get("seed", 0))
        elif kind == "quit":
            return


if __name__ == "__main__":
    main()
