"""A bot, however it is named, resolved once: absolute directories, its command and its build.

Every way of naming a bot comes here: a command line (``python3 bot.py``), a bot directory or a
manifest file (``bots/js``, ``bots/c/first.bot.yaml``), ``NAME=`` either of those, a tournament's
``cmd:`` with ``workdir:`` or its ``dir:``, and a league's stored copy. What comes out
(``ResolvedBot``) has an absolute working directory and an absolute bot directory (what a
sandbox shows the bot and where its build runs), so nothing later depends on the directory the
arena happens to run in, and no directory is ever joined to itself.

Relative paths, everywhere: a bot directory, a manifest, a ``workdir`` and the program of a command
are resolved from the directory the arena was started in (``base``); the words of a manifest's
``run`` and ``build`` from the manifest's directory; the words of a ``cmd`` from its ``workdir``.
"""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass, replace
from pathlib import Path

from arena.botfiles.manifest import Manifest, is_bot_target, load_manifest
from arena.botfiles.view import bot_directory, check_visible
from arena.configfile import FROM_ARENA, FileChecker, check_program
from arena.errors import ConfigError
from arena.values.sandbox_settings import Sandbox
from arena.values.work import BotCommand


@dataclass(frozen=True)
class ResolvedBot:
    """One bot program, resolved: how to build and run it, with absolute directories.

    ``name`` is the manifest's name for a bot directory, else None (the caller labels it).
    """

    argv: tuple[str, ...]
    workdir: str
    """Absolute: where the program runs and its build runs."""
    bot_dir: str
    """Absolute: the bot's own directory (a manifest's; else its script's or program's)."""
    build: tuple[str, ...] | None = None
    manifest: Manifest | None = None

    @property
    def name(self) -> str | None:
        """The manifest's name, when the bot is a bot directory."""
        return None if self.manifest is None else self.manifest.name

    def check_sandboxed(self, sandbox: Sandbox | None, run_where: str,
                        build_where: str) -> None:
        """ConfigError ``RUN_WHERE: names ...`` (or ``BUILD_WHERE``) when ``sandbox`` would refuse
        the program of its command or of its build (``check_visible``); nothing without one."""
        if sandbox is None:
            return
        if self.build is not None:
            check_visible(sandbox.for_build(), self.build, self.workdir, build_where, self.bot_dir)
        check_visible(sandbox, self.argv, self.workdir, run_where, self.bot_dir)

    def command(self, sandbox: Sandbox | None) -> BotCommand:
        """How a worker starts it, in ``sandbox`` (None: unconfined), which shows it its bot
        directory."""
        if sandbox is not None:
            sandbox = replace(sandbox, bot_dir=self.bot_dir)
        return BotCommand(self.argv, self.workdir, sandbox, self.build, self.bot_dir)


def _absolute(path: str | os.PathLike[str], base: str | os.PathLike[str] | None) -> str:
    """``path`` made absolute against ``base`` (default: the current directory), normalised."""
    joined = os.path.join(base if base is not None else os.getcwd(), os.fspath(path))
    return os.path.normpath(os.path.abspath(joined))


def resolve_manifest(target: str | os.PathLike[str], base: str | None = None) -> ResolvedBot:
    """A bot directory or manifest file (relative to ``base``, default the current directory)."""
    manifest = load_manifest(_absolute(target, base))
    directory = str(manifest.directory)
    return ResolvedBot(manifest.run, directory, directory, manifest.build, manifest)


def resolve_copy(argv: tuple[str, ...], directory: str | os.PathLike[str]) -> ResolvedBot:
    """A bot copied into a directory of its own (a league's stored version): run there."""
    here = _absolute(directory, None)
    return ResolvedBot(argv, here, here)


def resolve_command(argv: tuple[str, ...], workdir: str | None = None, *, base: str | None = None,
                    check: FileChecker | None = None, key: str = "cmd") -> ResolvedBot:
    """A command run in ``workdir`` (relative to ``base``; default: ``base`` itself, the current
    directory). With ``check``, a missing program or script is that file's error at ``key``."""
    if not argv:
        raise ConfigError(f"{key}: empty command")
    here = _absolute(workdir if workdir is not None else ".", base)
    if check is not None:
        check_program(check, argv, here, key,
                      base_is=FROM_ARENA if workdir is None else "its workdir")
    return ResolvedBot(argv, here, bot_directory(argv, here))


def resolve_bot(text: str, key: str, base: str | None = None) -> ResolvedBot:
    """A bot as a command-line word gives it: a bot directory or manifest file, else a command
    (split like a shell would). ConfigError naming ``key`` when it cannot run."""
    if is_bot_target(_absolute(text, base)) and not text.startswith("-"):
        return resolve_manifest(text, base)
    return resolve_command(split_command(text, key), base=base, check=_Plain(key), key=key)


def split_command(text: str, key: str) -> tuple[str, ...]:
    """A command line split into words as a shell would (nothing expanded); ConfigError naming
    ``key`` when it cannot be split or is empty."""
    try:
        argv = tuple(shlex.split(text))
    except ValueError as error:
        raise ConfigError(f"{key}: cannot split {text!r}: {error}") from None
    if not argv:
        raise ConfigError(f"{key}: empty command")
    return argv


class _Plain(FileChecker):
    """Errors for command-line values: ``KEY: PROBLEM`` (there is no file to name)."""

    def __init__(self, key: str) -> None:
        super().__init__(Path(key))

    def error(self, key: str, problem: str) -> ConfigError:
        return ConfigError(f"{key}: {problem}")
