"""YAML input files (tournament files, bot manifests): parsing and checks whose errors name the file,
the key and the problem, e.g. ``tournaments/x.yaml: bots[2].cmd: no such file 'bots/y'``."""

from __future__ import annotations

import re
import shlex
import shutil
from pathlib import Path
from typing import Any

import yaml

from arena.errors import ConfigError

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
"""Tournament and bot names: they become file and directory names."""
SCRIPT_SUFFIXES = (".py", ".js", ".mjs", ".rb", ".pl", ".sh", ".lua", ".jar")


class Where:
    """Builds ``FILE: KEY: PROBLEM`` errors."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def error(self, key: str, problem: str) -> ConfigError:
        """The error for ``key`` (empty: the file as a whole)."""
        return ConfigError(f"{self.path}: {key}: {problem}" if key else f"{self.path}: {problem}")

    def mapping(self, value: object, key: str, allowed: set[str]) -> dict[str, Any]:
        """``value`` as a mapping with only ``allowed`` keys."""
        if not isinstance(value, dict):
            raise self.error(key, f"expected a mapping, got {kind(value)}")
        unknown = sorted(str(k) for k in value if k not in allowed)
        if unknown:
            prefix = f"{key}." if key else ""
            raise self.error(f"{prefix}{unknown[0]}",
                             f"unknown key (allowed: {', '.join(sorted(allowed))})")
        return value

    def integer(self, value: object, key: str, low: int, high: int | None = None) -> int:
        """``value`` as an integer in ``low..high``."""
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.error(key, f"expected an integer, got {kind(value)}")
        if value < low or (high is not None and value > high):
            bound = f"{low}..{high}" if high is not None else f">= {low}"
            raise self.error(key, f"{value} is out of range ({bound})")
        return value

    def text(self, value: object, key: str) -> str:
        """``value`` as a non-empty string, stripped."""
        if not isinstance(value, str) or not value.strip():
            raise self.error(key, f"expected a non-empty string, got {kind(value)}")
        return value.strip()

    def name(self, value: object, key: str) -> str:
        """``value`` as a name that may become a file name (``NAME``)."""
        name = self.text(value, key)
        if not NAME.fullmatch(name):
            raise self.error(key, f"{name!r}: use letters, digits, '-', '_', '.', "
                                  "starting with a letter or digit (64 at most)")
        return name


def kind(value: object) -> str:
    """What ``value`` is, for an error message."""
    if value is None:
        return "nothing"
    if isinstance(value, str):
        return f"the string {value!r}"
    return f"{type(value).__name__} {value!r}"[:80]


def read_yaml(path: Path, what: str) -> object:
    """The YAML document in ``path``; ConfigError naming the file (``what`` it should be) and line."""
    try:
        text = path.read_text()
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such {what}") from None
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"{path}: cannot read: {getattr(error, 'strerror', None) or error}") from None
    try:
        return yaml.load(text, Loader=StrictLoader)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        line = f"line {mark.line + 1}: " if mark is not None else ""
        problem = getattr(error, "problem", None) or str(error).splitlines()[0]
        raise ConfigError(f"{path}: {line}invalid YAML: {problem}") from None


class StrictLoader(yaml.SafeLoader):
    """A SafeLoader that rejects a key given twice in one mapping (PyYAML keeps the last one)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        first_line: dict[object, int] = {}
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":  # '<<' merges may be overridden
                continue
            key = self.construct_object(key_node, deep=True)
            try:
                line = first_line.setdefault(key, key_node.start_mark.line + 1)
            except TypeError:  # an unhashable key: the base class reports it
                continue
            if line != key_node.start_mark.line + 1:
                raise yaml.constructor.ConstructorError(
                    None, None, f"duplicate key {key!r} (first on line {line})",
                    key_node.start_mark)
        return super().construct_mapping(node, deep=deep)


def command(where: Where, raw: object, key: str) -> tuple[str, ...]:
    """A command given as a string (split like a shell) or a list of words."""
    if isinstance(raw, list) and raw and all(isinstance(a, str | int | float) for a in raw):
        return tuple(str(a) for a in raw)
    if isinstance(raw, str):
        try:
            argv = shlex.split(raw)
        except ValueError as error:
            raise where.error(key, f"cannot split {raw!r}: {error}") from None
        if argv:
            return tuple(argv)
    raise where.error(key, f"expected a command (a string or a list of words), got {kind(raw)}")


def check_program(where: Where, argv: tuple[str, ...], workdir: str | None, key: str) -> None:
    """The program and any script path in ``argv`` must exist, so a typo fails before any game."""
    base = Path(workdir) if workdir else Path.cwd()
    program = argv[0]
    if "/" in program:
        if not (base / program).exists():
            raise where.error(key, f"no such file '{program}'")
    elif shutil.which(program) is None:
        raise where.error(key, f"'{program}' is not a program on PATH")
    for arg in argv[1:]:
        if not arg.startswith("-") and arg.endswith(SCRIPT_SUFFIXES) and not (base / arg).exists():
            raise where.error(key, f"no such file '{arg}'")
