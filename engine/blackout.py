"""Blackout: 3 to 7 players, each for themselves, exact bids (docs/rules.md, "Blackout").

Rules as implemented here:

- Deal d of the sequence gives every player ``hand_size`` cards, dealt one at a time from dealer+1.
  The dealer then turns the next card: its suit is trump. With no card left, or on the last deal when
  ``no_trump_last`` is ``always``, no card is turned and the deal has no trump.
- The sequence (``sequence``): ``up`` is 1..D, ``down`` D..1, ``up_down`` 1..D then D-1..1, with D
  the ``deals`` option (default: 15, 13, 10, 8, 7 for 3..7 players).
- Bidding: one round from dealer+1; each player bids 0..hand size once. With ``hook``, the last bidder
  may not bid the number that makes the bids add up to the hand size.
- Play: dealer+1 leads. Follow suit if able; with ``must_trump``, a player void in the suit led who
  holds a trump must play one (overtrumping is not required). Highest trump wins, else highest card
  of the suit led; the winner leads next.
- Score per deal (b bid, t tricks, ppt ``points_per_trick``): t == b > 0 scores ppt * b + bonus;
  t == b == 0 scores ppt + bonus (``zero_bid`` ``as_one_trick``) or bonus (``bonus_only``). A miss,
  t != b, scores (``scoring``): 0 (``classic``); -ppt * (b - t) when t < b and 0 when t > b
  (``penalty``); ppt * t (``oh_hell``); or -ppt * |t - b| (``oh_hell_penalty``). The two ``oh_hell``
  values are OpenSpiel's oh_hell (without and with its ``off_bid_penalty``), which scores an exact
  zero as the bonus alone: they require ``zero_bid`` ``bonus_only``.
- After the last deal the highest total wins; equal totals share the place, unless ``tiebreak`` is
  ``most_exact_bids``, which ranks tied players by the number of deals they bid exactly.
- The first dealer is drawn from the game's seed; the deal passes clockwise after every deal.
  A ``Preset`` (``engine.chance``) may give the first dealer and the first deals instead.

The state is an immutable value: ``apply`` returns a new state and never changes the one given.
What both games share (the state, playing a card, deal after deal, views, events, records, replay)
is ``engine.trickgame``; this module is what Blackout adds: its options, dealing, bidding,
``must_trump``, scoring and places, as the ``Rules`` that game runs by.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any, Final

from engine import trickgame
from engine.cards import CARD_BY_VALUE, RANK_BITS, SUIT_CARDS, Card, cards_of, mask_of
from engine.chance import Preset, check_deal, check_dealer
from engine.errors import IllegalActionError, InvalidActionError, OptionError, PresetError, shown
from engine.game import GameInfo
from engine.options import POINTS, BoolOption, ChoiceOption, IntOption, Option, resolve
from engine.seeding import derive_seed
from engine.trick import NO_TRUMP, SUIT_NAMES, dealt_masks, shuffled_prefix
from engine.trickgame import apply as apply  # Blackout played without GAME, as bench/versus.py does
from engine.trickgame import legal_actions as legal_actions
from engine.wire import pairs_list

NAME: Final = "blackout"
PLAYER_COUNTS: Final = (3, 4, 5, 6, 7)
DEFAULT_DEALS: Final = {3: 15, 4: 13, 5: 10, 6: 8, 7: 7}
SCORING_VALUES: Final = ("classic", "penalty", "oh_hell", "oh_hell_penalty")
"""What a missed bid scores, the default first (the module docstring gives each formula)."""
OH_HELL_SCORING: Final = frozenset({"oh_hell", "oh_hell_penalty"})
"""The values that score as OpenSpiel's oh_hell, whose exact zero bid scores the bonus alone."""

_SPECS: dict[int, dict[str, Option]] = {}


def option_spec(players: int) -> dict[str, Option]:
    """The options of a ``players``-player game, defaults first."""
    spec = _SPECS.get(players)
    if spec is None:
        _check_players(players)
        spec = _SPECS[players] = _option_spec(players)
    return dict(spec)  # a copy: the options are frozen values, the dict is the caller's


