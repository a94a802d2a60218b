"""Bubblewrap sandboxes for bot processes: a bot's argv in, the argv that runs it confined out.

The sandbox's settings are a value (``arena.values.sandbox_settings.Sandbox``) and what they show a
program is found before anything runs (``arena.botfiles.view``); this module runs bwrap with them.

A sandboxed bot is still just a process with three pipes to the process layer: ``wrap``
turns its argv into ``prlimit LIMITS -- bwrap ... -- [setpriv ... --] argv`` and nothing else
changes (``arena.bots.launch.spawn`` starts it like any other). Inside, the bot:

- has no network (its own network namespace, no loopback of the host's), its own PID, IPC, UTS
  and (where the kernel allows) cgroup namespaces, no capabilities, ``no_new_privs`` (bwrap sets
  it), a new session (no terminal to push keystrokes into), and dies with the arena (SIGKILL from
  the kernel when bwrap's parent goes, and everything in a PID namespace dies with its first
  process);
- sees ``/usr``, ``/bin``, ``/sbin``, ``/lib*`` read-only, a documented subset of ``/etc``
  (``ETC_PATHS``: no shadow, no ssh, no credentials) and the configuration of the runtimes it
  allows (``etc_paths``: Mono's ``/etc/mono``, a JDK's ``/etc/java-17-openjdk``), a fresh
  ``/proc`` of its own namespace, a minimal ``/dev`` (``DEVICES``, no terminal); its own bot
  directory read-only at its usual path (writable for a build command); the allowed interpreter
  installations, read-only (``arena.botfiles.installations``: those of the interpreters the
  arena itself finds, and those the organiser names; never a home); and a private tmpfs of
  ``scratch_mb`` at ``/tmp`` (``$TMPDIR``
  and ``$HOME``). Everything else (the other bots, the results, the tournament file, the
  organiser's home, the arena's own files) is simply not there. The environment is cleared to
  ``PATH`` (each allowed installation's ``bin``, then the entries of the arena's own PATH that
  the sandbox shows), ``HOME``,
  ``TMPDIR`` and ``LANG``.

What a command names never adds to that view: a program outside the bot's directory, the system
directories and the allowed installations is refused before it starts
(``arena.botfiles.view.check_visible``), with one line saying what to do.

Limits are set by ``prlimit`` (util-linux) on itself before it execs bwrap, so they hold from the
bot's first instruction; applying them to bwrap's pid after the start (as the process layer does
for an unsandboxed bot) would race bwrap's fork of the bot.

Processes: RLIMIT_NPROC counts the processes of a kernel uid. Running as root (containers, CI),
the arena starts bwrap without a user namespace (explicit namespaces instead of
``--unshare-all``, which would leave every uid but root unmapped) and the bot as a uid of its own,
allocated by ``arena.bots.uids`` (no two live bots share one), with ``setpriv``: its RLIMIT_NPROC
(``processes``) then counts that bot alone, so a fork bomb stops there. A build command runs the
same way, as a uid of its own, its bot's directory handed to that uid for the build and given
back after it (``arena.bots.buildtree``).
Not as root, bwrap makes a user namespace and the bot keeps the arena's uid; the kernel then
counts, against the bot's RLIMIT_NPROC, every process of that uid (inside the user namespace and
outside it: measured, docs/sandbox.md), so the limit is set to the processes of that uid running
at the start plus ``processes``: a fork bomb stops there, but its budget is shared with whatever
else that uid starts meanwhile (``process_limit_problem()``). No cgroup is created or changed:
the machine's cgroup hierarchy belongs to its host.

A bot killed by a signal N makes bwrap exit with 128 + N (``signal_of_status`` maps it back, so
the fault still names the signal and a limit's hint).
"""

from __future__ import annotations

import functools
import os
import re
import resource
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from typing import NamedTuple

from arena.botfiles.configuration import is_public, runtime_configuration, shown_in
from arena.botfiles.installations import SYSTEM_DIRS, allowed_installations
from arena.botfiles.view import Layout, layout_of
from arena.bots.uids import UID_FIRST, UID_LAST
from arena.errors import ConfigError
from arena.settings import DEFAULT_BUILD_LIMITS, BuildLimits, Limits, SandboxMode
from arena.values.sandbox_settings import Sandbox, is_root_mode

