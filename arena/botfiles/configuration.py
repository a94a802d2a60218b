"""The configuration under ``/etc`` that the runtimes a sandbox allows read as they start.

A sandbox shows only a short list of ``/etc`` (``arena.bots.sandbox.ETC_PATHS``); a runtime
installed by a distribution keeps its configuration there, and without it fails in ways that do
not say so (Mono's compiler: ``Source file 'Bot.cs' could not be found``, for want of
``/etc/mono``). So each allowed runtime's configuration is found from the runtime itself, not
from a list of paths per distribution (``runtime_configuration``):

- the links of its installation into ``/etc``: a Debian JDK's ``conf/`` and ``lib/jvm.cfg`` point
  into ``/etc/java-17-openjdk``, its ``lib/security/cacerts`` into ``/etc/ssl/certs/java``. The
  installation is the one its program reports by where it is (``java.home`` is the parent of the
  real ``java``'s ``bin``), or one the organiser allows;
- the configuration directory the Filesystem Hierarchy Standard gives a program installed under
  ``/usr``: ``/etc/NAME`` for its name, the name of the program it really is (``php`` ->
  ``php8.2``) and the programs its wrapper script runs (Mono's ``mcs`` is a script that runs
  ``/usr/bin/mono``: ``/etc/mono``), each with and without its version (``python3.11``,
  ``python3``).

The programs looked at are every ``LANGUAGES`` runtime found on PATH. What is shown is only ever
public: a directory (or file) under ``/etc`` every user of the machine may read through and
through (``is_public``: a secret is mode 0600 or 0700), never ``/etc`` itself; where a link's
top directory is not public (``/etc/ssl`` holds ``private/``), its nearest public directory.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import stat
from collections import deque
from collections.abc import Iterable

from arena.botfiles.installations import SYSTEM_DIRS, allowed_installations, real_program
from arena.botfiles.languages import runtime_programs

ETC = "/etc"
SCAN_ENTRIES = 4_000
"""The most entries of one installation looked at for links into /etc (breadth first: a JDK's
``conf/`` and ``lib/`` come long before the bottom of a source tree)."""
SCAN_DEPTH = 4
"""How deep below an installation's root its links are looked for."""
PUBLIC_ENTRIES = 2_000
"""The most entries of a directory under /etc walked to find it public; a larger one is not shown
whole (its nearest public part is)."""
SCRIPT_BYTES = 16_384
"""The most bytes of a wrapper script read for the programs it runs."""
_PATH_WORD = re.compile(r"(?<![\w.$-])(/[\w.+@/-]+)")
_VERSION = re.compile(r"[-.\d]+$")


def runtime_configuration(interpreters: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The paths under /etc a sandbox allowing ``interpreters`` shows besides its fixed list:
    the configuration of each runtime found here and of each allowed installation."""
    return _configuration(allowed_installations(interpreters), os.environ.get("PATH", ""))


@functools.cache
def _configuration(installations: tuple[str, ...], path: str) -> tuple[str, ...]:
    found: list[str] = []
    homes = list(installations)
    for name in runtime_programs():
        program = shutil.which(name, path=path)
        if program is None:
            continue
        real = real_program(program, os.getcwd())
        for each in _programs_run_by(real or program):
            found += _named_configuration(os.path.basename(each))
            home = _home(each)
            if home is not None:
                homes.append(home)
    for home in dict.fromkeys(homes):
        found += _linked_configuration(home)
    return tuple(sorted(dict.fromkeys(found)))


def _programs_run_by(program: str) -> list[str]:
    """``program``, the program it really is, and those its wrapper script names (each as given
    and as its real path)."""
    real = os.path.realpath(program)
    programs = [program, real]
    try:
        with open(real, "rb") as file:
            head = file.read(SCRIPT_BYTES)
    except OSError:
        return programs
    if head.startswith(b"#!") and b"\0" not in head:
        for word in _PATH_WORD.findall(head.decode("utf-8", "replace")):
            if (os.path.isfile(word) and os.access(word, os.X_OK)
                    and not word.startswith(("/bin/", "/usr/bin/env"))):
                programs += [word, os.path.realpath(word)]
    return list(dict.fromkeys(programs))


def _named_configuration(name: str) -> list[str]:
    """``/etc/NAME`` and ``/etc/NAME`` without its version, where public."""
    names = dict.fromkeys((name, _VERSION.sub("", name)))
    return [f"{ETC}/{each}" for each in names
            if each and not each.startswith(".") and is_public(f"{ETC}/{each}")]


def _home(program: str) -> str | None:
    """The installation ``program`` is part of (the parent of its ``bin``), unless that is one
    of the system's own top directories (``/usr``: far too large to look through)."""
    directory = os.path.dirname(program)
    if os.path.basename(directory) != "bin":
        return None
    home = os.path.dirname(directory)
    if home in ("/", "/usr/local", *SYSTEM_DIRS):
        return None
    return home


def _linked_configuration(home: str) -> list[str]:
    """What of /etc the links inside ``home`` point into: for each link, the top directory under
    /etc that holds its target where that is public, else the nearest public directory above it
    (or the target alone)."""
    found: list[str] = []
    queue: deque[tuple[str, int]] = deque([(home, 0)])
    seen = 0
    while queue and seen < SCAN_ENTRIES:
        directory, depth = queue.popleft()
        try:
            entries = list(os.scandir(directory))
        except OSError:
            continue
        for entry in entries:
            seen += 1
            if entry.is_symlink():
                try:
                    target = os.path.normpath(os.path.join(directory, os.readlink(entry.path)))
                except OSError:
                    continue
                if target.startswith(ETC + "/"):
                    shown = _public_part(target)
                    if shown is not None:
                        found.append(shown)
            elif depth < SCAN_DEPTH and entry.is_dir(follow_symlinks=False):
                queue.append((entry.path, depth + 1))
    return found


def _public_part(target: str) -> str | None:
    """The highest directory under /etc holding ``target`` that is public, else ``target`` itself
    where public, else None."""
    parts = target[len(ETC) + 1:].split("/")
    for count in range(1, len(parts) + 1):
        candidate = "/".join((ETC, *parts[:count]))
        if is_public(candidate):
            return candidate
    return None


def is_public(path: str) -> bool:
    """Whether ``path`` exists and every user may read it, through and through: each file
    world-readable, each directory world-readable and searchable (at most ``PUBLIC_ENTRIES``
    entries; links are not followed: one is shown as a link)."""
    budget = [PUBLIC_ENTRIES]

    def public(each: str) -> bool:
        try:
            mode = os.lstat(each).st_mode
        except OSError:
            return False
        if stat.S_ISLNK(mode):
            return True
        if stat.S_ISDIR(mode):
            if mode & 0o005 != 0o005:
                return False
            try:
                names = os.listdir(each)
            except OSError:
                return False
            budget[0] -= len(names)
            return budget[0] >= 0 and all(public(os.path.join(each, name)) for name in names)
        return bool(mode & 0o004)

    # A link at the top would show its target, wherever that is.
    return (not os.path.islink(path) and (os.path.isdir(path) or os.path.isfile(path))
            and public(path))


def shown_in(path: str, configuration: Iterable[str]) -> bool:
    """Whether ``path`` (absolute, normalised) is inside one of the ``configuration`` paths."""
    return any(path == each or path.startswith(each + "/") for each in configuration)
