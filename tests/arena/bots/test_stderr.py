"""A bot's stderr log, with real bot processes: a sink that waits for the bot's first bytes leaves
no file for a bot that writes nothing, and a whole one (its notes first) for one that writes; each
decision's bytes are marked in the index beside the log, which the bot's own lines cannot forge."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from arena.bots.process import BotProcess
from arena.bots.stderr_sink import StderrSink
from arena.errors import BotStartError
from arena.settings import GameLogs
from arena.stderrindex import LOG_SUFFIX, DecisionLogs

ROOT = Path(__file__).resolve().parents[3]
C_BOT = ROOT / "bots" / "c" / "random_bot"
ACT = {"type": "act", "kind": "play", "legal": ["QS", "2H"], "view": {"hand": ["QS", "2H"]},
       "time_ms": 500}

pytestmark = pytest.mark.skipif(not C_BOT.exists(), reason="C bots not built (make bots)")


def play_once(bot: BotProcess) -> None:
    with bot:
        assert bot.request(ACT, 10.0).message["action"] in ("QS", "2H")


def test_a_silent_bot_leaves_no_log_when_logs_wait_for_its_first_bytes(tmp_path: Path) -> None:
    log = tmp_path / "logs" / "silent.stderr.log"
    bot = BotProcess("silent", [str(C_BOT)], log_path=log, silent_log=False)
    play_once(bot)
    bot.restart()
    bot.close()
    assert not log.exists() and not (tmp_path / "logs").exists()  # nor its folder


def test_a_bot_that_writes_to_stderr_gets_its_whole_log(tmp_path: Path) -> None:
    log = tmp_path / "chatty.stderr.log"
    argv = ["sh", "-c", f"echo 'thinking hard' >&2; exec {C_BOT}"]
    bot = BotProcess("chatty", argv, log_path=log, silent_log=False)
    play_once(bot)
    lines = log.read_text().splitlines()
    assert lines[0].startswith(f"[arena] started {argv!r} as pid ")
    assert "thinking hard" in lines


def test_a_restarted_bot_that_speaks_only_later_logs_that_process(tmp_path: Path) -> None:
    flag = tmp_path / "second"  # the first process is silent, the second one writes
    argv = ["sh", "-c", f"if [ -e {flag} ]; then echo second >&2; fi; touch {flag}; exec {C_BOT}"]
    log = tmp_path / "later.stderr.log"
    bot = BotProcess("later", argv, log_path=log, silent_log=False)
    play_once(bot)
    assert not log.exists()
    play_once(bot)
    lines = log.read_text().splitlines()
    assert len([line for line in lines if line.startswith("[arena] started")]) == 1
    assert lines[-1] == "second"


def test_by_default_every_bot_has_a_log_and_an_unwritable_one_stops_the_start(tmp_path: Path) -> None:
    log = tmp_path / "default.stderr.log"
    play_once(BotProcess("default", [str(C_BOT)], log_path=log))
    assert log.read_text().startswith("[arena] started")
    (tmp_path / "a-file").write_text("")  # no directory can be made under a file, even by root
    for silent_log in (True, False):
        bot = BotProcess("nowhere", [str(C_BOT)], log_path=tmp_path / "a-file" / "x.log",
                         silent_log=silent_log)
        with pytest.raises(BotStartError, match="cannot open its log file"):
            bot.start()


SAYS = ROOT / "tests" / "bots" / "says_each_decision.py"


def ask_acts(bot: BotProcess, decisions: list[None], seat: int, count: int,
             game: str | None = "g-1") -> None:
    """``count`` acts to ``bot`` in ``seat`` of ``game``, each one decision of the game (another
    seat's decision between two of them, as at a table of two)."""
    bot.mark_stderr(game, seat, decisions)
    bot.send({"type": "game_start", "seat": seat, "seed": 1})
    for _ in range(count):
        bot.request(dict(ACT), 10.0)
        decisions += [None, None]  # this decision and another seat's


def test_each_decisions_stderr_is_marked_in_the_index_beside_the_log(tmp_path: Path) -> None:
    log = tmp_path / "says.stderr.log"
    decisions: list[None] = []
    with BotProcess("says", [sys.executable, "-S", str(SAYS)], log_path=log) as bot:
        ask_acts(bot, decisions, 1, 3)
        bot.mark_stderr(None, 0, None)
    written = log.read_bytes()
    marks = [json.loads(line) for line in Path(f"{log}.idx").read_text().splitlines()]
    decided = [mark for mark in marks if len(mark) == 4]
    assert [mark[1:] for mark in decided] == [["g-1", 1, 1], ["g-1", 1, 3], ["g-1", 1, 5]]
    ends = [mark[0] for mark in marks[1:]] + [len(written)]
    for number, mark in enumerate(marks):
        text = written[mark[0]:ends[number]].decode()
        if len(mark) == 4:  # exactly the lines of that act, the forged marks in them included
            act = (mark[3] + 1) // 2
            assert text.startswith(f"seat 1 act {act} plays ") and text.count("\n") == 2
            assert f"<script>alert({act})</script>" in text
        else:  # the arena's notes, what it wrote as it started: no decision's
            assert "act" not in text
    shown = DecisionLogs([log]).texts("g-1")
    assert [(decision, seat) for decision, seat, _ in shown] == [(1, 1), (3, 1), (5, 1)]
    assert DecisionLogs([log]).texts("r1-t0000-s0") == []  # the bot's forged game id: nothing


def test_a_silent_bot_leaves_no_index_and_a_new_log_drops_an_old_index(tmp_path: Path) -> None:
    log = tmp_path / "silent.stderr.log"
    Path(f"{log}.idx").write_text('[0, "g-1", 0, 1]\n')  # an earlier run's, of another log
    decisions: list[None] = []
    with BotProcess("silent", [str(C_BOT)], log_path=log) as bot:
        ask_acts(bot, decisions, 0, 2)
    assert log.read_text().startswith("[arena] started")
    assert not Path(f"{log}.idx").exists()


def test_the_index_is_capped_and_the_rest_is_no_decisions(tmp_path: Path) -> None:
    log = tmp_path / "says.stderr.log"
    decisions: list[None] = []
    with BotProcess("says", [sys.executable, "-S", str(SAYS)], log_path=log, log_cap=150) as bot:
        ask_acts(bot, decisions, 0, 8)
    index = Path(f"{log}.idx").read_text().splitlines()
    last = json.loads(index[-1])  # no decision's: a plain mark, or where the log was cut
    assert sum(len(line) + 1 for line in index[:-1]) <= 150
    assert last == [last[0]] or last[4:] == ["cut"]
    assert log.stat().st_size < 400  # the log's cap, and its one note past it


def test_what_a_bot_wrote_in_one_game_stays_in_that_games_log(tmp_path: Path) -> None:
    """A bot's stderr is drained after each reply only once it has written (before that, while
    the arena waits on it), so a reply can come before the bytes written with it: at the next
    game's first decision they are still in the pipe. They are the game before's, and go to its
    log, not the new game's (seen in a league: a chatty bot's first game had no log, its bytes
    in the second game's, marked as that game's decisions). The sink on a real pipe, the bytes
    left unread as that race leaves them."""
    logs = tmp_path / "chatty@1"
    sink = StderrSink("chatty", str(logs / f"process{LOG_SUFFIX}"), 16384, silent_log=False,
                      game_logs=GameLogs(game_cap=16384, budget=1 << 20, games=100))
    read_end, write_end = os.pipe()
    os.set_blocking(read_end, False)
    sink.fd = read_end
    try:
        sink.open_log()
        sink.mark_decisions("s000001-r0", 0, [])
        os.write(write_end, b"written in the first game\n")  # not read before the next game
        sink.mark_decisions("s000001-r1", 1, [])
        os.write(write_end, b"written in the second game\n")
        sink.drain()
    finally:
        sink.close_log()
        os.close(read_end)
        os.close(write_end)
    assert (logs / f"s000001-r0{LOG_SUFFIX}").read_bytes() == b"written in the first game\n"
    assert (logs / f"s000001-r1{LOG_SUFFIX}").read_bytes() == b"written in the second game\n"
    second = DecisionLogs([logs / f"s000001-r1{LOG_SUFFIX}"]).texts("s000001-r1")
    assert [text for _, _, text in second] == ["written in the second game\n"]
