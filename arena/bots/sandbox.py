"""Bubblewrap sandboxes for bot processes: a bot's argv in, the argv that runs it confined out.

A sandboxed bot is still just a process with three pipes to the process layer: ``Sandbox.wrap``
turns its argv into ``prlimit LIMITS -- bwrap ... -- [setpriv ... --] argv`` and nothing else
changes (``arena.bots.launch.spawn`` starts it like any other). Inside, the bot:

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

Limits are set by ``prlimit`` (util-linux) on itself before it execs bwrap, so they hold from the
bot's first instruction; applying them to bwrap's pid after the start (as the process layer does
for an unsandboxed bot) would race bwrap's fork of the bot.

Processes: RLIMIT_NPROC counts the processes of a kernel uid. Running as root (containers, CI),
the arena starts bwrap without a user namespace (explicit namespaces instead of
``--unshare-all``, which would leave every uid but root unmapped) and the bot as a uid of its own,
allocated by ``arena.bots.uids`` (no two live bots share one), with ``setpriv``: its RLIMIT_NPROC
(``processes``) then counts that bot alone, so a fork bomb stops there. Root itself is exempt
from RLIMIT_NPROC: a build command, which must write the bot's root-owned directory, runs as root
without capabilities and without a process limit.
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
import glob
import os
import resource
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from arena.bots.uids import UID_FIRST, UID_LAST
from arena.errors import ConfigError
from arena.settings import Limits, SandboxMode

INSTALL_HINT = "install it with: apt-get install bubblewrap"
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
"""Read-only in every sandbox (where they exist; merged-/usr symlinks stay symlinks)."""
ETC_PATHS = ("/etc/ld.so.cache", "/etc/alternatives", "/etc/localtime", "/etc/passwd", "/etc/group",
             "/etc/nsswitch.conf", *sorted(glob.glob("/etc/java-*")))
"""The part of /etc a sandbox sees: what the dynamic loader, ``alternatives`` links, the C
library's time and user lookups read, and a Debian JDK's configuration (its ``conf/`` files are
links into ``/etc/java-N-openjdk``: without it neither ``java`` nor ``javac`` starts); no
secrets. Kept short because every bind mount adds to a bot's start (about 0.5 ms each here): no
certificates (there is no network), no ``ld.so.conf`` (read by ldconfig, not by the loader)."""
DEVICES = ("null", "zero", "full", "random", "urandom")
"""The whole of /dev besides the fd links and ``/dev/shm`` (a link to the scratch directory): no
terminal, no pseudo-terminals."""
SANDBOX_HELP = ("Run the bots in a bubblewrap sandbox (docs/sandbox.md): none, bwrap (an error "
                "where it cannot run), or auto (bwrap where it can run, else none with a warning).")
"""The ``--sandbox`` option's help, shared by the commands that have it."""
SCRATCH = "/tmp"
"""The sandbox's writable, size-capped directory (also $TMPDIR and $HOME)."""
SETPRIV = "/usr/bin/setpriv"
PRLIMIT = "/usr/bin/prlimit"
_NAMESPACES = ("--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts",
               "--unshare-cgroup-try")
"""Every namespace of ``--unshare-all`` but the user namespace (for an arena running as root)."""

def is_root_mode() -> bool:
    """True when sandboxes run without a user namespace, each bot as a uid of its own (root)."""
    return os.geteuid() == 0


def signal_of_status(returncode: int | None) -> int | None:
    """The signal that killed a sandboxed bot, from bwrap's exit status (128 + N), else None.

    An exit status of 129..192 from a bot's own ``exit`` reads the same way; bots that exit with
    such a status on purpose are rare, and a signal is the likelier cause.
    """
    if returncode is not None and 128 < returncode <= 128 + 64:
        return returncode - 128
    return None


def start_hint(stderr_tail: str) -> str:
    """A hint for a sandboxed bot that died before its hello saying "Permission denied", or ""."""
    if is_root_mode() and "permission denied" in stderr_tail.lower():
        return ("; inside the sandbox the bot runs as a uid of its own, so its files must be "
                "world-readable (chmod -R a+rX BOT_DIR; docs/sandbox.md)")
    return ""


