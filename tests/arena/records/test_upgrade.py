"""Lines of every format the arena wrote read as lines of today's: ``upgrade()`` and the commands.

``old/`` holds lines the arena wrote, at the commits named, with a tournament of three bots (a
seeded C bot, the first-legal C bot, and a Python bot that answers one request illegally), in
each shape format 1 had (``arena run`` of the same file, ``old/README.md``).
"""

from __future__ import annotations

import io
import shutil
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest
import yaml

from arena.errors import ResultsError
from arena.ratings.table import table_for_paths
from arena.records.check import record_problem
from arena.records.reader import current_line, parse_line, read_finished
from arena.records.schema import DEAL, FAULT, FORMAT, GAME, RESULT
from arena.records.upgrade import upgrade
from arena.records.writer import serialise
from arena.report.games import find_game
from arena.report.show import show_game
from arena.report.site import write_report
from arena.runs.run import run_tournament
from arena.values.ids import set_of_game

from helpers import arena

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
OLD = HERE / "old"
SHAPES = ("first", "times", "sets", "crash-data", "clocks")
"""Format 1's shapes, oldest first (old/README.md says what each lacks)."""

pytestmark = pytest.mark.timeout(180)


def old_lines(shape: str, game: str) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in (OLD / f"{shape}-{game}.jsonl").read_bytes().splitlines()]


def _holds(new: object, old: object) -> bool:
    """Whether ``new`` keeps every value of ``old`` (objects may have gained fields)."""
    if isinstance(old, dict):
        return isinstance(new, dict) and all(k in new and _holds(new[k], v) for k, v in old.items())
    if isinstance(old, list):
        return (isinstance(new, list) and len(new) == len(old)
                and all(_holds(a, b) for a, b in zip(new, old, strict=True)))
    return new == old and type(new) is type(old)


@pytest.mark.parametrize("game", ["blackout", "partnership"])
@pytest.mark.parametrize("shape", SHAPES)
def test_every_old_shape_upgrades_to_a_line_of_today(shape: str, game: str) -> None:
    for old in old_lines(shape, game):
        assert "format" not in old  # format 1
        line = upgrade(orjson.loads(orjson.dumps(old)))
        assert line["format"] == FORMAT and record_problem(line) is None
        assert _holds(line, old)  # nothing lost, nothing changed
        assert list(line) == [f.name for f in GAME.fields if f.name in line]
        assert list(line["result"]) == [f.name for f in RESULT.fields]
        for deal in line["deals"]:
            assert list(deal) == [f.name for f in DEAL.fields if f.name in deal]
        for fault in line["faults"]:
            assert list(fault) == [f.name for f in FAULT.fields]
        assert line["result"]["set"] == old["result"].get("set", set_of_game(old["id"]))
        assert line["clock"] == old.get("clock", "wall")
        assert upgrade(line) is line


def test_what_each_shape_lacked_is_null_or_derived() -> None:
    first = upgrade(old_lines("first", "blackout")[0])
    assert (first["time_control"], first["bank_used_ms"], first["wall_ms"], first["stalls"]) == \
        (None, None, None, None)
    assert {first["deals"][0][key] is None for key in ("bid_ms", "play_ms", "bid_cpu_ms",
                                                        "play_cpu_ms")} == {True}
    assert "call_ms" not in first["deals"][0]  # written beside calls only
    assert first["result"]["set"] == "r1-t0000" and first["clock"] == "wall"
    assert first["faults"][0]["limit"] is None and first["faults"][0]["exit_code"] is None
    times = upgrade(old_lines("times", "partnership")[0])
    assert isinstance(times["deals"][0]["call_ms"], list) and times["deals"][0]["call_cpu_ms"] is None
    assert "bid_ms" not in times["deals"][0]


def test_a_line_of_the_current_format_is_read_as_it_is() -> None:
    line = upgrade(old_lines("clocks", "blackout")[0])
    raw = serialise(line)
    assert parse_line(raw) == line and current_line(raw) == raw.rstrip(b"\n")
    old = (OLD / "first-blackout.jsonl").read_bytes().splitlines()[0]
    assert orjson.loads(current_line(old)) == upgrade(orjson.loads(old))
    assert current_line(old).startswith(b'{"format":%d,' % FORMAT)


