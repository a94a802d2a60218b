"""Which interpreter installations a sandbox shows: the organiser's choice, never a submission's.

Besides the system directories (``SYSTEM_DIRS``) and its own directory, a sandboxed bot sees the
*allowed installations*, read-only, and nothing else of the host:

- by default, those of the interpreters the arena itself finds (``default_installations``): its
  own Python (a venv and the installation it was made from), and ``STARTER_PROGRAMS`` as found on
  PATH, a pyenv shim or a rustup proxy resolved to the real program it runs (``real_program``):
  ``~/.pyenv/versions/3.11.7``, the active Rust toolchain ``~/.rustup/toolchains/stable-...``;
- plus any the organiser names (``--interpreter DIR``, a tournament file's
  ``sandbox_interpreters``, ``league init --interpreter``), checked by ``check_interpreters``.

An installation is never a home directory nor a directory that holds one (``home_problem``): a
home holds keys and credentials. One found by the arena is also never a directory directly inside
a home (``~/.local``, ``~/.cargo``, ``~/.rustup``, ``~/venv``), which are shared with other tools
and their secrets; the organiser may still name such a directory.

A command whose program is a path outside the bot's directory, the system directories and the
allowed installations, or a bare name whose real program is outside them, is refused
(``program_inside`` raises ConfigError saying what to do), never mounted.
"""

from __future__ import annotations

import functools
import os
import pwd
import shutil
import subprocess
import sys
from collections.abc import Iterable, Sequence

from arena.errors import ConfigError
from engine.errors import shown

SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
"""Read-only in every sandbox (where they exist; merged-/usr symlinks stay symlinks)."""
STARTER_PROGRAMS = ("python3", "node", "java", "javac", "go", "cargo", "rustc")
"""The programs of the starter languages whose installations every sandbox shows, as PATH finds
them (Rust's through rustup: the active toolchain)."""
INTERPRETER_HELP = ("An installation the sandbox shows its bots read-only besides the system "
                    "directories and the arena's own interpreters (docs/sandbox.md), e.g. "
                    "/opt/pypy3; repeatable. Never a home directory or one that holds a home.")
"""The ``--interpreter`` option's help, shared by the commands that have it."""
SHOWN_PATH = 300
"""The most characters of a refused program's name that its message quotes (a manifest's word
may hold 1,000)."""
REFUSAL_ADVICE = ("run it by a name on PATH (python3, node, java, go, cargo), or have the "
                  "organiser allow its installation with --interpreter DIR")
"""What a refused command's author can do about it."""


def is_inside(path: str, root: str) -> bool:
    """Whether the absolute ``path`` is ``root`` or below it (as text: both already normalised)."""
    return path == root or path.startswith(root.rstrip("/") + "/")


def is_system(path: str) -> bool:
    """Whether ``path`` is in one of the system directories every sandbox shows."""
    return any(is_inside(path, top) for top in SYSTEM_DIRS)


@functools.cache
def homes() -> tuple[str, ...]:
    """Every home directory of this machine, real paths: each account's in the user database,
    ``$HOME``, ``/home`` and ``/root``."""
    found = [entry.pw_dir for entry in pwd.getpwall()]
    found += [os.environ.get("HOME", ""), "/home", "/root"]
    return tuple(dict.fromkeys(os.path.realpath(home) for home in found if home.startswith("/")))


def home_problem(directory: str, *, found: bool = False) -> str | None:
    """Why ``directory`` may not be an installation a sandbox shows, or None.

    A home directory, or one that holds a home (``/``, ``/home``); with ``found`` (an installation
    the arena found by itself, not one the organiser named), also a directory directly inside a
    home (``~/.local``, ``~/.cargo``).
    """
    paths = tuple(dict.fromkeys((os.path.normpath(directory), os.path.realpath(directory))))
    if any(path in homes() for path in paths):
        return "is a home directory"
    for path in paths:
        for home in homes():
            if is_inside(home, path):
                return f"holds the home directory {home}"
            if found and home != "/" and os.path.dirname(path) == home:
                return f"is directly inside the home directory {home}"
    return None


def check_interpreters(values: Iterable[object], where: str,
                       base: str | None = None) -> tuple[str, ...]:
    """The organiser's installations as absolute paths (relative ones from ``base``, default the
    current directory); ConfigError naming ``where`` for one that is not a directory, is a home
    or holds one."""
    checked: list[str] = []
    for value in values:
        if not isinstance(value, str) or not value.strip():
            raise ConfigError(f"{where}: {shown(value)} is not a directory's path")
        path = os.path.normpath(os.path.join(base or os.getcwd(), os.path.expanduser(value)))
        if not os.path.isdir(path):
            raise ConfigError(f"{where}: {shown(value)}: no such directory")
        problem = home_problem(path)
        if problem is not None:
            raise ConfigError(f"{where}: {path} {problem}: a sandbox never shows a home; name "
                              f"the interpreter's own installation (the directory holding its "
                              f"bin/, e.g. ~/.pyenv/versions/3.11.7)")
        checked.append(path)
    return tuple(dict.fromkeys(checked))


