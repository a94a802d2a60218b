"""The results line's schema: every field, its type, the format since which every line has it,
and what it means, declared once as data.

The checks (``arena.records.check``), the upgrade of older lines (``arena.records.upgrade``), the
measured fields that two plays of one game do not share (``without_times``) and the tables of
docs/records.md (``markdown_table``, kept equal by a test) are all made from these declarations.

Formats: a line says its format in its first field, ``format`` (``FORMAT``, 2 today). A line
without one is format 1: every line written before formats existed. Format 1 lines come in the
shapes the arena wrote over time (no decision times at first, then no CPU times, no duplicate
set...); a field that some of them lack is declared ``since=2`` with ``older``, what
``upgrade()`` gives a line that lacks it. Every field with ``since=1`` is in every line ever
written.

Adding a field: declare it in its part below, where the writer puts it, with ``since=FORMAT + 1``
and ``older`` (what lines written before it get, usually None: not recorded), raise ``FORMAT`` by
one, and write it in ``arena.records.writer``; docs/records.md gets the table's new row.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property
from operator import itemgetter
from typing import Any

import engine
from arena.settings import Clock
from arena.values.faults import FaultKind, TimeLimit
from arena.values.ids import set_of_game

FORMAT = 3
"""The format this arena writes, and the newest it reads."""


@dataclass(frozen=True)
class Type:
    """What a field's value may be: as docs/records.md says it, and as a test of a value.

    ``exact`` is set for a scalar that is a value of one of those types: lists of it are then
    tested at C speed (a report reads every field of every deal of every line)."""

    text: str
    test: Callable[[object], bool]
    plural: str = ""
    """The words for a list of these (``list of {plural}``)."""
    exact: frozenset[type] | None = None


def _scalar(text: str, plural: str, *types: type) -> Type:
    exact = frozenset(types)
    return Type(text, lambda value: type(value) in exact, plural, exact)


INT = _scalar("int", "ints", int)  # not a bool: type(True) is bool
NUMBER = _scalar("number", "numbers", int, float)
STRING = _scalar("string", "strings", str)
BOOL = _scalar("bool", "bools", bool)
OBJECT = _scalar("object", "objects", dict)


def nullable(kind: Type) -> Type:
    """``kind``, or null."""
    text = f"{kind.text}, or null" if " or " in kind.text else f"{kind.text} or null"
    if kind.exact is not None:
        return _scalar(text, f"{kind.plural} or nulls", *kind.exact, type(None))
    test = kind.test
    return Type(text, lambda value: value is None or test(value), f"{kind.plural} or nulls")


def list_of(kind: Type, text: str | None = None) -> Type:
    """A list of ``kind``."""
    text = text or f"list of {kind.plural}"
    exact, test = kind.exact, kind.test
    if exact is not None:
        return Type(text, lambda value: type(value) is list and exact.issuperset(map(type, value)))
    return Type(text, lambda value: type(value) is list and all(map(test, value)))


def one_of(values: Iterable[str]) -> Type:
    """One of the strings ``values`` (from their enum: a value added there is read here)."""
    allowed = tuple(values)
    named = [f"`{value}`" for value in allowed]
    text = named[0] if len(named) == 1 else ", ".join(named[:-1]) + " or " + named[-1]
    return Type(text, lambda value: type(value) is str and value in allowed, "strings")


def pairs_of(second: Type, text: str) -> Type:
    """A list of ``[seat, value]`` pairs, ``value`` a scalar of ``second``."""
    assert second.exact is not None
    exact = second.exact
    return Type(text, lambda value: type(value) is list and is_pairs(value, exact))


_LISTS, _TWO, _INTS = frozenset((list,)), frozenset((2,)), frozenset((int,))
_FIRST, _SECOND = itemgetter(0), itemgetter(1)


def is_pairs(values: list[Any], second: frozenset[type]) -> bool:
    """Whether ``values`` are ``[int, value]`` lists, each value's type in ``second`` (every
    test a C loop: the plays of a long game are hundreds of pairs)."""
    return (_LISTS.issuperset(map(type, values)) and _TWO.issuperset(map(len, values))
            and _INTS.issuperset(map(type, map(_FIRST, values)))
            and second.issuperset(map(type, map(_SECOND, values))))


CARDS = list_of(STRING, "list of cards")
TIMES = list_of(nullable(NUMBER))


@dataclass(frozen=True)
class Older:
    """What ``upgrade()`` gives a line of an older format that lacks a field: ``value``, or what
    ``derive(line)`` makes of the whole line; ``text`` says it in docs/records.md."""

    text: str
    value: object = None
    derive: Callable[[Mapping[str, Any]], object] | None = None


NOT_RECORDED = Older("null (not recorded then)")


@dataclass(frozen=True)
class Field:
    """One field of a part of the line."""

    name: str
    type: Type
    meaning: str
    since: int = 1
    """The first format in which every line (of the games it is written for) has it."""
    older: Older | None = None
    """What a line of a format before ``since`` gets instead (None: only for ``since=1``)."""
    when: str | None = None
    """Written only for some games (docs); None: in every line."""
    beside: str | None = None
    """Written exactly where the field ``beside`` is (``bid_ms`` beside ``bids``)."""
    measured: bool = False
    """A time measured while playing: two plays of the same game differ in it."""
    private: bool = False
    """What the bot wrote for itself (its stderr): a string shown only to the bot's owner and the
    organiser, emptied for anyone else (``arena.records.visible``)."""

    @property
    def required(self) -> bool:
        """Whether every line of the current format has it."""
        return self.when is None and self.beside is None


@dataclass(frozen=True)
class Part:
    """An object of the line (the line itself, each deal, each fault...) and its fields in the
    order the writer writes them."""

    title: str
    where: str
    """Where it is in the line, as the check's messages say it (``deals[i]``)."""
    fields: tuple[Field, ...]

    def field(self, name: str) -> Field:
        """The field called ``name``; KeyError if this part has none."""
        return self.by_name[name]

    @cached_property
    def by_name(self) -> dict[str, Field]:
        """The fields by name."""
        return {field.name: field for field in self.fields}


