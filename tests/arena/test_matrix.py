"""The combination matrix: every command that plays games x every way of naming a bot x relative
and absolute paths (run from another working directory) x no sandbox and bwrap, each cell fresh
then ``--resume`` where the command resumes; each cell plays its games through the real CLI and
holds each game exactly once (a league cell makes its league and reads its games in process: what
varies is how its bots are named to ``league submit`` and played by ``league run``).

Not the whole product (68 cells) but a covering design of 24: every command with every path and
sandbox (all 24 triples), every way of naming a bot with every path and sandbox (all 12), and every
command with every way of naming a bot (all 17 pairs): the interactions that have held bugs (a
sandboxed league from a relative path, a manifest's relative build in bwrap) are each a triple of
these, and ``test_the_cells_cover_every_triple`` keeps the design honest.
The Dask cells are in tests/arena/executors/test_cluster.py (they share its cluster fixture)."""

from __future__ import annotations

import itertools
import json
import shutil
import subprocess
from pathlib import Path

import orjson
import pytest

from arena.bots.sandbox import bwrap_problem
from arena.league.status import export_games

from helpers import ROOT, arena, new_league, submitted

COMMANDS = ("play", "check-bot", "match", "run", "gauntlet", "league")
FORMS = ("command", "directory", "manifest")
PATHS = ("relative", "absolute")
SANDBOXES = ("none", "bwrap")

