"""Bot manifests: a bot is a directory with a ``bot.yaml`` saying how to build and run it.

::

    name: greedy                 # required; letters, digits, '-', '_', '.'
    run: python3 greedy_bot.py   # required; a command run in the bot's directory
    build: make                  # optional; run once in the bot's directory before it plays
    version: "2"                 # optional, text (quoted); a league numbers versions when absent
    language: python             # optional, shown in listings
    author: Ada                  # optional, shown in listings
    games: [blackout]            # optional; the games it plays (default: every game)

A directory may hold several bots that share files: each then has its own manifest named
``NAME.bot.yaml`` next to ``bot.yaml``'s place, and is named by that file's path. Paths in ``run`` and
``build`` are relative to the manifest's directory, which is the bot's working directory.
Errors read ``FILE: KEY: PROBLEM`` like tournament files. Manifests come from strangers (a league's
submissions) and a league stores and shows their fields, so each has a length limit (``TEXT_LIMITS``,
``MAX_WORDS``, ``MAX_WORD_LENGTH``; ``name`` and ``version`` by their patterns).

Reading a manifest starts nothing; its build runs with ``arena.bots.build.build_bot``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import engine
from arena.configfile import FileChecker, check_program, command, kind, read_yaml
from arena.errors import ConfigError
from engine.errors import OptionError, shown

MANIFEST = "bot.yaml"
"""The manifest's file name in a bot's directory."""
NAMED_SUFFIX = ".bot.yaml"
"""The suffix of a named manifest, for a directory holding several bots."""
KEYS = {"name", "run", "build", "version", "language", "author", "games"}
MANIFEST_DIRECTORY = "the manifest's directory"
"""Where the words of ``run`` and ``build`` are resolved from."""
VERSION = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+-]{0,31}")
"""Versions become directory names in a league."""
TEXT_LIMITS = {"language": 32, "author": 100, "games": 64}
"""The most characters of each free-text field (for ``games``: of each game's name)."""
MAX_WORDS = 64
"""The most words in ``run`` or ``build``."""
MAX_WORD_LENGTH = 1_000
"""The most characters in one word of ``run`` or ``build``."""


@dataclass(frozen=True)
class Manifest:
    """A validated bot manifest; ``directory`` is where the bot is built and run."""

    path: Path
    name: str
    run: tuple[str, ...]
    build: tuple[str, ...] | None = None
    version: str | None = None
    language: str | None = None
    author: str | None = None
    games: tuple[str, ...] = ()

    @property
    def directory(self) -> Path:
        """The bot's directory: its working directory, where paths in ``run`` start."""
        return self.path.parent

    def plays(self, game: str) -> bool:
        """Whether the bot says it plays ``game`` (no ``games`` key: every game)."""
        return not self.games or game in self.games


def is_bot_target(text: str) -> bool:
    """Whether a command-line word names a bot directory or manifest rather than a command."""
    path = Path(text)
    return path.is_dir() or (path.suffix == ".yaml" and path.is_file())


def manifest_file(target: str | Path) -> Path:
    """The manifest of a bot directory (its ``bot.yaml``) or a manifest file itself."""
    path = Path(target)
    if not path.is_dir():
        if not path.exists():
            raise ConfigError(f"{path}: no such bot directory or manifest")
        if not path.is_file():  # /dev/null, a FIFO: its directory is not a bot's
            raise ConfigError(f"{path}: not a bot directory or manifest (a device, FIFO or other "
                              f"special file)")
        return path
    manifest = path / MANIFEST
    if not manifest.exists():
        named = sorted(p.name for p in path.glob(f"*{NAMED_SUFFIX}"))
        hint = (f"; it holds several bots, name one: {', '.join(str(path / n) for n in named)}"
                if named else " (a bot directory needs one: see docs/league.md)")
        raise ConfigError(f"{path}: no {MANIFEST}{hint}")
    return manifest


def load_manifest(target: str | Path) -> Manifest:
    """Read and validate the manifest of a bot directory or manifest file; ConfigError naming
    file, key and problem. Without a build command, the program in ``run`` must exist."""
    path = manifest_file(target)
    where = FileChecker(path)
    raw = where.mapping(read_yaml(path, "bot manifest"), "", KEYS)
    for required in ("name", "run"):
        if required not in raw:
            raise where.error(required, "missing (required)")
    name = where.name(raw["name"], "name")
    run = _command(where, raw["run"], "run")
    build = None if raw.get("build") is None else _command(where, raw["build"], "build")
    version = None
    if raw.get("version") is not None:
        version = _version(where, raw["version"])
    games = _games(where, raw.get("games"))
    manifest = Manifest(path=path, name=name, run=run, build=build, version=version,
                        language=_optional_text(where, raw, "language"),
                        author=_optional_text(where, raw, "author"), games=games)
    if build is None:  # with a build command, the program may not exist until it has run
        check_program(where, run, str(manifest.directory), "run", base_is=MANIFEST_DIRECTORY,
                      hint=": build it, or add a `build:` that makes it")
    return manifest


def _version(where: FileChecker, value: object) -> str:
    """``version`` as text: YAML reads an unquoted ``1.10`` as the number 1.1 (and ``2`` as 2,
    ``1_0`` as 10, ``yes`` as true), which would be stored as another version than the author
    wrote; so anything but a string is refused, with the hint to quote it."""
    quote = 'quote it, e.g. version: "1.10"'
    if isinstance(value, int | float) and not isinstance(value, bool):
        raise where.error("version", f"{kind(value)} is a number, not text: YAML reads an unquoted "
                                     f"version as a number (1.10 as 1.1); {quote}")
    if not isinstance(value, str):
        raise where.error("version", f"expected text, got {kind(value)}: {quote}")
    version = value.strip()
    if not VERSION.fullmatch(version):
        raise where.error("version", f"{shown(version)}: use letters, digits, '.', '-', '+', '_' "
                                     "(32 at most)")
    return version


def _optional_text(where: FileChecker, raw: dict[str, object], key: str) -> str | None:
    return None if raw.get(key) is None else where.text(raw[key], key, TEXT_LIMITS[key])


def _command(where: FileChecker, raw: object, key: str) -> tuple[str, ...]:
    argv = command(where, raw, key)
    if len(argv) > MAX_WORDS:
        raise where.error(key, f"{len(argv):,} words (at most {MAX_WORDS})")
    for index, word in enumerate(argv):
        if len(word) > MAX_WORD_LENGTH:
            raise where.error(key, f"word {index + 1} ({shown(word)}) is too long "
                                   f"({len(word):,} characters; at most {MAX_WORD_LENGTH:,})")
    return argv


def _games(where: FileChecker, raw: object) -> tuple[str, ...]:
    if raw is None:
        return ()
    if isinstance(raw, str):
        raw = [raw]
    if not isinstance(raw, list) or not raw:
        raise where.error("games", f"expected a list of game names, got {kind(raw)}")
    for index, game in enumerate(raw):
        try:
            engine.game(where.text(game, f"games[{index}]", TEXT_LIMITS["games"]))
        except OptionError as error:
            raise where.error(f"games[{index}]", str(error)) from None
    return tuple(dict.fromkeys(str(game).strip() for game in raw))
