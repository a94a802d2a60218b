"""Partnership Blackout: two fixed teams of two, spades trump, one auction round
(docs/rules.md, "Partnership Blackout").

Rules as implemented here:

- Seats 0 and 2 are team 0 (A), seats 1 and 3 team 1 (B). Every deal gives 13 cards to each seat,
  dealt one at a time from dealer+1. Spades are always trump; no card is turned.
- Auction: one round from dealer+1. A call is a number 1..12, ``pass`` or ``zero``. A ``pass`` or
  ``zero`` skips the caller's partner (recorded as the same call, absent from the list of calls) and,
  after the partner's number, cancels it. A team's call is PASS, ZERO, or NUMBER(min(12, sum)).
- NUMBER beats ZERO beats PASS; the higher NUMBER wins; equal NUMBERs or ZERO against ZERO go to the
  team of dealer+1. PASS against PASS: the deal is void (no play, no score; the deal passes on).
- Play: dealer+1 leads. Follow suit if able. ``spade_lead``: ``only_if_only_spades`` (a spade may be
  led only from a hand of spades alone), ``after_broken`` (also once a spade has been played to an
  earlier trick of the deal), ``any``.
- Score (contracting team only; the other scores 0), t its tricks, c its contract: NUMBER c: 13
  tricks scores ``all_tricks``; c <= t < 13 scores ``made`` + ``overtrick`` * (t - c); fewer scores
  ``fail``. ZERO: no trick for either partner scores ``nil``, else ``fail``. With ``contract_points``
  ``per_trick``: a made NUMBER scores ``made`` * c + ``overtrick`` * (t - c) and a failed one
  ``fail`` * c (the rules' 10 * c and -10 * c at the default values); ``all_tricks``, ``nil`` and a
  failed ZERO are unchanged.
- End: after a deal in which a team's total reaches ``target``, the higher total wins; equal totals
  play on. After ``max_deals`` deals (void deals count) the higher total wins, equal totals draw.
- The first dealer is drawn from the game's seed, each deal from a seed derived from it and the
  deal's number. A ``Preset`` (``engine.chance``) may give the first dealer and the first deals.

The state is an immutable value: ``apply`` returns a new state and never changes the one given.
What both games share (the state, playing a card, deal after deal, views, events, records, replay)
is ``engine.trickgame``; this module is what Partnership Blackout adds: its options, dealing, the
auction, spade leads, scoring and places, as the ``Rules`` that game runs by.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any, Final

from engine import trickgame
from engine.cards import RANK_BITS, SPADES, Card, cards_of, mask_of
from engine.chance import Preset, check_deal, check_dealer
from engine.errors import IllegalActionError, InvalidActionError, OptionError, PresetError, shown
from engine.game import GameInfo
from engine.options import POINTS, ChoiceOption, IntOption, Option, resolve
from engine.seeding import derive_seed
from engine.trick import Plays, dealt_masks, shuffled_prefix
from engine.wire import pairs_list, value_json

NAME: Final = "partnership-blackout"
PLAYER_COUNTS: Final = (4,)
TEAMS: Final = ((0, 2), (1, 3))
NUMBERS: Final = tuple(range(1, 13))
LEGAL_CALLS: Final[tuple[int | str, ...]] = (*NUMBERS, "pass", "zero")
_SPADE_BITS: Final = RANK_BITS << (SPADES * 16)

Call = int | str

MAX_DEALS: Final = 10_000
"""The most deals a game may be set to last (``max_deals``): each is a line of its record."""

OPTIONS: Final[dict[str, Option]] = {
    "target": IntOption(100, 1, POINTS, "the game ends after a deal in which a team reaches this total"),
    "max_deals": IntOption(200, 1, MAX_DEALS, "the game ends after this many deals (void deals count)"),
    "spade_lead": ChoiceOption(("only_if_only_spades", "after_broken", "any"),
                               "when a spade may be led by a hand that holds another suit"),
    "made": IntOption(10, -POINTS, POINTS, "a NUMBER contract made (per contracted trick with per_trick)"),
    "overtrick": IntOption(1, -POINTS, POINTS, "each trick over a made NUMBER contract"),
    "all_tricks": IntOption(40, -POINTS, POINTS, "a NUMBER contract that takes all 13 tricks"),
    "nil": IntOption(40, -POINTS, POINTS, "a ZERO contract made (neither partner takes a trick)"),
    "fail": IntOption(-10, -POINTS, POINTS,
                      "a contract missed (per contracted trick for NUMBER with per_trick)"),
    "contract_points": ChoiceOption(("flat", "per_trick"),
                                    "made and fail score once, or once per contracted trick"),
}


def option_spec(players: int) -> dict[str, Option]:
    """The options (the same for every game: it is always 4 players)."""
    if players != 4:
        raise OptionError(f"partnership-blackout is for exactly 4 players, not {players}")
    return OPTIONS


def resolve_options(players: int, raw: Mapping[str, object] | None = None) -> dict[str, Any]:
    """All options, ``raw`` validated and defaults filled in."""
    return resolve(NAME, option_spec(players), raw)


info: Final = GameInfo(
    name=NAME, title="Partnership Blackout", player_counts=PLAYER_COUNTS, default_players=4,
    teams=TEAMS, decision_kinds=("call", "play"), score_by="team", option_spec=option_spec,
    short_options={"target": 20, "max_deals": 3},
)
"""What Partnership Blackout is, for callers that must not ask its name (``engine.game``)."""


def contract_json(contract: trickgame.Contract | None) -> dict[str, Any] | None:
    """The record's and the view's form of a contract."""
    if contract is None:
        return None
    team, kind, tricks = contract
    return {"team": team, "kind": kind, "tricks": tricks}


class Rules(trickgame.Rules):
    """The per-game constants every state of one game shares, and Partnership Blackout's own rules."""

    __slots__ = ("after_broken", "first_dealer")

    def __init__(self, seed: int, options: dict[str, Any], preset: Preset | None = None) -> None:
        super().__init__(info, "calls", 4, seed, options, preset)
        self.limits_lead = options["spade_lead"] != "any"
        self.after_broken: bool = options["spade_lead"] == "after_broken"
        self.first_dealer = random.Random(derive_seed(seed, "partnership-dealer")).randrange(4)
        if preset is not None:
            check_dealer(preset, 4)
            if preset.dealer is not None:
                self.first_dealer = preset.dealer
            if len(preset.deals) > options["max_deals"]:
                raise PresetError(f"preset: {len(preset.deals)} deals given, the game lasts at most "
                                  f"{options['max_deals']} (max_deals)")
            for number, deal in enumerate(preset.deals, start=1):
                check_deal(deal, number, 4, 13, turns=False)

    def contract_score(self, contract: trickgame.Contract, tricks: Sequence[int]) -> int:
        """The contracting team's score for a deal, given tricks won by seat."""
        team, kind, bid = contract
        o = self.options
        if kind == "zero":
            return int(o["nil"] if tricks[team] + tricks[team + 2] == 0 else o["fail"])
        won = tricks[team] + tricks[team + 2]
        per_trick = o["contract_points"] == "per_trick"
        if won == 13:
            return int(o["all_tricks"])
        if won >= bid:
            return int((o["made"] * bid if per_trick else o["made"]) + o["overtrick"] * (won - bid))
        return int(o["fail"] * bid if per_trick else o["fail"])

    def deal_score_range(self) -> tuple[int, int]:
        """Every contract (a number 1..12, or zero) with every count of tricks its team can take,
        scored, and the 0 of a team without a contract (or of a void deal)."""
        contracts = [(0, "number", bid) for bid in range(1, 13)] + [(0, "zero", 0)]
        scores = [0] + [self.contract_score(contract, (won, 0, 0, 0))
                        for contract in contracts for won in range(14)]
        return min(scores), max(scores)

    def deal(self, number: int) -> trickgame.Deal:
        """Deal ``number`` (``deal_cards``)."""
        return deal_cards(self, number)

    @property
    def most_deals(self) -> int:
        """``max_deals``: a game that reaches its target ends sooner."""
        return int(self.options["max_deals"])

    def auction_actions(self, state: trickgame.State) -> tuple[Call, ...]:
        """Every call: a number 1..12, pass or zero."""
        return LEGAL_CALLS

    def parse_auction(self, raw: object) -> Call:
        """A call: an integer, ``pass`` or ``zero``."""
        if raw == "pass" or raw == "zero":
            return "pass" if raw == "pass" else "zero"
        if isinstance(raw, int) and not isinstance(raw, bool):
            return raw
        raise InvalidActionError(f"{shown(raw)} is not a call (1..12, \"pass\" or \"zero\")")

    def auction(self, state: trickgame.State, action: object) -> trickgame.State:
        """The state after the seat to act calls ``action``: the next caller's turn, or the
        contract's first lead, or (PASS against PASS) the next deal."""
        seat = state.to_act
        assert seat is not None
        if type(action) is str and (action == "pass" or action == "zero"):
            call: Call = action
        elif type(action) is int and 1 <= action <= 12:
            call = action
        elif isinstance(action, int) and not isinstance(action, bool) and type(action) is not Card:
            raise IllegalActionError(f"seat {seat} called {shown(action)}: a number call is 1..12")
        else:
            raise InvalidActionError(f"seat {seat} called {shown(action)}: not a call")
        dealer = state.phase.deal.dealer
        calls = state.phase.auction + ((seat, call),)
        partner = (seat + 2) % 4
        called = {s for s, _ in calls}
        skipped = partner if type(call) is str and partner not in called else None
        events = (("call", seat, call, skipped),)
        next_seat = _next_caller(dealer, calls)
        if next_seat is not None:
            return trickgame.after_auction(state, calls, None, "call", next_seat, events)
        contract = auction_winner(dealer, calls)
        if contract is None:  # PASS against PASS: a void deal
            return trickgame.end_deal(trickgame.after_auction(state, calls, None, "play", seat, events))
        return trickgame.after_auction(state, calls, contract, "play", state.leader, events)

    def auction_fields(self, auction: trickgame.Auction,
                       contract: trickgame.Contract | None) -> dict[str, object]:
        """The calls, and the contract once they make one."""
        return {"calls": pairs_list(auction), "contract": contract_json(contract)}

    def auction_line(self, event: trickgame.Event) -> str:
        """A call: ``("call", seat, call, skipped)``, skipped the partner it skips or None."""
        return (f'{{"type":"event","event":"call","seat":{event[1]},"call":{value_json(event[2])},'
                f'"skipped":{value_json(event[3])}}}\n')

    def lead_cards(self, state: trickgame.State, mask: int) -> tuple[Card, ...]:
        """Any card, but a spade only as ``spade_lead`` allows while the leader holds another suit:
        never (``only_if_only_spades``) or once a spade was played this deal (``after_broken``)."""
        if mask & ~_SPADE_BITS and not (self.after_broken and _spade_played(state.played)):
            return cards_of(mask & ~_SPADE_BITS)
        return cards_of(mask)

    def play_restriction(self, state: trickgame.State, seat: int, card: Card) -> str:
        """Only ``spade_lead`` restricts a card in hand: a spade led."""
        reason = ("spades are not broken" if self.after_broken
                  else "may not lead a spade while holding another suit")
        return f"seat {seat} led {card}: {reason}"

    def deal_scores(self, phase: trickgame.Phase, tricks: tuple[int, ...]) -> tuple[int, ...]:
        """The contracting team's score and 0 for the other; 0 and 0 for a void deal."""
        scores = [0, 0]
        if phase.contract is not None:
            scores[phase.contract[0]] = self.contract_score(phase.contract, tricks)
        return (scores[0], scores[1])

    def is_last_deal(self, deal: trickgame.Deal, totals: tuple[int, ...]) -> bool:
        """A team reached ``target`` with the totals unequal, or ``max_deals`` are played."""
        reached = max(totals) >= self.options["target"] and totals[0] != totals[1]
        return reached or deal.number >= self.options["max_deals"]

    def places(self, phase: trickgame.Phase) -> list[int]:
        """1 for the higher total, 1 and 1 for a draw."""
        a, b = phase.totals
        return [1 + (b > a), 1 + (a > b)]


