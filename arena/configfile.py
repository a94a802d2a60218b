"""YAML input files (tournament files, bot manifests): parsing and checks whose errors name the file,
the key and the problem, e.g. ``tournaments/x.yaml: bots[2].cmd: no such file 'bots/y'``.

Files come from strangers (a league's submissions), so they are read with limits: ``MAX_FILE_BYTES``,
``MAX_STRING`` characters in one value, ``MAX_DEPTH`` levels of nesting, and at most ``MAX_VALUES``
values and ``MAX_CHARACTERS`` characters once aliases (``*name``) are expanded, so a 1 KB "billion
laughs" file fails at once. A message quotes at most a short prefix of a value (``engine.errors.shown``).
"""

from __future__ import annotations

import difflib
import shlex
import shutil
from pathlib import Path
from typing import Any

import yaml

from arena.errors import ConfigError
from arena.names import NAME, NAME_RULE
from engine.errors import shown

SCRIPT_SUFFIXES = (".py", ".js", ".mjs", ".rb", ".pl", ".sh", ".lua", ".jar")
MAX_FILE_BYTES = 1024 * 1024
"""The largest YAML file read (tournament files and manifests are a few hundred bytes)."""
MAX_STRING = 10_000
"""The most characters in one YAML value or key."""
MAX_DEPTH = 64
"""The most levels of nesting, aliases expanded (each level is a mapping or list inside another)."""
MAX_VALUES = 100_000
"""The most values (scalars, lists, mappings) in a file once its aliases are expanded."""
MAX_CHARACTERS = 2_000_000
"""The most characters in all scalars of a file once its aliases are expanded."""


class FileChecker:
    """The values of one configuration file checked, key by key: each problem a ``ConfigError``
    that names the file, the key and the problem (``FILE: KEY: PROBLEM``)."""

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
            raise self.error(f"{prefix}{unknown[0]}", unknown_key(unknown[0], allowed))
        return value

    def integer(self, value: object, key: str, low: int, high: int | None = None) -> int:
        """``value`` as an integer in ``low..high``."""
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.error(key, f"expected an integer, got {kind(value)}")
        if value < low or (high is not None and value > high):
            bound = f"{low}..{high}" if high is not None else f">= {low}"
            raise self.error(key, f"{shown(value)} is out of range ({bound})")
        return value

    def text(self, value: object, key: str, max_length: int | None = None) -> str:
        """``value`` as a non-empty string, stripped, of at most ``max_length`` characters."""
        if not isinstance(value, str) or not value.strip():
            raise self.error(key, f"expected a non-empty string, got {kind(value)}")
        text = value.strip()
        if max_length is not None and len(text) > max_length:
            raise self.error(key, f"{shown(text)} is too long ({len(text):,} characters; at most "
                                  f"{max_length:,})")
        return text

    def name(self, value: object, key: str) -> str:
        """``value`` as a name that may become a file name (``NAME``)."""
        name = self.text(value, key)
        if not NAME.fullmatch(name):
            raise self.error(key, f"{shown(name)}: {NAME_RULE}")
        return name


def unknown_key(key: str, allowed: set[str]) -> str:
    """The problem with an unknown key: the allowed key it is most likely a typo of
    (``unknown key; did you mean rounds?``), else every allowed key."""
    close = difflib.get_close_matches(key, sorted(allowed), n=1, cutoff=0.6) \
        if len(key) <= 2 * max(map(len, allowed), default=0) else []
    if close:
        return f"unknown key; did you mean {close[0]}?"
    return f"unknown key (allowed: {', '.join(sorted(allowed))})"


def kind(value: object) -> str:
    """What ``value`` is, for an error message."""
    if value is None:
        return "nothing"
    if isinstance(value, str):
        return f"the string {shown(value)}"
    return f"{type(value).__name__} {shown(value)}"


