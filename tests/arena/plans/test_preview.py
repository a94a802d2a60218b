"""`arena run FILE --dry-run`: the schedule in numbers, with nothing built, started or played."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from arena.plans.schedule import schedule
from arena.plans.tournament import load_tournament

from helpers import C_BOT, MISBEHAVING, arena

pytestmark = pytest.mark.slow  # each test runs the arena command

ROOT = Path(__file__).resolve().parents[3]


def dry_run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return arena("run", *args, "--dry-run", cwd=cwd)


def test_demo_dry_run_summarises_the_schedule() -> None:
    done = dry_run("tournaments/demo.yaml")
    assert done.returncode == 0, done.stderr
    tournament = load_tournament(ROOT / "tournaments" / "demo.yaml")  # 5 or 6 bots: javac or not
    specs = schedule(tournament)
    tables = len({spec.table for spec in specs})
    assert f"tables per round: {tables}; rounds: {tournament.rounds}; games: {len(specs)}" \
        in done.stdout
    assert f"games per entrant: {len(specs) * 4 // len(tournament.bots)}" in done.stdout
    assert "pairs never meeting: 0" in done.stdout
    assert "connected: every entrant" in done.stdout


def test_dry_run_starts_builds_and_writes_nothing(tmp_path: Path) -> None:
    """The bots' command would leave a marker if started, the build command if run."""
    marker = tmp_path / "started"
    bot = tmp_path / "bot.sh"
    bot.write_text(f"#!/bin/sh\ntouch {marker}\n")
    bot.chmod(0o755)
    config = {"name": "big", "game": "blackout", "players": 4, "max_tables": 60,
              "time": {"move_ms": 100}, "bots": [
                  {"name": f"b{i:02d}", "cmd": str(bot), "build": ["touch", str(tmp_path / "built")]}
                  for i in range(60)]}
    path = tmp_path / "t.yaml"
    path.write_text(yaml.safe_dump(config))
    done = dry_run(str(path), "--format", "json", "--jobs", "2", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert (data["tables"], data["games"], data["games_per_entrant"]) == (60, 240, [16, 16])
    assert data["connected"] is True and data["groups"] == 1
    # 60 tables of 6 pairs each, no pair twice: 360 pairs meet once, the other 1410 never.
    assert data["pair_meetings"] == [0, 1]
    assert data["pairs_never_meeting"] == 60 * 59 // 2 - 60 * 6
    assert data["worst_case_seconds"] == 120 * data["decisions_per_game"] * 0.1
    assert not marker.exists() and not (tmp_path / "built").exists()
    assert not (tmp_path / "results").exists()


def test_partnership_dry_run_counts_teams() -> None:
    done = dry_run("tournaments/demo-partnership.yaml", "--format", "json")
    data = json.loads(done.stdout)
    assert data["entrants"] == 3 and data["games_per_entrant"] == [24, 24]
    assert data["pair_meetings"] == [6, 6]


@pytest.mark.parametrize(("game", "games_each", "apart"), [
    ("blackout", [18, 24], 1), ("partnership-blackout", [8, 12], 4)])
def test_a_gauntlet_dry_run_counts_the_challengers_among_the_entrants(
        tmp_path: Path, game: str, games_each: list[int], apart: int) -> None:
    """Three field bots and two challengers, which never meet (nor do the field's teams, each of
    which plays only challengers). It used to be a KeyError: the preview named only the field."""
    config = {"name": "g", "game": game, "format": "gauntlet", "rounds": 2,
              "bots": [{"name": f"field{i}", "cmd": str(C_BOT)} for i in range(3)],
              "challengers": [{"name": f"ch{i}", "cmd": str(C_BOT)} for i in range(2)]}
    if game == "blackout":
        config["players"] = 3
    (tmp_path / "g.yaml").write_text(yaml.safe_dump(config))
    done = dry_run("g.yaml", "--format", "json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert (data["entrants"], data["games_per_entrant"]) == (5, games_each)
    assert data["pairs_never_meeting"] == apart and data["connected"] is True


def test_too_few_tables_is_one_line(tmp_path: Path) -> None:
    config = {"name": "t", "game": "blackout", "players": 4, "max_tables": 10,
              "bots": [{"name": f"b{i:02d}", "cmd": "true"} for i in range(60)]}
    (tmp_path / "t.yaml").write_text(yaml.safe_dump(config))
    done = dry_run("t.yaml", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr == ("arena: error: t.yaml: max_tables: 10 tables cannot link 60 bots at "
                           "4-player tables: at least 20 needed\n")


def test_format_without_dry_run_is_refused() -> None:
    done = arena("run", "tournaments/demo.yaml", "--format", "json")
    assert done.returncode == 2
    assert done.stderr.startswith("arena: error: --format applies only with --dry-run")


def test_the_docs_show_the_demo_file_and_its_dry_run_as_they_are() -> None:
    """docs/tournaments.md copies tournaments/demo.yaml and its --dry-run: the copies must not
    drift from the file (the dry run is compared where every demo bot's programs exist)."""
    docs = (ROOT / "docs" / "tournaments.md").read_text()
    shown = docs.split("This is `tournaments/demo.yaml`, which `make demo` runs:\n\n```yaml\n")[1]
    assert shown.split("```")[0] == (ROOT / "tournaments" / "demo.yaml").read_text()
    command = "$ arena run tournaments/demo.yaml --dry-run --jobs 2\n"
    example = docs.split(command)[1].split("```")[0]
    needed = ("javac", "java", "go", "cargo", "mcs", "mono", "c++")
    if not all(shutil.which(program) for program in needed):
        pytest.skip(f"the dry run shows every demo bot: {', '.join(needed)} are needed to "
                    "compare it")
    done = dry_run("tournaments/demo.yaml", "--jobs", "2")
    assert done.returncode == 0, done.stderr
    # The estimate is timed here (and reads results/demo/ where a demo has run): its words only.
    estimated = re.compile(r"^run time: (at least|about) [^\n]*$", re.MULTILINE)
    assert estimated.sub("run time: ...", done.stdout) == estimated.sub("run time: ...", example)
    assert len(estimated.findall(example)) == 1


def _small(tmp_path: Path, name: str = "small") -> Path:
    """Two C bots and one that thinks 20 ms a decision, 3 seats, 3 deals a game, 4 rounds: 12
    games of 27 decisions, that take two or three seconds."""
    bots = [{"name": f"c{i}", "cmd": str(ROOT / "bots" / "c" / "random_bot")} for i in range(2)]
    bots.append({"name": "thinker", "cmd": f"python3 {MISBEHAVING / 'thinks.py'} 0.02"})
    config = {"name": name, "game": "blackout", "players": 3, "rounds": 4, "seed": 3,
              "options": {"deals": 3}, "time": {"move_ms": 5000, "bank_ms": 5000}, "bots": bots}
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def test_without_earlier_games_the_estimate_is_a_lower_bound_and_says_so(tmp_path: Path) -> None:
    done = dry_run(str(_small(tmp_path)), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    line = next(line for line in done.stdout.splitlines() if line.startswith("run time: "))
    assert line.startswith("run time: at least ") and "timed here" in line
    assert "no earlier games of these bots" in line and "--estimate-from" in line
    assert "run time bound: at most " in done.stdout


def test_the_estimate_from_a_runs_own_records_is_near_the_time_it_took(tmp_path: Path) -> None:
    """The run's own results (a run to be resumed or extended) give each bot's decision time; the
    estimate for the same games is within 3x of the time the run took to play them."""
    path = _small(tmp_path)
    done = arena("run", path, "--jobs", "1", "--resamples", "0", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    took = float(done.stdout.split(" in ", 1)[1].split(" s,", 1)[0])
    done = dry_run(str(path), "--jobs", "1", "--format", "json", cwd=tmp_path)
    found = json.loads(done.stdout)["estimate"]
    assert found["games_read"] == 12 and found["unknown"] == []
    assert took / 3 <= found["seconds"] <= took * 3, (found, took)
    text = dry_run(str(path), "--jobs", "1", cwd=tmp_path).stdout
    assert f"estimated from 12 earlier games in {Path('results') / 'small' / 'games.jsonl'}" \
        in text
    # Another run's results, named: a bot they lack is counted as answering at once, and said.
    other = _small(tmp_path, "other")
    other.write_text(other.read_text().replace("name: c1", "name: newcomer"))
    done = dry_run(str(other), "--estimate-from", "results/small", cwd=tmp_path)
    assert "no earlier decisions of newcomer: counted as answering at once" in done.stdout
    done = dry_run(str(other), "--estimate-from", "results/none", cwd=tmp_path)
    assert done.returncode == 2 and done.stderr == \
        "arena: error: results/none: no such file or directory\n"
