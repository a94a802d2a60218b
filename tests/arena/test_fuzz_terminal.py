"""Fuzzing what reaches the organiser's terminal: generated text full of characters and sequences
that act on a terminal (C0, ESC sequences, DEL, C1, bidi controls, line separators, bytes that are
not UTF-8) in every field a bot controls, and nothing of it comes out raw in any command's output.

The fields: a results file's every text a bot fills (entrant names, each fault's text fields, read
from ``arena.values.faults.Fault``) under ``arena table`` in every format, ``arena show`` and a resumed
``arena run``'s fault summary; a manifest's text fields and its build's output under ``league
submit``, ``league status`` and ``check-bot``; what a real bot process writes (its hello, its
replies, its stderr) under ``arena play``. Seeded generators: every case is reproducible from its
seed. Commands run in this process (``arena.cli.main``), bots as real processes.
"""

from __future__ import annotations

import dataclasses
import io
import json
import random
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from arena.runs.progress import Progress
from arena.values.faults import Fault

sys.path.insert(0, str(Path(__file__).parent))
from inert import assert_inert
from test_fuzz_inputs import check_outcome, run

from helpers import arena

REPO = Path(__file__).resolve().parents[2]
PAYLOAD_BOT = REPO / "tests" / "bots" / "hostile" / "terminal" / "payload.py"
RANDOM = str(REPO / "bots" / "c" / "random_bot")
FIRST = str(REPO / "bots" / "c" / "first_bot")

ACTIVE = ([chr(c) for c in range(0x20)] + ["\x7f"] + [chr(c) for c in range(0x80, 0xA0)]
          + ["\u061c", "\u200e", "\u200f", *map(chr, range(0x202A, 0x202F)),
             *map(chr, range(0x2066, 0x206A)), "\u2028", "\u2029"])
SEQUENCES = ["\x1b[2J", "\x1b[H", "\x1b]52;c;cHduZWQ=\x07", "\x1b]8;;https://e.x/\x1b\\",
             "\x1b]0;title\x07", "\x1b[6n", "\x1b[?1049h", "\x1bc", "\x9b2J", "\x9d0;t\x9c",
             "\x1bP$q\x1b\\", "\r\n"]
PLAIN = ["a", "Z", "0", " ", "é", "漢", "🂡", "\u200d", "\\", "\\x1b", "'", '"', "|", "%s", "{}"]
FAULT_TEXT = [f.name for f in dataclasses.fields(Fault) if f.type == "str"]
"""The fault fields that are text (a bot's reply, its stderr, what the arena said of them)."""


def control_text(rng: random.Random) -> str:
    """Plain text with active characters and whole escape sequences in it (at least one)."""
    parts = [rng.choice(rng.choice((ACTIVE, SEQUENCES, PLAIN, PLAIN)))
             for _ in range(rng.randint(0, 9))]
    parts.insert(rng.randint(0, len(parts)), rng.choice(ACTIVE + SEQUENCES))
    return "".join(parts)


def control_bytes(rng: random.Random) -> bytes:
    """``control_text`` as a bot writes it, now and then with bytes that are not UTF-8."""
    data = control_text(rng).encode()
    if rng.random() < 0.3:
        cut = rng.randint(0, len(data))
        data = data[:cut] + rng.choice([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\x80\x80"]) + data[cut:]
    return data


def test_the_generated_text_is_active_and_reproducible() -> None:
    texts = [control_text(random.Random(seed)) for seed in range(200)]
    assert all(any(c in text for c in ACTIVE) for text in texts)
    assert texts == [control_text(random.Random(seed)) for seed in range(200)]
    assert {"bot", "detail", "received", "stderr_tail"} <= set(FAULT_TEXT)


# Results files ------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished run of three games, each with a fault of the payload bot (what it sent and its
    stderr in it); its tournament file beside it."""
    directory = tmp_path_factory.mktemp("fuzz-terminal")
    (directory / "t.yaml").write_text(yaml.safe_dump({
        "name": "t", "game": "blackout", "players": 3, "options": {"deals": 1}, "rounds": 1,
        "bots": [{"name": "pay", "cmd": f"python3 {PAYLOAD_BOT} sly"},
                 {"name": "rnd", "cmd": RANDOM}, {"name": "fst", "cmd": FIRST}]}))
    done = arena("run", "t.yaml", "--out", "out", "--jobs", "1", "--resamples", "0", cwd=directory)
    assert done.returncode == 0, done.stderr
    return directory


def foreign_results(rng: random.Random, results: Path, target: Path, names: bool) -> list[str]:
    """A copy of the results whose faults' text fields (and, with ``names``, entrants' names, the
    same way in every line) were written by someone hostile; the games' ids."""
    shutil.copytree(results / "out", target)
    renamed = {name: control_text(rng) for name in ("pay", "rnd", "fst") if names and rng.random() < 0.7}
    lines, ids = [], []
    for line in (target / "games.jsonl").read_text().split("\n")[:-1]:  # not splitlines: U+2028
        record = json.loads(line)
        for fault in record["faults"]:
            for key in FAULT_TEXT:
                if rng.random() < 0.7:
                    fault[key] = control_text(rng)
        record["names"] = [renamed.get(name, name) for name in record["names"]]
        record["result"]["entrants"] = [renamed.get(name, name) for name in record["result"]["entrants"]]
        ids.append(record["id"])
        lines.append(json.dumps(record, ensure_ascii=rng.random() < 0.5))
    (target / "games.jsonl").write_text("\n".join(lines) + "\n")
    return ids