pytestmark = [pytest.mark.slow, pytest.mark.timeout(240),
              pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler")]


def combinations() -> list[tuple[str, str, str, str]]:
    """The 24 cells: each command's four (path, sandbox) cells name the bots in turn by each way
    the command takes, starting one further along for each command."""
    found = []
    for c, command in enumerate(COMMANDS):
        forms = FORMS[1:] if command == "league" else FORMS  # a league takes no bare commands
        for j, (path, sandbox) in enumerate(itertools.product(PATHS, SANDBOXES)):
            found.append((command, forms[(c + j) % len(forms)], path, sandbox))
    return found


def cells() -> list[object]:
    found = []
    for command, form, path, sandbox in combinations():
        marks = [pytest.mark.skipif(bwrap_problem() is not None,
                                    reason=f"no working bubblewrap: {bwrap_problem()}")] \
            if sandbox == "bwrap" else []
        found.append(pytest.param(command, form, path, sandbox, marks=marks,
                                  id=f"{command}-{form}-{path}-{sandbox}"))
    return found


def test_the_cells_cover_every_triple() -> None:
    played = combinations()
    assert {(c, p, s) for c, _, p, s in played} == set(itertools.product(COMMANDS, PATHS, SANDBOXES))
    assert {(f, p, s) for _, f, p, s in played} == set(itertools.product(FORMS, PATHS, SANDBOXES))
    assert {(c, f) for c, f, _, _ in played} == {
        (c, f) for c, f in itertools.product(COMMANDS, FORMS) if (c, f) != ("league", "command")}


@pytest.fixture(scope="module")
def c_bot(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The C random bot compiled once for the module; each cell's build copies it into place (a
    real build step, run by the arena in the cell's sandbox, without compiling 200 times)."""
    binary = tmp_path_factory.mktemp("c") / "random_bot"
    subprocess.run(["cc", "-O2", "-o", str(binary), str(ROOT / "bots" / "c" / "random_bot.c")],
                   check=True)
    return binary


def make_bots(root: Path, binary: Path) -> None:
    """Three C bots, each in its own directory with a bot.yaml whose build puts the program in
    place and a named manifest; readable by anyone (a sandboxed bot runs as a uid of its own)."""
    for n in range(3):
        bot = root / "bots" / f"c{n}"
        bot.mkdir(parents=True)
        shutil.copy(binary, bot / "prebuilt")
        manifest = f"name: c{n}\nrun: ./random_bot\nbuild: cp prebuilt random_bot\n"
        (bot / "bot.yaml").write_text(manifest)
        (bot / f"c{n}.bot.yaml").write_text(manifest)
        shutil.copy(binary, bot / "random_bot")  # a command names the program without a build
    for path in [root, *root.rglob("*")]:
        path.chmod(0o755 if path.is_dir() or path.name in ("random_bot", "prebuilt") else 0o644)


def bot_word(form: str, n: int, base: str) -> str:
    """Bot ``n`` named as ``form``, its path starting at ``base`` (relative: ``bots``)."""
    if form == "command":
        return f"{base}/c{n}/random_bot"
    if form == "directory":
        return f"{base}/c{n}"
    return f"{base}/c{n}/c{n}.bot.yaml"


def tournament_entry(form: str, n: int, base: str) -> str:
    if form == "command":
        return f"  - {{name: c{n}, cmd: {base}/c{n}/random_bot}}\n"
    directory = f"{base}/c{n}" if form == "directory" else f"{base}/c{n}/c{n}.bot.yaml"
    return f"  - {{name: c{n}, dir: {directory}}}\n"


def arena_ok(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``arena ARGS`` from ``cwd``, which must succeed."""
    done = arena(*args, cwd=cwd)
    assert done.returncode == 0, f"arena {' '.join(args)}: {done.stdout[-1500:]}{done.stderr[-1500:]}"
    return done


def once(games: Path, expected: int) -> None:
    """``games`` holds ``expected`` games, each exactly once."""
    ids = [orjson.loads(line)["id"] for line in games.read_bytes().splitlines() if line.strip()]
    assert len(ids) == expected and len(set(ids)) == expected, ids


@pytest.mark.parametrize(("command", "form", "path", "sandbox"), cells())
def test_cell(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, c_bot: Path, command: str,
              form: str, path: str, sandbox: str) -> None:
    home = tmp_path / "home"
    make_bots(home, c_bot)
    # relative: from the directory holding bots/; absolute: from another working directory
    cwd = home if path == "relative" else tmp_path / "elsewhere"
    cwd.mkdir(exist_ok=True)
    base = "bots" if path == "relative" else str(home / "bots")
    words = [bot_word(form, n, base) for n in range(3)]
    box = ["--sandbox", sandbox]
    if command == "play":
        arena_ok("play", "blackout", *words, "--seed", "3", "--log", "game.json", *box, cwd=cwd)
        assert "result" in json.loads((cwd / "game.json").read_text())
    elif command == "check-bot":
        arena_ok("check-bot", *box, "--game", "blackout", "--", words[0], cwd=cwd)
    elif command == "match":
        match = ["match", words[0], words[1], "--field", words[2], "--players", "3",
                 "-o", "deals=2", "--jobs", "1", "--out", "m", *box]
        arena_ok(*match, "--games", "4", cwd=cwd)
        once(cwd / "m" / "games.jsonl", 4)
        arena_ok(*match, "--games", "8", "--resume", cwd=cwd)
        once(cwd / "m" / "games.jsonl", 8)
    elif command in ("run", "gauntlet"):
        entries = "".join(tournament_entry(form, n, base) for n in range(3))
        extra = ""
        if command == "gauntlet":
            field = "".join(tournament_entry("command", n, base) for n in range(3))
            extra = "format: gauntlet\nchallengers:\n" + tournament_entry(form, 0, base).replace(
                "name: c0", "name: ch")
            entries = field
        for rounds in (1, 2):
            (cwd / "t.yaml").write_text(
                f"name: t\ngame: blackout\nplayers: 3\noptions: {{deals: 2}}\nrounds: {rounds}\n"
                f"sandbox: {sandbox}\n{extra}bots:\n{entries}")
            arena_ok("run", "t.yaml", "--out", "out", "--jobs", "1",
                  *(["--resume"] if rounds == 2 else []), cwd=cwd)
            # a round-robin of 3 bots at 3 seats: one table; a gauntlet: the challenger with
            # each pair of the 3 field bots: three tables; every table in 3 seat rotations
            once(cwd / "out" / "games.jsonl", (9 if command == "gauntlet" else 3) * rounds)
    else:
        new_league(cwd / "lg", sandbox=sandbox)
        # The first bot through `league submit`, the others as it submits them (in process, from
        # the same directory, named the same way): what the cell varies is in each of them, and
        # a process start and a check of its own for each was three times the same test
        done = arena_ok("league", "submit", "lg", words[0], cwd=cwd)
        assert done.stdout.startswith("accepted"), done.stdout
        monkeypatch.chdir(cwd)
        for word in words[1:]:
            submitted(Path("lg"), Path(word))
        arena_ok("league", "run", "lg", "--games", "6", "--jobs", "1", cwd=cwd)
        export_games(cwd / "lg", cwd / "games.jsonl")
        once(cwd / "games.jsonl", 6)
