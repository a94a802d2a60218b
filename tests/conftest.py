"""Suite-wide set-up."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

# One BLAS thread in every process the tests start (and this one): OpenBLAS, which numpy loads,
# otherwise starts a thread per CPU that spins at start-up, about 0.1 CPU-s of each arena command's
# 0.4 (numpy alone: 0.13 CPU-s to import, 0.07 with one thread), over 500 commands a suite. No test
# multiplies matrices big enough for a second thread to matter. Set before numpy is imported here;
# a value already in the environment stands.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
# The arena processes the tests start run the build the tests import: the compiled one when the run
# puts it first on the path (ARENA_COMPILED=1, `make test`), else the sources as they are (a build
# of them in build/compiled or not: an edit between `make` and `pytest` changes nothing).
if os.environ.get("ARENA_COMPILED") != "1":
    os.environ["ARENA_PURE"] = "1"


def pytest_configure(config: pytest.Config) -> None:
    """Let Ctrl-C reach the processes the tests start.

    A shell that starts a command in the background without job control (`make test &` in a
    script) ignores SIGINT in it, and the ignoring is inherited: a runner the tests start would
    then ignore the SIGINT the tests send it to check a clean stop. A handled signal is reset to
    the default in a new program, so installing Python's own handler here is enough.
    """
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Hand out the slow real-process tests first (their order among themselves, and the others',
    unchanged): the test processes then finish together instead of one of them running a slow
    test alone at the end."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


@pytest.fixture(scope="module")
def driver() -> Iterator[Any]:
    """Headless Chromium (tests/browser.py), one per test module that asks for it."""
    from browser import chromium

    with chromium() as browser:
        yield browser


@pytest.fixture
def in_repo(monkeypatch: pytest.MonkeyPatch) -> None:
    """Run from the repository's root: the bot commands of its tournament files are relative to
    it (``pytestmark = pytest.mark.usefixtures("in_repo")``)."""
    monkeypatch.chdir(Path(__file__).resolve().parents[1])
