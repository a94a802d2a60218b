"""What the memory watch costs: its samples, and a decision with and without it running.

Pinned to one CPU like ``bench.arena`` (every bot started here inherits it), so the watch thread
competes with the request loop for the same CPU, the worst case. Figures, medians of REPEATS,
ratios to R (a raw JSON-line round trip to a C echo peer, measured in the same run):

- one sample of BOTS watched bots (``arena.bots.memory.sample``: statm and the children of every
  task of each), and that as a share of one CPU at the sampling interval;
- ``BotProcess.request`` to the echo peer while the watch samples BOTS idle Python bots plus the
  peer, against the same requests with sampling paused, the batches taking turns.

``python -m bench memory`` runs only this.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path
from time import perf_counter

import orjson

from arena.bots import memory
from arena.bots.process import BotProcess
from arena.bots.shutdown import close_bots
from arena.settings import Limits
from bench.arena import BATCH, REPEATS, RawPeers, act_message, medians, peer_command

ROOT = Path(__file__).resolve().parents[1]
WELL_BEHAVED = ROOT / "tests" / "bots" / "misbehaving" / "well_behaved.py"
BOTS = 8
SAMPLES = 200


def run() -> list[str]:
    """Measure and return the lines to print."""
    cpus = os.sched_getaffinity(0)
    cpu = max(cpus)
    os.sched_setaffinity(0, {cpu})
    bots: list[BotProcess] = []
    raw: RawPeers | None = None
    try:
        with tempfile.TemporaryDirectory() as workdir:
            argv, language = peer_command(Path(workdir))
            raw = RawPeers(argv, 1)
            peer = BotProcess("echo", argv, limits=Limits())
            bots = [peer] + [BotProcess(f"idle{n}", [sys.executable, "-S", str(WELL_BEHAVED)],
                                        limits=Limits()) for n in range(BOTS)]
            for bot in bots:
                bot.start()
            figures = medians(_batches(raw, peer))
    finally:
        memory.sampling = True
        close_bots(bots)
        if raw is not None:
            for proc in raw.procs:
                proc.kill()
                proc.wait()
        os.sched_setaffinity(0, cpus)
    line, on, off, sample = figures["line"], figures["on"], figures["off"], figures["sample"]

    def us(seconds: float) -> str:
        return f"{seconds * 1e6:7.2f} us  {seconds / line:6.2f}x"

    return [
        f"memory watch: pinned to CPU {cpu}, {language} echo peer; median of {REPEATS}; ratios to R",
        f"  R = raw JSON line (orjson)                   {us(line)}  (baseline)",
        f"  one sample of {BOTS + 1} bots                          {us(sample)}  "
        f"({sample / memory.INTERVAL:.2%} of a CPU every {memory.INTERVAL * 1000:.0f} ms)",
        f"  BotProcess.request, sampling paused          {us(off)}",
        f"  BotProcess.request, watch sampling {BOTS + 1} bots   {us(on)}  "
        f"({(on - off) / line:+.2f} R)",
    ]


def _batches(raw: RawPeers, peer: BotProcess) -> dict[str, object]:
    write_fd, read_fd = raw.ins[0], raw.outs[0]
    raw_message = act_message(0)
    bot_message = act_message(0)

    def json_line() -> int:
        for request_id in range(BATCH):
            raw_message["id"] = request_id
            os.write(write_fd, orjson.dumps(raw_message, option=orjson.OPT_APPEND_NEWLINE))
            orjson.loads(os.read(read_fd, 65536))
        return BATCH

    def requests(sampling: bool) -> int:
        memory.sampling = sampling
        began = perf_counter()
        count = 0
        # Long enough for the watch to wake many times at its interval.
        while count < BATCH or perf_counter() - began < 20 * memory.INTERVAL:
            peer.request(bot_message, 5.0)
            count += 1
        memory.sampling = True
        return count

    def samples() -> int:
        memory.sampling = False  # only this loop samples
        for _ in range(SAMPLES):
            memory.sample()
        memory.sampling = True
        return SAMPLES

    return {"line": json_line, "off": lambda: requests(False), "on": lambda: requests(True),
            "sample": samples}