INSTALL_HINT = "install it with: apt-get install bubblewrap"
ETC_PATHS = ("/etc/ld.so.cache", "/etc/alternatives", "/etc/localtime", "/etc/passwd", "/etc/group",
             "/etc/nsswitch.conf")
"""The part of /etc every sandbox sees: what the dynamic loader, ``alternatives`` links, the C
library's time and user lookups read; no secrets. Kept short because every bind mount adds to a
bot's start (about 0.5 ms each here): no ``ld.so.conf`` (read by ldconfig, not by the loader).
Besides these, the configuration of each allowed runtime (``etc_paths``)."""
DEVICES = ("null", "zero", "full", "random", "urandom")
"""The whole of /dev besides the fd links and ``/dev/shm`` (a link to the scratch directory): no
terminal, no pseudo-terminals."""
SCRATCH = "/tmp"
"""The sandbox's writable, size-capped directory (also $TMPDIR and $HOME)."""
SETPRIV = "/usr/bin/setpriv"
PRLIMIT = "/usr/bin/prlimit"
_NAMESPACES = ("--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts",
               "--unshare-cgroup-try")
"""Every namespace of ``--unshare-all`` but the user namespace (for an arena running as root)."""

def signal_of_status(returncode: int | None) -> int | None:
    """The signal that killed a sandboxed bot, from bwrap's exit status (128 + N), else None.

    An exit status of 129..192 from a bot's own ``exit`` reads the same way; bots that exit with
    such a status on purpose are rare, and a signal is the likelier cause.
    """
    if returncode is not None and 128 < returncode <= 128 + 64:
        return returncode - 128
    return None


HIDDEN_MARKS = ("bwrap: execvp ", "setpriv: failed to execute ")
"""How bwrap and setpriv say that the program they were to run does not exist in the sandbox."""


def start_hint(stderr_tail: str, sandbox: Sandbox) -> str:
    """A hint for a bot that died in ``sandbox`` before its hello: its files unreadable to its
    uid, its program hidden by the sandbox, or a file of /etc it named hidden; else ""."""
    if is_root_mode() and "permission denied" in stderr_tail.lower():
        return ("; inside the sandbox the bot runs as a uid of its own, so its files must be "
                "world-readable (chmod -R a+rX BOT_DIR; docs/sandbox.md)")
    return hidden_hint(stderr_tail, sandbox)


def hidden_hint(output: str, sandbox: Sandbox) -> str:
    """A hint for a command that failed in ``sandbox`` because the sandbox hides its program
    (or the interpreter its ``#!`` line names), from what bwrap or setpriv printed, or a file
    under /etc that its output names (``hidden_etc_paths``); else ""."""
    if any(mark in line and "no such file" in line.lower()
           for line in output.splitlines() for mark in HIDDEN_MARKS):
        return ("; the sandbox hides that program (or the interpreter on its #! line): it shows "
                "only the system directories, the bot's directory and the interpreters this arena "
                "allows (arena check-bot --sandbox-report lists them; the organiser adds one with "
                "--interpreter DIR)")
    hidden = hidden_etc_paths(output, sandbox)
    if not hidden:
        return ""
    return (f"; {', '.join(hidden)}: not visible in the sandbox, which shows only part of /etc: a "
            "runtime's configuration there is shown once the organiser allows the runtime "
            "(--interpreter DIR; arena languages says which runtimes work sandboxed here)")


_ETC_PATH = re.compile(r"(?<![\w.~/-])/etc(?:/[\w.+@-]+)+")
HIDDEN_PATHS_NAMED = 3
"""At most this many hidden paths a hint names."""


def hidden_etc_paths(output: str, sandbox: Sandbox) -> list[str]:
    """The paths under /etc that ``output`` (a bot's or a build's) names and ``sandbox`` hides,
    of those every user may read here (``is_public``): a participant learns nothing from the
    hint that any program on this machine could not read for itself."""
    shown = etc_paths(sandbox)
    found: list[str] = []
    for match in _ETC_PATH.finditer(output):
        path = os.path.normpath(match.group(0).rstrip("."))
        if (path in found or not path.startswith("/etc/") or shown_in(path, shown)
                or not is_public(path)):
            continue
        found.append(path)
        if len(found) == HIDDEN_PATHS_NAMED:
            break
    return found


