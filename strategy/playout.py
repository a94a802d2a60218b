"""A whole deal played out from its dealt hands, every seat as the greedy bot bids and plays.

``deal_scores`` starts a one-deal game from the hands and the turned card a record holds, lets
every seat bid as ``strategy.bidding`` does (from its own view) and play as ``sampling.Rollout``
does (from what it could know, never from the other hands), and gives each seat's deal score:
what the greedy policy makes of those cards against those cards. ``arena.ratings.luck`` takes it
as a value estimate of a deal for a seat that knows who holds what against whom. Deterministic:
the same deal always plays out the same (no generator, no clock, no I/O). About 0.8 ms a deal of
4 seats on the bench's ladder (docs/ratings.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.cards import CARD_BY_NAME
from engine.chance import Preset, PresetDeal
from engine.game import Game
from engine.wire import actions_to_json
from strategy import bidding
from strategy.sampling import Position, Rollout, Unsupported

__all__ = ["VERSION", "Unsupported", "deal_scores"]

VERSION = 1
"""Changes whenever a deal's play-out may: values kept beside results by an older one are stale."""


def deal_scores(game: Game, options: Mapping[str, Any], dealer: int, hands: Sequence[Sequence[str]],
                trump_card: str | None) -> list[int]:
    """Each seat's score when the deal of ``hands`` (card names, by seat; ``trump_card`` turned,
    ``dealer`` dealing) is bid and played out greedily under the game's ``options`` (Blackout's).
    ``Unsupported`` for a deal no one-deal game starts with; the engine's errors for hands it
    could not deal."""
    players = len(hands)
    size = len(hands[0])
    # A one-deal game of this hand size (the first of a "down" sequence) turns a card exactly
    # when the record's deal did, except a deal without trump while cards are left: such a
    # game's last deal, which a "down" sequence plays last, not first.
    turns = players * size < 52
    sim = {**options, "deals": size, "sequence": "down",
           "no_trump_last": "always" if turns and trump_card is None else "when_exhausted"}
    if turns and trump_card is None and size > 1:
        raise Unsupported("a deal without trump while cards are left (no_trump_last: always)")
    deal = PresetDeal(tuple(tuple(sorted(CARD_BY_NAME[c] for c in hand)) for hand in hands),
                      None if trump_card is None else CARD_BY_NAME[trump_card])
    state = game.new_game(players, 0, sim, preset=Preset(dealer, (deal,)))
    while state.kind != "play" and state.to_act is not None:
        view = game.view(state, state.to_act)
        legal = actions_to_json(game.legal_actions(state))
        state = game.apply(state, bidding.choose_auction(str(state.kind), view, legal))
    view = game.view(state, 0)
    return list(Rollout(Position(view, game), dict(view.get("bids") or ())).play_out(
        state, 0, [0] * players, None))
