"""Bots for machines without the runner's files: a run's bot directories as one tar, rebuilt elsewhere.

The runner packs every directory its bots need (``bundle_of``): a bot's ``workdir``, and the
directory of each relative path its command or build command names (``bots/c/random_bot`` ships
``bots/c``; a script directly in the current directory ships that file alone). Paths keep their
place relative to the runner's current directory, so on a worker the same commands work unchanged
from the unpacked root (``unpack``), where the build commands run again (``localised`` rewrites
working directories and absolute paths inside the runner's directory to that root). Absolute paths
outside it (``/usr/bin/python3``) are left alone: a worker must have them.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import os
import tarfile
import threading
from dataclasses import dataclass, replace
from pathlib import Path

from arena.bots.build import run_build
from arena.errors import ConfigError
from arena.values.work import BotCommand, RunSettings

SKIPPED = frozenset({".git", "__pycache__", ".venv", ".mypy_cache", ".pytest_cache", ".ruff_cache"})
"""Directory names never shipped: caches and repositories, which no bot needs to run."""
MAX_BYTES = 512 * 1024 * 1024
"""A bundle larger than this is refused: every worker holds it in memory while unpacking."""


@dataclass(frozen=True)
class Bundle:
    """A run's bot files as a gzipped tar, named by its digest, and where they came from."""

    digest: str
    data: bytes
    base: str
    """The runner's directory: the root that relative paths are relative to."""
    members: tuple[str, ...]
    """The shipped paths, relative to ``base``."""


def bundle_of(settings: RunSettings, base: Path | None = None) -> Bundle:
    """Pack the files the bots of ``settings`` need (ConfigError naming the bot if too large)."""
    base = (base or Path.cwd()).resolve()
    members: set[Path] = set()
    for name, command in settings.bots.items():
        for path in _needed(command, base):
            members.add(path)
            if _size(base / path) > MAX_BYTES:
                raise ConfigError(f"bot {name!r}: '{path}' is larger than {MAX_BYTES >> 20} MB: "
                                  "too large to ship to the cluster's workers")
    kept = sorted(path for path in members
                  if not any(other in path.parents for other in members))
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        for path in kept:
            tar.add(base / path, arcname=str(path), filter=_skip_caches)
    # mtime=0 in the gzip header: the same files give the same digest on every run.
    data = gzip.compress(buffer.getvalue(), compresslevel=1, mtime=0)
    if len(data) > MAX_BYTES:
        raise ConfigError(f"the bots' files are {len(data) >> 20} MB compressed: too large to ship "
                          "to the cluster's workers")
    return Bundle(hashlib.sha256(data).hexdigest()[:20], data, str(base),
                  tuple(str(path) for path in kept))


def _needed(command: BotCommand, base: Path) -> list[Path]:
    """The paths (relative to ``base``) this bot needs: its workdir, and what its words name."""
    here = Path(command.workdir) if command.workdir else base
    if not here.is_absolute():
        here = base / here
    found = []
    if command.workdir:
        found.append(here)
    for word in (*command.argv, *(command.build or ())):
        if word.startswith("-") or "\0" in word:
            continue
        path = here / word
        try:
            exists = path.exists()
        except OSError:  # a word too long to be a path
            continue
        if exists and ("/" in word or path.is_file()):
            found.append(path if path.is_dir() or path.parent == base else path.parent)
    inside = []
    for path in found:
        resolved = path.resolve()
        if resolved != base and base in resolved.parents:
            inside.append(resolved.relative_to(base))
    return inside


def _size(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    total = 0
    for root, dirs, files in os.walk(path):
        dirs[:] = [d for d in dirs if d not in SKIPPED]
        total += sum(os.path.getsize(os.path.join(root, f)) for f in files
                     if os.path.isfile(os.path.join(root, f)))
    return total


def _skip_caches(member: tarfile.TarInfo) -> tarfile.TarInfo | None:
    if SKIPPED.intersection(Path(member.name).parts):
        return None
    member.uid = member.gid = 0
    member.uname = member.gname = ""
    return member


_UNPACK_LOCK = threading.Lock()


def unpack(bundle: Bundle, settings: RunSettings | None, under: Path) -> Path:
    """Unpack ``bundle`` below ``under`` once and run the build commands of ``settings`` there.

    Returns the root that stands for the runner's directory. A second call with the same bundle
    returns at once. ConfigError with the build's output tail if a build fails.
    """
    root = under / "arena-bots" / bundle.digest
    done = root / ".unpacked"
    with _UNPACK_LOCK:
        if done.exists():
            return root
        root.mkdir(parents=True, exist_ok=True)
        with tarfile.open(fileobj=io.BytesIO(bundle.data), mode="r:gz") as tar:
            tar.extractall(root, filter="tar")
        if settings is not None:
            _build_all(localised(settings, bundle.base, root))
        done.touch()
    return root


def _build_all(settings: RunSettings) -> None:
    """Each distinct build once, as on the runner (``arena.bots.build``: same limits, same sandbox)."""
    built: set[tuple[tuple[str, ...], str | None]] = set()
    for name, command in settings.bots.items():
        if command.build is None or (command.build, command.workdir) in built:
            continue
        built.add((command.build, command.workdir))
        workdir = command.workdir or os.getcwd()
        run_build(command.build, workdir, command.bot_dir or workdir,
                  f"bot {name!r}: build on a worker", command.sandbox)


def localised(settings: RunSettings, runner_base: str, root: Path) -> RunSettings:
    """``settings`` as they run from ``root``: working directories and absolute paths inside the
    runner's directory (``runner_base``) moved there; bot stderr logs kept under ``root/logs``."""
    base = Path(runner_base)

    def moved(word: str) -> str:
        path = Path(word)
        if path.is_absolute() and (path == base or base in path.parents):
            return str(root / path.relative_to(base))
        return word

    bots = {}
    for name, command in settings.bots.items():
        workdir = str(root) if command.workdir is None else moved(command.workdir)
        if not Path(workdir).is_absolute():
            workdir = str(root / workdir)
        build = None if command.build is None else tuple(moved(word) for word in command.build)
        sandbox = command.sandbox
        if sandbox is not None and sandbox.bot_dir is not None:
            sandbox = replace(sandbox, bot_dir=moved(sandbox.bot_dir))
        bot_dir = None if command.bot_dir is None else moved(command.bot_dir)
        bots[name] = BotCommand(tuple(moved(word) for word in command.argv), workdir, sandbox, build,
                                bot_dir)
    log_dir = None if settings.log_dir is None else str(root / "logs")
    return replace(settings, bots=bots, log_dir=log_dir)