def _set_of_id(line: Mapping[str, Any]) -> object:
    game_id = line.get("id")
    return set_of_game(game_id) if isinstance(game_id, str) else None


TIME_CONTROL = Part("The time control", "time_control", (
    Field("move_ms", INT, "Each decision's allowance."),
    Field("bank_ms", INT, "The extra time each seat has for the whole game."),
))

CONTRACT = Part("A contract", "deals[i].contract", (
    Field("team", INT, "The contracting team (an index into `teams`)."),
    Field("kind", STRING, "`number` (take at least `tricks` tricks) or `zero` (take none)."),
    Field("tricks", INT, "The tricks bid (0 for `zero`)."),
))

DEAL = Part("A deal", "deals[i]", (
    Field("deal", INT, "The deal's number, from 1."),
    Field("dealer", INT, "The dealer's seat."),
    Field("hand_size", INT, "Cards dealt to each seat.", when="Blackout"),
    Field("hands", list_of(CARDS, "list of card lists"),
          "Each seat's hand as dealt, by seat; cards are two characters, rank then suit (`TD`, "
          "`AS`)."),
    Field("trump_card", nullable(STRING),
          "Blackout: the card turned up for trump (null when no card is left to turn). "
          "Partnership: always null."),
    Field("trump", nullable(STRING),
          "The trump suit's letter (`C`, `D`, `H`, `S`), null for no trump; always `S` in "
          "Partnership Blackout."),
    Field("bids", pairs_of(INT, "list of `[seat, bid]`"),
          "The bids in the order made.", when="Blackout"),
    Field("calls", pairs_of(_scalar("int or string", "", int, str), "list of `[seat, call]`"),
          "The calls in the order made: a number of tricks, `pass` or `zero`.",
          when="Partnership Blackout"),
    Field("contract", nullable(OBJECT),
          "The contract the auction ended with (below); null for a void deal (every seat passed).",
          when="Partnership Blackout"),
    Field("plays", pairs_of(STRING, "list of `[seat, card]`"),
          "Every card played, in order; each run of `players` plays is one trick, led by the "
          "winner of the one before."),
    Field("tricks", list_of(INT), "Tricks each seat took."),
    Field("scores", list_of(INT),
          "The deal's score: by seat (Blackout) or by team (Partnership)."),
    Field("totals", list_of(INT), "Running totals after the deal, indexed like `scores`."),
    Field("bid_ms", nullable(TIMES),
          "Parallel to `bids`: the wall time each decision took, as the arena measured it (from "
          "writing the request to reading the whole reply line), 0.1 ms resolution. Null for a "
          "decision the fallback made (the seat had faulted); for the decision that faulted, the "
          "time until the fault was detected (null if none was being timed).",
          since=2, older=NOT_RECORDED, beside="bids", measured=True),
    Field("call_ms", nullable(TIMES), "The same, parallel to `calls`.",
          since=2, older=NOT_RECORDED, beside="calls", measured=True),
    Field("play_ms", nullable(TIMES), "The same, parallel to `plays`.",
          since=2, older=NOT_RECORDED, measured=True),
    Field("bid_cpu_ms", nullable(TIMES),
          "Parallel to `bids`: the CPU time the bot's process tree (every thread and child "
          "process, below `bwrap` too) used from its previous reply to this one (read once per "
          "decision, just after the reply: what a bot does between two decisions counts toward "
          "the next; 0.1 ms resolution; a child process that started and exited between two "
          "readings is not counted). Under `clock: cpu` this is what the decision was charged; "
          "under `clock: fair` it was charged at least this, and at most `bid_ms`. "
          "Nulls as in `bid_ms`.",
          since=2, older=NOT_RECORDED, beside="bids", measured=True),
    Field("call_cpu_ms", nullable(TIMES), "The same, parallel to `calls`.",
          since=2, older=NOT_RECORDED, beside="calls", measured=True),
    Field("play_cpu_ms", nullable(TIMES), "The same, parallel to `plays`.",
          since=2, older=NOT_RECORDED, measured=True),
))

