"""Starting a bot program: the spawn itself, its resource limits, and what a failed start says.

``spawn`` is the one place a bot's argv becomes a process: ``subprocess.Popen(argv, cwd=...,
process_group=0)`` with three pipes; a sandbox (arena.bots.sandbox) wraps the argv there. No
``preexec_fn`` (it forces a real fork, up to +44 ms from a large parent); the limits are applied
right after the start with ``resource.prlimit(pid, ...)``, which costs nothing but leaves the bot a
few microseconds of unlimited life before they apply.
"""

from __future__ import annotations

import os
import resource
import subprocess
from collections.abc import Mapping, Sequence

from arena.bots.sandbox import wrap
from arena.configfile import FROM_ARENA, resolved_from
from arena.settings import DEFAULT_LIMITS, Limits
from arena.values.sandbox_settings import Sandbox


def spawn(
    argv: Sequence[str],
    cwd: str | os.PathLike[str] | None,
    env: Mapping[str, str] | None,
    sandbox: Sandbox | None = None,
    limits: Limits = DEFAULT_LIMITS,
    uid: int | None = None,
) -> subprocess.Popen[bytes]:
    """Start ``argv`` in its own process group with stdin, stdout and stderr piped (raises OSError).

    With ``sandbox``, ``argv`` runs inside it under ``limits``, set there before the bot starts
    (without, the caller applies them with ``apply_limits``), as ``uid`` where the sandbox
    ``takes_uid``; ConfigError when the sandbox refuses its program.
    """
    command = list(argv) if sandbox is None else wrap(sandbox, argv, cwd, limits, env, uid=uid)
    return subprocess.Popen(
        command,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=cwd,
        env=env,
        process_group=0,
        bufsize=0,
    )


def spawn_failure(name: str, argv: Sequence[str], cwd: str | os.PathLike[str] | None,
                  error: OSError) -> str:
    """One line saying why ``argv`` could not be started (missing file, not executable, bad cwd)."""
    command = list(argv)
    where = f"bot '{name}': cannot start {command}"
    missing = error.filename if error.filename is not None else command[0]
    if cwd is not None and os.fspath(missing) == os.fspath(cwd):
        if isinstance(error, FileNotFoundError):
            return f"{where}: no such working directory '{cwd}'"
        return f"{where}: working directory '{cwd}': {error.strerror}"
    if isinstance(error, FileNotFoundError):
        path = os.fspath(missing)
        if "/" not in str(path):  # a program looked up on PATH, not a path
            return f"{where}: no such file '{missing}'"
        base = os.fspath(cwd) if cwd is not None else os.getcwd()
        what = FROM_ARENA if cwd is None else "its working directory"
        return f"{where}: no such file '{missing}'{resolved_from(str(path), base, what)}"
    if isinstance(error, PermissionError):
        return f"{where}: '{missing}' is not executable"
    return f"{where}: {error.strerror or error}"


def apply_limits(pid: int, limits: Limits) -> None:
    """Set the bot's resource limits (soft = hard, so it cannot raise them back)."""
    wanted = [(resource.RLIMIT_CORE, 0)]
    address_space_mb = limits.address_space_mb
    if address_space_mb is not None:  # a backstop: the memory watch enforces memory_mb
        wanted.append((resource.RLIMIT_AS, address_space_mb << 20))
    if limits.file_mb is not None:
        wanted.append((resource.RLIMIT_FSIZE, limits.file_mb << 20))
    try:
        for which, value in wanted:
            _lower_limit(pid, which, value, value)
        if limits.cpu_seconds is not None:
            # SIGXCPU at the soft limit lets the bot say why; SIGKILL a second later.
            _lower_limit(pid, resource.RLIMIT_CPU, limits.cpu_seconds, limits.cpu_seconds + 1)
    except ProcessLookupError:  # it already exited: the handshake reports that
        pass


def _lower_limit(pid: int, which: int, soft: int, hard: int) -> None:
    _, current_hard = resource.prlimit(pid, which)
    if current_hard != resource.RLIM_INFINITY:  # an unprivileged arena cannot raise a hard limit
        soft, hard = min(soft, current_hard), min(hard, current_hard)
    resource.prlimit(pid, which, (soft, hard))