def wrap(sandbox: Sandbox, argv: Sequence[str], cwd: str | os.PathLike[str] | None,
         limits: Limits, env: Mapping[str, str] | None = None, bot_dir: str | None = None,
         uid: int | None = None) -> list[str]:
    """The argv that runs ``argv`` (started in ``cwd``) in ``sandbox`` under ``limits``, as
    ``uid`` where it ``takes_uid`` (one from ``arena.bots.uids.BOT_UIDS``).

    ``bot_dir`` as for ``arena.botfiles.view.layout_of``; ConfigError when the program is outside
    the sandbox's view.
    """
    if sandbox.takes_uid and uid is None:
        raise ValueError("a root arena's sandboxed bot needs a uid of its own (BOT_UIDS.take())")
    here = os.path.abspath(cwd if cwd is not None else os.getcwd())
    layout = layout_of(sandbox, argv, here, bot_dir)
    return [PRLIMIT, *limit_options(limits, sandbox.processes), "--",
            *bwrap_argv(sandbox, layout, here, env, uid)]


def bwrap_argv(sandbox: Sandbox, layout: Layout, here: str, env: Mapping[str, str] | None,
               uid: int | None = None) -> list[str]:
    """The bwrap command line for ``sandbox`` and a resolved ``layout`` with working directory
    ``here``, the program run as ``uid`` when given (``takes_uid``)."""
    as_root = is_root_mode()
    words = ["bwrap", *(_NAMESPACES if as_root else ("--unshare-all",)),
             "--die-with-parent", "--new-session", "--cap-drop", "ALL"]
    own_uid = uid is not None and sandbox.takes_uid
    if own_uid:  # setpriv's, dropped by it with the uid change
        words += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    words.append("--clearenv")
    for path in SYSTEM_DIRS:
        if os.path.islink(path):
            words += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            words += ["--ro-bind", path, path]
    # bwrap makes missing parents of a mount point 0700: unreadable to the bot's own uid.
    words += ["--perms", "0755", "--dir", "/etc"]
    made: set[str] = {"/", "/etc", "/dev", SCRATCH, *SYSTEM_DIRS}
    for path in etc_paths(sandbox):
        for directory in _ancestors(path, include_self=False):
            if directory not in made:
                made.add(directory)
                words += ["--perms", "0755", "--dir", directory]
        words += ["--ro-bind-try", path, path]
    words += ["--proc", "/proc", "--perms", "0755", "--dir", "/dev"]
    for device in DEVICES:
        words += ["--dev-bind", f"/dev/{device}", f"/dev/{device}"]
    for number, name in enumerate(("stdin", "stdout", "stderr")):
        words += ["--symlink", f"/proc/self/fd/{number}", f"/dev/{name}"]
    words += ["--symlink", "/proc/self/fd", "/dev/fd",
              "--perms", "1777", "--size", str(sandbox.scratch_mb << 20), "--tmpfs", SCRATCH,
              "--symlink", SCRATCH, "/dev/shm"]  # shared memory counts against scratch
    for target in (here, *layout.installations, layout.bot_dir):
        for directory in _ancestors(target, include_self=target == here):
            if directory not in made:
                made.add(directory)
                words += ["--perms", "0755", "--dir", directory]
    for root in layout.installations:
        words += ["--ro-bind", os.path.realpath(root), root]
    bind = "--bind" if sandbox.writable_bot_dir else "--ro-bind"
    words += [bind, os.path.realpath(layout.bot_dir), layout.bot_dir, "--remount-ro", "/"]
    variables = {"PATH": layout.path, "HOME": SCRATCH,
                 "TMPDIR": SCRATCH, "LANG": os.environ.get("LANG", "C.UTF-8")}
    variables.update(env or {})
    for name, value in variables.items():
        words += ["--setenv", name, value]
    words += ["--chdir", here, "--"]
    if own_uid:
        words += [SETPRIV, "--reuid", str(uid), "--regid", str(uid), "--clear-groups",
                  "--inh-caps=-all", "--"]
    return [*words, *layout.argv]