FAULT = Part("A fault", "faults[i]", (
    Field("kind", one_of(kind.value for kind in FaultKind), "What went wrong (docs/protocol.md)."),
    Field("bot", STRING, "The bot's name."),
    Field("seat", INT, "Its seat."),
    Field("detail", STRING, "One line: what went wrong, in the arena's words (it never quotes "
          "the bot's stderr: that is `stderr_tail`)."),
    Field("sent", STRING, "The request that faulted (cut to 200 characters)."),
    Field("received", STRING, "What came back, if anything (cut to 200 characters)."),
    Field("stderr_tail", STRING, "The end of the bot's stderr (up to 2 KB).", private=True),
    Field("elapsed_ms", nullable(NUMBER),
          "From the request to the fault; null when no request was being timed."),
    Field("exit_code", nullable(INT), "A crash: the exit status of a bot that exited by itself.",
          since=2, older=NOT_RECORDED),
    Field("signal", nullable(STRING),
          "A crash: the signal that ended the bot (its name, e.g. `SIGKILL`).",
          since=2, older=NOT_RECORDED),
    Field("memory_peak_mb", nullable(NUMBER),
          "A crash: the bot's peak memory, when the arena killed it for going over its limit.",
          since=2, older=NOT_RECORDED),
    Field("cpu_ms", nullable(NUMBER),
          "A timeout: the CPU time the bot's process tree used from the request to the fault.",
          since=2, older=NOT_RECORDED),
    Field("limit", nullable(one_of(limit.value for limit in TimeLimit)),
          "A timeout: the limit that ended it: `fair` (its allowance of its own time under "
          "`clock: fair`), `cpu` (its CPU allowance under `clock: cpu`), `wall` (its allowance "
          "under `clock: wall`) or `wall_cap` (the wall cap under `clock: fair` or `cpu`).",
          since=2, older=NOT_RECORDED),
    Field("deal", INT, "The deal it happened in."),
    Field("decision", INT,
          "The game-wide decision number (from 1, bids, calls and plays counted together) it "
          "happened at; 0 before the first decision (a bot that never started). Kept game-wide "
          "here; what a person reads (`arena show`, `arena play`, check-bot, the replays) "
          "numbers it within its deal: `deal 3, decision 2`."),
))

RESULT = Part("The result", "result", (
    Field("entrants", list_of(STRING),
          "The entrants in the game: by seat (Blackout), by team (Partnership: the team's bot "
          "name, or `a+b` for a mixed team)."),
    Field("scores", list_of(NUMBER), "Their final scores."),
    Field("ranks", list_of(INT),
          "Their places after the fault policy (a forfeiting entrant is placed below every "
          "other)."),
    Field("forfeits", list_of(BOOL), "Which entrants forfeited."),
    Field("faults", list_of(INT), "Faults per entrant."),
    Field("set", nullable(STRING),
          "The duplicate set: the games of one table and round, which share the deals "
          "(`r3-t0002`); the ratings resample whole sets. Null: a set of its own.",
          since=2, older=Older("from the game's `id` (`arena.values.ids`); null for an id "
                               "none of the arena's runs gives", derive=_set_of_id)),
))

