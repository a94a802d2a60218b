"""Suite-wide set-up."""

from __future__ import annotations

import signal

import pytest


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