def etc_paths(sandbox: Sandbox) -> tuple[str, ...]:
    """What of /etc ``sandbox`` shows: ``ETC_PATHS`` and its runtimes' configuration
    (``arena.botfiles.configuration``), each once."""
    return tuple(dict.fromkeys((*ETC_PATHS, *runtime_configuration(sandbox.interpreters))))


def limit_options(limits: Limits, processes: int | None) -> list[str]:
    """prlimit's options for ``limits`` and at most ``processes`` processes (soft = hard but for
    CPU), each no higher than this process's own hard limit (an unprivileged arena cannot raise
    one). The process limit is for a process that runs as a uid of its own where the arena is
    root; not root, the kernel counts every process of the arena's uid (in a sandbox's user
    namespace and outside it), so it is ``processes`` more than run now."""
    def capped(which: int, value: int) -> int:
        hard = resource.getrlimit(which)[1]
        return value if hard == resource.RLIM_INFINITY else min(value, hard)

    words = ["--core=0"]
    if limits.address_space_mb is not None:  # a backstop: the memory watch enforces memory_mb
        space = capped(resource.RLIMIT_AS, limits.address_space_mb << 20)
        words.append(f"--as={space}:{space}")
    if limits.file_mb is not None:
        size = capped(resource.RLIMIT_FSIZE, limits.file_mb << 20)
        words.append(f"--fsize={size}:{size}")
    if limits.cpu_seconds is not None:
        # SIGXCPU at the soft limit lets the bot say why; SIGKILL a second later.
        soft = capped(resource.RLIMIT_CPU, limits.cpu_seconds)
        words.append(f"--cpu={soft}:{capped(resource.RLIMIT_CPU, soft + 1)}")
    if processes is not None:
        budget = processes if is_root_mode() else processes + _processes_of_my_uid()
        count = capped(resource.RLIMIT_NPROC, budget)
        words.append(f"--nproc={count}:{count}")
    return words


def _processes_of_my_uid() -> int:
    """How many processes run as this process's real uid now (a scan of /proc, about 1 ms)."""
    uid = os.getuid()
    count = 0
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                count += os.stat(f"/proc/{name}").st_uid == uid
            except OSError:  # exited meanwhile
                continue
    return count


def _ancestors(path: str, include_self: bool) -> list[str]:
    """The directories from the top down to ``path``'s parent (and ``path`` with include_self)."""
    parts = path.strip("/").split("/")
    if not include_self:
        parts = parts[:-1]
    return ["/" + "/".join(parts[:count]) for count in range(1, len(parts) + 1) if parts[0]]


# -- is bubblewrap here, and does it work -----------------------------------------------------