GAME = Part("The game", "", (
    Field("format", INT, f"The line's format: {FORMAT}.", since=2,
          older=Older(f"`upgrade()` brings them to {FORMAT}", value=FORMAT)),
    Field("id", STRING,
          "The game's id in its run (`arena.values.ids`): `r3-t0002-s1` (a tournament's round "
          "3, table 2, seat rotation 1), `u00012-c` (a match's unit 12, candidate game), "
          "`s000017-r2` (a league's set 17, rotation 2)."),
    Field("game", one_of(engine.GAMES), "The game played."),
    Field("players", INT, "Number of seats."),
    Field("options", OBJECT, "Every game option with its value (defaults filled in)."),
    Field("seed", INT, "The deals' seed: the same seed and options give the same deals."),
    Field("preset", OBJECT,
          "The chance steps given instead of drawn (`{\"dealer\", \"deals\"}`: the engine's "
          "preset deals).", when="games played from preset deals"),
    Field("names", list_of(STRING), "The bot in each seat, by seat."),
    Field("owners", nullable(list_of(STRING)),
          "Who entered the bot in each seat, by seat, like `names`: a tournament bot's `owner` "
          "(its own name when it has none), a league entrant's owner (the participant who "
          "uploaded it, the `--owner` of `league submit`, else its own `NAME@VERSION`: the "
          "organiser's own entrants are each their own owner). Two seats of one owner are two "
          "bots of one owner at one table.",
          since=3, older=NOT_RECORDED),
    Field("teams", list_of(list_of(INT), "list of seat lists"),
          "The seats of each team, team 0 first: `[[0, 2], [1, 3]]`.", when="Partnership Blackout"),
    Field("deals", list_of(OBJECT, "list of deals"), "Every finished deal, in order (below)."),
    Field("scores", list_of(INT),
          "Final totals: by seat in Blackout, by team in Partnership Blackout."),
    Field("places", list_of(INT),
          "Places by the rules (1 = best, ties share a place), indexed like `scores`."),
    Field("complete", BOOL,
          "False when the game stopped before its end (the record then replays as far as it "
          "goes)."),
    Field("faults", list_of(OBJECT, "list of faults"),
          "Every fault, in the order they happened (below); empty for a clean game."),
    Field("time_control", nullable(OBJECT), "The time control (below).",
          since=2, older=NOT_RECORDED),
    Field("bank_used_ms", nullable(list_of(NUMBER)),
          "By seat: how much of its bank the seat spent (0 to `bank_ms`), in the time the clock "
          "charges.", since=2, older=NOT_RECORDED, measured=True),
    Field("clock", one_of(clock.value for clock in Clock),
          "What `move_ms` and the bank measured (docs/protocol.md, Time).",
          since=2, older=Older("`wall` (the arena timed by wall time then)", value=Clock.WALL.value)),
    Field("wall_ms", nullable(INT),
          "The wall cap of a decision (`time.wall_ms`, or its default).",
          since=2, older=NOT_RECORDED),
    Field("stalls", nullable(list_of(INT)),
          "By seat: waits for the seat's bot that woke up over 25 ms past their deadline because "
          "the arena itself was not running. Not held against the bot; the run's summary adds "
          "them up.", since=2, older=NOT_RECORDED, measured=True),
    Field("result", OBJECT, "What the ratings read (below)."),
))

PARTS = (GAME, DEAL, CONTRACT, FAULT, TIME_CONTROL, RESULT)
"""Every part of a line, in the order docs/records.md describes them."""


def without_times(line: Mapping[str, Any]) -> dict[str, Any]:
    """``line`` (a record or results line) without its measured times: what two plays of the
    same game have in common."""
    timed = {field.name for field in GAME.fields if field.measured}
    timed_deal = {field.name for field in DEAL.fields if field.measured}
    deals = [{k: v for k, v in deal.items() if k not in timed_deal} for deal in line.get("deals", ())]
    return {**{k: v for k, v in line.items() if k not in timed}, "deals": deals}


def markdown_table(part: Part) -> str:
    """The part's fields as docs/records.md shows them: field, type, since, meaning."""
    rows = ["| field | type | since | meaning |", "|---|---|---|---|"]
    for field in part.fields:
        meaning = field.meaning
        if field.when is not None:
            meaning = f"Only for {field.when}. {meaning}"
        if field.older is not None:
            formats = "format 1" if field.since == 2 else f"formats 1 to {field.since - 1}"
            meaning += f" Lines without it ({formats}): {field.older.text}."
        if field.private:
            meaning += (" Private: a served league shows it to the bot's owner alone, and `league "
                        "export` empties it unless given `--with-stderr` (docs/serve.md).")
        rows.append(f"| `{field.name}` | {field.type.text} | {field.since} | {meaning} |")
    return "\n".join(rows)
