"""Nothing a bot controls reaches the organiser's terminal raw: every command that prints a bot's text
(its manifest's author and language, what it sent, its stderr, its build's output, the reasons and
fault details that quote them) shows each character that would act on a terminal as an escape.

Real processes throughout: the payload bot (``tests/bots/hostile/terminal/payload.py``) writes
clear-screen, OSC 52 (clipboard), OSC 8 (links), a window title, BEL, NUL, DEL, a C1 CSI, a carriage
return, U+2028 and U+202E wherever it can; its manifests carry them in ``author`` and ``language``.
Each command's stdout and stderr, bytes as they come from the pipe, must hold none of them raw, and
must still show the text (escaped). Results files from elsewhere (``arena table``, the fault summary
of a resumed run) carry the same payload in the fields a bot fills.
"""

from __future__ import annotations

import runpy
import shutil
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest
import yaml

sys.path.insert(0, str(Path(__file__).parent))
from inert import assert_inert, decoded

from helpers import arena_bytes, new_league, submitted

ROOT = Path(__file__).resolve().parents[2]
BOTS = ROOT / "tests" / "bots" / "hostile" / "terminal"
PAYLOAD: str = runpy.run_path(str(BOTS / "payload.py"))["PAYLOAD"]
RANDOM = str(ROOT / "bots" / "c" / "random_bot")
FIRST = str(ROOT / "bots" / "c" / "first_bot")

SHOWN = (r"\x1b]52;c;cHduZWQ=\x07", r"\u202etxt.exe")
"""Pieces of the payload as they must appear instead: the clipboard write, the bidi override."""
AUTHOR = r"Eve \x1b[2J\x1b]52;c;cHduZWQ=\x07\x1b]0;owned\x07\x00\u202eevE\nX"
LANGUAGE = "py\\x1b]8;;http://e.x/\\x1b\\l\\x1b]8;;\\x1b\\"
"""The manifests' author and language, escaped (one line each)."""

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]


def arena_shown(*args: str | Path, cwd: Path = ROOT) -> tuple[int, str, str]:
    """``arena ARGS``: exit status, and stdout and stderr with every byte kept (``decoded``)."""
    done = arena_bytes(*args, cwd=cwd)
    return done.returncode, decoded(done.stdout), decoded(done.stderr)


def assert_shown(text: str, pieces: tuple[str, ...] = SHOWN) -> None:
    for piece in pieces:
        assert piece in text, f"{piece} not shown in: {text[:4000]!a}"


def test_play_shows_what_the_bot_sent_and_its_stderr_escaped() -> None:
    status, out, err = arena_shown("play", "blackout", BOTS / "sly.bot.yaml", RANDOM, FIRST,
                                   "-o", "deals=1")
    assert status == 0, err
    assert_inert(out, err)
    received = next(line for line in out.splitlines() if "received: " in line)
    assert_shown(received)
    assert_shown("\n".join(line for line in out.splitlines() if "stderr: " in line))


def test_a_start_failure_quotes_the_bots_stderr_escaped_in_one_line() -> None:
    status, out, err = arena_shown("play", "blackout", f"python3 {BOTS / 'payload.py'} mute", RANDOM,
                                   FIRST, "-o", "deals=1")
    assert status == 2
    assert_inert(out, err)
    assert err.count("\n") == 1 and err.startswith("arena: error: bot ")
    assert_shown(err)


def test_check_bot_shows_what_the_bot_sent_escaped() -> None:
    status, out, err = arena_shown("check-bot", "--game", "blackout", BOTS / "garbled.bot.yaml")
    assert status == 1
    assert_inert(out, err)
    assert_shown(next(line for line in out.splitlines() if "received: " in line))
    assert_shown(next(line for line in out.splitlines() if line.startswith("PASS  start")))


def test_a_failed_build_quotes_its_output_escaped() -> None:
    status, out, err = arena_shown("check-bot", BOTS / "broken.bot.yaml")
    assert status == 1  # a failed build is the check's first failure, on stdout
    assert_inert(out, err)
    assert out.startswith("FAIL  build (") and "build: exited with 1" in out
    assert_shown(out)


# A tournament with the payload bot, and results files from elsewhere ----------------------------

