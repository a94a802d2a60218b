"""A bot's stderr log, with real bot processes: a sink that waits for the bot's first bytes leaves
no file for a bot that writes nothing, and a whole one (its notes first) for one that writes."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.bots.process import BotProcess
from arena.errors import BotStartError

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
    assert not log.exists() and (tmp_path / "logs").is_dir()


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
