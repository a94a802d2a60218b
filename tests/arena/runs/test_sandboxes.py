"""A whole tournament with ``sandbox: bwrap``: builds and games sandboxed, per-bot overrides."""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson
import pytest

from arena.bots.sandbox import bwrap_problem
from arena.plans.tournament import load_tournament
from arena.runs.runner import run_tournament
from arena.runs.sandboxes import sandbox_line, tournament_sandboxes
from arena.values.sandbox_settings import Sandbox

from helpers import arena

ROOT = Path(__file__).resolve().parents[3]

pytestmark = [
    pytest.mark.timeout(180),
    pytest.mark.skipif(bwrap_problem() is not None,
                       reason=f"no working bubblewrap: {bwrap_problem()}"),
    pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler"),
]


def test_sandboxed_build_writes_only_its_bot_directory_and_the_games_run(tmp_path: Path) -> None:
    bot_dir = tmp_path / "c"
    bot_dir.mkdir()
    shutil.copy(ROOT / "bots" / "c" / "random_bot.c", bot_dir)
    file = tmp_path / "t.yaml"
    # The build tries to escape (a file next to its directory), then compiles in its directory.
    build = "sh -c 'touch ../escaped; cc -O2 -o random_bot random_bot.c'"
    file.write_text(
        "name: t\ngame: blackout\nplayers: 3\noptions: {deals: 2}\nsandbox: bwrap\n"
        "time: {start_ms: 30000, move_ms: 10000, bank_ms: 30000}\nbots:\n"
        + "".join(f"  - {{name: b{n}, cmd: ./random_bot, workdir: {bot_dir}, build: \"{build}\"}}\n"
                  for n in range(3)))
    summary = run_tournament(file, out=tmp_path / "out", jobs=1, resamples=0)
    assert (bot_dir / "random_bot").exists()
    assert not (tmp_path / "escaped").exists()
    lines = (tmp_path / "out" / "games.jsonl").read_bytes().splitlines()
    assert lines and all(orjson.loads(line)["faults"] == [] for line in lines)
    assert "0 faults" in summary
    assert summary.splitlines()[1] == "sandbox: bwrap, every bot (docs/sandbox.md)"


def test_a_bots_own_setting_overrides_the_tournaments(tmp_path: Path) -> None:
    file = tmp_path / "t.yaml"
    bot = ROOT / "bots" / "c" / "random_bot"
    file.write_text(f"name: t\ngame: blackout\nplayers: 3\nsandbox: bwrap\nbots:\n"
                    f"  - {{name: a, cmd: {bot}, sandbox: none}}\n"
                    f"  - {{name: b, cmd: {bot}}}\n  - {{name: c, cmd: {bot}, sandbox: auto}}\n")
    chosen = tournament_sandboxes(load_tournament(file))
    assert chosen.by_bot["a"] is None
    assert chosen.by_bot["b"] is not None and chosen.by_bot["c"] is not None
    assert chosen.notes == ()
    assert chosen.describe() == "sandbox: bwrap for b, c; none for a"  # said at the run's end


def test_a_manifest_bots_directory_is_its_sandboxs_bot_directory(tmp_path: Path) -> None:
    # Its run names a script in bin/: from the command alone the bot's directory would be bin/,
    # and the script's read of data.txt next to the manifest would fail inside the sandbox.
    bot_dir = tmp_path / "deep"
    (bot_dir / "bin").mkdir(parents=True)
    shutil.copy(ROOT / "bots" / "c" / "random_bot", bot_dir / "bin")
    (bot_dir / "data.txt").write_text("weights\n")
    (bot_dir / "bin" / "start.sh").write_text("read -r line < data.txt && exec bin/random_bot\n")
    (bot_dir / "bot.yaml").write_text("name: deep\nrun: sh bin/start.sh\n")
    file = tmp_path / "t.yaml"
    bot = ROOT / "bots" / "c" / "random_bot"
    file.write_text(
        "name: t\ngame: blackout\nplayers: 3\noptions: {deals: 2}\nsandbox: bwrap\n"
        "time: {start_ms: 30000, move_ms: 10000, bank_ms: 30000}\nbots:\n"
        f"  - {{dir: {bot_dir}}}\n  - {{name: b, cmd: {bot}}}\n  - {{name: c, cmd: {bot}}}\n")
    chosen = tournament_sandboxes(load_tournament(file)).by_bot["deep"]
    assert chosen is not None and chosen.bot_dir == str(bot_dir)
    run_tournament(file, out=tmp_path / "out", jobs=1, resamples=0)
    lines = (tmp_path / "out" / "games.jsonl").read_bytes().splitlines()
    assert lines and all(orjson.loads(line)["faults"] == [] for line in lines)


