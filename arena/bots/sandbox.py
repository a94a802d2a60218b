"""Bubblewrap sandboxes for bot processes: a bot's argv in, the argv that runs it confined out.

A sandboxed bot is still just a process with three pipes to the process layer: ``Sandbox.wrap``
turns its argv into ``/bin/sh -c LAUNCHER ... bwrap ... -- argv`` and nothing else changes. Inside,
the bot:

- has no network (its own network namespace, no loopback of the host's), its own PID, IPC, UTS
  and (where the kernel allows) cgroup namespaces, no capabilities, ``no_new_privs`` (bwrap sets
  it), a new session (no terminal to push keystrokes into), and dies with the arena (SIGKILL from
  the kernel when bwrap's parent goes, and everything in a PID namespace dies with its first
  process);
- sees ``/usr``, ``/bin``, ``/sbin``, ``/lib*`` read-only, a documented subset of ``/etc``
  (``ETC_PATHS``: no shadow, no ssh, no credentials), a fresh ``/proc`` of its own namespace, a
  minimal ``/dev`` (``DEVICES``, no terminal); its own bot directory read-only at its usual
  path (writable for a build command); the installation of its interpreter when that is not
  under the system directories (pyenv, nvm, a venv: the installation's root only, nothing else of
  that home); and a private tmpfs of ``scratch_mb`` at ``/tmp`` (``$TMPDIR`` and ``$HOME``).
  Everything else (the other bots, the results, the tournament file, the organiser's home, the
  arena's own files) is simply not there. The environment is cleared to ``PATH``, ``HOME``,
  ``TMPDIR`` and ``LANG``.

The launcher (``/bin/sh``, about a millisecond) exists because the limits must hold before the
bot's first instruction, and bwrap forks the bot almost at once: applying them to bwrap's pid after
the start (as the process layer does for an unsandboxed bot) races that fork and, lost, leaves the
bot unlimited for life. So the launcher sets them with ``ulimit`` (inherited from then on), joins
the bot's ``pids`` cgroup when there is one, then execs bwrap.

Processes: RLIMIT_NPROC cannot do it. It counts per user, and is not checked at all for root, so
an arena running as root (containers, CI) would get no limit, and an unprivileged arena would
share the count with everything else its user runs. A ``pids`` cgroup per bot process
(``pids.max = processes``, threads included) limits exactly the bot and its descendants; the
arena creates one where it can (as root: cgroup v1's ``pids`` hierarchy, or v2's root with the
``pids`` controller enabled) and removes it once empty. Joining it costs a few milliseconds of a
bot's start (a cgroup v1 move waits for an RCU grace period); ``processes=None`` skips it. Where
no cgroup can be made, ``process_limit_problem()`` says so and the bot's process count is not
limited (docs/sandbox.md). Tried and dropped: a uid of its own per bot (``setpriv`` in the
launcher), which would make RLIMIT_NPROC count that bot alone and start faster; but bwrap then
resolves its bind sources as that uid, and an interpreter in root's home (pyenv) is out of reach.
"""

from __future__ import annotations

import atexit
import functools
import itertools
import os
import re
import resource
import shutil
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from arena.errors import ConfigError
from arena.settings import Limits, SandboxMode

INSTALL_HINT = "install it with: apt-get install bubblewrap"
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
"""Read-only in every sandbox (where they exist; merged-/usr symlinks stay symlinks)."""
ETC_PATHS = ("/etc/ld.so.cache", "/etc/alternatives", "/etc/localtime", "/etc/passwd", "/etc/group",
             "/etc/nsswitch.conf")
