"""Game options: each game declares its options once; this module validates and fills defaults.

Values may arrive as strings (from ``--option name=value`` on the command line) and are coerced;
anything else wrong raises ``OptionError`` naming the option and what it accepts.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.errors import OptionError

POINTS = 1_000_000
"""The largest score option (in either sign): with every integer option bounded, every total a
game can reach fits a 64-bit integer, as its record (JSON) and the ratings (numpy) need."""


@dataclass(frozen=True)
class IntOption:
    """An integer option in ``[low, high]`` (None: unbounded on that side)."""

    default: int | None
    low: int | None
    high: int | None = None
    description: str = ""

    def coerce(self, name: str, value: object) -> int:
        """The value as a validated int."""
        if isinstance(value, str):
            try:
                value = int(value.strip())
            except ValueError:
                raise _invalid(name, f"expected an integer, got {value!r}") from None
        if isinstance(value, bool) or not isinstance(value, int):
            raise _invalid(name, f"expected an integer, got {value!r}")
        if (self.low is not None and value < self.low) or (self.high is not None and value > self.high):
            raise _invalid(name, f"{value} is out of range ({self.allowed})")
        return value

    @property
    def allowed(self) -> str:
        """The range in words: ``1..13``, ``>= 0``, ``<= 5`` or ``any integer``."""
        if self.low is not None and self.high is not None:
            return f"{self.low}..{self.high}"
        if self.low is not None:
            return f">= {self.low}"
        return "any integer" if self.high is None else f"<= {self.high}"


@dataclass(frozen=True)
class ChoiceOption:
    """One of a fixed set of strings; the first is the default."""

    choices: tuple[str, ...]
    description: str = ""

    @property
    def default(self) -> str:
        """The first choice."""
        return self.choices[0]

    @property
    def allowed(self) -> str:
        """The choices in words."""
        return ", ".join(self.choices)

    def coerce(self, name: str, value: object) -> str:
        """The value, checked against the choices."""
        if value not in self.choices:
            raise _invalid(name, f"{value!r} is not one of {', '.join(self.choices)}")
        return str(value)


@dataclass(frozen=True)
class BoolOption:
    """``true`` or ``false`` (default false)."""

    default: bool = False
    description: str = ""

    @property
    def allowed(self) -> str:
        """The values in words."""
        return "true, false"

    def coerce(self, name: str, value: object) -> bool:
        """The value as a bool; accepts the strings true/false/yes/no/1/0."""
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.strip().lower() in _BOOL_WORDS:
            return _BOOL_WORDS[value.strip().lower()]
        raise _invalid(name, f"expected true or false, got {value!r}")


def _invalid(name: str, problem: str) -> OptionError:
    return OptionError(f"option '{name}': {problem}", option=name, problem=problem)


_BOOL_WORDS = {"true": True, "false": False, "yes": True, "no": False, "1": True, "0": False}

Option = IntOption | ChoiceOption | BoolOption


def resolve(game: str, spec: Mapping[str, Option], raw: Mapping[str, object] | None) -> dict[str, Any]:
    """Every option of ``spec`` with ``raw``'s values validated and the rest at their defaults."""
    raw = dict(raw or {})
    unknown = sorted(set(raw) - set(spec))
    if unknown:
        problem = f"{game} has no such option (options: {', '.join(spec)})"
        raise OptionError(f"{game} has no option '{unknown[0]}' (options: {', '.join(spec)})",
                          option=unknown[0], problem=problem)
    resolved: dict[str, Any] = {}
    for name, option in spec.items():
        resolved[name] = option.coerce(name, raw[name]) if name in raw else option.default
    return resolved


@dataclass(frozen=True)
class OptionInfo:
    """One option as a user reads it: name, type, default, what it accepts, what it does."""

    name: str
    type: str
    """``int``, ``choice`` or ``bool``."""
    default: int | str | bool | None
    allowed: str
    """What a value may be, in words: ``1..13``, ``>= 0``, ``up, down, up_down``, ``true, false``."""
    description: str
    choices: tuple[str, ...] = ()
    low: int | None = None
    high: int | None = None


def option_infos(spec: Mapping[str, Option]) -> tuple[OptionInfo, ...]:
    """The schema of ``spec``, in its order, as ``OptionInfo`` values."""
    infos = []
    for name, option in spec.items():
        if isinstance(option, IntOption):
            infos.append(OptionInfo(name, "int", option.default, option.allowed, option.description,
                                    low=option.low, high=option.high))
        elif isinstance(option, ChoiceOption):
            infos.append(OptionInfo(name, "choice", option.default, option.allowed,
                                    option.description, choices=option.choices))
        else:
            infos.append(OptionInfo(name, "bool", option.default, option.allowed, option.description))
    return tuple(infos)