def installation_roots(program: str) -> list[str]:
    """The installation roots outside the system directories that ``program`` needs.

    An installation's root is the parent of its ``bin`` directory (``~/.pyenv/versions/3.11.7``,
    ``~/.nvm/versions/node/v20``, a venv with its ``pyvenv.cfg``), else the program's directory.
    Both the path as given and its real target count: a venv's python is a link to another
    installation.
    """
    roots = []
    for path in dict.fromkeys((os.path.abspath(program), os.path.realpath(program))):
        if is_system(path):
            continue
        directory = os.path.dirname(path)
        roots.append(os.path.dirname(directory) if os.path.basename(directory) == "bin"
                     else directory)
    return roots


@functools.cache
def default_installations() -> tuple[str, ...]:
    """The installations of the interpreters this arena finds by itself (once per process, from
    the directory it runs in): its own Python's, and those of ``STARTER_PROGRAMS`` on PATH."""
    here = os.getcwd()
    roots: list[str] = []
    for name in STARTER_PROGRAMS:
        found = shutil.which(name)
        real = None if found is None else real_program(found, here)
        if real is not None:
            roots += installation_roots(real)
    if sys.executable:
        roots += installation_roots(sys.executable)
    return tuple(root for root in dict.fromkeys(roots)
                 if os.path.isdir(root) and home_problem(root, found=True) is None)


@functools.cache
def allowed_installations(interpreters: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The installations a sandbox shows: the defaults, then the organiser's ``interpreters``;
    one inside another is left out (the outer one shows it)."""
    roots = list(dict.fromkeys((*default_installations(), *interpreters)))
    return tuple(root for root in roots
                 if not any(other != root and is_inside(root, other) for other in roots))


def is_visible(path: str, bot_dir: str, installations: Sequence[str]) -> bool:
    """Whether the absolute ``path`` is in a sandbox's view: the system directories, the bot's
    directory or an allowed installation (each as given or as its real path)."""
    if is_system(path):
        return True
    roots = (bot_dir, os.path.realpath(bot_dir), *installations, *_real_paths(tuple(installations)))
    return any(is_inside(path, root) for root in roots)


@functools.cache
def _real_paths(installations: tuple[str, ...]) -> tuple[str, ...]:
    """The installations' real paths (asked once: a bot's start stats no more than it must)."""
    return tuple(os.path.realpath(root) for root in installations)


@functools.cache
def path_inside(path: str, installations: tuple[str, ...]) -> str:
    """The PATH of a sandbox showing ``installations``: each one's ``bin``, then the entries of
    ``path`` (the arena's own) that the sandbox shows (the system directories, an installation)."""
    entries = [f"{root}/bin" for root in installations if os.path.isdir(f"{root}/bin")]
    entries += [entry for entry in path.split(":") if entry.startswith("/") and (
        is_system(os.path.normpath(entry))
        or any(is_inside(os.path.normpath(entry), root) for root in installations))]
    return ":".join(dict.fromkeys(entries))


def program_inside(argv: Sequence[str], here: str, bot_dir: str,
                   installations: Sequence[str]) -> str:
    """The program of ``argv`` (run in ``here``) as a sandbox runs it: a path as given, a name by
    its real program on PATH (a pyenv shim or rustup proxy resolved). ConfigError when the sandbox
    would have to show something besides ``bot_dir``, the system and ``installations``.

    A name that is not on PATH is returned as it is: it fails to start as it would unsandboxed.
    """
    program = argv[0]
    if "/" in program:
        path = os.path.normpath(os.path.join(here, program))
        given = f"names {_quoted(program)}"
        resolved = program
    else:
        found = shutil.which(program)
        if found is None:
            return program
        real = real_program(found, here)
        if real is None:
            raise ConfigError(f"names {_quoted(program)}, which is {found} here, a shim that does "
                              f"not say which program it runs: {REFUSAL_ADVICE}")
        path = resolved = real
        given = f"names {_quoted(program)}, which is {real} here"
    if not is_visible(path, bot_dir, installations):
        raise ConfigError(f"{given}, outside the bot and outside the interpreters this arena "
                          f"allows: {REFUSAL_ADVICE}")
    target = os.path.realpath(path)
    if not is_visible(target, bot_dir, installations):
        raise ConfigError(f"{given}, a link to {target}, outside the bot and outside the "
                          f"interpreters this arena allows: {REFUSAL_ADVICE}")
    return resolved


def _quoted(program: str) -> str:
    """A program's name as a message quotes it: escaped, and cut after ``SHOWN_PATH`` characters."""
    return repr(program) if len(program) <= SHOWN_PATH else f"{program[:SHOWN_PATH]!r}..."


@functools.cache
def real_program(program: str, here: str) -> str | None:
    """The program a shim found on PATH runs, asked in ``here``: a pyenv shim's interpreter
    (``pyenv which``), a rustup proxy's tool in the active toolchain (``rustup which``); None when
    the shim cannot say. Any other program is itself."""
    name = os.path.basename(program)
    if os.path.basename(os.path.dirname(program)) == "shims" and shutil.which("pyenv"):
        command = ["pyenv", "which", name]
    elif os.path.basename(os.path.realpath(program)) == "rustup":
        command = [os.path.realpath(program), "which", name]
    else:
        return program
    try:  # rustup must not install a toolchain a bot's rust-toolchain.toml names
        done = subprocess.run(command, cwd=here, capture_output=True, text=True, timeout=30,
                              check=False, env={**os.environ, "RUSTUP_AUTO_INSTALL": "0"})
    except (OSError, subprocess.TimeoutExpired):
        return None
    real = done.stdout.strip()
    return real if done.returncode == 0 and os.path.isfile(real) else None