def test_a_newer_or_broken_format_is_one_error_naming_the_line(tmp_path: Path) -> None:
    line = upgrade(old_lines("clocks", "blackout")[0])
    for value, said in ((FORMAT + 1, f"format {FORMAT + 1}: written by a newer arena"),
                        ("2", "'format' must be a format number"), (0, "'format' must be")):
        with pytest.raises(ResultsError, match=said):
            upgrade({**line, "format": value})
        path = tmp_path / "games.jsonl"
        path.write_bytes(serialise(line) + serialise({**line, "id": "r1-t0000-s9", "format": value}))
        with pytest.raises(ResultsError, match=f"{path}:2: {said}"):
            read_finished(path, repair=False)


def _results(tmp_path: Path, shape: str, game: str) -> Path:
    out = tmp_path / f"{shape}-{game}"
    out.mkdir()
    shutil.copy(OLD / f"{shape}-{game}.jsonl", out / "games.jsonl")
    return out


def _tournament(directory: Path) -> Path:
    """The tournament file the blackout lines were played from (the bots need not run: every
    game is played already)."""
    path = directory / "t.yaml"
    bots = [("rc", [str(ROOT / "bots" / "c" / "random_bot")]),
            ("fc", [str(ROOT / "bots" / "c" / "first_bot")]),
            ("bad", [sys.executable, str(ROOT / "tests" / "bots" / "misbehaving" / "illegal.py"),
                     "junk", "2"])]
    path.write_text(yaml.safe_dump({
        "name": "old-blackout", "game": "blackout", "players": 3, "options": {"deals": 2},
        "rounds": 1, "seed": 5, "bots": [{"name": n, "cmd": " ".join(argv)} for n, argv in bots]},
        sort_keys=False))
    return path


@pytest.mark.parametrize("shape", SHAPES)
def test_old_files_are_read_by_table_report_show_and_resume(tmp_path: Path, shape: str) -> None:
    for game in ("blackout", "partnership"):
        out = _results(tmp_path, shape, game)
        today = tmp_path / f"{shape}-{game}-today.jsonl"
        today.write_bytes(b"".join(serialise(upgrade(line)) for line in old_lines(shape, game)))
        # The same table as the same games written today.
        assert table_for_paths([out], resamples=50).text == \
            table_for_paths([today], resamples=50).text
        written = write_report([out], tmp_path / f"site-{shape}-{game}", resamples=10)
        assert written.games == len(old_lines(shape, game))
        first = old_lines(shape, game)[0]["id"]
        assert f"game {first}: " in show_game(find_game(out, first))
    out = tmp_path / f"{shape}-blackout"
    source = _tournament(tmp_path)
    shutil.copy(source, out / "tournament.yaml")  # the run's saved copy
    text = run_tournament(source, out=out, resume=True, resamples=0, progress_stream=io.StringIO())
    assert "3 games (0 played now, 3 from before)" in text


@pytest.mark.slow
def test_the_commands_read_the_oldest_shape(tmp_path: Path) -> None:
    out = _results(tmp_path, "first", "blackout")
    source = _tournament(tmp_path)
    shutil.copy(source, out / "tournament.yaml")
    for args in (["table", out], ["report", out, "-o", tmp_path / "site"],
                 ["show", out, "r1-t0000-s1"], ["run", source, "--out", out, "--resume"]):
        done = arena(*args, cwd=tmp_path)
        assert done.returncode == 0, (args, done.stderr)


def test_resume_reads_every_field_but_the_deals_by_the_schema(tmp_path: Path) -> None:
    line = upgrade(old_lines("clocks", "blackout")[0])
    path = tmp_path / "games.jsonl"
    for damage, said in ((("clock", "sundial"), "'clock' must be `fair`, `cpu` or `wall`, not 'sundial'"),
                         (("stalls", [0, "x", 0]), "'stalls' must be list of ints or null"),
                         (("names", None), "'names' must be list of strings, not None")):
        path.write_bytes(serialise({**line, damage[0]: damage[1]}))
        with pytest.raises(ResultsError, match=f"{path}:1: {said}"):
            read_finished(path, repair=False)
    path.write_bytes(serialise({**line, "deals": [{"deal": "damaged"}]}))  # carried, not read
    assert list(read_finished(path, repair=False)) == [line["id"]]
