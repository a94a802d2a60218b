"""The starter bots as real processes: hello, a game's messages, unknown input, quit and EOF."""

from __future__ import annotations

import atexit
import functools
import json
import os
import selectors
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

from arena.botfiles.manifest import load_manifest
from arena.bots.build import build_bot

from helpers import arena, build_c_bots

ROOT = Path(__file__).resolve().parents[2]
RUST_BOT = ROOT / "bots" / "rust"
REPLY_TIMEOUT = 20.0  # generous: the machine is shared; this bounds a hang, it times nothing
EXIT_TIMEOUT = 5.0

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(scope="session")
def c_bots() -> Path:
    """Builds the C bots once, as the top-level Makefile does."""
    return build_c_bots()


def _needs_node() -> list[str]:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    return [node]


@functools.cache
def _java_classes() -> Path:
    """Compiles the Java bot once per session into a directory of its own."""
    javac, java = shutil.which("javac"), shutil.which("java")
    if javac is None or java is None:
        pytest.skip("javac or java is not installed: the Java starter bot is not tested")
    out = Path(tempfile.mkdtemp(prefix="arena-java-bot-"))
    atexit.register(shutil.rmtree, out, True)  # gone with this test process
    subprocess.run([javac, "-d", str(out), str(ROOT / "bots/java/Bot.java")], check=True,
                   capture_output=True, timeout=120)
    return out


def _java_bot() -> list[str]:
    classes = _java_classes()
    # The JVM's reservations need these under an address-space limit; without one (as here) they
    # only keep four test JVMs small.
    return ["java", "-Xmx128m", "-XX:+UseSerialGC", "-cp", str(classes), "Bot"]


GO_BUILD_ENV = {"GOCACHE": "/tmp/gocache", "GOPATH": "/tmp/gopath", "GOFLAGS": "-buildvcs=false",
                "GOTOOLCHAIN": "local"}
"""What bots/go/bot.yaml's build sets: caches outside the home directory, no VCS stamp."""


@functools.cache
def _go_program() -> Path:
    """Builds the Go bot once per session, as its bot.yaml does, into a directory of its own."""
    if shutil.which("go") is None:
        pytest.skip("go is not installed (Debian: golang-go): the Go starter bot is not tested")
    built = Path(tempfile.mkdtemp(prefix="arena-go-bot-"))
    atexit.register(shutil.rmtree, built, True)  # gone with this test process
    out = built / "bot"
    subprocess.run(["go", "build", "-o", str(out), "."], cwd=ROOT / "bots/go", check=True,
                   capture_output=True, timeout=300, env={**os.environ, **GO_BUILD_ENV})
    return out


RUST_MISSING = ("cargo is not installed (rustup, or Debian: cargo): the Rust starter bot is not "
                "tested")


@functools.cache
def _rust_program() -> list[str]:
    """Builds the Rust bot in its own directory by its bot.yaml, as `make demo` and check-bot
    do: cargo leaves an up-to-date build alone, so every test process and the demo share one."""
    if shutil.which("cargo") is None:
        pytest.skip(RUST_MISSING)
    manifest = load_manifest(RUST_BOT)
    build_bot(manifest)
    return [str(manifest.directory / manifest.run[0]), *manifest.run[1:]]


BOTS = {
    "go-random": lambda c: [str(_go_program())],
    "rust-greedy": lambda c: _rust_program(),
    "python-random": lambda c: [sys.executable, str(ROOT / "bots/python/random_bot.py")],
    "python-greedy": lambda c: [sys.executable, str(ROOT / "bots/python/greedy_bot.py")],
    "js-random": lambda c: [*_needs_node(), str(ROOT / "bots/js/random_bot.js")],
    "c-random": lambda c: [str(c / "random_bot")],
    "c-first": lambda c: [str(c / "first_bot")],
    "java-random": lambda c: _java_bot(),
}
RANDOM_BOTS = ["python-random", "js-random", "c-random", "java-random", "go-random"]


