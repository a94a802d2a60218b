"""A fork server for the tests' ``arena`` commands: one interpreter per test process that has done
what every ``arena`` start does (chosen the build, imported the command line) and forks a child
for each command, instead of a new interpreter importing all of it again.

Why: a test run starts about nine hundred ``arena`` commands; each spent about 0.2 CPU-s starting
Python and importing typer, the settings tables and the engine before its command ran, a fifth of
the whole suite's CPU. A forked child is still a process of its own, as a user's ``arena`` is: its
own pid, working directory, environment, standard streams (the test's pipes, passed over the
socket), signal handlers, exit status and exit (``sys.exit`` through the interpreter's own
shutdown, so atexit handlers and finalisers run). What it shares with its siblings is what a fresh
start would have computed the same way: the modules imported at start and the build chosen from
the environment the server started with (``tests/helpers.py`` starts a real process instead when a
test's environment differs from it, or asks for ``--pure``). The child reseeds ``random`` from the
system, as a new interpreter would.

The protocol, over a SOCK_SEQPACKET Unix socket: the client sends one JSON message (argv, cwd,
environment) with three descriptors (stdin, stdout, stderr); the server answers with the child's
pid, then with its exit status (as ``subprocess`` gives it: negative for a signal) once reaped. The
server ends when its own stdin (a pipe from the test process) closes, and removes the socket's
directory.

Run as ``python tests/forkserver.py SOCKET``; the tests of the start itself (build choice, what
is imported, ``--pure``) start ``arena`` as a new interpreter and never come here.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import random
import selectors
import shutil
import signal
import socket
import sys


def serve(path: str) -> list[str] | None:
    """Serve until stdin closes (None); in a forked child, return its argv (the caller runs it)."""
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_read, False)
    os.set_blocking(wake_write, False)
    signal.set_wakeup_fd(wake_write)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    listener.bind(path)
    listener.listen(16)
    selector = selectors.DefaultSelector()
    selector.register(listener, selectors.EVENT_READ)
    selector.register(wake_read, selectors.EVENT_READ)
    selector.register(sys.stdin.fileno(), selectors.EVENT_READ)
    waiting: dict[int, socket.socket] = {}
    print("ready", flush=True)
    while True:
        for key, _ in selector.select():
            if key.fileobj == sys.stdin.fileno():
                return None  # the test process is gone
            if key.fileobj == wake_read:
                with contextlib.suppress(BlockingIOError):
                    while os.read(wake_read, 512):
                        pass
                _reap(waiting)
                continue
            connection, _ = listener.accept()
            message, fds, _, _ = socket.recv_fds(connection, 1 << 20, 3)
            request = json.loads(message)
            pid = os.fork()
            if pid == 0:
                selector.close()
                listener.close()
                for other in waiting.values():
                    other.close()
                signal.set_wakeup_fd(-1)
                signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                os.close(wake_read)
                os.close(wake_write)
                for target, fd in enumerate(fds):
                    os.dup2(fd, target)
                    os.close(fd)
                connection.close()
                os.chdir(request["cwd"])
                os.environ.clear()
                os.environ.update(request["env"])
                random.seed()
                return list(request["argv"])
            for fd in fds:
                os.close(fd)
            connection.sendall(json.dumps({"pid": pid}).encode())
            waiting[pid] = connection
            _reap(waiting)


def _reap(waiting: dict[int, socket.socket]) -> None:
    """Send each ended child's exit status to its client."""
    while waiting:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        connection = waiting.pop(pid, None)
        if connection is not None:
            # OSError: the test stopped waiting (it timed out and killed the child)
            with contextlib.suppress(OSError):
                connection.sendall(json.dumps({"status": os.waitstatus_to_exitcode(status)}).encode())
            connection.close()


if __name__ == "__main__":
    # Import ``arena`` as the ``arena`` command does (the installed package), not from this
    # script's directory, which Python puts first on the path: tests/arena there, a directory of
    # tests, would shadow it as a namespace package without the command line.
    sys.path.remove(os.path.dirname(os.path.abspath(__file__)))
    from arena.startup import start

    build = start(["arena"])
    import arena.cli  # what every start imports, done once here

    arena.cli.command_line()  # and what every start builds of it

    # What is imported stays out of the children's collections: a collection walking it would
    # touch (and so copy) every page the child shares with this process; a third of a short
    # command's CPU.
    gc.freeze()

    argv = serve(sys.argv[1])
    if argv is None:  # the test process is gone, maybe without its exit handlers (xdist's)
        shutil.rmtree(os.path.dirname(sys.argv[1]), ignore_errors=True)
    else:
        sys.argv = argv
        if not build.compiled and not build.asked:
            print(f"arena: running pure Python: {build.reason}", file=sys.stderr)
        from arena.cli import main

        main()
