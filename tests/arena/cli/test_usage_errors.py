"""The command line's own errors (an unknown option, a value out of its range, a missing argument)
are one line and exit 2, like every other error; help still prints in full."""

from __future__ import annotations

import pytest

from helpers import arena

pytestmark = pytest.mark.slow  # each test runs the arena command


@pytest.mark.parametrize(("args", "expected"), [
    (["run", "--bogus", "t.yaml"], "arena: error: arena run: No such option: --bogus"),
    (["table", "x", "--resamples", "-1"], "arena: error: arena table: Invalid value for '--resamples'"),
    (["play", "blackout"], "arena: error: arena play: Missing argument"),
    (["league", "run"], "arena: error: arena league run: Missing argument"),
    (["check-bot", "-cp", "x"], "arena: error: arena check-bot: No such option: -c; if it belongs"),
])
def test_a_usage_error_is_one_line(args: list[str], expected: str) -> None:
    done = arena(*args)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith(expected) and done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.rstrip().endswith("--help)")


def test_help_still_prints_in_full() -> None:
    done = arena("run", "--help")
    assert done.returncode == 0 and "--resume" in done.stdout and "--force" in done.stdout
    done = arena()
    assert "check-bot" in done.stdout + done.stderr
