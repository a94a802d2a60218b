"""Every language a contest meets, sandboxed: each language's tiny bot whose programs are here
passes ``check-bot --sandbox bwrap`` (skipped, with the reason, where its programs or bwrap are
missing), and ``arena languages`` lists what it found and whether it works."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from arena.botfiles.languages import LANGUAGES, Language, language_named
from arena.bots.sandbox import bwrap_problem
from arena.checkbot.languages import write_tiny_bot

from helpers import arena

ROOT = Path(__file__).resolve().parents[3]
pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

needs_bwrap = pytest.mark.skipif(bwrap_problem() is not None,
                                 reason=f"no working bubblewrap: {bwrap_problem()}")
CHEAPEST = ("check-bot", "--sandbox", "bwrap", "--game", "blackout", "--players", "3",
            "--option", "deals=1", "--start-ms", "30000")
"""check-bot at its smallest: one game, three seats, one deal of one card (a JVM's or Mono's
start on a loaded machine inside the generous start time)."""


def found(language: Language) -> tuple[str, ...]:
    """The programs of ``language`` here; the test is skipped, saying how to install them, when
    one is missing."""
    programs = language.found()
    if programs is None:
        pytest.skip(f"{language.name} is not installed here: {language.install}")
    return programs


@needs_bwrap
@pytest.mark.parametrize("language", LANGUAGES, ids=lambda language: language.key)
def test_a_tiny_bot_passes_check_bot_in_the_sandbox(language: Language, tmp_path: Path) -> None:
    programs = found(language)
    write_tiny_bot(language, programs, tmp_path / language.key)
    done = arena(*CHEAPEST, tmp_path / language.key)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines()[-1] == "6 of 6 steps passed", done.stdout


@needs_bwrap
def test_languages_lists_what_is_here_and_that_it_works() -> None:
    perl, pypy = language_named("perl"), language_named("pypy")
    assert perl is not None and pypy is not None
    found(perl)
    done = arena("languages", "-l", "perl", "-l", "pypy")
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("Perl [perl]: ")
    assert lines[1].startswith("  works: answered hello in ")
    assert lines[2].startswith("PyPy [pypy]: ")
    if pypy.found() is None:
        assert lines[2:] == ["PyPy [pypy]: not found", "  install: apt-get install pypy3"]


def test_without_bwrap_nothing_is_tried_and_each_line_says_why(tmp_path: Path) -> None:
    perl = language_named("perl")
    assert perl is not None
    found(perl)
    bin_dir = tmp_path / "bin"  # perl and nothing else: no bwrap on this PATH
    bin_dir.mkdir()
    (bin_dir / "perl").symlink_to(os.path.realpath(shutil.which("perl") or "perl"))
    done = arena("languages", "-l", "perl",
                 env={**os.environ, "PATH": str(bin_dir), "ARENA_PURE": "1"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[1] == (
        "  not tried: bubblewrap (bwrap) is not installed: install it with: "
        "apt-get install bubblewrap")


def test_an_unknown_language_is_one_line_naming_the_known_ones() -> None:
    done = arena("languages", "-l", "cobol")
    assert done.returncode == 2
    assert done.stderr.strip().splitlines()[-1] == (
        "arena: error: --language: no language 'cobol'; the languages: "
        + ", ".join(language.key for language in LANGUAGES))


@needs_bwrap
@pytest.mark.parametrize("key", ["csharp", "cpp"])
def test_the_starter_bot_builds_from_its_manifest_and_passes_check_bot_sandboxed(
        key: str, tmp_path: Path) -> None:
    """bots/csharp and bots/cpp as a user gets them: built by their bot.yaml in the sandbox,
    then checked step by step, both games."""
    language = language_named(key)
    assert language is not None
    found(language)
    bot = tmp_path / key
    shutil.copytree(ROOT / "bots" / key, bot, ignore=shutil.ignore_patterns("bot", "Bot.exe"))
    for path in [tmp_path, bot, *bot.iterdir()]:  # a sandboxed bot may run as a uid of its own
        path.chmod(0o755 if path.is_dir() else 0o644)
    done = arena("check-bot", "--sandbox", "bwrap", "--start-ms", "30000", bot, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines()[-1] == "7 of 7 steps passed", done.stdout