def _option_spec(players: int) -> dict[str, Option]:
    return {
        "deals": IntOption(DEFAULT_DEALS[players], 1, 52 // players,
                           "the largest hand size D (the default depends on the players)"),
        "sequence": ChoiceOption(("up", "down", "up_down"),
                                 "hand sizes in order: 1..D, D..1, or 1..D then D-1..1"),
        "no_trump_last": ChoiceOption(("when_exhausted", "always"),
                                      "the last deal has no trump only when no card is left to "
                                      "turn, or always"),
        "hook": BoolOption(False, "the last bidder may not make the bids add up to the hand size"),
        "must_trump": BoolOption(False, "a player void in the suit led must trump if able"),
        "points_per_trick": IntOption(1, 1, POINTS, "points for each trick of an exact bid"),
        "bonus": IntOption(10, 0, POINTS, "points added to every exact bid"),
        "zero_bid": ChoiceOption(("as_one_trick", "bonus_only"),
                                 "an exact zero bid scores points_per_trick + bonus, or bonus alone"),
        "scoring": ChoiceOption(SCORING_VALUES,
                                "a missed bid scores 0 (classic), -points_per_trick per trick short "
                                "(penalty), or as OpenSpiel's oh_hell (with zero_bid bonus_only): "
                                "its tricks (oh_hell), -points_per_trick per trick off "
                                "(oh_hell_penalty)"),
        "tiebreak": ChoiceOption(("shared", "most_exact_bids"),
                                 "equal totals share a place, or are ranked by deals bid exactly"),
    }


def resolve_options(players: int, raw: Mapping[str, object] | None = None) -> dict[str, Any]:
    """All options for ``players`` players, ``raw`` validated and defaults filled in."""
    options = resolve(NAME, option_spec(players), raw)
    if options["scoring"] in OH_HELL_SCORING and options["zero_bid"] != "bonus_only":
        # Filling in bonus_only silently would make one option's default depend on another; an
        # explicit pair keeps every record's options saying what was played.
        problem = (f"{options['scoring']} scores an exact zero bid as OpenSpiel's oh_hell does, "
                   f"the bonus alone: set zero_bid to bonus_only with it")
        raise OptionError(f"option 'scoring': {problem}", option="scoring", problem=problem)
    return options


def _check_players(players: int) -> None:
    if players not in PLAYER_COUNTS:
        raise OptionError(f"blackout is for 3 to 7 players, not {players}")


info: Final = GameInfo(
    name=NAME, title="Blackout", player_counts=PLAYER_COUNTS, default_players=4, teams=None,
    decision_kinds=("bid", "play"), score_by="seat", option_spec=option_spec,
    short_options={"deals": 3},
)
"""What Blackout is, for callers that must not ask its name (``engine.game``)."""


def hand_sizes(players: int, options: Mapping[str, Any]) -> tuple[int, ...]:
    """The hand size of every deal of the game, in order."""
    top: int = options["deals"]
    up = tuple(range(1, top + 1))
    if options["sequence"] == "down":
        return up[::-1]
    if options["sequence"] == "up_down":
        return up + up[-2::-1]
    return up