"""The part of /etc a sandbox sees: what the dynamic loader, ``alternatives`` links, the C
library's time and user lookups read; no secrets. Kept short because every bind mount adds to a
bot's start (about 0.5 ms each here): no certificates (there is no network), no ``ld.so.conf``
(read by ldconfig, not by the loader)."""
DEVICES = ("null", "zero", "full", "random", "urandom")
"""The whole of /dev besides the fd links and ``/dev/shm`` (a link to the scratch directory): no
terminal, no pseudo-terminals."""
SANDBOX_HELP = ("Run the bots in a bubblewrap sandbox (docs/sandbox.md): none, bwrap (an error "
                "where it cannot run), or auto (bwrap where it can run, else none with a warning).")
"""The ``--sandbox`` option's help, shared by the commands that have it."""
SCRATCH = "/tmp"
"""The sandbox's writable, size-capped directory (also $TMPDIR and $HOME)."""

_LAUNCHER = (
    '[ "$1" = - ] || echo $$ > "$1" || exit 125\n'
    '[ "$2" = - ] || ulimit -v "$2" || exit 125\n'
    '[ "$3" = - ] || ulimit -f "$3" || exit 125\n'
    'ulimit -c 0\n'
    '[ "$4" = - ] || { ulimit -H -t "$5" && ulimit -S -t "$4"; } || exit 125\n'
    'shift 5\n'
    'exec "$@"\n'
)
"""Arguments: cgroup.procs path, RLIMIT_AS in KiB, RLIMIT_FSIZE in 512-byte blocks (the unit of
both dash and bash-as-sh), CPU soft and hard seconds (``-`` for none); then the bwrap argv."""


@dataclass(frozen=True)
class Sandbox:
    """How bot processes are confined: scratch size, process limit, and whether the bot's own
    directory is writable (build commands only)."""

    scratch_mb: int = 64
    processes: int | None = 128
    """Processes and threads of the bot together (a pids cgroup); None: no cgroup, no limit."""
    writable_bot_dir: bool = False

    def for_build(self) -> Sandbox:
        """The same sandbox with the bot's own directory writable, for its build command."""
        return replace(self, writable_bot_dir=True)

    def wrap(self, argv: Sequence[str], cwd: str | os.PathLike[str] | None, limits: Limits,
             env: Mapping[str, str] | None = None, bot_dir: str | None = None) -> list[str]:
        """The argv that runs ``argv`` (started in ``cwd``) in this sandbox under ``limits``.

        ``bot_dir`` overrides the bot directory found from ``argv`` (a build command's argv names
        the compiler, not the bot).
        """
        here = os.path.abspath(cwd if cwd is not None else os.getcwd())
        layout = sandbox_layout(argv, here)
        if bot_dir is not None:
            layout = replace(layout, bot_dir=os.path.abspath(os.path.join(here, bot_dir)))
        cgroup = None if self.processes is None else _new_pids_cgroup(self.processes)
        return [
            "/bin/sh", "-c", _LAUNCHER, "arena-sandbox",
            cgroup or "-", *_limit_words(limits),
            *self.bwrap_argv(layout, here, env),
        ]

    def bwrap_argv(self, layout: Layout, here: str, env: Mapping[str, str] | None) -> list[str]:
        """The bwrap command line for a resolved ``layout`` with working directory ``here``."""
        words = ["bwrap", "--unshare-all", "--die-with-parent", "--new-session",
                 "--cap-drop", "ALL", "--clearenv"]
        for path in SYSTEM_DIRS:
            if os.path.islink(path):
                words += ["--symlink", os.readlink(path), path]
            elif os.path.isdir(path):
                words += ["--ro-bind", path, path]
        for path in ETC_PATHS:
            words += ["--ro-bind-try", path, path]
        words += ["--proc", "/proc"]
        for device in DEVICES:
            words += ["--dev-bind", f"/dev/{device}", f"/dev/{device}"]
        for number, name in enumerate(("stdin", "stdout", "stderr")):
            words += ["--symlink", f"/proc/self/fd/{number}", f"/dev/{name}"]
        words += ["--symlink", "/proc/self/fd", "/dev/fd",
                  "--size", str(self.scratch_mb << 20), "--tmpfs", SCRATCH,
                  "--symlink", SCRATCH, "/dev/shm",  # shared memory counts against scratch
                  "--dir", here]
        for root in layout.installations:
            words += ["--ro-bind", os.path.realpath(root), root]
        bind = "--bind" if self.writable_bot_dir else "--ro-bind"
        words += [bind, os.path.realpath(layout.bot_dir), layout.bot_dir, "--remount-ro", "/"]
        variables = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": SCRATCH,
                     "TMPDIR": SCRATCH, "LANG": os.environ.get("LANG", "C.UTF-8")}
        variables.update(env or {})
        for name, value in variables.items():
            words += ["--setenv", name, value]
        return [*words, "--chdir", here, "--", *layout.argv]


