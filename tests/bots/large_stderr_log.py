"""A legal bot with a large stderr log: it writes MiB at each game end and the rest at quit.

The log goes out from a writer thread, so the bot keeps answering while the pipe is full; at
``quit`` it writes what is left of TOTAL MiB, waits for the writer and exits with status 0. The
arena must keep draining stderr during the quit grace, or the bot cannot finish and exit.

usage: large_stderr_log.py [TOTAL_MIB] [MIB_PER_GAME]
"""

import json
import queue
import random
import sys
import threading

MIB = 1 << 20
total = int(sys.argv[1]) if len(sys.argv) > 1 else 200
per_game = int(sys.argv[2]) if len(sys.argv) > 2 else 40
pending: queue.Queue = queue.Queue()
written = 0


def writer() -> None:
    while (size := pending.get()) is not None:
        block = b"log line of a chatty bot ........................................\n" * 1024
        for _ in range(size * MIB // len(block)):
            sys.stderr.buffer.write(block)
        sys.stderr.buffer.flush()


def log(mib: int) -> None:
    global written
    mib = max(0, min(mib, total - written))
    written += mib
    if mib:
        pending.put(mib)


thread = threading.Thread(target=writer)
thread.start()
rng = random.Random(0)
for line in sys.stdin:
    message = json.loads(line)
    kind = message.get("type")
    if kind == "hello":
        reply = {"id": message["id"], "name": "large_stderr_log", "protocol": 1}
    elif kind == "act":
        reply = {"id": message["id"], "action": rng.choice(message["legal"])}
    else:
        if kind == "game_end":
            log(per_game)
        elif kind == "quit":
            break
        continue
    sys.stdout.write(json.dumps(reply) + "\n")
    sys.stdout.flush()
log(total)
pending.put(None)
thread.join()
sys.exit(0)