class Rules(trickgame.Rules):
    """The per-game constants every state of one game shares, and Blackout's own rules."""

    __slots__ = (
        "bid_ranges",
        "bonus",
        "deals",
        "hook",
        "miss",
        "must_trump",
        "ppt",
        "sizes",
        "zero_score",
    )

    def __init__(self, players: int, seed: int, options: dict[str, Any],
                 preset: Preset | None = None) -> None:
        super().__init__(info, "bids", players, seed, options, preset)
        self.sizes: tuple[int, ...] = hand_sizes(players, options)
        self.ppt: int = options["points_per_trick"]
        self.bonus: int = options["bonus"]
        self.zero_score: int = (self.ppt + self.bonus if options["zero_bid"] == "as_one_trick"
                                else self.bonus)
        self.miss: str = options["scoring"]
        self.hook: bool = options["hook"]
        self.must_trump: bool = options["must_trump"]
        self.limits_void = self.must_trump
        self.bid_ranges: dict[int, tuple[int, ...]] = {size: tuple(range(size + 1))
                                                       for size in set(self.sizes)}
        self.deals: tuple[trickgame.Deal, ...] = deal_all(self)

    def deal_score(self, bid: int, tricks: int) -> int:
        """One player's score for one deal."""
        if tricks == bid:
            return self.ppt * bid + self.bonus if bid else self.zero_score
        if self.miss == "classic":
            return 0
        if self.miss == "penalty":
            return -self.ppt * (bid - tricks) if tricks < bid else 0
        if self.miss == "oh_hell":
            return self.ppt * tricks
        return -self.ppt * abs(tricks - bid)  # oh_hell_penalty

    def deal_score_range(self) -> tuple[int, int]:
        """Every bid and trick count of every hand size the sequence deals, scored."""
        scores = [self.deal_score(bid, tricks) for size in set(self.sizes)
                  for bid in range(size + 1) for tricks in range(size + 1)]
        return min(scores), max(scores)

    def deal(self, number: int) -> trickgame.Deal:
        """Deal ``number``: every deal is dealt when the game starts (``deal_all``)."""
        return self.deals[number - 1]

    @property
    def most_deals(self) -> int:
        """One deal per hand size."""
        return len(self.sizes)

    def auction_actions(self, state: trickgame.State) -> tuple[int, ...]:
        """The bids: 0..hand size, less the one the hook forbids the last bidder."""
        bids = self.bid_ranges[state.phase.deal.size]
        forbidden = self._hooked_bid(state)
        if forbidden is not None:
            return tuple([b for b in bids if b != forbidden])
        return bids

    def _hooked_bid(self, state: trickgame.State) -> int | None:
        """The bid the hook forbids the last bidder, or None."""
        phase = state.phase
        if not self.hook or len(phase.auction) != self.players - 1:
            return None
        forbidden = phase.deal.size - sum([int(b) for _, b in phase.auction])
        return forbidden if forbidden >= 0 else None

    def parse_auction(self, raw: object) -> int:
        """A bid: an integer."""
        if isinstance(raw, bool) or not isinstance(raw, int):
            raise InvalidActionError(f"{shown(raw)} is not a bid (an integer)")
        return raw

    def auction(self, state: trickgame.State, action: object) -> trickgame.State:
        """The state after the seat to act bids ``action``."""
        seat = state.to_act
        assert seat is not None
        if isinstance(action, bool) or not isinstance(action, int) or type(action) is Card:
            raise InvalidActionError(f"seat {seat} bid {shown(action)}: a bid is an integer")
        size = state.phase.deal.size
        if not 0 <= action <= size:
            raise IllegalActionError(f"seat {seat} bid {shown(action)}: bids are 0..{size} in this deal")
        if action == self._hooked_bid(state):
            raise IllegalActionError(
                f"seat {seat} bid {action}: the hook forbids the last bid that makes the total {size}"
            )
        bids = state.phase.auction + ((seat, action),)
        events = (("bid", seat, action),)
        if len(bids) == self.players:
            return trickgame.after_auction(state, bids, None, "play", state.leader, events)
        return trickgame.after_auction(state, bids, None, "bid", (seat + 1) % self.players, events)

    def void_cards(self, state: trickgame.State, mask: int) -> tuple[Card, ...]:
        """Any card, or with ``must_trump`` a trump when the seat holds one."""
        trump = state.phase.deal.trump_suit
        if self.must_trump and trump != NO_TRUMP:
            return SUIT_CARDS[trump][(mask >> (trump << 4)) & RANK_BITS] or cards_of(mask)
        return cards_of(mask)

    def play_restriction(self, state: trickgame.State, seat: int, card: Card) -> str:
        """Only ``must_trump`` restricts a card in hand that follows suit."""
        led = state.current[0][1] >> 4
        trump = state.phase.deal.trump_suit
        return (f"seat {seat} played {card}: must trump ({SUIT_NAMES[trump]}) when void in "
                f"{SUIT_NAMES[led]}")

    def deal_scores(self, phase: trickgame.Phase, tricks: tuple[int, ...]) -> tuple[int, ...]:
        """Every seat's score for its bid and the tricks it won."""
        bid_by_seat = [0] * self.players
        for seat, bid in phase.auction:
            bid_by_seat[seat] = int(bid)
        return tuple([self.deal_score(bid_by_seat[s], tricks[s]) for s in range(self.players)])

    def is_last_deal(self, deal: trickgame.Deal, totals: tuple[int, ...]) -> bool:
        """The game ends after the last deal of the sequence."""
        return deal.number == len(self.sizes)

    def places(self, phase: trickgame.Phase) -> list[int]:
        """Places by total; ``tiebreak`` decides ties."""
        exact = [0] * self.players
        for result in phase.history:
            for seat, bid in result.auction:
                exact[seat] += bid == result.tricks[seat]
        return places_of(phase.totals, exact, self.options["tiebreak"])

    def auction_fields(self, auction: trickgame.Auction,
                       contract: trickgame.Contract | None) -> dict[str, object]:
        """The bids."""
        return {"bids": pairs_list(auction)}

    def auction_line(self, event: trickgame.Event) -> str:
        """A bid: ``("bid", seat, bid)``."""
        return f'{{"type":"event","event":"bid","seat":{event[1]:d},"bid":{event[2]:d}}}\n'

    def view_deal_fields(self, deal: trickgame.Deal) -> dict[str, object]:
        """The number of deals and this one's hand size."""
        return {"deals": len(self.sizes), "hand_size": deal.size}

    def record_deal_fields(self, deal: trickgame.Deal) -> dict[str, object]:
        """The deal's hand size."""
        return {"hand_size": deal.size}