def _spade_played(played: Plays) -> bool:
    """Whether a spade is among the plays of a deal."""
    node = played
    while node is not None:
        if node[2] >> 4 == SPADES:
            return True
        node = node[0]
    return False


def deal_cards(rules: Rules, number: int) -> trickgame.Deal:
    """Deal ``number`` (1-based): the preset's, else shuffled from a seed derived from the game's
    seed and ``number``."""
    dealer = (rules.first_dealer + number - 1) % 4
    preset = rules.preset
    if preset is not None and number <= len(preset.deals):
        masks = tuple([mask_of(hand) for hand in preset.deals[number - 1].hands])
    else:
        cards = shuffled_prefix(random.Random(derive_seed(rules.seed, "partnership-deal", number)), 52)
        masks = tuple(dealt_masks(cards, dealer, 4, 52))
    return trickgame.Deal(number, dealer, 13, masks, None, SPADES)


def new_game(players: int, seed: int, options: Mapping[str, object] | None = None, *,
             preset: Preset | None = None) -> trickgame.State:
    """A new game (``players`` must be 4); the same seed and options give the same game.

    ``preset`` gives the first dealer and the first deals instead of drawing them (PresetError
    when the rules could not have dealt them).
    """
    return trickgame.start_game(Rules(seed, resolve_options(players, options), preset))