def read_yaml(path: Path, what: str) -> object:
    """The YAML document in ``path``; ConfigError naming the file (``what`` it should be) and line,
    also for a file beyond the limits (``MAX_FILE_BYTES`` and the others above)."""
    try:
        with path.open("rb") as stream:
            data = stream.read(MAX_FILE_BYTES + 1)  # /dev/zero or a 10 GB file: never read whole
        text = data.decode()
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such {what}") from None
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"{path}: cannot read: {getattr(error, 'strerror', None) or error}") from None
    if len(data) > MAX_FILE_BYTES:
        raise ConfigError(f"{path}: larger than {MAX_FILE_BYTES // 1024 // 1024} MiB, the most a "
                          f"{what} may be")
    try:
        return yaml.load(text, Loader=StrictLoader)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        line = f"line {mark.line + 1}: " if mark is not None else ""
        problem = getattr(error, "problem", None) or str(error).splitlines()[0]
        context = getattr(error, "context", None)
        if problem == "second occurrence" and context:  # PyYAML's duplicate anchor, reworded
            problem = context.replace("; first occurrence", " (an anchor names one value)")
        label = "" if isinstance(error, BeyondLimits) else "invalid YAML: "
        raise ConfigError(f"{path}: {line}{label}{problem[:200]}") from None


class BeyondLimits(yaml.MarkedYAMLError):
    """A YAML document larger or deeper than the limits (``MAX_STRING``, ``MAX_DEPTH``,
    ``MAX_VALUES``, ``MAX_CHARACTERS``)."""

    def __init__(self, problem: str, mark: Any) -> None:
        super().__init__(problem=problem, problem_mark=mark)


class StrictLoader(yaml.SafeLoader):
    """A SafeLoader that reads within the limits and rejects a key given twice in one mapping
    (PyYAML keeps the last one).

    Nesting and string length are checked while composing (before Python's recursion limit is
    near); aliases are measured once the document is composed, each one counted as the values it
    stands for, so a document that shares one list a billion times is refused, not expanded.
    """

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0

    def compose_node(self, parent: yaml.Node | None, index: int) -> yaml.Node | None:
        event = self.peek_event()  # type: ignore[no-untyped-call]
        if isinstance(event, yaml.ScalarEvent) and len(event.value) > MAX_STRING:
            raise BeyondLimits(f"a value of {len(event.value):,} characters (at most "
                               f"{MAX_STRING:,})", event.start_mark)
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                raise BeyondLimits(f"nested more than {MAX_DEPTH} levels deep", event.start_mark)
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def compose_document(self) -> yaml.Node | None:
        node = super().compose_document()
        if node is not None:
            _Measure().of(node, 1)
        return node

    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        try:
            return super().construct_object(node, deep=deep)
        except (ValueError, OverflowError) as error:  # int('9' * 5000), a date 2024-13-45
            raise yaml.constructor.ConstructorError(
                None, None, f"cannot read {shown(node.value)}: {str(error).split(';')[0]}",
                node.start_mark) from None

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
                    None, None, f"duplicate key {shown(key)} (first on line {line})",
                    key_node.start_mark)
        return super().construct_mapping(node, deep=deep)


class _Measure:
    """A composed document's size with its aliases expanded, each shared node measured once."""

    def __init__(self) -> None:
        self.sizes: dict[int, tuple[int, int, int]] = {}
        """Node id: (values, characters, levels) below and including it."""
        self.open: set[int] = set()

    def of(self, node: yaml.Node, depth: int) -> tuple[int, int, int]:
        """``node``'s size, met ``depth`` levels down; BeyondLimits past a limit."""
        if depth > MAX_DEPTH:  # checked before going further down: no RecursionError
            raise BeyondLimits(f"nested more than {MAX_DEPTH} levels deep (aliases expanded)",
                               node.start_mark)
        size = self.sizes.get(id(node))
        if size is None:
            if id(node) in self.open:
                raise BeyondLimits("an alias inside the value it names (a value that contains "
                                   "itself)", node.start_mark)
            self.open.add(id(node))
            size = self._measured(node, depth)
            self.open.discard(id(node))
            self.sizes[id(node)] = size
        values, characters, levels = size
        if depth - 1 + levels > MAX_DEPTH:
            raise BeyondLimits(f"nested more than {MAX_DEPTH} levels deep (aliases expanded)",
                               node.start_mark)
        if values > MAX_VALUES:
            raise BeyondLimits(f"more than {MAX_VALUES:,} values once aliases are expanded",
                               node.start_mark)
        if characters > MAX_CHARACTERS:
            raise BeyondLimits(f"more than {MAX_CHARACTERS:,} characters once aliases are "
                               f"expanded", node.start_mark)
        return size

    def _measured(self, node: yaml.Node, depth: int) -> tuple[int, int, int]:
        if isinstance(node, yaml.ScalarNode):
            return 1, len(node.value), 1
        children: list[yaml.Node] = (list(node.value) if isinstance(node, yaml.SequenceNode)
                                     else [n for pair in node.value for n in pair])
        values, characters, levels = 1, 0, 1
        for child in children:
            child_values, child_characters, child_levels = self.of(child, depth + 1)
            values += child_values  # stays below 2 * MAX_VALUES: each child was checked
            characters += child_characters
            levels = max(levels, child_levels + 1)
            if values > MAX_VALUES or characters > MAX_CHARACTERS:
                break  # the caller's check refuses it; no need to add up the rest
        return values, characters, levels