def deal_all(rules: Rules) -> tuple[trickgame.Deal, ...]:
    """Every deal of the game, drawn from one stream seeded by the game's seed.

    The first dealer is drawn first; each deal then takes a partial Fisher-Yates shuffle of the
    cards it needs (the hands, plus the turned card when one is turned). What the rules' preset
    gives replaces what is drawn, and is still drawn, so that later deals stay the seed's.
    """
    players = rules.players
    preset = rules.preset
    given_deals = () if preset is None else preset.deals
    if preset is not None:
        check_dealer(preset, players)
        if len(given_deals) > len(rules.sizes):
            raise PresetError(f"preset: {len(given_deals)} deals given, "
                              f"the game has {len(rules.sizes)}")
    rng = random.Random(derive_seed(rules.seed, "blackout-deals"))
    dealer = rng.randrange(players)
    if preset is not None and preset.dealer is not None:
        dealer = preset.dealer
    no_trump_last = rules.options["no_trump_last"] == "always"
    deals = []
    count = len(rules.sizes)
    for index in range(count):
        number = index + 1
        size = rules.sizes[index]
        dealt = players * size
        turn = dealt < 52 and not (number == count and no_trump_last)
        cards = shuffled_prefix(rng, dealt + 1 if turn else dealt)
        if number <= len(given_deals):
            given = given_deals[index]
            check_deal(given, number, players, size, turn)
            masks = tuple([mask_of(hand) for hand in given.hands])
            trump_card = given.trump_card
        else:
            masks = tuple(dealt_masks(cards, dealer, players, dealt))
            trump_card = CARD_BY_VALUE[cards[dealt]] if turn else None
        trump = None if trump_card is None else trump_card >> 4
        deals.append(trickgame.Deal(number, dealer, size, masks, trump_card, trump))
        dealer = dealer + 1 if dealer + 1 < players else 0
    return tuple(deals)


def new_game(players: int, seed: int, options: Mapping[str, object] | None = None, *,
             preset: Preset | None = None) -> trickgame.State:
    """A new game for ``players`` seats; the same seed and options always give the same game.

    ``preset`` gives the first dealer and the first deals instead of drawing them (PresetError
    when the rules could not have dealt them).
    """
    return trickgame.start_game(Rules(players, seed, resolve_options(players, options), preset))


def places_of(totals: Sequence[int], exact: Sequence[int], tiebreak: str) -> list[int]:
    """Places from totals; with ``most_exact_bids`` equal totals are ranked by exact bids."""
    if tiebreak == "most_exact_bids":
        keys = list(zip(totals, exact, strict=True))
    else:
        keys = [(t, 0) for t in totals]
    return [1 + sum(other > key for other in keys) for key in keys]


GAME: Final[trickgame.TrickGame] = trickgame.TrickGame(info, resolve_options, new_game)
"""Blackout as the arena plays it (``engine.game("blackout")``): this module's rules, and the
functions of ``engine.trickgame`` over its states."""
