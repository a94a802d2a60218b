"""The arena's cost per decision against the floor: a JSON line round trip over a raw pipe.

Both sides run pinned to one CPU (os.sched_setaffinity; the peer inherits it), because waking a
process on the other vCPU costs 15-20x more than the round trip itself (shared/PERFORMANCE.md).
The peer is a minimal C echo bot (compiled here with ``cc``; a Python one when there is no
compiler) that answers every line carrying an id with ``{"id":N,"action":0}``.

- raw bytes: os.write of a prepared ~200-byte act line, blocking os.read of the reply.
- raw JSON line: the same with orjson.dumps of the act and orjson.loads of the reply: the least
  any arena must do per decision. It is the baseline the other figures are ratios to.
- BotProcess.request: the process layer (arena.process) on the same peer: id, poll, time, checks.

Each figure is the median over repeats of the mean round trip of a batch.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from time import perf_counter

import orjson

from arena.process import BotProcess, Limits

REPEATS = 7
BATCH = 4000

C_PEER = r"""
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
static char line[1 << 20];
int main(void) {
    while (fgets(line, sizeof line, stdin)) {
        if (strstr(line, "\"type\":\"quit\"")) return 0;
        char *id = strstr(line, "\"id\":");
        if (!id) continue;
        long n = strtol(id + 5, NULL, 10);
        if (strstr(line, "\"type\":\"hello\""))
            printf("{\"id\":%ld,\"name\":\"echo\",\"protocol\":1}\n", n);
        else
            printf("{\"id\":%ld,\"action\":0}\n", n);
        fflush(stdout);
    }
    return 0;
}
"""

PY_PEER = r"""
import os, sys
out = sys.stdout.buffer
for line in sys.stdin.buffer:
    if b'"type":"quit"' in line:
        break
    at = line.find(b'"id":')
    if at < 0:
        continue
    end = at + 5
    while line[end:end + 1].isdigit():
        end += 1
    n = line[at + 5:end]
    if b'"type":"hello"' in line:
        out.write(b'{"id":' + n + b',"name":"echo","protocol":1}\n')
    else:
        out.write(b'{"id":' + n + b',"action":0}\n')
    out.flush()
"""


def act_message(request_id: int) -> dict[str, object]:
    """An act of about 200 bytes, the size shared/PERFORMANCE.md measured."""
    return {
        "type": "act", "id": request_id, "kind": "play", "legal": ["2C", "TD", "AS", "QH"],
        "view": {"deal": 3, "hand": ["2C", "TD", "AS", "QH", "5S"], "trump": "H",
                 "trick": [[0, "5H"]], "leader": 0, "tricks_won": [0, 1, 0, 0]},
        "time_ms": 950,
    }


def peer_command(workdir: Path) -> tuple[list[str], str]:
    """The echo peer's argv and a label: C when a compiler is at hand, else Python."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is not None:
        source = workdir / "echo.c"
        source.write_text(C_PEER)
        binary = workdir / "echo"
        built = subprocess.run([compiler, "-O2", "-o", str(binary), str(source)],
                               capture_output=True)
        if built.returncode == 0:
            return [str(binary)], "C"
    script = workdir / "echo.py"
    script.write_text(PY_PEER)
    return [sys.executable, "-S", str(script)], "Python"


def medians(batches: dict[str, Callable[[int], None]]) -> dict[str, float]:
    """Median over REPEATS of the mean seconds per round trip of each batch.

    The batches take turns within each repeat, so a load that drifts (the machine is shared)
    touches them all alike.
    """
    for batch in batches.values():  # warm up
        batch(BATCH // 10)
    means: dict[str, list[float]] = {label: [] for label in batches}
    for _ in range(REPEATS):
        for label, batch in batches.items():
            began = perf_counter()
            batch(BATCH)
            means[label].append((perf_counter() - began) / BATCH)
    return {label: statistics.median(values) for label, values in means.items()}


def measure(argv: list[str]) -> dict[str, float]:
    """Seconds per round trip: bare pipe with prepared bytes, bare pipe with orjson both ways,
    and BotProcess.request, each with its own copy of the peer."""
    peer = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
    assert peer.stdin is not None and peer.stdout is not None
    write_fd, read_fd = peer.stdin.fileno(), peer.stdout.fileno()
    prepared = orjson.dumps(act_message(1), option=orjson.OPT_APPEND_NEWLINE)
    raw_message = act_message(0)
    bot_message = act_message(0)

    def raw_bytes(count: int) -> None:
        for _ in range(count):
            os.write(write_fd, prepared)
            os.read(read_fd, 65536)

    def json_line(count: int) -> None:
        for request_id in range(count):
            raw_message["id"] = request_id
            os.write(write_fd, orjson.dumps(raw_message, option=orjson.OPT_APPEND_NEWLINE))
            reply = orjson.loads(os.read(read_fd, 65536))
            assert reply["id"] == request_id

    try:
        with BotProcess("echo", argv, limits=Limits()) as bot:

            def requests(count: int) -> None:
                for _ in range(count):
                    bot.request(bot_message, 5.0)

            return medians({"raw": raw_bytes, "line": json_line, "layer": requests})
    finally:
        peer.stdin.close()
        peer.wait()


def run() -> list[str]:
    """Measure and return the lines to print."""
    cpus = os.sched_getaffinity(0)
    cpu = max(cpus)
    os.sched_setaffinity(0, {cpu})  # the peers started below inherit it
    try:
        with tempfile.TemporaryDirectory() as workdir:
            argv, language = peer_command(Path(workdir))
            figures = measure(argv)
    finally:
        os.sched_setaffinity(0, cpus)
    raw, line, layer = figures["raw"], figures["line"], figures["layer"]
    return [
        f"arena: pipe round trip, {language} echo peer, both pinned to CPU {cpu} "
        f"(median of {REPEATS} x {BATCH}):",
        f"  raw bytes              {raw * 1e6:6.2f} us  {raw / line:5.2f}x",
        f"  raw JSON line (orjson) {line * 1e6:6.2f} us  1.00x  (baseline)",
        f"  BotProcess.request     {layer * 1e6:6.2f} us  {layer / line:5.2f}x",
    ]


if __name__ == "__main__":
    print("\n".join(run()))