def command(where: FileChecker, raw: object, key: str) -> tuple[str, ...]:
    """A command given as a string (split like a shell) or a list of words."""
    if isinstance(raw, list) and raw and all(isinstance(a, str | int | float) for a in raw):
        return tuple(str(a) for a in raw)
    if isinstance(raw, str):
        try:
            argv = shlex.split(raw)
        except ValueError as error:
            raise where.error(key, f"cannot split {shown(raw)}: {error}") from None
        if argv:
            return tuple(argv)
    raise where.error(key, f"expected a command (a string or a list of words), got {kind(raw)}")


FROM_ARENA = "the directory arena runs in"
"""Where relative paths given to the arena are resolved from (``docs/tournaments.md``)."""


def resolved_from(path: str, base: str | Path, what: str = FROM_ARENA) -> str:
    """`` (resolved from WHAT, BASE)`` for a relative ``path``, so a message about a missing file
    says where the arena looked; empty for an absolute one."""
    return "" if Path(path).is_absolute() else f" (resolved from {what}, {base})"


def check_program(where: FileChecker, argv: tuple[str, ...], workdir: str | None, key: str, *,
                  base_is: str = FROM_ARENA, hint: str = "") -> None:
    """The program and any script path in ``argv`` must exist, so a typo fails before any game.

    A missing file's message says where relative paths were resolved from (``base_is``, the
    directory) and ends with ``hint`` (e.g. ``: does `build:` create it?``)."""
    base = Path(workdir) if workdir else Path.cwd()
    program = argv[0]
    if "/" in program:
        if not (base / program).exists():
            raise where.error(key, f"no such file '{program}'"
                                   f"{resolved_from(program, base, base_is)}{hint}")
    elif shutil.which(program) is None:
        raise where.error(key, f"'{program}' is not a program on PATH")
    for arg in argv[1:]:
        if not arg.startswith("-") and arg.endswith(SCRIPT_SUFFIXES) and not (base / arg).exists():
            raise where.error(key, f"no such file '{arg}'{resolved_from(arg, base, base_is)}")


def with_key_added(content: bytes, key: str, value: str, why: str) -> bytes:
    """A YAML file's text with ``key: value`` added as its last key, after a comment saying
    ``why`` (for a run's saved copy of its tournament file, which ``--resume`` reads again). A file
    the line cannot be added to (a flow-style mapping) is written out again as YAML with the key;
    either way the rest of the file reads as before."""
    text = content.decode(errors="replace")
    added = (text if text.endswith("\n") or not text else text + "\n") + (
        f"# Added by arena run: {why}.\n{key}: {value}\n")
    try:
        parsed = yaml.safe_load(added)
    except yaml.YAMLError:
        parsed = None
    if isinstance(parsed, dict) and parsed.get(key) == value:
        return added.encode()
    raw = yaml.safe_load(text)
    return yaml.safe_dump({**raw, key: value}, sort_keys=False).encode()