@dataclass(frozen=True)
class Sandbox:
    """How bot processes are confined: scratch size, process limit, whether the bot's own
    directory is writable (build commands only), and the bot's directory when a manifest says it."""

    scratch_mb: int = 64
    processes: int | None = 128
    """Processes and threads of the bot's uid together (RLIMIT_NPROC); None: not limited."""
    writable_bot_dir: bool = False
    bot_dir: str | None = None
    """The bot's directory (a manifest's); None: found from the argv (``sandbox_layout``)."""

    @property
    def takes_uid(self) -> bool:
        """Whether a process in it runs as a uid of its own (``arena.bots.uids``): a root arena's
        bot; a build writes root's files as root."""
        return is_root_mode() and not self.writable_bot_dir

    def for_build(self) -> Sandbox:
        """The same sandbox with the bot's own directory writable, for its build command."""
        return replace(self, writable_bot_dir=True)

    def wrap(self, argv: Sequence[str], cwd: str | os.PathLike[str] | None, limits: Limits,
             env: Mapping[str, str] | None = None, bot_dir: str | None = None,
             uid: int | None = None) -> list[str]:
        """The argv that runs ``argv`` (started in ``cwd``) in this sandbox under ``limits``,
        as ``uid`` where it ``takes_uid`` (one from ``arena.bots.uids.BOT_UIDS``).

        ``bot_dir`` overrides the bot directory (a build command's argv names the compiler, not
        the bot); else this sandbox's ``bot_dir``; else the one found from ``argv``.
        """
        if self.takes_uid and uid is None:
            raise ValueError("a root arena's sandboxed bot needs a uid of its own (BOT_UIDS.take())")
        here = os.path.abspath(cwd if cwd is not None else os.getcwd())
        layout = sandbox_layout(argv, here)
        chosen = bot_dir if bot_dir is not None else self.bot_dir
        if chosen is not None:
            layout = replace(layout, bot_dir=os.path.abspath(os.path.join(here, chosen)))
        return [PRLIMIT, *self.limit_options(limits), "--",
                *self.bwrap_argv(layout, here, env, uid)]

    def limit_options(self, limits: Limits) -> list[str]:
        """prlimit's options for ``limits`` (soft = hard but for CPU), each no higher than this
        process's own hard limit (an unprivileged arena cannot raise one)."""
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
        if self.processes is not None and not (is_root_mode() and self.writable_bot_dir):
            # Not root: the kernel counts every process of the arena's uid, in the sandbox's user
            # namespace and outside it, so the bot gets ``processes`` more than run now.
            budget = self.processes if is_root_mode() else self.processes + _processes_of_my_uid()
            count = capped(resource.RLIMIT_NPROC, budget)
            words.append(f"--nproc={count}:{count}")
        return words

    def bwrap_argv(self, layout: Layout, here: str, env: Mapping[str, str] | None,
                   uid: int | None = None) -> list[str]:
        """The bwrap command line for a resolved ``layout`` with working directory ``here``, the
        program run as ``uid`` when given (``takes_uid``)."""
        as_root = is_root_mode()
        words = ["bwrap", *(_NAMESPACES if as_root else ("--unshare-all",)),
                 "--die-with-parent", "--new-session", "--cap-drop", "ALL"]
        own_uid = uid is not None and self.takes_uid
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
        for path in ETC_PATHS:
            words += ["--ro-bind-try", path, path]
        words += ["--proc", "/proc", "--perms", "0755", "--dir", "/dev"]
        for device in DEVICES:
            words += ["--dev-bind", f"/dev/{device}", f"/dev/{device}"]
        for number, name in enumerate(("stdin", "stdout", "stderr")):
            words += ["--symlink", f"/proc/self/fd/{number}", f"/dev/{name}"]
        words += ["--symlink", "/proc/self/fd", "/dev/fd",
                  "--perms", "1777", "--size", str(self.scratch_mb << 20), "--tmpfs", SCRATCH,
                  "--symlink", SCRATCH, "/dev/shm"]  # shared memory counts against scratch
        made: set[str] = {"/", "/etc", "/dev", SCRATCH, *SYSTEM_DIRS}
        for target in (here, *layout.installations, layout.bot_dir):
            for directory in _ancestors(target, include_self=target == here):
                if directory not in made:
                    made.add(directory)
                    words += ["--perms", "0755", "--dir", directory]
        for root in layout.installations:
            words += ["--ro-bind", os.path.realpath(root), root]
        bind = "--bind" if self.writable_bot_dir else "--ro-bind"
        words += [bind, os.path.realpath(layout.bot_dir), layout.bot_dir, "--remount-ro", "/"]
        variables = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": SCRATCH,
                     "TMPDIR": SCRATCH, "LANG": os.environ.get("LANG", "C.UTF-8")}
        variables.update(env or {})
        for name, value in variables.items():
            words += ["--setenv", name, value]
        words += ["--chdir", here, "--"]
        if own_uid:
            words += [SETPRIV, "--reuid", str(uid), "--regid", str(uid), "--clear-groups",
                      "--inh-caps=-all", "--"]
        return [*words, *layout.argv]


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


def visibility_report(argv: Sequence[str], cwd: str | None = None,
                      sandbox: Sandbox | None = None, bot_dir: str | None = None) -> list[str]:
    """What a bot started with ``argv`` in ``cwd`` sees inside its sandbox, one line per item.

    ``bot_dir``: the bot's directory where a manifest says it (else found from ``argv``).
    """
    sandbox = sandbox or Sandbox()
    here = os.path.abspath(cwd or os.getcwd())
    layout = sandbox_layout(argv, here)
    if bot_dir is not None:
        layout = replace(layout, bot_dir=os.path.abspath(os.path.join(here, bot_dir)))
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