class BotProcess:
    """A bot started as the arena starts one: pipes for stdin/stdout, stderr to a file."""

    def __init__(self, argv: list[str], stderr_path: Path) -> None:
        self.stderr_path = stderr_path
        self._stderr = stderr_path.open("wb")
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self._stderr, cwd=ROOT)
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self._stdin = self.proc.stdin
        self._fd = self.proc.stdout.fileno()
        os.set_blocking(self._fd, False)
        self._buffer = b""
        self._selector = selectors.DefaultSelector()
        self._selector.register(self._fd, selectors.EVENT_READ)

    def send(self, message: dict | str) -> None:
        text = message if isinstance(message, str) else json.dumps(message)
        self._stdin.write(text.encode() + b"\n")
        self._stdin.flush()

    def read_line(self, timeout: float = REPLY_TIMEOUT) -> bytes | None:
        """The next complete line, or None at EOF; fails the test after `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not self._selector.select(left):
                pytest.fail(f"no reply within {timeout}s; stderr: {self.stderr_tail()}")
            chunk = os.read(self._fd, 65536)
            if not chunk:
                return None
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return line

    def ask(self, message: dict | str) -> dict:
        self.send(message)
        line = self.read_line()
        assert line is not None, f"bot closed stdout; stderr: {self.stderr_tail()}"
        reply = json.loads(line)
        assert isinstance(reply, dict)
        return reply

    def wait_exit(self) -> int:
        try:
            return self.proc.wait(timeout=EXIT_TIMEOUT)
        except subprocess.TimeoutExpired:
            pytest.fail(f"bot did not exit within {EXIT_TIMEOUT}s")

    def stderr_tail(self) -> str:
        self._stderr.flush()
        return self.stderr_path.read_text(errors="replace")[-2000:]

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream is not None:
                stream.close()
        self._selector.close()
        self._stderr.close()


@pytest.fixture(params=sorted(BOTS))
def bot_name(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def start(c_bots: Path, tmp_path: Path) -> Iterator:
    started: list[BotProcess] = []

    def _start(name: str) -> BotProcess:
        bot = BotProcess(BOTS[name](c_bots), tmp_path / f"{name}-{len(started)}.stderr")
        started.append(bot)
        return bot

    yield _start
    for bot in started:
        bot.close()


HELLO = {"type": "hello", "id": 0, "protocol": 1, "games": ["blackout", "partnership-blackout"]}
BLACKOUT_OPTIONS = {"deals": 13, "sequence": "up", "no_trump_last": "when_exhausted",
                    "hook": False, "must_trump": False, "points_per_trick": 1, "bonus": 10,
                    "zero_bid": "as_one_trick", "scoring": "classic", "tiebreak": "shared"}


def blackout_game_start(seed: int = 123456) -> dict:
    return {"type": "game_start", "game": "blackout", "options": BLACKOUT_OPTIONS,
            "players": 4, "seat": 2, "names": ["a", "b", "c", "d"], "seed": seed}


def blackout_view(hand: list[str], **changes: object) -> dict:
    view = {"game": "blackout", "players": 4, "seat": 2, "options": BLACKOUT_OPTIONS,
            "deal": 3, "deals": 13, "hand_size": 3, "dealer": 1, "hand": hand,
            "trump_card": "QH", "trump": "H", "bids": [[2, 0]], "plays": [], "trick": [],
            "leader": 2, "tricks_won": [0, 0, 0, 0], "totals": [12, 0, 11, 3]}
    view.update(changes)
    return view


def bid_act(id_: int = 17) -> dict:
    return {"type": "act", "id": id_, "kind": "bid", "legal": [0, 1, 2, 3],
            "view": blackout_view(["2C", "TD", "AS"], bids=[]), "time_ms": 950}


def play_act(id_: int = 18) -> dict:
    view = blackout_view(["2C", "TD", "AS"], bids=[[2, 1], [3, 0], [0, 1], [1, 0]],
                         plays=[[2, "9D"], [3, "3D"]], trick=[[2, "9D"], [3, "3D"]], leader=2,
                         hand_size=4, seat=0, dealer=1)
    view["hand"] = ["2C", "TD", "AS"]
    return {"type": "act", "id": id_, "kind": "play", "legal": ["TD"], "view": view,
            "time_ms": 950}


@pytest.mark.slow
def test_plays_a_blackout_deal_and_quits(start, bot_name: str) -> None:
    bot = start(bot_name)
    hello = bot.ask(HELLO)
    assert hello["id"] == 0 and hello["protocol"] == 1 and isinstance(hello["name"], str)
    bot.send(blackout_game_start())
    bot.send({"type": "deal_start", "deal": 3, "dealer": 1, "hand": ["2C", "TD", "AS"],
              "trump_card": "QH", "trump": "H"})
    reply = bot.ask(bid_act(17))
    assert reply["id"] == 17 and reply["action"] in [0, 1, 2, 3]
    assert set(reply) == {"id", "action"}
    bot.send({"type": "event", "event": "bid", "seat": 2, "bid": reply["action"]})
    bot.send({"type": "event", "event": "play", "seat": 2, "card": "9D"})
    reply = bot.ask(play_act(18))
    assert reply == {"id": 18, "action": "TD"}
    bot.send({"type": "event", "event": "trick", "winner": 0,
              "cards": [[2, "9D"], [3, "3D"], [0, "TD"], [1, "4D"]]})
    bot.send({"type": "event", "event": "deal_end", "deal": 3, "tricks": [1, 0, 0, 0],
              "scores": [11, 0, 0, 0], "totals": [23, 0, 11, 3],
              "bids": [[2, 1], [3, 0], [0, 1], [1, 0]]})
    bot.send({"type": "game_end", "scores": [23, 0, 11, 3], "ranks": [1, 4, 2, 3]})
    bot.send({"type": "quit"})
    assert bot.read_line() is None  # nothing more on stdout, and stdout closed
    assert bot.wait_exit() == 0


def test_plays_a_partnership_deal(start, bot_name: str) -> None:
    bot = start(bot_name)
    bot.ask(HELLO)
    hand = ["AS", "KS", "4S", "2H", "3H", "AH", "9D", "TD", "JD", "2C", "5C", "8C", "KC"]
    bot.send({"type": "game_start", "game": "partnership-blackout",
              "options": {"target": 100, "max_deals": 200, "spade_lead": "only_if_only_spades",
                          "made": 10, "overtrick": 1, "all_tricks": 40, "nil": 40, "fail": -10,
                          "contract_points": "flat"},
              "players": 4, "seat": 1, "names": ["a", "b", "c", "d"], "seed": 2**40 + 7,
              "teams": [[0, 2], [1, 3]]})
    bot.send({"type": "deal_start", "deal": 1, "dealer": 3, "hand": hand, "trump_card": None,
              "trump": "S"})
    bot.send({"type": "event", "event": "call", "seat": 0, "call": 4, "skipped": None})
    view = {"game": "partnership-blackout", "players": 4, "seat": 1, "options": {},
            "teams": [[0, 2], [1, 3]], "deal": 1, "dealer": 3, "hand": hand,
            "trump_card": None, "trump": "S", "calls": [[0, 4]], "contract": None, "plays": [],
            "trick": [], "leader": 0, "tricks_won": [0, 0, 0, 0], "totals": [0, 0]}
    legal = [*range(1, 13), "pass", "zero"]
    reply = bot.ask({"type": "act", "id": 5, "kind": "call", "legal": legal, "view": view,
                     "time_ms": 950})
    assert reply["id"] == 5 and reply["action"] in legal
    view.update(calls=[[0, 4], [1, 3], [2, 2], [3, 1]],
                contract={"team": 0, "kind": "number", "tricks": 6},
                plays=[[0, "QH"]], trick=[[0, "QH"]])
    legal = ["2H", "3H", "AH"]
    reply = bot.ask({"type": "act", "id": 6, "kind": "play", "legal": legal, "view": view,
                     "time_ms": 950})
    assert reply["id"] == 6 and reply["action"] in legal
    bot.send({"type": "quit"})
    assert bot.wait_exit() == 0


def test_ignores_unknown_message_types_and_fields(start, bot_name: str) -> None:
    bot = start(bot_name)
    hello = dict(HELLO, future_field={"nested": [1, {"legal": ["XX"]}]}, motd="hi \"there\"")
    assert bot.ask(hello)["id"] == 0
    game_start = dict(blackout_game_start(), rated=True, names=['a "legal": [9]', "b", "c", "d"])
    bot.send(game_start)
    bot.send({"type": "spectator_note", "id": 99, "legal": ["XX"], "text": "ignore me"})
    bot.send({"type": "event", "event": "weather", "seat": 1, "sunny": True})
    act = dict(bid_act(21), hint={"type": "quit", "id": 3}, legal=[2, 3])
    reply = bot.ask(act)
    # The unknown message produced no reply: the first line back answers act 21.
    assert reply["id"] == 21 and reply["action"] in [2, 3]
    bot.send({"type": "quit", "reason": "done"})
    assert bot.wait_exit() == 0


@pytest.mark.slow
def test_exits_at_end_of_input(start, bot_name: str) -> None:
    bot = start(bot_name)
    bot.ask(HELLO)
    bot.send(blackout_game_start())
    bot.proc.stdin.close()
    assert bot.wait_exit() == 0


def test_reads_a_very_long_line(start, bot_name: str) -> None:
    bot = start(bot_name)
    bot.ask(HELLO)
    bot.send(blackout_game_start())
    act = bid_act(30)
    act["view"]["padding"] = "x" * (1 << 20)  # a 1 MiB field the bot does not know
    reply = bot.ask(act)
    assert reply["id"] == 30 and reply["action"] in act["legal"]


@pytest.mark.parametrize("name", RANDOM_BOTS)
def test_random_bots_replay_from_the_seed(start, name: str) -> None:
    def choices(seed: int) -> list[object]:
        bot = start(name)
        bot.ask(HELLO)
        bot.send(blackout_game_start(seed))
        legal = [*range(1, 13), "pass", "zero"]
        picked = [bot.ask({"type": "act", "id": i, "kind": "call", "legal": legal,
                           "view": {}, "time_ms": 950})["action"] for i in range(1, 41)]
        assert all(p in legal for p in picked)
        bot.send({"type": "quit"})
        bot.wait_exit()
        return picked

    first = choices(99)
    assert choices(99) == first
    assert len(set(first)) > 3  # uniform over 14 actions: 40 draws cover far more than 3
    assert choices(100) != first


def test_first_bot_answers_the_first_legal_action(start) -> None:
    bot = start("c-first")
    bot.ask(HELLO)
    reply = bot.ask({"type": "act", "id": 4, "kind": "call", "legal": ["pass", 3, "zero"],
                     "view": {}, "time_ms": 1})
    assert reply == {"id": 4, "action": "pass"}


@pytest.mark.parametrize("name", ["python-greedy", "rust-greedy"])
def test_greedy_bot_logs_nothing_on_a_normal_game(start, name: str) -> None:
    bot = start(name)
    bot.ask(HELLO)
    bot.send(blackout_game_start())
    bot.ask(bid_act(17))
    bot.ask(play_act(18))
    bot.send({"type": "quit"})
    bot.wait_exit()
    assert bot.stderr_tail() == ""  # no decision fell back to the first legal action


@pytest.mark.slow
def test_the_go_bot_builds_from_its_manifest_and_passes_check_bot_sandboxed(tmp_path: Path) -> None:
    """bots/go as a user gets it: built by its bot.yaml (in the sandbox where bwrap works, as
    root too: Go's caches must not need the home directory), then checked step by step."""
    if shutil.which("go") is None:
        pytest.skip("go is not installed (Debian: golang-go): the Go starter bot is not tested")
    from arena.bots.sandbox import bwrap_problem

    bot = tmp_path / "go"
    shutil.copytree(ROOT / "bots/go", bot, ignore=shutil.ignore_patterns("bot"))
    for path in [tmp_path, bot, *bot.iterdir()]:  # a sandboxed bot may run as a uid of its own
        path.chmod(0o755 if path.is_dir() else 0o644)
    sandbox = "none" if bwrap_problem() is not None else "bwrap"
    done = arena("check-bot", bot, "--sandbox", sandbox, "--move-ms", "5000", "--start-ms", "30000",
                 cwd=tmp_path, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.rstrip().endswith("7 of 7 steps passed")
    assert (bot / "bot").is_file()


def _needs_cargo() -> None:
    if shutil.which("cargo") is None:
        pytest.skip(RUST_MISSING)


@pytest.mark.slow
def test_the_rust_bot_passes_check_bot() -> None:
    """bots/rust as a user gets it: built by its bot.yaml (in place: an up-to-date build is left
    alone), then checked step by step."""
    _needs_cargo()
    done = arena("check-bot", "bots/rust", "--move-ms", "5000", "--start-ms", "30000",
                 timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.rstrip().endswith("7 of 7 steps passed")
    assert (RUST_BOT / "target" / "release" / "greedy-rust").is_file()


@pytest.mark.slow
def test_the_rust_bot_passes_check_bot_sandboxed() -> None:
    """The same in the bubblewrap sandbox (the build too: no network, only the bot's directory
    and the toolchain visible), as a league or `make demo` runs it."""
    _needs_cargo()
    from arena.bots.sandbox import bwrap_problem

    problem = bwrap_problem()
    if problem is not None:
        pytest.skip(f"no bubblewrap sandbox here: {problem}")
    done = arena("check-bot", "--sandbox", "bwrap", "bots/rust", "--move-ms", "5000",
                 "--start-ms", "30000", timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.rstrip().endswith("7 of 7 steps passed")


@pytest.mark.parametrize(("game", "seats", "options"), [
    ("blackout", ["bots/rust", "bots/python/greedy.bot.yaml", "bots/rust", "bots/c/random.bot.yaml",
                  "bots/c/first.bot.yaml"], ["deals=7", "hook=true", "must_trump=true"]),
    ("blackout", ["bots/rust", "bots/python/random.bot.yaml", "bots/c/random.bot.yaml"],
     ["deals=17", "sequence=down"]),
    ("partnership-blackout", ["bots/rust", "bots/python/greedy.bot.yaml"], ["target=60"]),
    ("partnership-blackout", ["bots/python/random.bot.yaml", "bots/rust"], ["target=60"]),
])
@pytest.mark.slow
def test_the_rust_bot_plays_legally_against_the_other_starters(
        c_bots: Path, tmp_path: Path, game: str, seats: list[str], options: list[str]) -> None:
    """Whole games through the real referee: no fault (an illegal or garbled action would be
    one), and nothing on the Rust bot's stderr (no decision fell back to the first legal one)."""
    _rust_program()  # built once (or skipped) before the arena times its start
    log, logs = tmp_path / "game.json", tmp_path / "stderr"
    words = [f"--option={option}" for option in options]
    done = arena("play", game, *seats, *words, "--seed", "5", "--log", log, "--stderr-dir", logs,
                 timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    record = orjson.loads(log.read_bytes())
    assert record["faults"] == [] and record["deals"]
    said = {path.name: [line for line in path.read_text().splitlines()
                        if not line.startswith("[arena] ")]  # the arena's own notes
            for path in logs.iterdir() if "rust" in path.name}
    assert said and all(lines == [] for lines in said.values()), said


def test_the_rust_bots_own_unit_tests_pass() -> None:
    """`cargo test` of bots/rust: its JSON reader (escapes, surrogates, nesting, large numbers),
    cards and decisions on hand-made views."""
    _needs_cargo()
    done = subprocess.run(["cargo", "test", "--offline", "--quiet"], cwd=RUST_BOT,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "test result: ok" in done.stdout