@pytest.fixture(scope="module")
def tournament(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    """A finished run (3 games, every one with the payload bot's garbled reply): its directory,
    and the run's stdout and stderr."""
    directory = tmp_path_factory.mktemp("tournament")
    (directory / "t.yaml").write_text(yaml.safe_dump({
        "name": "t", "game": "blackout", "players": 3, "options": {"deals": 1}, "rounds": 1,
        "bots": [{"dir": str(BOTS / "sly.bot.yaml")}, {"name": "random-c", "cmd": RANDOM},
                 {"name": "first-c", "cmd": FIRST}]}))
    status, out, err = arena_shown("run", "t.yaml", "--out", "out", "--jobs", "1", "--resamples", "0",
                                   cwd=directory)
    assert status == 0, err
    return directory, out, err


def foreign_copy(directory: Path, name: str, change: dict[str, str]) -> Path:
    """A copy of the run's results with ``change``'s keys replaced by its values in every line,
    as JSON (a results file from elsewhere, whose author chose names and details)."""
    copy = Path(shutil.copytree(directory / "out", directory / name))
    text = (copy / "games.jsonl").read_text()
    for old, new in change.items():
        text = text.replace(old, orjson.dumps(new).decode()[1:-1])
    (copy / "games.jsonl").write_text(text)
    return copy


def test_show_escapes_the_games_faults(tournament: tuple[Path, str, str]) -> None:
    directory, run_out, run_err = tournament
    assert_inert(run_out, run_err)
    game = orjson.loads((directory / "out" / "games.jsonl").read_bytes().splitlines()[0])
    assert game["faults"], "the payload bot garbles in every game"
    status, out, err = arena_shown("show", directory / "out", game["id"])
    assert status == 0, err
    assert_inert(out, err)
    assert_shown(next(line for line in out.splitlines() if "received: " in line))


def test_table_escapes_entrant_names_in_every_format(tournament: tuple[Path, str, str]) -> None:
    directory, _, _ = tournament
    results = foreign_copy(directory, "named", {"random-c": f"rnd {PAYLOAD}"})
    for fmt in ("plain", "csv", "html"):
        status, out, err = arena_shown("table", results, "--format", fmt, "--crosstable",
                                       "--resamples", "0")
        assert status == 0, err
        assert_inert(out, err)
        assert_shown(out)
        assert not any("fake" in line and "rnd" not in line for line in out.splitlines()), \
            "a name broke its row"
    status, out, err = arena_shown("table", results, "--format", "json", "--resamples", "0")
    assert status == 0, err
    assert_inert(out, err)
    assert f"rnd {PAYLOAD}" in [entrant["name"] for entrant in orjson.loads(out)["entrants"]]


def test_the_fault_summary_escapes_what_it_quotes(tournament: tuple[Path, str, str]) -> None:
    directory, _, _ = tournament
    results = foreign_copy(directory, "details", {"reply is not JSON": f"said {PAYLOAD}"})
    status, out, err = arena_shown("run", "t.yaml", "--out", results.name, "--resume", "--resamples", "0",
                                   cwd=directory)
    assert status == 0, err
    assert_inert(out, err)
    summary = out[out.index("faults by bot"):]
    assert_shown(next(line for line in summary.splitlines() if "said " in line))


# A league with the payload bot --------------------------------------------------------------------

@pytest.fixture(scope="module")
def league(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A league where the sly bot was accepted (and played 3 games, garbling in each) and the
    garbled and broken bots were rejected; every command's output so far, by name."""
    path = tmp_path_factory.mktemp("league") / "league"
    said: dict[str, Any] = {"path": path}
    new_league(path, options={"deals": "1"})  # in process, as the two C bots' submissions
    for bot in ("sly", "garbled", "broken"):
        said[bot] = arena_shown("league", "submit", path, BOTS / f"{bot}.bot.yaml")
    for bot in ("random", "first"):
        submitted(path, ROOT / "bots" / "c" / f"{bot}.bot.yaml")
    said["run"] = arena_shown("league", "run", path, "--games", "3", "--jobs", "1")
    assert said["run"][0] == 0, said["run"][2]
    return said


def test_league_submit_quotes_a_rejected_bot_escaped(league: dict[str, Any]) -> None:
    for bot in ("garbled", "broken"):
        status, out, err = league[bot]
        assert status == 1 and out.startswith("rejected: "), (bot, ascii(out))
        assert_inert(out, err)
        assert_shown(out)
    first = league["garbled"][1].splitlines()[0]
    assert "it sent: not json" in first
    assert_shown(first, SHOWN[:1])


def test_league_status_and_table_show_a_submissions_text_escaped(league: dict[str, Any]) -> None:
    status, out, err = league["sly"]
    assert (status, out) == (0, "accepted sly v1\n"), ascii(out)
    assert_inert(out, err, *league["run"][1:])
    status, out, err = arena_shown("league", "status", league["path"])
    assert status == 0, err
    assert_inert(out, err)
    row = next(line for line in out.splitlines() if line.startswith("sly "))
    assert_shown(row, (AUTHOR, LANGUAGE))  # one row: the author's newline is shown, not made
    assert_shown(next(line for line in out.splitlines() if "garbled.bot.yaml: rejected" in line),
                 SHOWN[:1])
    for fmt in ("plain", "json"):
        status, out, err = arena_shown("league", "table", league["path"], "--format", fmt,
                                       "--resamples", "0")
        assert status == 0, err
        assert_inert(out, err)
