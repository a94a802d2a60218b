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


def _commands() -> list[tuple[list[str], object]]:
    """Every command's words and its click command (``arena league submit``...)."""
    import typer.main

    from arena.cli import app

    found: list[tuple[list[str], object]] = []

    def walk(words: list[str], command: object) -> None:
        found.append((words, command))
        for name, sub in getattr(command, "commands", {}).items():
            walk([*words, name], sub)

    walk([], typer.main.get_command(app))
    return found


@pytest.mark.parametrize("words", [words for words, _ in _commands()],
                         ids=lambda words: " ".join(words) or "arena")
def test_piped_help_keeps_every_word_in_lines_that_read(words: list[str]) -> None:
    """``arena CMD --help > file`` (stdout not a terminal): no boxes of one-word lines, no value cut
    short with an ellipsis, and every option's help and each command's summary there whole."""
    command = dict((tuple(w), c) for w, c in _commands())[tuple(words)]
    done = arena(*words, "--help")
    assert done.returncode == 0, done.stderr
    text = done.stdout
    assert not set(text) & set("│╭╰─…"), text
    cut = [line for line in text.splitlines()[1:] if line.endswith("...")]  # click's cut summary
    assert not cut, text
    assert max(len(line) for line in text.splitlines()) <= 100
    flat = " ".join(text.split())
    for parameter in getattr(command, "params", []):
        help_text = getattr(parameter, "help", None)
        if help_text:
            assert " ".join(help_text.split()) in flat, (parameter.name, text)
    for name, sub in getattr(command, "commands", {}).items():
        summary = sub.short_help or (sub.help or "").split("\n")[0]
        assert f"{name} {summary}" in flat, (name, text)