def _next_caller(dealer: int, calls: Sequence[tuple[int, Call]]) -> int | None:
    """The next seat to call, skipping seats whose partner called pass or zero; None when done."""
    done = {seat for seat, _ in calls}
    done |= {(seat + 2) % 4 for seat, call in calls if call in ("pass", "zero")}
    for i in range(1, 5):
        seat = (dealer + i) % 4
        if seat not in done:
            return seat
    return None


def team_call(team: int, calls: Sequence[tuple[int, Call]]) -> tuple[str, int]:
    """A team's call from its members' calls: ("pass", 0), ("zero", 0) or ("number", n)."""
    own = [call for seat, call in calls if seat % 2 == team]
    if "pass" in own:
        return ("pass", 0)
    if "zero" in own:
        return ("zero", 0)
    return ("number", min(12, sum(int(c) for c in own)))


_STRENGTH = {"pass": 0, "zero": 1, "number": 2}


def auction_winner(dealer: int, calls: Sequence[tuple[int, Call]]) -> trickgame.Contract | None:
    """The contract the calls give, or None for a void deal (both teams pass)."""
    first_team = (dealer + 1) % 2
    kinds = [team_call(team, calls) for team in (0, 1)]
    keys = [(_STRENGTH[kind], n) for kind, n in kinds]
    if keys[0] == keys[1]:
        if kinds[0][0] == "pass":
            return None
        team = first_team
    else:
        team = 0 if keys[0] > keys[1] else 1
    kind, n = kinds[team]
    return (team, kind, n)


GAME: Final[trickgame.TrickGame] = trickgame.TrickGame(info, resolve_options, new_game)
"""Partnership Blackout as the arena plays it (``engine.game("partnership-blackout")``): this
module's rules, and the functions of ``engine.trickgame`` over its states."""
