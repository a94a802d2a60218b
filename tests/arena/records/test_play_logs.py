"""An `arena play --log` file is a one-game results file for every reader: show, table, report."""

from __future__ import annotations

import re
from pathlib import Path

import orjson
import pytest

from arena.records.reader import PLAY_LOG_ID, ReadNotes, read_lines

from helpers import arena, build_c_bots

ROOT = Path(__file__).resolve().parents[3]
C_BOT = str(ROOT / "bots" / "c" / "random_bot")


@pytest.fixture(scope="module")
def play_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The log of one real game, as `arena play --log` writes it (indented)."""
    build_c_bots()
    log = tmp_path_factory.mktemp("play") / "game.json"
    done = arena("play", "blackout", C_BOT, C_BOT, C_BOT, "-o", "deals=2", "--log", log)
    assert done.returncode == 0, done.stderr
    return log


def test_a_play_log_reads_as_one_game_with_its_own_id(play_log: Path, tmp_path: Path) -> None:
    compact = tmp_path / "compact.json"  # the same record on one line, as a user may save it
    compact.write_bytes(orjson.dumps(orjson.loads(play_log.read_bytes())) + b"\n")
    for path in (play_log, compact):
        [line] = read_lines([path], ReadNotes())
        assert line.data["id"] == PLAY_LOG_ID and line.data["result"]["set"] == PLAY_LOG_ID
        assert line.data["deals"] == orjson.loads(play_log.read_bytes())["deals"]


@pytest.mark.slow
def test_show_table_and_report_open_a_play_log(play_log: Path, tmp_path: Path) -> None:
    shown = arena("show", play_log)  # no game id: the file holds one game
    assert shown.returncode == 0, shown.stderr
    # named by its game, not by the id no run gave it ("game game: blackout")
    assert shown.stdout.startswith("blackout, seats: 0 ")
    assert "\ndeal 1, 1 card: " in shown.stdout and "\ndeal 2, 2 cards: " in shown.stdout
    assert re.search(r"bids: \d:\d \(\d+\.\d ms\) ", shown.stdout), shown.stdout  # with a unit
    assert arena("show", play_log, "game").stdout == shown.stdout
    table = arena("table", play_log, "--resamples", "0")
    assert table.returncode == 0, table.stderr
    assert "\n1 game, " in table.stdout
    report = arena("report", play_log, "-o", tmp_path / "report")
    assert report.returncode == 0, report.stderr
    assert report.stdout.startswith("report of 1 game written; ")
    assert (tmp_path / "report" / "index.html").is_file()
    analysed = arena("analyse", play_log, "--entrant", "c/random_bot", "--samples", "4",
                     "--jobs", "1")
    assert analysed.returncode == 0, analysed.stderr
    decisions = [line for line in analysed.stdout.splitlines() if " seat 0 " in line]
    assert decisions and all(line.startswith("deal ") for line in decisions), analysed.stdout


def test_show_without_a_game_id_names_some_when_a_file_holds_many(tmp_path: Path) -> None:
    file = tmp_path / "games.jsonl"
    log = tmp_path / "one.json"
    done = arena("play", "blackout", C_BOT, C_BOT, C_BOT, "-o", "deals=1", "--log", log)
    assert done.returncode == 0, done.stderr
    record = orjson.loads(log.read_bytes())
    lines = [{"id": f"g{n}", **record, "result": {**record["result"], "set": f"g{n}"}}
             for n in (1, 2)]
    file.write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in lines))
    refused = arena("show", file)
    assert refused.returncode == 2
    assert refused.stderr == f"arena: error: {file}: holds 2 games: name one (ids look like g1, " \
                             f"g2)\n"
