"""Fixtures of the process-layer tests: misbehaving bots started as real processes."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.bots.process import BotProcess

MISBEHAVING = Path(__file__).resolve().parents[2] / "bots" / "misbehaving"


@pytest.fixture
def bot(tmp_path: Path) -> Iterator[Callable[..., BotProcess]]:
    """Start a misbehaving bot (tests/bots/misbehaving) by file name with arguments (``begin``:
    at once; ``options`` go to ``BotProcess``, whose log is in ``tmp_path`` and whose start
    timeout is a generous 30 s unless they say); every bot is closed afterwards, its process
    group killed."""
    started: list[BotProcess] = []

    def start(name: str, *args: object, begin: bool = True, **options: Any) -> BotProcess:
        options.setdefault("log_path", tmp_path / f"{name}.log")
        options.setdefault("start_timeout", 30.0)
        process = BotProcess(name, [sys.executable, "-S", str(MISBEHAVING / f"{name}.py"),
                                    *map(str, args)], **options)
        started.append(process)
        if begin:
            process.start()
        return process

    yield start
    for process in started:
        pid = process.pid
        process.close(grace=0)
        if pid is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pid, signal.SIGKILL)