@dataclass(frozen=True)
class Layout:
    """What a bot's sandbox shows of the host: the bot's directory and its interpreter's
    installations (absolute paths), and the argv to run inside (the program resolved)."""

    bot_dir: str
    installations: tuple[str, ...]
    argv: tuple[str, ...]


def sandbox_layout(argv: Sequence[str], here: str) -> Layout:
    """Resolve a bot's directory and interpreter for ``argv`` run in the directory ``here``.

    The bot's directory is that of the first argument naming an existing file (the script:
    ``python3 bots/x/bot.py`` -> ``bots/x``), else that of the program when it is given as a path
    (``./random_bot``), else ``here``. A program found on PATH runs by its resolved absolute path;
    a pyenv shim is resolved to the real interpreter with ``pyenv which``.
    """
    program = argv[0]
    bot_dir = None
    for word in argv[1:]:
        if not word.startswith("-") and os.path.isfile(os.path.join(here, word)):
            bot_dir = os.path.dirname(os.path.abspath(os.path.join(here, word)))
            break
    installations: list[str] = []
    resolved = program
    if "/" in program:
        path = os.path.abspath(os.path.join(here, program))
        if bot_dir is None:
            bot_dir = os.path.dirname(path)
        elif not path.startswith(bot_dir + os.sep):
            installations += _installations(path)
    else:
        found = shutil.which(program)
        if found is not None:
            resolved = _unshimmed(found, here)
            installations += _installations(resolved)
    return Layout(bot_dir or here, tuple(dict.fromkeys(installations)),
                  (resolved, *argv[1:]))


def _installations(program: str) -> list[str]:
    """The installation roots outside the system directories that ``program`` needs.

    An installation's root is the parent of its ``bin`` directory (``~/.pyenv/versions/3.11.7``,
    ``~/.nvm/versions/node/v20``, a venv with its ``pyvenv.cfg``), else the program's directory.
    Both the path as given and its real target count: a venv's python is a link to another
    installation.
    """
    roots = []
    for path in dict.fromkeys((os.path.abspath(program), os.path.realpath(program))):
        if _is_system(path):
            continue
        directory = os.path.dirname(path)
        roots.append(os.path.dirname(directory) if os.path.basename(directory) == "bin"
                     else directory)
    return roots


def _is_system(path: str) -> bool:
    return any(path == top or path.startswith(top + "/") for top in SYSTEM_DIRS)


