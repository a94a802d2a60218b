"""A small arena runner for test_cleanup.py: starts bots through arena.bots.process, reports their pids,
then works until a signal (or, in mode "exit", returns without closing anything).

usage: cleanup_runner.py MODE   (MODE: "waiting" | "busy" | "exit")
- waiting: bots in a with-block; blocked in a request to a bot that sleeps for minutes.
- busy: no with-block (only atexit cleans up); requests to a well-behaved bot in a loop.
- exit: no with-block; once stdin closes, returns normally with every bot still running.
Prints one JSON line {"bots": {name: pid}, "children": [pid]} once every bot has started.
"""

from __future__ import annotations

import contextlib
import json
import signal
import sys
from pathlib import Path

from arena.bots.process import BotProcess, install_signal_handlers

BOTS = Path(__file__).resolve().parents[2] / "bots" / "misbehaving"
ACT = {"type": "act", "kind": "bid", "legal": [0, 1, 2], "view": {}, "time_ms": 100}


def bot(name: str, *args: str) -> BotProcess:
    return BotProcess(name, [sys.executable, "-S", str(BOTS / f"{name}.py"), *args])


def main(mode: str) -> None:
    # A pytest run in the background (cmd &) passes SIGINT down ignored; Ctrl-C at a terminal
    # reaches a foreground runner, where it is not: act like the latter.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    install_signal_handlers()
    bots = {
        "well_behaved": bot("well_behaved"),
        "ignores_quit": bot("ignores_quit"),
        "forks_child": bot("forks_child"),
        "slow": bot("slow", "300"),
    }
    with contextlib.ExitStack() as stack:
        for process in bots.values():
            if mode == "waiting":
                stack.enter_context(process)
            else:
                process.start()
        report = {
            "bots": {name: process.pid for name, process in bots.items()},
            "children": [bots["forks_child"].hello["child"]],
        }
        print(json.dumps(report), flush=True)
        if mode == "exit":
            sys.stdin.read()
            return
        if mode == "waiting":
            bots["slow"].request(dict(ACT), 600.0)
        while True:
            bots["well_behaved"].request(dict(ACT), 5.0)


if __name__ == "__main__":
    try:
        main(sys.argv[1])
    except KeyboardInterrupt:
        print("cleanup_runner: interrupted", file=sys.stderr)
        sys.exit(130)
