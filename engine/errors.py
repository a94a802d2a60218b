"""The engine's error types: every rule violation is one of these, never a bare exception; and
``shown``, how they (and the arena's messages) quote a value that came from outside."""

from __future__ import annotations

import reprlib

SHOWN_LENGTH = 60
"""The most characters of a value an error message quotes."""
_LOG10_2 = 0.30102999566398120


class _ShortRepr(reprlib.Repr):
    """reprlib's bounded repr, with strings and objects cut at the end (the start is what a reader
    recognises), not in the middle, and integers too long to quote by their number of digits."""

    def __init__(self) -> None:
        super().__init__()
        self.maxstring = self.maxother = self.maxlong = SHOWN_LENGTH
        self.maxlevel = 2

    def repr_str(self, x: str, level: int) -> str:
        return repr(x) if len(x) <= self.maxstring else f"{x[:self.maxstring]!r}..."

    def repr_int(self, x: int, level: int) -> str:
        if x.bit_length() <= 3 * self.maxlong:  # under maxlong digits: printed whole
            return repr(x)
        # Not printed at all: past 4,300 digits Python refuses to (sys.get_int_max_str_digits).
        return f"({'a negative' if x < 0 else 'an'} integer of {_digits(x):,} digits)"

    def repr_instance(self, x: object, level: int) -> str:
        text = repr(x)  # small value types (a Card, the arena's TimeControl, enums)
        return text if len(text) <= self.maxother else f"{text[:self.maxother]}..."


_SHORT_REPR = _ShortRepr()


def shown(value: object, limit: int = SHOWN_LENGTH) -> str:
    """``repr(value)`` cut to ``limit`` characters, never built whole (a hostile value may be huge,
    deeply nested, refer to itself, or be an integer of more digits than Python prints)."""
    text = _SHORT_REPR.repr(value)
    return text if len(text) <= limit else f"{text[:limit - 3]}..."


def _digits(number: int) -> int:
    """How many decimal digits ``abs(number)`` has, without printing it (one power of ten)."""
    number = abs(number)
    digits = int((number.bit_length() - 1) * _LOG10_2) + 1  # exact or one short
    return digits + 1 if number >= 10 ** digits else digits


class EngineError(Exception):
    """Base of every error the engine raises."""


class OptionError(EngineError):
    """An unknown game, an unknown option, or an option value out of range.

    ``option`` names the option at fault (None when the problem is not one option's) and
    ``problem`` says what is wrong with it, so a caller can name its own key for it.
    """

    def __init__(self, message: str, option: str | None = None, problem: str | None = None) -> None:
        super().__init__(message)
        self.option = option
        self.problem = problem if problem is not None else message


class InvalidActionError(EngineError):
    """Not an action of the kind asked for (a bid that is not an integer, a card that is not a card)."""


class IllegalActionError(EngineError):
    """A well-formed action that the rules do not allow now (e.g. not following suit)."""


class ReplayError(EngineError):
    """A game record that does not replay: an illegal action, or a stored value the rules contradict."""


class UnknownGameError(OptionError):
    """A game name that no game of the engine answers to; ``known`` lists the names that do."""

    def __init__(self, name: object, known: tuple[str, ...]) -> None:
        problem = f"unknown game {name!r} (games: {', '.join(known)})"
        super().__init__(problem, option=None, problem=problem)
        self.name = name
        self.known = known


class PresetError(EngineError):
    """Preset deals the rules could not have dealt: wrong hand sizes, a card twice, a missing
    or extra turned card, more deals than the game has, a dealer who is not a seat."""
