"""The queue of uploaded bots: builder threads, each taking the next upload and running the
submit pipeline on it in a child process (``arena.serve.build_child``), one at a time per thread.

The queue is the ``uploads`` table (``arena.league.accounts``): a thread takes an upload by
marking it as building in a transaction, so two builders never take the same one, and a server
killed mid-build finds it again at its next start (``requeue_unfinished``). The next upload is
that of the participant whose last build started longest ago (``Accounts.take_next``), so one
participant's slow builds take their turns with everyone else's.
"""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

from arena.league.accounts import UploadStatus
from arena.league.store import Store
from arena.serve.children import start_child

POLL_SECONDS = 2.0
"""How often an idle builder looks at the queue without being woken (an upload wakes it)."""
LOG = "serve-builds.log"


class Builders:
    """``count`` builder threads over the league's upload queue."""

    def __init__(self, league: Path, count: int) -> None:
        self.league = league
        self.count = count
        self.on_accepted: Callable[[], None] | None = None
        self._wake = threading.Condition()
        self._stopping = False
        self._threads: list[threading.Thread] = []
        self._children: set[subprocess.Popen[bytes]] = set()

    def start(self) -> None:
        """Start the threads."""
        for index in range(self.count):
            thread = threading.Thread(target=self._loop, name=f"arena-builder-{index}", daemon=True)
            thread.start()
            self._threads.append(thread)

    def wake(self) -> None:
        """An upload was queued: an idle builder takes it now."""
        with self._wake:
            self._wake.notify()

    def stop(self) -> None:
        """Stop building: the children are interrupted (their uploads stay queued as building,
        queued again at the next start), the threads end."""
        with self._wake:
            self._stopping = True
            self._wake.notify_all()
            for child in list(self._children):
                child.terminate()
        for thread in self._threads:
            thread.join(timeout=30)

    def _loop(self) -> None:
        while True:
            with self._wake:
                if self._stopping:
                    return
            upload = self._take()
            if upload is None:
                with self._wake:
                    if not self._stopping:
                        self._wake.wait(POLL_SECONDS)
                continue
            self._build(upload)

    def _take(self) -> int | None:
        store = Store.open(self.league)
        try:
            upload = store.accounts.take_next()
        finally:
            store.close()
        return None if upload is None else upload.id

    def _build(self, upload: int) -> None:
        with self._wake:
            if self._stopping:
                return
            child = start_child([sys.executable, "-m", "arena.serve.build_child", str(self.league),
                                 str(upload)], self.league / LOG)
            self._children.add(child)
        code = child.wait()
        with self._wake:
            self._children.discard(child)
            stopping = self._stopping
        if stopping:
            return  # interrupted on purpose: queued again at the next start
        store = Store.open(self.league)
        try:
            accounts = store.accounts
            done = accounts.upload(upload)
            if done is not None and done.status.is_pending:  # the child died before deciding
                accounts.decide(upload, UploadStatus.REJECTED,
                                reason=f"the build process ended with status {code} before a "
                                       f"decision (see the server's {LOG})")
            accepted = done is not None and done.status is UploadStatus.ACCEPTED
        finally:
            store.close()
        if accepted and self.on_accepted is not None:
            self.on_accepted()
