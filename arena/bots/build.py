"""The one way a bot is built: its build command, run in its directory, on the runner or a cluster
worker alike.

The build runs with stdin closed, stdout and stderr together in one file (lines stay in order, and
a child that keeps the output open cannot hold the arena), in a process group of its own that is
killed when the build's own process ends, so a backgrounded child (``sleep 45 &``) ends with it.
Under a sandbox it runs in the bot's sandbox with the bot's directory writable, no network, and the
same limits everywhere (``BUILD_LIMITS``). A failure is a ConfigError naming ``where`` with the last
``TAIL_LINES`` lines of the output.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import tempfile

from arena.bots.sandbox import Sandbox, hidden_hint
from arena.errors import ConfigError
from arena.settings import Limits

TAIL_LINES = 20
"""How many of a failed build's last output lines its error shows (a compiler's error needs several)."""
TIMEOUT = 600.0
"""Seconds a build may take."""
BUILD_LIMITS = Limits(memory_mb=None, cpu_seconds=None, file_mb=None)
"""A build's resource limits, the same on the runner and on cluster workers: none beyond the
sandbox (a compiler needs memory and writes large files that a bot must not)."""


def run_build(build: tuple[str, ...], workdir: str, bot_dir: str, where: str,
              sandbox: Sandbox | None = None, timeout: float = TIMEOUT) -> None:
    """Run ``build`` in ``workdir`` (absolute), in ``sandbox`` with ``bot_dir`` writable.

    ConfigError ``WHERE: exited with N; the end of its output: ...`` (``TAIL_LINES`` lines) when
    it fails, does not finish within ``timeout`` seconds, or cannot start; ``WHERE: names ...``
    when the sandbox refuses its program; a hint when the sandbox hid a program it ran.
    """
    argv = list(build)
    if sandbox is not None:
        box = sandbox.for_build()
        box.check(argv, workdir, where, bot_dir)
        argv = box.wrap(argv, workdir, BUILD_LIMITS, bot_dir=bot_dir)
    with tempfile.TemporaryFile() as output:
        try:
            proc = subprocess.Popen(argv, cwd=workdir, stdin=subprocess.DEVNULL, stdout=output,
                                    stderr=subprocess.STDOUT, start_new_session=True)
        except OSError as error:
            raise ConfigError(f"{where}: cannot run {build[0]!r}: {error.strerror or error}") from None
        try:
            code = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            code = None
        finally:  # whatever the build left behind in its group goes with it (also on Ctrl-C)
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        if code == 0:
            return
        output.seek(0)
        lines = output.read().decode(errors="replace").rstrip().splitlines()[-TAIL_LINES:]
    what = f"did not finish within {timeout:.0f} s" if code is None else f"exited with {code}"
    if not lines:
        raise ConfigError(f"{where}: {what} and printed nothing")
    hint = "" if sandbox is None else hidden_hint("\n".join(lines))
    tail = "".join(f"\n  | {line[:300]}" for line in lines)
    raise ConfigError(f"{where}: {what}{hint}; the end of its output:{tail}")
