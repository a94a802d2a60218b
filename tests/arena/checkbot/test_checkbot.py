"""`arena check-bot` end to end: the starter bots pass, each misbehaving bot fails the right step.

Every check runs the installed `arena` entry point on real bot programs. Nothing here asserts a
time: the small --move-ms values only make the timeouts of the slow bot quick to reach.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import signal
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

import engine
from arena.checkbot.steps import StepResult, bot_argv, check_bot
from arena.errors import ConfigError
from arena.settings import TimeControl

from helpers import arena, build_c_bots, start_arena

pytestmark = pytest.mark.timeout(120)

ROOT = Path(__file__).resolve().parents[3]
MISBEHAVING = "tests/bots/misbehaving"
PYTHON = shlex.quote(sys.executable)
STEPS_AFTER_GAMES = ("second game in the same processes", "unknown message types and fields",
                     "time limit and restart", "quit")


def steps(output: str) -> dict[str, tuple[str, str]]:
    """Step name -> (PASS/FAIL/SKIP, the step's whole text, continuation lines included)."""
    found: dict[str, tuple[str, str]] = {}
    name = ""
    for line in output.splitlines():
        status = line[:4]
        if status in ("PASS", "FAIL", "SKIP"):
            name = line[6:].split(":", 1)[0].split(" (", 1)[0]
            found[name] = (status, line)
        elif line.startswith("      ") and name:
            found[name] = (found[name][0], found[name][1] + "\n" + line)
    return found


@pytest.fixture(scope="module")
def c_bot() -> str:
    build_c_bots()
    return "bots/c/random_bot"


def node() -> str:
    found = shutil.which("node")
    if found is None:
        pytest.skip("node is not installed")
    return found


# The command forms: several words, one quoted string, words after --, a single path.
STARTERS: dict[str, Callable[[str], list[str]]] = {
    "python-random": lambda c: ["--", sys.executable, "-u", "bots/python/random_bot.py"],
    "python-greedy": lambda c: [f"{PYTHON} bots/python/greedy_bot.py"],
    "js-random": lambda c: [node(), "bots/js/random_bot.js"],
    "c-random": lambda c: [c],
}


@pytest.mark.parametrize("bot", list(STARTERS))
@pytest.mark.slow
def test_every_starter_bot_passes_every_step(bot: str, c_bot: str) -> None:
    # Generous limits: a loaded machine can hold any process up for a second; timing out is not
    # the point here (the misbehaving bots below test that).
    result = arena("check-bot", "--move-ms", "5000", "--start-ms", "30000", *STARTERS[bot](c_bot))
    assert result.returncode == 0, result.stdout + result.stderr
    found = steps(result.stdout)
    assert list(found) == ["start and hello", "play blackout", "play partnership-blackout",
                           *STEPS_AFTER_GAMES]
    assert all(status == "PASS" for status, _ in found.values()), result.stdout
    assert "bids" in found["play blackout"][1] and "plays" in found["play blackout"][1]
    assert "calls" in found["play partnership-blackout"][1]
    assert result.stdout.rstrip().endswith("7 of 7 steps passed")
    assert "warning:" not in result.stdout and "note:" not in result.stdout  # quick: no notes


# bot and its arguments, extra check-bot options, the step that fails, what that step must say
MISBEHAVING_BOTS = {
    "slow": ("slow.py 3", ["--move-ms", "300", "--bank-ms", "0", "--clock", "wall"], "play blackout",
             ["timeout: no reply within 300 ms", "received: (nothing)"]),
    "crash_mid_game": ("crash_mid_game.py", [], "play blackout",
                       ["crash: exited with code 3", "deal ", "decision ", 'sent:     {"type":"act"',
                        "stderr:   crash_mid_game: giving up on act"]),
    "exits_before_hello": ("exits_before_hello.py", [], "start and hello",
                           ["crash:", "exited with code 2", "cannot load my model"]),
    "memory_hog": ("memory_hog.py", ["--memory-mb", "256"], "play blackout",
                   ["crash: memory limit 256 MB exceeded"]),
    "garbage_line": ("garbage_line.py", [], "play blackout",
                     ["malformed: reply is not JSON", "received: thinking..."]),
    "wrong_id": ("wrong_id.py", [], "play blackout", ["malformed: reply has id"]),
    "huge_line": ("huge_line.py 2 0", [], "play blackout", ["malformed: line over"]),
    "illegal": ("illegal.py", [], "play blackout",  # where: the decision within its deal
                ["illegal:", '"action":99', ", deal 1, decision 1)"]),
    "valid_json": ("valid_json.py long-action", [], "play blackout",
                   ["illegal: seat ", "bid (an integer of 5,000 digits): bids are 0..",
                    '"action":9999']),
    "ignores_quit": ("ignores_quit.py", [], "quit",
                     ["did not exit within the quit grace of 2000 ms", "the arena killed it"]),
}


@pytest.mark.parametrize("bot", list(MISBEHAVING_BOTS))
@pytest.mark.slow
def test_each_misbehaving_bot_fails_with_its_reason(bot: str) -> None:
    script, options, failing, reasons = MISBEHAVING_BOTS[bot]
    result = arena("check-bot", "--game", "blackout", *options, f"{PYTHON} {MISBEHAVING}/{script}")
    assert result.returncode == 1, result.stdout + result.stderr
    found = steps(result.stdout)
    status, text = found[failing]
    assert status == "FAIL", result.stdout
    for reason in reasons:
        assert reason in text, result.stdout
    names = list(found)
    before, after = names[:names.index(failing)], names[names.index(failing) + 1:]
    assert all(found[name][0] == "PASS" for name in before), result.stdout
    if failing == "start and hello":
        assert all(found[name][0] == "SKIP" for name in after), result.stdout
    elif failing == "play blackout":  # the quit step still runs (on a fresh process)
        assert [found[name][0] for name in after] == ["SKIP"] * 3 + ["PASS"], result.stdout


@pytest.mark.slow
def test_a_hello_whose_name_and_version_are_any_json_passes_saying_what_they_are() -> None:
    result = arena("check-bot", "--game", "blackout",
                   f"{PYTHON} {MISBEHAVING}/valid_json.py odd-hello 0")
    status, text = steps(result.stdout)["start and hello"]
    assert status == "PASS", result.stdout + result.stderr
    assert "name (an integer of 5,000 digits) (not text), protocol 1, version '\\ud800'" in text


@pytest.mark.slow
def test_an_act_that_misses_its_one_millisecond_is_recorded_and_the_bot_restarted() -> None:
    # slow.py sleeps before its request N. The step-1 process sits in seat 0 of every game:
    # after its hello (request 0) come the games of steps 2, 3 and 4, each asking it for `deals`
    # bids and 1 + 2 + ... + deals plays; so N is its first act in the game of step 5.
    deals = int(str(engine.game("blackout").info.short_options["deals"]))
    n = 1 + 3 * (deals + deals * (deals + 1) // 2)
    result = arena("check-bot", "--game", "blackout",
                   f"{PYTHON} {MISBEHAVING}/slow.py 0.05 {n}")
    assert result.returncode == 0, result.stdout + result.stderr
    status, text = steps(result.stdout)["time limit and restart"]
    assert status == "PASS" and "recorded as a timeout" in text and "restarted" in text


@pytest.mark.slow
def test_the_time_step_prints_the_figure_it_judged_by_the_clock_it_names(c_bot: str) -> None:
    # A fast bot's act of time_ms 1: answered in time (the figure shown is the wall clock's
    # charge, never more than the time from request to reply) or, on a loaded machine, a timeout.
    result = arena("check-bot", "--game", "blackout", "--move-ms", "5000", "--start-ms", "30000",
                   c_bot)
    assert result.returncode == 0, result.stdout + result.stderr
    status, text = steps(result.stdout)["time limit and restart"]
    assert status == "PASS", result.stdout
    answered = re.search(r"answered in time and legally: charged ([0-9.]+) ms by the wall clock "
                         r"\(.*\), ([0-9.]+) ms from request to reply", text)
    if answered is None:
        assert "got no reply within 1 ms by the wall clock (" in text, result.stdout
    else:
        assert float(answered[1]) <= float(answered[2]), result.stdout


@pytest.mark.slow
def test_a_decision_over_half_of_move_ms_is_warned_about() -> None:
    # Each process sleeps 0.7 s before its first act: within move_ms 1000, but without a margin.
    result = arena("check-bot", "--game", "blackout", "--move-ms", "1000",
                   f"{PYTHON} {MISBEHAVING}/slow.py 0.7 1")
    warning = [line for line in result.stdout.splitlines() if line.startswith("warning: ")]
    assert len(warning) == 1, result.stdout
    assert "the slowest decision took " in warning[0] and "over half of move_ms 1000" in warning[0]


@pytest.mark.slow
def test_a_slow_bot_hears_early_that_the_check_will_take_minutes() -> None:
    check = start_arena("check-bot", "--game", "blackout", "--", sys.executable,
                        f"{MISBEHAVING}/thinks.py", "0.5", stderr=None)
    try:
        assert check.stdout is not None
        lines = []
        for line in check.stdout:  # the note comes after a few answers, long before the end
            lines.append(line)
            if line.startswith(("note: ", "PASS  play", "FAIL  play")):
                break
        assert lines[-1].startswith("note: this check will take about "), lines
        taken = re.search(r"the bot has taken (\d+) ms a decision so far", lines[-1])
        assert taken is not None and int(taken.group(1)) >= 500, lines
        assert "--move-ms does not shorten a bot's thinking" in lines[-1]
    finally:
        check.send_signal(signal.SIGINT)
        check.wait(timeout=60)


@pytest.mark.slow
def test_a_missing_command_is_one_error_line_and_exit_2() -> None:
    result = arena("check-bot")
    assert result.returncode == 2
    assert result.stderr.startswith("arena: error: ") and result.stderr.count("\n") == 1
    assert "Traceback" not in result.stderr and result.stdout == ""


@pytest.mark.slow
def test_an_unknown_game_is_one_error_line_and_exit_2() -> None:
    result = arena("check-bot", "--game", "chess", "bots/c/random_bot")
    assert result.returncode == 2
    assert result.stderr.startswith("arena: error: ") and "chess" in result.stderr


@pytest.mark.slow
def test_a_bot_that_cannot_start_fails_step_one_and_skips_the_rest() -> None:
    result = arena("check-bot", "--game", "blackout", "bots/no_such_bot")
    assert result.returncode == 1
    found = steps(result.stdout)
    assert found["start and hello"][0] == "FAIL" and "no such file" in found["start and hello"][1]
    assert [status for status, _ in found.values()][1:] == ["SKIP"] * 5


@pytest.mark.slow
def test_help_explains_the_command_forms_and_the_steps() -> None:
    result = arena("check-bot", "--help")
    assert result.returncode == 0
    for words in ("one quoted string", "put -- before", "time_ms 1", "restarted", "quit"):
        assert words in result.stdout


def test_bot_argv_splits_one_string_and_keeps_several_words() -> None:
    assert bot_argv(["python3 my bot.py"]) == ["python3", "my", "bot.py"]
    assert bot_argv(["python3", "my bot.py"]) == ["python3", "my bot.py"]
    assert bot_argv(["'/path with space/bot' -v"]) == ["/path with space/bot", "-v"]
    for bad in ([], [""], ["python3 'open"]):
        with pytest.raises(ConfigError):
            bot_argv(bad)


def test_check_bot_returns_the_steps_it_reports_as_they_end(c_bot: str) -> None:
    seen: list[StepResult] = []
    results = check_bot([str(ROOT / c_bot)], games=["partnership-blackout"],
                        time_control=TimeControl(move_ms=2000), on_step=seen.append)
    assert seen == results
    assert [r.name for r in results] == ["start and hello", "play partnership-blackout",
                                         *STEPS_AFTER_GAMES]
    assert all(r.passed and not r.skipped and r.status == "PASS" for r in results)


@pytest.mark.slow
def test_a_bot_writing_200_mib_to_stderr_and_exiting_on_quit_passes() -> None:
    # Each process logs 40 MiB at every game end and the rest of its 200 MiB at quit, from a
    # writer thread: it can exit only if the arena keeps reading its stderr during the grace.
    result = arena("check-bot", "--", PYTHON, "tests/bots/large_stderr_log.py", "200", "40")
    assert result.returncode == 0, result.stdout + result.stderr
    status, text = steps(result.stdout)["quit"]
    assert status == "PASS" and "slowest exit" in text, text


@pytest.mark.slow
def test_quit_grace_is_an_option_of_check_bot_and_play_and_must_not_be_negative() -> None:
    for command in ("check-bot", "play"):
        assert "--quit-grace-ms" in arena(command, "--help").stdout
    result = arena("check-bot", "--quit-grace-ms", "-5", "--", PYTHON, "bots/python/random_bot.py")
    assert result.returncode == 2 and "--quit-grace-ms" in result.stderr


@pytest.mark.slow
def test_players_and_options_set_the_table_every_game_of_the_check_is_played_at(
        tmp_path: Path) -> None:
    log = tmp_path / "received.jsonl"
    result = arena("check-bot", "-g", "blackout", "--players", "3", "-o", "deals=5",
                   "--option", "hook=true", "--move-ms", "5000", "--start-ms", "30000",
                   "--", PYTHON, "tests/bots/spy_bot.py", str(log))
    assert result.returncode == 0, result.stdout + result.stderr
    status, text = steps(result.stdout)["play blackout"]
    assert status == "PASS" and "3 processes, deals=5, hook=true: 5 deals, no faults" in text, text
    starts = [json.loads(line) for line in log.read_text().splitlines() if '"game_start"' in line]
    assert len(starts) == 5 * 3  # steps 2 to 5 play five games, each at a table of 3 processes
    assert all(start["players"] == 3 and start["options"]["deals"] == 5
               and start["options"]["hook"] is True for start in starts)


@pytest.mark.parametrize(("given", "named"), [
    (["-g", "blackout", "-o", "deals=99"], "--option deals: "),
    (["-g", "blackout", "-o", "hook=perhaps"], "--option hook: "),
    (["-g", "blackout", "--players", "9"], "--players: blackout is for 3, 4, 5, 6, 7 players, not 9"),
    (["-g", "partnership-blackout", "--players", "3"], "--players: partnership-blackout is for 4"),
    (["-o", "deals"], "--option 'deals': expected name=value"),
    (["-o", "deals=5"], "(checking partnership-blackout; --game checks one game)"),
])
@pytest.mark.slow
def test_a_bad_table_size_or_option_is_one_error_line_and_exit_2_before_any_bot_runs(
        given: list[str], named: str, tmp_path: Path) -> None:
    log = tmp_path / "received.jsonl"
    result = arena("check-bot", *given, "--", PYTHON, "tests/bots/spy_bot.py", str(log))
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stderr.startswith("arena: error: ") and result.stderr.count("\n") == 1
    assert named in result.stderr and "Traceback" not in result.stderr
    assert result.stdout == "" and not log.exists()


@pytest.mark.slow
def test_a_passing_check_says_how_much_the_bot_wrote_to_stderr_and_its_last_lines(
        c_bot: str) -> None:
    result = arena("check-bot", "-g", "blackout", "--move-ms", "5000", "--start-ms", "30000",
                   "--", PYTHON, "tests/bots/says_each_decision.py")
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    said = next(index for index, line in enumerate(lines) if line.startswith("stderr: "))
    # two lines an act and "ready" per start, in four processes and one restart
    assert re.fullmatch(r"stderr: \d+ lines \(\d+\.\d KiB\) from 4 processes; the last lines "
                        r"of the one that wrote most:", lines[said]), lines[said]
    assert int(lines[said].split()[1]) > 100
    tail = lines[said + 1:said + 6]
    assert len(tail) == 5 and all(line.startswith("  ") for line in tail), lines
    assert any(re.search(r"seat \d act \d+ plays", line) for line in tail), tail
    assert "\x1b" not in result.stdout and "\\x1b[31m" in result.stdout
    assert lines[-1] == "6 of 6 steps passed"
    quiet = arena("check-bot", "-g", "blackout", "--move-ms", "5000", c_bot)
    assert quiet.returncode == 0 and "stderr: nothing written" in quiet.stdout.splitlines()