def test_a_run_without_a_sandbox_says_so(tmp_path: Path) -> None:
    file = tmp_path / "t.yaml"
    bot = ROOT / "bots" / "c" / "random_bot"
    file.write_text("name: t\ngame: blackout\nplayers: 3\noptions: {deals: 1}\nbots:\n"
                    + "".join(f"  - {{name: b{n}, cmd: {bot}}}\n" for n in range(3)))
    summary = run_tournament(file, out=tmp_path / "out", jobs=1, resamples=0)
    assert summary.splitlines()[1] == "sandbox: none; the bots ran as your user, unconfined"


@pytest.mark.parametrize("sandbox", ["bwrap", "none"])
def test_play_and_match_end_with_the_sandbox_line_a_run_ends_with(tmp_path: Path,
                                                                   sandbox: str) -> None:
    # `run` said whether its bots ran sandboxed; `play` and `match` said nothing either way.
    bot = str(ROOT / "bots" / "c" / "random_bot")
    said = sandbox_line(dict.fromkeys("ab", None if sandbox == "none" else Sandbox()))
    played = arena("play", "blackout", "-o", "deals=1", "--sandbox", sandbox, bot, bot, bot)
    assert played.returncode == 0, played.stderr
    assert played.stdout.splitlines()[-1] == said, played.stdout
    matched = arena("match", "--sandbox", sandbox, "--games", "2", "--jobs", "1",
                    "--out", tmp_path / "m", "-o", "deals=1", bot,
                    str(ROOT / "bots" / "c" / "first_bot"), "--field", bot)
    assert matched.returncode == 0, matched.stderr
    assert said in matched.stdout.splitlines(), matched.stdout


def test_a_sandboxed_build_is_never_handed_the_runs_own_directory(tmp_path: Path) -> None:
    """A command that names no file of its own (as ``java -cp c Main`` would) has the directory
    the arena runs in as its bot directory: a sandboxed build would own the tournament file and
    the results while it ran. The run refuses before any build, in one line, and nothing changes
    hands (the directory is its owner's alone, as ``mktemp -d`` makes it)."""
    (tmp_path / "c").mkdir()
    shutil.copy(ROOT / "bots" / "c" / "random_bot.c", tmp_path / "c")
    tmp_path.chmod(0o700)
    file = tmp_path / "t.yaml"
    file.write_text(
        "name: t\ngame: blackout\nplayers: 3\nsandbox: bwrap\nbots:\n"
        + "".join(f"  - {{name: b{n}, cmd: \"sh -c 'exec c/random_bot'\", "
                  f"build: cc -o c/random_bot c/random_bot.c}}\n" for n in range(3)))
    owners = {path: path.stat().st_uid for path in (tmp_path, file, tmp_path / "c")}
    done = arena("run", "t.yaml", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines() == [
        f"arena: error: t.yaml: bots[0].build: its bot directory {str(tmp_path)!r} holds the "
        "directory the arena runs in, which a sandboxed build may not own (the command names no "
        "file of the bot's own): give the bot a directory of its own, as `dir:` with a bot.yaml "
        "or as `workdir:`"]
    assert not (tmp_path / "c" / "random_bot").exists()
    assert {path: path.stat().st_uid for path in owners} == owners
