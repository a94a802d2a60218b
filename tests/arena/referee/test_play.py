"""`arena play` end to end with real bot processes: seat names, limits, stderr files, the report."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from arena.errors import ConfigError
from arena.referee.seats import game_seats, log_file_name

from helpers import arena

pytestmark = pytest.mark.timeout(120)

ROOT = Path(__file__).resolve().parents[3]
C_BOT = "bots/c/random_bot"
HOG = f"{sys.executable} -S tests/bots/misbehaving/memory_hog.py"


def places_table(stdout: str) -> list[str]:
    """The closing places table's lines (header first), up to the first blank line."""
    lines = stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.split()[:1] == ["place"])
    end = next((i for i in range(start, len(lines)) if not lines[i].strip()), len(lines))
    return lines[start:end]


@pytest.mark.slow
def test_named_seats_and_distinct_labels_for_copies(tmp_path: Path) -> None:
    log = tmp_path / "game.json"
    done = arena("play", "blackout", f"me={C_BOT}", C_BOT, C_BOT, "-o", "deals=2",
                 "--log", str(log))
    assert done.returncode == 0, done.stderr
    assert orjson.loads(log.read_bytes())["names"] == ["me", "c/random_bot", "c/random_bot-2"]


def compiled_bot(root: Path, name: str) -> Path:
    """A bot directory in the shape of a compiled bot: ``name: NAME`` runs ``./NAME``."""
    bot = root / name
    bot.mkdir()
    shutil.copy(ROOT / C_BOT, bot / name)
    (bot / "bot.yaml").write_text(f"name: {name}\nrun: ./{name}\n")
    return bot


def test_a_bot_named_after_its_program_keeps_its_name_and_copies_are_numbered(
        tmp_path: Path) -> None:
    gobot = compiled_bot(tmp_path, "gobot")
    log = tmp_path / "game.json"
    done = arena("play", "blackout", str(gobot), C_BOT, "bots/c/first_bot", "-o", "deals=1",
                 "--log", str(log))
    assert done.returncode == 0, done.stderr
    assert orjson.loads(log.read_bytes())["names"] == ["gobot", "c/random_bot", "c/first_bot"]
    done = arena("play", "blackout", str(gobot), str(gobot), C_BOT, "-o", "deals=1",
                 "--log", str(log))
    assert done.returncode == 0, done.stderr
    assert orjson.loads(log.read_bytes())["names"] == ["gobot", "gobot-2", "c/random_bot"]


def test_a_named_seat_takes_a_bot_directory(tmp_path: Path) -> None:
    gobot = compiled_bot(tmp_path, "gobot")
    log = tmp_path / "game.json"
    done = arena("play", "blackout", f"mine={gobot}", f"old={gobot / 'bot.yaml'}", C_BOT,
                 "-o", "deals=1", "--log", str(log))
    assert done.returncode == 0, done.stderr
    assert orjson.loads(log.read_bytes())["names"] == ["mine", "old", "c/random_bot"]


def test_partners_running_one_command_share_a_label() -> None:
    seats = game_seats("partnership-blackout", ["a=bots/c/random_bot", "bots/c/first_bot"])
    assert [seat.name for seat in seats] == ["a", "c/first_bot", "a", "c/first_bot"]
    four = game_seats("partnership-blackout", [C_BOT, C_BOT, C_BOT, "bots/c/first_bot"])
    assert [seat.name for seat in four] == ["c/random_bot", "c/random_bot-2", "c/random_bot",
                                            "c/first_bot"]


def test_a_name_given_twice_is_refused() -> None:
    with pytest.raises(ConfigError, match="seat 1: the name 'x' is already another seat's"):
        game_seats("blackout", [f"x={C_BOT}", f"x={C_BOT}", C_BOT])


def test_a_name_given_twice_in_another_spelling_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="seat 1: the name 'X.' is already another seat's "
                                          r"\(as 'x'\)"):
        game_seats("blackout", [f"x={C_BOT}", f"X.={C_BOT}", C_BOT])
    done = arena("play", "blackout", f"okone={C_BOT}", f"OKONE={C_BOT}", C_BOT)
    assert done.returncode == 2 and "the name 'OKONE' is already another seat's" in done.stderr


def test_a_label_never_passes_for_a_given_name_in_another_spelling(tmp_path: Path) -> None:
    seats = game_seats("blackout", ["./random_bot", "Random_Bot=./random_bot -v", "./random_bot -v"])
    assert [seat.name for seat in seats] == ["random_bot-2", "Random_Bot", "random_bot-3"]
    gobot = compiled_bot(tmp_path, "gobot")
    log = tmp_path / "game.json"
    done = arena("play", "blackout", f"GOBOT={C_BOT}", str(gobot), C_BOT, "-o", "deals=1",
                 "--log", str(log))
    assert done.returncode == 0, done.stderr
    assert orjson.loads(log.read_bytes())["names"] == ["GOBOT", "gobot-2", "c/random_bot"]