@functools.cache
def _unshimmed(program: str, here: str) -> str:
    """A pyenv shim's real interpreter (shims are scripts that run ``pyenv``); else ``program``."""
    if os.path.basename(os.path.dirname(program)) != "shims" or shutil.which("pyenv") is None:
        return program
    try:
        done = subprocess.run(["pyenv", "which", os.path.basename(program)], cwd=here,
                              capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return program
    real = done.stdout.strip()
    return real if done.returncode == 0 and os.path.isfile(real) else program


def _limit_words(limits: Limits) -> list[str]:
    """The launcher's limit arguments, each no higher than this process's own hard limit."""
    def capped(which: int, value: int) -> int:
        hard = resource.getrlimit(which)[1]
        return value if hard == resource.RLIM_INFINITY else min(value, hard)

    memory = "-" if limits.memory_mb is None else str(
        capped(resource.RLIMIT_AS, limits.memory_mb << 20) >> 10)
    size = "-" if limits.file_mb is None else str(
        capped(resource.RLIMIT_FSIZE, limits.file_mb << 20) >> 9)
    if limits.cpu_seconds is None:
        return [memory, size, "-", "-"]
    soft = capped(resource.RLIMIT_CPU, limits.cpu_seconds)
    return [memory, size, str(soft), str(capped(resource.RLIMIT_CPU, soft + 1))]


# -- is bubblewrap here, and does it work -----------------------------------------------------


@functools.cache
def bwrap_problem() -> str | None:
    """Why bwrap cannot sandbox bots on this machine (one line), or None when it can.

    Runs bwrap once with the namespaces a sandbox uses: installed is not enough where user
    namespaces are disabled or a container forbids them.
    """
    if shutil.which("bwrap") is None:
        return f"bubblewrap (bwrap) is not installed: {INSTALL_HINT}"
    try:
        done = subprocess.run(
            ["bwrap", "--unshare-all", "--die-with-parent", "--cap-drop", "ALL",
             "--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev", "true"],
            capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"bwrap cannot run here: {error}"
    if done.returncode != 0:
        said = (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1]
        return f"bwrap cannot create a sandbox here ({said}); user namespaces may be disabled"
    return None


def choose_sandbox(mode: SandboxMode, where: str = "sandbox",
                   sandbox: Sandbox | None = None) -> tuple[Sandbox | None, str | None]:
    """The sandbox for ``mode`` and a warning to show first, if any.

    ``bwrap`` where it cannot run raises ConfigError (``where`` names the setting); ``auto`` where
    it cannot run gives no sandbox and a warning saying so.
    """
    if mode is SandboxMode.NONE:
        return None, None
    problem = bwrap_problem()
    if problem is None:
        return sandbox or Sandbox(), None
    if mode is SandboxMode.BWRAP:
        raise ConfigError(f"{where}: bwrap asked for, but {problem}")
    return None, f"warning: bots run WITHOUT a sandbox: {problem}"


def sandbox_mode(value: object, where: str) -> SandboxMode:
    """Parse a ``sandbox`` setting; ConfigError naming ``where`` otherwise."""
    try:
        return SandboxMode(value)
    except ValueError:
        shown = "nothing" if value is None else repr(value)
        raise ConfigError(f"{where}: {shown} is not one of none, bwrap, auto") from None


# -- a pids cgroup per bot process ------------------------------------------------------------

_counter = itertools.count()
_cgroups: list[str] = []
_atexit_installed: list[bool] = []
_STALE = re.compile(r"arena-(\d+)-\d+")


@functools.cache
def _pids_root() -> str | None:
    """A cgroup directory under which this process can create pids-limited cgroups, or None.

    Tried for real (a probe cgroup made and removed): root may still find the tree read-only.
    """
    candidates = []
    v1 = "/sys/fs/cgroup/pids"
    if os.path.isfile(os.path.join(v1, "cgroup.procs")):
        candidates.append(v1)
    v2 = "/sys/fs/cgroup"
    try:
        if "pids" in Path(v2, "cgroup.subtree_control").read_text().split():
            candidates.append(v2)
    except OSError:
        pass
    for root in candidates:
        probe = os.path.join(root, f"arena-{os.getpid()}-probe")
        try:
            os.mkdir(probe)
        except OSError:
            continue
        try:
            usable = os.path.isfile(os.path.join(probe, "pids.max"))
        finally:
            os.rmdir(probe)
        if usable:
            return root
    return None


def process_limit_problem() -> str | None:
    """Why sandboxes here get no process limit (one line), or None when they do."""
    if _pids_root() is None:
        return ("no writable pids cgroup (run the arena as root, or delegate a cgroup): "
                "a sandboxed bot's process count is not limited")
    return None


def _new_pids_cgroup(processes: int) -> str | None:
    """A fresh cgroup limited to ``processes`` tasks: the path of its cgroup.procs, or None."""
    root = _pids_root()
    if root is None:
        return None
    if not _cgroups:
        _remove_stale_cgroups(root)
    remove_empty_cgroups()
    path = os.path.join(root, f"arena-{os.getpid()}-{next(_counter)}")
    try:
        os.mkdir(path)
        Path(path, "pids.max").write_text(f"{processes}\n")
    except OSError:
        return None
    if not _atexit_installed:
        atexit.register(remove_empty_cgroups, 1.0)
        _atexit_installed.append(True)
    _cgroups.append(path)
    return os.path.join(path, "cgroup.procs")


def remove_empty_cgroups(wait: float = 0.0) -> None:
    """Remove this process's cgroups whose processes are all gone (rmdir fails on the others).

    The processes of a killed sandbox leave its cgroup a moment after bwrap is reaped: ``wait``
    is how long to keep trying (at exit); what is still left is swept by the next run.
    """
    deadline = time.monotonic() + wait
    while True:
        for path in list(_cgroups):
            try:
                os.rmdir(path)
            except FileNotFoundError:
                pass
            except OSError:
                continue
            _cgroups.remove(path)
        if not _cgroups or time.monotonic() >= deadline:
            return
        time.sleep(0.01)  # no event to wait on: cgroup v1 reports emptiness only to an agent


def _remove_stale_cgroups(root: str) -> None:
    """Remove the empty cgroups left by arena processes that are gone (killed, or forked workers)."""
    for name in os.listdir(root):
        owner = _STALE.fullmatch(name)
        if owner is None:
            continue
        try:
            os.kill(int(owner.group(1)), 0)
            continue
        except ProcessLookupError:
            pass
        except OSError:
            continue
        try:
            os.rmdir(os.path.join(root, name))
        except OSError:
            pass


def _forget_inherited_cgroups() -> None:
    """In a forked child: the parent's cgroups are the parent's to remove."""
    _cgroups.clear()


os.register_at_fork(after_in_child=_forget_inherited_cgroups)


def _process_line(sandbox: Sandbox) -> str:
    if sandbox.processes is None:
        return "processes: not limited (no process limit asked for)"
    problem = process_limit_problem()
    if problem is not None:
        return f"processes: {problem}"
    return f"processes and threads: at most {sandbox.processes}"


def visibility_report(argv: Sequence[str], cwd: str | None = None,
                      sandbox: Sandbox | None = None) -> list[str]:
    """What a bot started with ``argv`` in ``cwd`` sees inside its sandbox, one line per item."""
    sandbox = sandbox or Sandbox()
    here = os.path.abspath(cwd or os.getcwd())
    layout = sandbox_layout(argv, here)
    lines = [
        f"command inside: {' '.join(layout.argv)}",
        f"working directory: {here}",
        f"bot directory (read-only): {layout.bot_dir}",
    ]
    lines += [f"interpreter installation (read-only): {root}" for root in layout.installations]
    lines += [
        f"system (read-only): {', '.join(p for p in SYSTEM_DIRS if os.path.lexists(p))}",
        f"/etc (read-only, only): {', '.join(p for p in ETC_PATHS if os.path.exists(p))}",
        f"scratch (writable, {sandbox.scratch_mb} MB, $TMPDIR and $HOME): {SCRATCH}",
        f"/proc: this sandbox's processes only; /dev: {', '.join(DEVICES)}, shm (a link to "
        "scratch), fd links; no terminal",
        "network: none (not even loopback); environment: PATH, HOME, TMPDIR, LANG only",
        _process_line(sandbox),
        "nothing else: not other bots, results, tournament files or your home directory",
    ]
    return lines
