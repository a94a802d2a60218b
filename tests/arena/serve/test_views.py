"""The served pages' views over a real league: what an owner is shown of its bot's logs."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from arena.league.store import Store
from arena.serve.views import LOG_TAIL, logs_of

from helpers import ROOT, arena, new_league, own_bot, submitted

pytestmark = [pytest.mark.slow, pytest.mark.timeout(240)]

CHATTY_LINE = "log line of a chatty bot " + "." * 40
"""Each line tests/bots/large_stderr_log.py writes; its 66 bytes do not divide ``LOG_TAIL``."""


def test_a_logs_tail_begins_at_a_line_the_bot_wrote(tmp_path: Path) -> None:
    league = new_league(tmp_path / "league", options={"deals": "1"})
    chatty = tmp_path / "chatty"
    chatty.mkdir()
    shutil.copy(ROOT / "tests" / "bots" / "large_stderr_log.py", chatty / "bot.py")
    (chatty / "bot.yaml").write_text("name: chatty\nrun: python3 bot.py 2 1\n")  # 1 MiB a game
    for bot in (chatty, own_bot(tmp_path, "one"), own_bot(tmp_path, "two")):
        submitted(league, bot)
    done = arena("league", "run", league, "--games", "1", "--jobs", "1")
    assert done.returncode == 0, done.stderr
    store = Store.open(league)
    try:
        [log] = logs_of(store, "chatty")
    finally:
        store.close()
    assert log.size > LOG_TAIL and (log.size - LOG_TAIL) % (len(CHATTY_LINE) + 1)  # cut mid-line
    first, *rest = log.tail.splitlines()
    assert first == CHATTY_LINE, first  # not the end of a line cut at the tail's first byte
    assert len(log.tail.encode()) <= LOG_TAIL and rest
