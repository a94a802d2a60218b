"""Luck-adjusted deal scores: what a position scored in a deal, less the luck of the cards it held.

**The value estimate** ``V`` of a deal for a position is a ridge-regularised linear model of the
position's deal score on two kinds of features. The first is the deal played out: every seat bids
and plays it as the greedy bot does, from the hands as dealt (``strategy.playout``), and the
position's score in that play-out is a feature (``playout_values``): it knows who holds what
against whom, which a hand alone does not. The others are features of the cards the position was
dealt and of its place at the table (``seat_features``): the hand size, the trumps and the trump
honours it holds, its side aces, kings and queens, its voids and longest suit, and its seat
relative to the dealer. Nothing a bot chose (a bid, a call, a card played) enters it: those are
skill, not chance, and a value estimate that read a bid would credit an overbidder for the
contract it chose. One model is fitted for each table size (positions per game: seats, or teams
in a team game, whose features are the sums over their seats); the play-out column is left out
for a table size where some game has no play-out (a Partnership game; a record without the
turned card). Applying it costs a dot product per position and deal; the play-out costs about
0.8 ms a deal, which is why ``arena.ratings.table`` keeps the values beside the results.

**Out of fold.** The estimate is fitted on the records themselves, never on the deals it adjusts:
the duplicate sets are split into ``FOLDS`` folds (by their names' order) and each fold is adjusted
by a model fitted on the other folds' deals. With fewer than ``MIN_FIT_SETS`` sets of a table size
there is nothing to fit on, and those games are left unadjusted (``V = 0``).

**The adjustment.** A position's adjusted deal score is its score minus ``V(its cards) - mean over
the deal's positions of V(their cards)``: the second term is the expectation of the first over the
chance event "which of the deal's hands this position got". ``V`` depends on the deal and the
position only (the play-out is the greedy bot's, not the entrants'), so in a duplicate set, where
every entrant holds every position of the same deals once (a table's seat rotations), each
entrant's adjustments sum to exactly zero over the set, whatever ``V`` is: the adjustment moves no
entrant's mean score, it only takes out of each single deal the part of the score its cards
explain. In a set that is not a full rotation (a match unit), or whose games did not all reach a
deal (a Partnership game ends at its target), the terms are zero only in expectation over the
seat draw. docs/ratings.md says what the ``adjusted`` model compares with these.

No I/O: ``arena.ratings.tally`` calls this with what the rating inputs hold (``deal_chance``,
``arena.records.result.rating_input``; ``deal_values``, the play-outs kept beside the results).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from engine import GAMES
from strategy import playout

FOLDS = 5
"""Folds of duplicate sets: each is adjusted by a model fitted on the others."""
MIN_FIT_SETS = 2
"""The fewest duplicate sets of a table size, in the other folds, to fit a model on."""
RIDGE = 1.0
"""The ridge penalty on the coefficients (not the intercepts): keeps a fit on few deals tame."""
MOST_SEATS = 7
CARD_FEATURES = 9


@dataclass(frozen=True)
class DealChance:
    """One deal's chance events as a record holds them: the dealer's seat, the trump suit (None:
    no trump), every seat's hand as dealt, by seat, and the turned card (None: none, or a record
    from before the rating inputs carried it)."""

    dealer: int
    trump: str | None
    hands: Sequence[Sequence[str]]
    trump_card: str | None = None


def chance_of(obj: Mapping[str, object]) -> list[DealChance] | None:
    """The deals' chance events of a rating input (its ``deal_chance``), None when it has none or
    they are not that shape (an older or hand-made result: left unadjusted)."""
    found = obj.get("deal_chance")
    if not isinstance(found, list):
        return None
    deals = []
    for deal in found:
        if not (isinstance(deal, list) and len(deal) in (3, 4) and isinstance(deal[0], int)
                and (deal[1] is None or isinstance(deal[1], str)) and isinstance(deal[2], list)
                and (len(deal) == 3 or deal[3] is None or isinstance(deal[3], str))):
            return None
        deals.append(DealChance(*deal))
    return deals


def playout_values(obj: Mapping[str, object]) -> list[list[int]] | None:
    """Each seat's score in each deal of a rating input played out greedily from its hands as
    dealt (``strategy.playout``), deal by deal; None where that cannot be done: no chance
    events, no game or options, a team game, a deal the play-out cannot start (a record without
    the turned card, a no-trump deal while cards are left), hands the engine would not deal."""
    chance, options, game = chance_of(obj), obj.get("options"), GAMES.get(str(obj.get("game")))
    if chance is None or not isinstance(options, dict) or game is None or game.info.has_teams:
        return None
    values = []
    for deal in chance:
        if deal.trump_card is None and deal.trump is not None:
            return None  # an older record's input: the turned card is not known
        try:
            values.append(playout.deal_scores(game, options, deal.dealer, deal.hands,
                                              deal.trump_card))
        except (playout.Unsupported, ArithmeticError, LookupError, TypeError, ValueError):
            return None  # OptionError and PresetError are ValueErrors
    return values


def seat_features(hand: Sequence[str], trump: str | None, offset: int, players: int) -> np.ndarray:
    """The features of one seat's cards: hand size, trumps, trump honours (J to A), side aces,
    kings and queens, voids, longest suit, then one column per seat after the dealer."""
    suits = [card[1] for card in hand]
    trumps = suits.count(trump) if trump else 0
    honours = sum(1 for card in hand if card[1] == trump and card[0] in "JQKA")
    side = [card[0] for card in hand if card[1] != trump]
    lengths = [suits.count(suit) for suit in "CDHS"]
    row = np.zeros(CARD_FEATURES + MOST_SEATS)
    row[:CARD_FEATURES] = (len(hand), trumps, honours, side.count("A"), side.count("K"),
                           side.count("Q"), lengths.count(0), max(lengths), trump is None)
    row[CARD_FEATURES + (offset % players)] = 1.0
    return row


def deal_features(deal: DealChance, positions: Sequence[Sequence[int]]) -> np.ndarray:
    """Features of each position (its seats' features summed), positions x features."""
    players = len(deal.hands)
    seats = np.array([seat_features(hand, deal.trump, seat - deal.dealer - 1, players)
                      for seat, hand in enumerate(deal.hands)])
    return np.array([seats[list(members)].sum(axis=0) for members in positions])


def fit(features: np.ndarray, scores: np.ndarray, ridge: float = RIDGE) -> np.ndarray:
    """Coefficients of the linear value estimate (intercept first), by ridge least squares."""
    design = np.hstack([np.ones((len(features), 1)), features])
    penalty = ridge * np.eye(design.shape[1])
    penalty[0, 0] = 0.0
    coefficients: np.ndarray = np.linalg.solve(design.T @ design + penalty, design.T @ scores)
    return coefficients


def value(coefficients: np.ndarray, features: np.ndarray) -> np.ndarray:
    """The value estimate of each row of ``features``."""
    result: np.ndarray = coefficients[0] + features @ coefficients[1:]
    return result


@dataclass(frozen=True)
class Adjusted:
    """Each game's luck-adjusted deal scores (game x deal x position; None where the game could
    not be adjusted) and each game's luck term ``V - mean V`` alike, with the out-of-fold fit's
    share of the deal scores' variance it explains (None: nothing fitted)."""

    scores: list[np.ndarray | None]
    luck: list[np.ndarray | None]
    explained: float | None


def adjust(chances: Sequence[list[DealChance] | None], deal_scores: Sequence[Sequence[Sequence[float]]],
           positions: Sequence[Sequence[Sequence[int]]], set_names: Sequence[object],
           values: Sequence[Sequence[Sequence[float]] | None] | None = None) -> Adjusted:
    """The luck-adjusted deal scores of every game (``deal_scores[g][d][p]``: position ``p``'s
    score in deal ``d`` of game ``g``; ``positions[g][p]``: the seats of position p), by an estimate
    fitted out of fold (the module's docstring); ``values[g][d][s]``: seat ``s``'s score in the
    play-out of deal ``d`` (``playout_values``), None for a game without."""
    games = len(deal_scores)
    features: list[np.ndarray | None] = [None] * games
    by_size: dict[int, list[int]] = defaultdict(list)
    for game in range(games):
        chance, scores = chances[game], deal_scores[game]
        if chance is None or not scores or len(chance) < len(scores):
            continue
        try:
            features[game] = np.array([deal_features(chance[d], positions[game])
                                       for d in range(len(scores))])
        except (IndexError, TypeError):  # hands that do not match the positions: unadjusted
            continue
        by_size[len(positions[game])].append(game)
    for members in by_size.values():
        columns = [_value_column(values, g, positions[g], len(deal_scores[g])) for g in members]
        if all(column is not None for column in columns):  # else no play-out column at this size
            for g, column in zip(members, columns, strict=True):
                assert column is not None
                features[g] = np.concatenate([_rows(features[g]).reshape(column.shape + (-1,)),
                                              column[..., None]], axis=-1)
    scores_out: list[np.ndarray | None] = [None] * games
    luck_out: list[np.ndarray | None] = [None] * games
    residual = total = 0.0
    for members in by_size.values():
        names = sorted({_set_key(set_names[g], g) for g in members}, key=repr)
        fold_of_set = {name: index % FOLDS for index, name in enumerate(names)}
        fold = np.array([fold_of_set[_set_key(set_names[g], g)] for g in members])
        for k in range(FOLDS):
            inside = [g for g, f in zip(members, fold, strict=True) if f == k]
            if not inside:
                continue
            train = [g for g, f in zip(members, fold, strict=True) if f != k]
            train_sets = {_set_key(set_names[g], g) for g in train}
            coefficients = None
            if len(train_sets) >= MIN_FIT_SETS:
                x = np.vstack([_rows(features[g]) for g in train])
                y = np.concatenate([np.asarray(deal_scores[g], dtype=np.float64).ravel()
                                    for g in train])
                coefficients = fit(x, y)
            for g in inside:
                raw = np.asarray(deal_scores[g], dtype=np.float64)
                if coefficients is None:
                    term = np.zeros_like(raw)
                else:
                    estimate = value(coefficients, _rows(features[g])).reshape(raw.shape)
                    term = estimate - estimate.mean(axis=1, keepdims=True)
                    centred = raw - raw.mean(axis=1, keepdims=True)
                    residual += float(((centred - term) ** 2).sum())
                    total += float((centred ** 2).sum())
                scores_out[g], luck_out[g] = raw - term, term
    return Adjusted(scores_out, luck_out, None if total == 0 else 1.0 - residual / total)


def _value_column(values: Sequence[Sequence[Sequence[float]] | None] | None, game: int,
                  positions: Sequence[Sequence[int]], deals: int) -> np.ndarray | None:
    """Each position's play-out value in each of the game's first ``deals`` deals (deals x
    positions: its seats' values summed), None when the game has none that fit."""
    found = None if values is None else values[game]
    if found is None:
        return None
    try:
        seats = np.asarray(found, dtype=np.float64)
        if seats.ndim != 2 or len(seats) < deals:
            return None
        return np.stack([seats[:deals, list(members)].sum(axis=1) for members in positions],
                        axis=1)
    except (IndexError, TypeError, ValueError):
        return None


def _rows(features: np.ndarray | None) -> np.ndarray:
    assert features is not None
    return features.reshape(-1, features.shape[-1])


def _set_key(name: object, game: int) -> object:
    return ("game", game) if name is None else name