@functools.cache
def bwrap_problem() -> str | None:
    """Why bwrap cannot sandbox bots on this machine (one line), or None when it can.

    Runs bwrap once with the namespaces a sandbox uses: installed is not enough where user
    namespaces are disabled or a container forbids them.
    """
    if shutil.which("bwrap") is None:
        return f"bubblewrap (bwrap) is not installed: {INSTALL_HINT}"
    for tool in (PRLIMIT, SETPRIV) if is_root_mode() else (PRLIMIT,):
        if not os.access(tool, os.X_OK):
            return f"{tool} is missing (Debian package util-linux)"
    try:
        done = subprocess.run(
            ["bwrap", *(_NAMESPACES if is_root_mode() else ("--unshare-all",)),
             "--die-with-parent", "--cap-drop", "ALL",
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
        box = sandbox or Sandbox()
        # Found once here, not again in each worker forked after this.
        _ = allowed_installations(box.interpreters), etc_paths(box)
        return box, None
    if mode is SandboxMode.BWRAP:
        raise ConfigError(f"{where}: bwrap asked for, but {problem}")
    return None, f"warning: bots run WITHOUT a sandbox: {problem}"


def process_limit_problem() -> str | None:
    """Why sandboxed bots here get a weaker process limit than their own (one line), or None."""
    if is_root_mode():
        return None
    return ("the arena is not root, so bots keep its uid: the limit is that many more than the "
            "uid's processes at the bot's start, shared with anything the uid starts later "
            "(docs/sandbox.md)")


def _process_line(sandbox: Sandbox) -> str:
    if sandbox.processes is None:
        return "processes: not limited (no process limit asked for)"
    problem = process_limit_problem()
    if problem is not None:
        return f"processes: at most {sandbox.processes}, but {problem}"
    return (f"processes and threads: at most {sandbox.processes}, as a uid of its own "
            f"({UID_FIRST}..{UID_LAST}, none shared by two live bots): the bot's files must be "
            "world-readable")


def _build_user() -> str:
    if is_root_mode():
        return (f"as a uid of its own ({UID_FIRST}..{UID_LAST}), which owns the bot directory "
                "for the build and gives it back after")
    return "as the arena's user"


def _build_limits_line(limits: BuildLimits) -> str:
    processes = f"{limits.processes} processes and threads"
    problem = process_limit_problem()
    if problem is not None:
        processes += f" ({problem})"
    return (f"build: limits: {limits.seconds} s of wall time, {limits.cpu_seconds} s of CPU per "
            f"process, {limits.memory_mb} MB of resident memory, {processes}, files up to "
            f"{limits.file_mb} MB, and it may add {limits.disk_mb} MB and {limits.files:,} files "
            "to its bot directory")


class VisibilityReport(NamedTuple):
    """What ``--sandbox-report`` prints, and the commands the sandbox refuses (empty: none)."""

    lines: list[str]
    refused: list[str]


def visibility_report(argv: Sequence[str], cwd: str | None = None,
                      sandbox: Sandbox | None = None, bot_dir: str | None = None,
                      build: Sequence[str] | None = None,
                      build_limits: BuildLimits = DEFAULT_BUILD_LIMITS) -> VisibilityReport:
    """What a bot started with ``argv`` in ``cwd`` sees inside its sandbox, one line per item,
    and what its ``build`` command sees while it runs, and its limits (``build_limits``).

    ``bot_dir``: the bot's directory where a manifest says it (else found from ``argv``).
    """
    sandbox = sandbox or Sandbox()
    here = os.path.abspath(cwd or os.getcwd())
    refused: list[str] = []

    def command(what: str, words: Sequence[str], box: Sandbox) -> tuple[str, Layout | None]:
        try:
            layout = layout_of(box, words, here, bot_dir)
        except ConfigError as error:
            refused.append(f"{what}: {error}")
            return f"{what}: refused: {error}", None
        return f"{what}: {' '.join(layout.argv)}", layout

    lines = [f"allowed installation (read-only): {root}"
             for root in allowed_installations(sandbox.interpreters) if os.path.isdir(root)]
    scratch = f"scratch (writable, {sandbox.scratch_mb} MB, $TMPDIR and $HOME): {SCRATCH}"
    if build is not None:  # the build's own view: it runs once, before any game, as itself
        lines.append("the build, once before any game, sees:")
        line, layout = command("build command inside", build, sandbox.for_build())
        lines += [line, f"build: working directory: {here}"]
        if layout is not None:
            lines += [f"build: bot directory (writable): {layout.bot_dir}; {_build_user()}; "
                      "no capabilities; no network",
                      f"build: PATH inside: {layout.path}"]
        lines.append(_build_limits_line(build_limits))
        lines.append(f"build: {scratch}: a compiler's caches and downloads (~/.cargo, ~/.cache, "
                     "GOCACHE) start empty and are gone after the build; the environment is "
                     "PATH, HOME, TMPDIR, LANG only: set others in the build command")
        lines.append("the bot, in its games, sees:")
    line, layout = command("command inside", argv, sandbox)
    lines += [line, f"working directory: {here}"]
    if layout is not None:
        lines += [f"bot directory (read-only): {layout.bot_dir}", f"PATH inside: {layout.path}"]
    lines += [scratch, _process_line(sandbox)]
    if build is not None:
        lines.append("both see:")
    lines += [
        f"system (read-only): {', '.join(p for p in SYSTEM_DIRS if os.path.lexists(p))}",
        f"/etc (read-only, only): {', '.join(p for p in etc_paths(sandbox) if os.path.exists(p))}",
        f"/proc: this sandbox's processes only; /dev: {', '.join(DEVICES)}, shm (a link to "
        "scratch), fd links; no terminal",
        "network: none (not even loopback); environment: PATH, HOME, TMPDIR, LANG only",
        "nothing else: not other bots, results, tournament files or any home directory",
    ]
    return VisibilityReport(lines, refused)