def test_an_equals_sign_inside_a_command_is_not_a_name() -> None:
    seats = game_seats("blackout", ["python3 bot.py --depth=3", C_BOT, C_BOT])
    assert seats[0].argv == ("python3", "bot.py", "--depth=3") and seats[0].name == "bot"


def test_stderr_files_are_flat_and_safe(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    done = arena("play", "blackout", C_BOT, C_BOT, "bots/c/first_bot", "-o", "deals=1",
                 "--stderr-dir", str(logs))  # labels c/random_bot, ...: a '/' in each
    assert done.returncode == 0, done.stderr
    files = sorted(path.relative_to(logs).as_posix() for path in logs.rglob("*"))
    assert files == ["seat0-c_random_bot.stderr.log", "seat1-c_random_bot-2.stderr.log",
                     "seat2-c_first_bot.stderr.log"]
    assert log_file_name(3, "../../x") == "seat3-.._.._x.stderr.log"


def test_places_table_has_no_empty_column() -> None:
    done = arena("play", "blackout", C_BOT, C_BOT, C_BOT, "-o", "deals=2")
    assert done.returncode == 0, done.stderr
    header, rule, *rows = places_table(done.stdout)
    assert header.split() == ["place", "bot", "score"]
    assert len(rule.split()) == 3 and all(len(row.split()) == 3 for row in rows)


def test_a_forfeit_shows_its_column(tmp_path: Path) -> None:
    done = arena("play", "blackout", C_BOT, C_BOT, f"hog={HOG}", "-o", "deals=2",
                 "--memory-mb", "200", "--stderr-dir", str(tmp_path))
    assert done.returncode == 0, done.stderr
    header, _, *rows = places_table(done.stdout)
    assert header.split() == ["place", "bot", "score", "forfeit"]
    assert rows[-1].split()[1:] == ["hog", rows[-1].split()[2], "forfeit"]
    assert "crash" in done.stdout  # the hog ran into --memory-mb 200 and died


@pytest.mark.parametrize(("option", "value"), [("--move-ms", "0"), ("--move-ms", "-5"),
                                               ("--start-ms", "0"), ("--bank-ms", "-1"),
                                               ("--memory-mb", "8")])
def test_limits_out_of_range_are_refused(option: str, value: str) -> None:
    done = arena("play", "blackout", C_BOT, C_BOT, C_BOT, option, value)
    assert done.returncode == 2 and option in done.stderr
    assert "Traceback" not in done.stderr


def test_wrong_number_of_bots_reads_well() -> None:
    done = arena("play", "blackout", C_BOT, C_BOT)
    assert done.returncode == 2
    assert done.stderr.strip() == "arena: error: blackout needs 3 to 7 bots; got 2"
    partnership = arena("play", "partnership-blackout", C_BOT, C_BOT, C_BOT)
    assert partnership.stderr.strip() == ("arena: error: partnership-blackout needs 4 bots, or 2 "
                                          "(each then partners a copy of itself); got 3")


@pytest.mark.parametrize("command", [["check-bot", "java", "-cp", "bots/java", "Bot"],
                                     ["play", "blackout", "python3", "-u", "bot.py"]])
def test_an_unknown_option_says_to_quote_the_bot_command(command: list[str]) -> None:
    done = arena(*command)
    assert done.returncode == 2
    text = " ".join(done.stderr.replace("│", " ").split())  # one line, whatever the box
    assert "No such option" in text
    assert "quote the command" in text and "put -- before it" in text


@pytest.mark.parametrize("command", ["play", "check-bot"])
def test_memory_mb_is_described_as_resident_memory(command: str) -> None:
    program = Path(sys.executable).with_name("arena")  # wide: no line break inside a word
    done = subprocess.run([str(program), command, "--help"], capture_output=True, text=True,
                          timeout=60, env={**os.environ, "COLUMNS": "300"})
    text = " ".join(done.stdout.replace("│", " ").split())
    assert "--memory-mb" in text and "Resident-memory limit of each bot process" in text
    assert "Address-space limit" not in text


@pytest.mark.slow
def test_the_clock_and_its_wall_cap_are_set_on_the_command_line_and_recorded(
        tmp_path: Path) -> None:
    log = tmp_path / "game.json"
    for args, clock, wall_ms in (((), "fair", 110_000), (("--clock", "cpu",), "cpu", 110_000),
                                 (("--clock", "wall", "--wall-ms", "7000"), "wall", 7000)):
        done = arena("play", "blackout", C_BOT, C_BOT, C_BOT, "-o", "deals=1", *args,
                     "--log", str(log))
        assert done.returncode == 0, done.stderr
        record = orjson.loads(log.read_bytes())
        assert (record["clock"], record["wall_ms"]) == (clock, wall_ms)
        assert len(record["deals"][0]["play_cpu_ms"]) == len(record["deals"][0]["plays"])
    done = arena("play", "blackout", C_BOT, C_BOT, C_BOT, "--wall-ms", "0")
    assert done.returncode == 2 and "--wall-ms" in done.stderr