@pytest.mark.parametrize("seed", range(2))
@pytest.mark.slow
def test_fuzzed_results_text_is_shown_inert(
        tmp_path: Path, results: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str], seed: int) -> None:
    rng = random.Random(seed)
    shutil.copy(results / "t.yaml", tmp_path / "t.yaml")
    for case in range(8):
        out = tmp_path / f"r{case}"
        names = case % 2 == 0  # the odd cases keep the names, so that the run resumes
        ids = foreign_results(rng, results, out, names)
        fmt = rng.choice(["plain", "github", "csv", "html", "json"])
        commands = [["table", out.name, "--format", fmt, "--resamples", "0"]
                    + (["--crosstable"] if rng.random() < 0.5 else []),
                    ["show", out.name, rng.choice(ids)] + (["--seat", "2"] if rng.random() < 0.5 else [])]
        if not names:
            commands.append(["run", "t.yaml", "--out", out.name, "--resume", "--resamples", "0"])
        for args in commands:
            status, stdout, err = run(args, tmp_path, monkeypatch, capsys)
            assert status == 0, f"{args} (seed {seed} case {case}): {err!a}"  # text only
            assert_inert(stdout, err)
            if args[0] == "run":
                assert "faults by bot" in stdout


# Manifests and builds -----------------------------------------------------------------------------

def bot_dir(rng: random.Random, directory: Path, case: int) -> tuple[Path, bool]:
    """A bot directory (the C random bot) whose manifest's text fields, or build output, carry
    control text; and whether it should be accepted."""
    directory.mkdir()
    shutil.copy(RANDOM, directory / "random_bot")
    manifest: dict[str, Any] = {"name": f"fuzz{case}", "run": "./random_bot"}
    accepted = rng.random() < 0.3  # a check of a bot takes a second: a few only
    for key in ("author", "language") if accepted else ():
        manifest[key] = control_text(rng)[:32].strip() or "\x1b]0;t\x07"
    if not accepted:
        key = rng.choice(["name", "version", "games", "run", "build", "author"])
        if key == "build":
            shutil.copy(PAYLOAD_BOT, directory / "payload.py")
            manifest["build"] = ["python3", "payload.py", "build", control_bytes(rng).hex()]
        elif key == "author":  # too long: refused, and quoted
            manifest["author"] = control_text(rng) * 60
        elif key == "run":
            manifest["run"] = ["./" + control_text(rng).replace("/", "")]
        else:
            manifest[key] = [control_text(rng)] if key == "games" else control_text(rng)
    (directory / "bot.yaml").write_text(yaml.safe_dump(manifest, allow_unicode=rng.random() < 0.5))
    return directory, accepted


@pytest.mark.slow
def test_fuzzed_manifests_and_builds_are_shown_inert(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    rng = random.Random(10)
    status, _, err = run(["league", "init", "lg", "--game", "blackout", "--players", "3",
                          "-o", "deals=1"], tmp_path, monkeypatch, capsys)
    assert status == 0, err
    for case in range(10):
        bot, accepted = bot_dir(rng, tmp_path / f"bot{case}", case)
        command = ["league", "submit", "lg", bot.name] if case % 3 else ["check-bot", bot.name]
        status, out, err = run(command, tmp_path, monkeypatch, capsys)
        assert_inert(out, err)
        assert "Traceback" not in err, ascii(err)
        if command[0] == "league":
            assert status == (0 if accepted else 1), f"case {case}: {out!a} {err!a}"
    status, out, err = run(["league", "status", "lg"], tmp_path, monkeypatch, capsys)
    assert status == 0, ascii(err)
    assert_inert(out, err)


# Bot processes ------------------------------------------------------------------------------------

@pytest.mark.parametrize("seed", range(2))
@pytest.mark.slow
def test_fuzzed_bot_output_is_shown_inert(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        seed: int) -> None:
    rng = random.Random(20 + seed)
    for case in range(4):
        mode = "garbled" if case == 0 else rng.choice(["sly", "sly", "mute"])
        bot = f"python3 {PAYLOAD_BOT} {mode} {control_bytes(rng).hex()}"
        if mode == "garbled":  # its hello and what it sent, in the check's steps
            args, expected = ["check-bot", "--game", "blackout", bot], 1
        else:  # what it sent and its stderr in the game's faults, or in its start failure
            args, expected = ["play", "blackout", bot, RANDOM, FIRST, "-o", "deals=1"], 0
        status, out, err = run(args, tmp_path, monkeypatch, capsys)
        if expected == 0:
            check_outcome([*args, f"(seed {seed} case {case})"], status, err)
        assert status == (2 if mode == "mute" else expected), ascii(err)
        assert_inert(out, err)


def test_a_fuzzed_leader_is_shown_inert() -> None:
    rng = random.Random(30)
    for _ in range(50):
        stream = io.StringIO()
        progress = Progress(4, stream=stream)
        progress.show_leader(f"{control_text(rng)} (Elo 1500)")
        progress.update(0, 4, 4)
        progress.finish()
        assert_inert(stream.getvalue())
