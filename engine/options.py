"""Game options: each game declares its options once; this module validates and fills defaults.

Values may arrive as strings (from ``--option name=value`` on the command line) and are coerced;
anything else wrong raises ``OptionError`` naming the option and what it accepts.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.errors import OptionError


@dataclass(frozen=True)
class IntOption:
    """An integer option in ``[low, high]`` (``high`` None: unbounded)."""

    default: int | None
    low: int
    high: int | None = None

    def coerce(self, name: str, value: object) -> int:
        """The value as a validated int."""
        if isinstance(value, str):
            try:
                value = int(value.strip())
            except ValueError:
                raise _invalid(name, f"expected an integer, got {value!r}") from None
        if isinstance(value, bool) or not isinstance(value, int):
            raise _invalid(name, f"expected an integer, got {value!r}")
        if value < self.low or (self.high is not None and value > self.high):
            upper = "" if self.high is None else f"..{self.high}"
            bound = f"{self.low}{upper}" if upper else f">= {self.low}"
            raise _invalid(name, f"{value} is out of range ({bound})")
        return value


@dataclass(frozen=True)
class ChoiceOption:
    """One of a fixed set of strings; the first is the default."""

    choices: tuple[str, ...]

    def coerce(self, name: str, value: object) -> str:
        """The value, checked against the choices."""
        if value not in self.choices:
            raise _invalid(name, f"{value!r} is not one of {', '.join(self.choices)}")
        return str(value)


@dataclass(frozen=True)
class BoolOption:
    """``true`` or ``false`` (default false)."""

    default: bool = False

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
        if name in raw:
            resolved[name] = option.coerce(name, raw[name])
        elif isinstance(option, ChoiceOption):
            resolved[name] = option.choices[0]
        else:
            resolved[name] = option.default
    return resolved
