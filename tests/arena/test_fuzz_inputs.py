"""Fuzzing what users type and what files hold: tournament files, results lines and command-line
values, generated and mutated by seeded generators (every case reproducible from its seed).

Each case goes through the real command line (``arena.cli.main``, in this process: the entry
point's own code, at a fraction of a subprocess's cost) from a temporary directory, and must end
within ``CASE_SECONDS`` with exit 0 or exactly one error: one ``arena: error:`` line, or typer's
usage error for an option value out of its range. Never a traceback (any other exception escapes
``main`` and fails the case), never a write outside the temporary directory.

What bots write to stderr is fuzzed at the end: a seeded canary among hostile text goes through
every fault kind (real bot processes, played as a league's worker plays them) and through
generated records, old ones included, and the record as anyone but the bot's owner sees it
(``arena.records.visible``) never holds it.
"""

from __future__ import annotations

import copy
import math
import random
import shutil
import signal
import sys
from collections.abc import Iterator
from pathlib import Path
from types import FrameType
from typing import Any

import orjson
import pytest
import yaml

import engine
from arena.plans.tournament import LIMIT_KEYS, TIME_KEYS, TOP_KEYS
from arena.settings import (
    BANK_MS,
    GAME_COUNT,
    JOBS,
    MEMORY_MB,
    MOVE_MS,
    QUIT_GRACE_MS,
    RESAMPLES,
    SEED,
    START_MS,
    TOURNAMENT_RANGES,
    Range,
)

from helpers import arena, in_process

REPO = Path(__file__).resolve().parents[2]
RANDOM = str(REPO / "bots" / "c" / "random_bot")
FIRST = str(REPO / "bots" / "c" / "first_bot")
CASE_SECONDS = 20.0
"""A case's time bound: generous for a loaded machine (most take milliseconds, a game ~0.2 s)."""


class CaseTimeout(BaseException):
    """A case ran past ``CASE_SECONDS`` (a BaseException: no handler of main's catches it)."""


def run(args: list[str], cwd: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """``arena ARGS`` in this process (``helpers.in_process``), from ``cwd``, stopped by
    ``CaseTimeout`` after ``CASE_SECONDS``: (exit status, stdout, stderr)."""

    def expire(signum: int, frame: FrameType | None) -> None:
        raise CaseTimeout(f"arena {' '.join(args)[:300]}: still running after {CASE_SECONDS} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, CASE_SECONDS)
    try:
        done = in_process(*args, cwd=cwd, monkeypatch=monkeypatch, capsys=capsys)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    return done.returncode, done.stdout, done.stderr


def check_outcome(args: list[str], status: int, err: str) -> None:
    """Exit 0, or exactly one error line (``arena: error:``), usage errors included."""
    case = f"arena {' '.join(args)[:300]}"
    assert "Traceback" not in err, f"{case}\n{err}"
    if status == 0:
        return
    errors = [line for line in err.splitlines() if line.startswith("arena: error:")]
    assert status == 2 and len(errors) == 1 and err.count("\n") == 1, f"{case}: exit {status}\n{err}"
    assert len(errors[0]) < 2000, f"{case}: an error line of {len(errors[0])} characters"


def snapshot() -> list[tuple[str, int]]:
    """What a stray write would change outside the temporary directories: the repository's top
    level and its results/ (the default output directory)."""
    entries = list(REPO.iterdir())
    results = REPO / "results"
    if results.is_dir():
        entries += list(results.rglob("*"))
    return sorted((str(p), p.stat().st_mtime_ns if p.exists() else 0) for p in entries)


@pytest.fixture(autouse=True)
def _writes_stay_inside() -> Iterator[None]:
    before = snapshot()
    yield
    assert snapshot() == before, "a case wrote outside its temporary directory"


# Values ------------------------------------------------------------------------------------------

def hostile_number(rng: random.Random, bounds: Range | None = None) -> object:
    """A number at an extreme: a range's edges and just past them, zero, signs, 64 bits and past."""
    picks: list[object] = [0, -1, 1, 2**31, 2**63, 2**64, 10**20, -(10**20), 10**400, 0.5,
                           1e20, float("nan"), float("inf"), -0.0]
    if bounds is not None:
        picks += [bounds.low, bounds.high, bounds.low - 1, bounds.high + 1]
    return rng.choice(picks)


def hostile_value(rng: random.Random) -> object:
    """A value of any kind: numbers at extremes, wrong types, long and odd strings, nesting."""
    roll = rng.random()
    if roll < 0.45:
        return hostile_number(rng, rng.choice(TOURNAMENT_RANGES))
    if roll < 0.75:
        return rng.choice(["", " ", "x", "1e20", "nan", "∞", "\uff11\uff12", "null", "true", "-", "0x10",
                           "y" * 5000, "a\nb", "../../etc", "/dev/null", "tcp://[::1]:99999",
                           "name with spaces", "\u202e", "round-robin", "blackout"])
    if roll < 0.85:
        return rng.choice([None, True, False])
    if roll < 0.95:
        return rng.choice([[], [1, 2], ["a", "b"], [[[]]], [None], [{"a": 1}]])
    return rng.choice([{}, {"k": 1}, {"move_ms": -1}, {"deals": 10**20}])


def cli_value(rng: random.Random, bounds: Range | None = None) -> str:
    """A command-line word for a numeric option: in range, past it, or not a number at all."""
    picks = ["-1", "0", "1", "2", "+5", " 7", "1e20", "1e26", "nan", "inf", "-inf", "0x10", "١٢",
             "9" * 30, str(2**63), str(2**64), str(2**64 - 1), "", "abc", "3.5", "é" * 20,
             "9" * 5000]
    if bounds is not None:
        picks += [str(bounds.low), str(bounds.high), str(bounds.low - 1), str(bounds.high + 1)]
    return rng.choice(picks)


def past(rng: random.Random, bounds: Range) -> str:
    """A command-line word that is outside ``bounds`` or not an integer: always refused."""
    return rng.choice([str(bounds.low - 1), str(bounds.high + 1), str(10**26), "-" + "9" * 30,
                       "1e20", "nan", "abc", ""])


# Tournament files --------------------------------------------------------------------------------

def base_tournament() -> dict[str, Any]:
    return {"name": "fuzz", "game": "blackout", "players": 3, "options": {"deals": 1},
            "rounds": 2, "seed": 5,
            "bots": [{"name": "a", "cmd": RANDOM}, {"name": "b", "cmd": RANDOM},
                     {"name": "c", "cmd": FIRST}]}


def mutated_tournament(rng: random.Random) -> dict[str, Any]:
    config = base_tournament()
    for _ in range(rng.randint(1, 3)):
        roll = rng.random()
        if roll < 0.45:  # a number key at an extreme: the ranges' own keys first
            bounds = rng.choice(TOURNAMENT_RANGES)
            section, _, leaf = bounds.key.partition(".")
            value = hostile_number(rng, bounds)
            if leaf:  # an earlier mutation may have made the section a scalar
                target = config.get(section)
                if not isinstance(target, dict):
                    target = config[section] = {}
                target[leaf] = value
            else:
                config[section] = value
        elif roll < 0.65:  # any key, any value
            key = rng.choice(sorted(TOP_KEYS | {f"time.{k}" for k in TIME_KEYS}
                                    | {f"limits.{k}" for k in LIMIT_KEYS}))
            section, _, leaf = key.partition(".")
            if leaf and isinstance(config.get(section), dict):
                config[section][leaf] = hostile_value(rng)
            else:
                config[section] = hostile_value(rng)
        elif roll < 0.75:  # a game option
            option = rng.choice(["deals", "bonus", "points_per_trick", "hook", "sequence", "nope"])
            config["options"] = dict(config.get("options") or {}, **{option: hostile_value(rng)})
        elif roll < 0.82:  # an unknown key, at the top, in a section or in a bot
            bots = config.get("bots")  # earlier mutations may have removed or replaced these
            where = rng.choice([config, config.get("time"),
                                bots[0] if isinstance(bots, list) and bots else None])
            if isinstance(where, dict):
                where[rng.choice(["round", "seeds", "Rounds", "cmd2", "x" * 100])] = 1
        elif roll < 0.9:  # a key gone
            config.pop(rng.choice(sorted(config)), None)
        elif isinstance(config.get("bots"), list) and config["bots"]:  # a bot damaged
            bots = config["bots"]
            index = rng.randrange(len(bots))
            if rng.random() < 0.5:
                bots[index] = hostile_value(rng)
            elif isinstance(bots[index], dict):
                bots[index][rng.choice(["name", "cmd", "workdir", "requires", "sandbox"])] = \
                    hostile_value(rng)
    return config


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.slow
def test_fuzzed_tournament_files_are_checked_or_refused_in_one_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        seed: int) -> None:
    rng = random.Random(seed)
    for case in range(40):
        config = mutated_tournament(rng)
        path = tmp_path / f"t{case}.yaml"
        path.write_text(yaml.safe_dump(config, allow_unicode=True))
        args = ["run", path.name, "--dry-run"] + rng.choice([[], ["--format", "json"]])
        status, _, err = run(args, tmp_path, monkeypatch, capsys)
        check_outcome(args + [f"(seed {seed} case {case}: {str(config)[:300]})"], status, err)


# Results lines -----------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished run's results (2 rounds: 6 games) and its tournament file beside it."""
    directory = tmp_path_factory.mktemp("fuzz-results")
    (directory / "t.yaml").write_text(yaml.safe_dump(base_tournament()))
    proc = arena("run", "t.yaml", "--out", "out", "--jobs", "1", cwd=directory)
    assert proc.returncode == 0, proc.stderr
    return directory


def paths_in(value: object, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every path (keys and indexes) into a JSON value."""
    yield prefix
    if isinstance(value, dict):
        for key, child in value.items():
            yield from paths_in(child, (*prefix, key))
    elif isinstance(value, list):
        for index, child in enumerate(value[:8]):
            yield from paths_in(child, (*prefix, index))


def damaged_line(rng: random.Random, line: bytes) -> bytes:
    """One results line with one thing wrong: a field gone, of another type or at an extreme, a
    list cut short, or the bytes themselves damaged."""
    if rng.random() < 0.1:
        cut = rng.randrange(1, len(line))
        return rng.choice([line[:cut], line[:cut] + b"\xff" + line[cut:], line.replace(b",", b"", 1)])
    record = orjson.loads(line)
    path = rng.choice(list(paths_in(record))[1:])
    holder = record
    for key in path[:-1]:
        holder = holder[key]
    roll = rng.random()
    if roll < 0.3:
        del holder[path[-1]]
    elif roll < 0.45 and isinstance(holder[path[-1]], list):
        holder[path[-1]] = holder[path[-1]][:rng.randrange(len(holder[path[-1]]) + 1)]
    else:
        holder[path[-1]] = json_value(hostile_value(rng))
    return orjson.dumps(record)


def json_value(value: object) -> object:
    """``value`` as a results file can hold it: JSON has no NaN or Infinity, and orjson writes
    no integer past 64 bits (a hand-edited file could; the reader says 'not JSON' for both)."""
    if isinstance(value, float) and not math.isfinite(value):
        return 1e308
    if isinstance(value, int) and not isinstance(value, bool) and not -2**63 <= value < 2**64:
        return 2**64 - 1
    if isinstance(value, list):
        return [json_value(item) for item in value]
    if isinstance(value, dict):
        return {key: json_value(item) for key, item in value.items()}
    return value


def damaged_results(rng: random.Random, results: Path, target: Path) -> str:
    """A copy of the results with one line damaged; the id of a game to show."""
    shutil.copytree(results / "out", target)
    lines = (target / "games.jsonl").read_bytes().splitlines()
    index = rng.randrange(len(lines))
    lines[index] = damaged_line(rng, lines[index])
    (target / "games.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    return rng.choice(["r1-t0000-s0", "r1-t0000-s1", "r2-t0000-s2"])


@pytest.mark.parametrize("seed", range(2))
@pytest.mark.slow
def test_fuzzed_results_lines_give_table_show_and_report_or_one_line(
        tmp_path: Path, results: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str], seed: int) -> None:
    rng = random.Random(seed)
    for case in range(20):
        out = tmp_path / f"r{case}"
        game = damaged_results(rng, results, out)
        for args in (["table", out.name], ["show", out.name, game],
                     ["show", out.name, game, "--seat", "1"],
                     ["report", out.name, "-o", f"{out.name}-site", "--resamples", "20"]):
            status, _, err = run(args, tmp_path, monkeypatch, capsys)
            check_outcome(args + [f"(seed {seed} case {case})"], status, err)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(2))
def test_fuzzed_results_lines_resume_or_are_refused_in_one_line(
        tmp_path: Path, results: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str], seed: int) -> None:
    rng = random.Random(100 + seed)
    shutil.copy(results / "t.yaml", tmp_path / "t.yaml")
    for case in range(6):
        out = tmp_path / f"r{case}"
        damaged_results(rng, results, out)
        args = ["run", "t.yaml", "--out", out.name, "--resume", "--jobs", "1", "--resamples", "20"]
        status, _, err = run(args, tmp_path, monkeypatch, capsys)
        check_outcome(args + [f"(seed {seed} case {case})"], status, err)


# Command-line values -----------------------------------------------------------------------------

def cli_case(rng: random.Random, results: Path, tmp_path: Path, case: int) -> list[str]:
    """One command line with one or two hostile values; games it may play are one short deal."""
    out = str(results / "out")
    play = ["play", "blackout", RANDOM, RANDOM, FIRST, "-o", "deals=1"]
    kind = rng.randrange(9)
    if kind == 0:
        option, bounds = rng.choice([("--seed", SEED), ("--move-ms", MOVE_MS),
                                     ("--bank-ms", BANK_MS), ("--start-ms", START_MS),
                                     ("--memory-mb", MEMORY_MB),
                                     ("--quit-grace-ms", QUIT_GRACE_MS)])
        return [*play, option, cli_value(rng, bounds)]
    if kind == 1:
        option = rng.choice(["deals", "bonus", "points_per_trick", "hook", "sequence", "x", ""])
        return [*play, "-o", f"{option}={cli_value(rng)}"]
    if kind == 2:
        option, bounds = rng.choice([("--resamples", RESAMPLES), ("--seed", SEED)])
        extra = rng.choice([[], ["--anchor", f"a={cli_value(rng)}"],
                            ["--format", rng.choice(["json", "csv", "xml", ""])]])
        return ["table", out, option, cli_value(rng, bounds), *extra]
    if kind == 3:
        return ["show", out, rng.choice(["r1-t0000-s0", "nope", "", "r1-t0000-s0\n"]),
                "--seat", cli_value(rng)]
    if kind == 4:
        option, bounds = rng.choice([("--jobs", JOBS), ("--max-live-bots", None),
                                     ("--resamples", RESAMPLES)])
        return ["run", str(results / "t.yaml"), "--dry-run", option, cli_value(rng, bounds)]
    if kind == 5:
        option, bounds = rng.choice([("--jobs", JOBS), ("--games", GAME_COUNT), ("--minutes", None)])
        return ["league", "run", str(tmp_path / "no-league"), option, cli_value(rng, bounds)]
    if kind == 6:
        option = rng.choice(["--players", "--seed", "-o", "--sandbox", "--cluster"])
        value = cli_value(rng, SEED) if option != "-o" else f"bonus={cli_value(rng)}"
        return ["league", "init", str(tmp_path / f"lg{case}"), "--game", "blackout", option, value]
    # check-bot and match with an accepted value would check a bot or play a match: only values
    # that are refused before anything starts
    if kind == 7:
        option, bounds = rng.choice([("--move-ms", MOVE_MS), ("--bank-ms", BANK_MS),
                                     ("--start-ms", START_MS), ("--memory-mb", MEMORY_MB),
                                     ("--quit-grace-ms", QUIT_GRACE_MS), ("--seed", SEED)])
        return ["check-bot", option, past(rng, bounds), RANDOM]
    option, bounds = rng.choice([("--games", GAME_COUNT), ("--seed", SEED), ("--jobs", JOBS),
                                 ("--move-ms", MOVE_MS), ("--bank-ms", BANK_MS)])
    return ["match", RANDOM, FIRST, "--field", RANDOM, option, past(rng, bounds),
            "--out", str(tmp_path / "match")]


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.slow
def test_fuzzed_command_line_values_run_or_are_refused_in_one_line(
        tmp_path: Path, results: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str], seed: int) -> None:
    rng = random.Random(1000 + seed)
    for case in range(30):
        args = cli_case(rng, results, tmp_path, case)
        status, _, err = run(args, tmp_path, monkeypatch, capsys)
        check_outcome(args + [f"(seed {seed} case {case})"], status, err)
        if args[0] in ("check-bot", "match"):
            assert status == 2, f"{args}: an out-of-range value was accepted"


def test_every_registered_game_option_is_bounded() -> None:
    # the fuzzer's extremes reach every integer option through the game's schema
    for name, game in engine.GAMES.items():
        for players in game.info.player_counts:
            for option in game.info.options(players):
                if option.type == "int":
                    assert option.low is not None and option.high is not None, (name, option.name)


def test_the_fuzz_cases_are_reproducible() -> None:
    assert mutated_tournament(random.Random(7)) == mutated_tournament(random.Random(7))
    first = copy.deepcopy(base_tournament())
    assert first == base_tournament()


# What bots write to stderr -----------------------------------------------------------------------
# A bot's stderr is its owner's alone (arena.records.visible). A canary (a unique token among
# hostile text: a quote's opening and closing, the old separator, newlines, controls, the arena's
# own hints) goes to stderr through every fault kind, and the record as anyone but its owner sees
# it holds it nowhere; its owner finds it in the fault's stderr_tail.

MISBEHAVING = REPO / "tests" / "bots" / "misbehaving"
CANARY_FAULTS = {
    "exit_before_hello": ("crash", "could not be started: bot 'canary-exit_before_hello': exited "
                                   "before replying to hello: exited with code 3"),
    "hello_timeout": ("crash", "could not be started: bot 'canary-hello_timeout': no hello reply "
                               "within 2000 ms"),
    "bad_hello": ("crash", "could not be started: bot 'canary-bad_hello': bad hello reply: reply "
                           "is not JSON"),
    "timeout": ("timeout", ""),
    "malformed": ("malformed", "reply is not JSON"),
    "illegal": ("illegal", ""),
    "crash": ("crash", "exited with code 3"),
    "memory": ("crash", "memory limit 64 MB exceeded"),
}
"""Each way the canary bot breaks a game (tests/bots/misbehaving/canary.py): the fault's kind and
the start of its detail. Start failures are crashes before the first decision."""
HOSTILE_PIECES = [" (stderr: ", ")", "(", " | ", "\n", "\r\n", "\t", "\x1b[2J", "\x1b]52;c;eA==\x07",
                  "\u202e", "\u2028", '"', "'", "\\", "é", "💥", "x" * 700, "; the sandbox hides "
                  "that program", "] [arena] truncated", "{\"id\":0}", "   "]


def canary(rng: random.Random, what: str) -> tuple[str, str]:
    """(a unique token, the text around it that a bot writes to stderr: hostile pieces, seeded)."""
    token = f"CANARY{rng.getrandbits(64):016x}{what.replace('_', '')}"
    before = "".join(rng.choice(HOSTILE_PIECES) for _ in range(rng.randint(0, 4)))
    after = "".join(rng.choice(HOSTILE_PIECES) for _ in range(rng.randint(0, 4)))
    return token, before + token + after


def assert_hidden(record: dict[str, Any], tokens: dict[str, str], owned: frozenset[str]) -> None:
    """Each token (of the bot named by its key) appears in the record as a viewer owning ``owned``
    sees it only if that viewer owns the bot, and then only in a fault's stderr_tail."""
    from arena.records.visible import Viewer, visible_record
    from arena.records.writer import serialise

    shown = visible_record(record, Viewer(owned))
    text = serialise(shown).decode()
    for name, token in tokens.items():
        if name not in owned:
            assert token not in text, f"{name}'s stderr shown to a viewer owning {sorted(owned)}"
    for fault in shown.get("faults") or ():
        if isinstance(fault, dict):
            assert not any(t in str(fault.get("detail")) for t in tokens.values()), fault["detail"]


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_a_canary_in_stderr_through_every_fault_kind_reaches_only_its_owner() -> None:
    from arena.executors.batch import close_batch_bots, play_batch
    from arena.settings import Limits, TimeControl
    from arena.values.work import BotCommand, GameSpec, RunSettings

    rng = random.Random(38)
    tokens: dict[str, str] = {}
    bots = {"c1": BotCommand((RANDOM,)), "c2": BotCommand((FIRST,))}
    for kind in CANARY_FAULTS:
        token, text = canary(rng, kind)
        tokens[f"canary-{kind}"] = token
        bots[f"canary-{kind}"] = BotCommand(
            (sys.executable, "-S", str(MISBEHAVING / "canary.py"), kind, text), str(MISBEHAVING))
    limits = Limits(memory_mb=64)
    # Only the bot that never says hello is given a short start, long enough to have written its
    # canary (a Python start on a loaded machine takes a few hundred ms): the others start in time
    # however loaded the machine is. A decision has 500 ms of its own time, no bank: the timeout
    # costs that.
    quick = TimeControl(start_ms=2000, move_ms=500, bank_ms=0)
    generous = TimeControl(start_ms=30_000, move_ms=500, bank_ms=0)
    lines = []
    try:
        for number, kind in enumerate(CANARY_FAULTS):
            settings = RunSettings(bots=bots, limits=limits,
                                   time_control=quick if kind == "hello_timeout" else generous)
            seats = (f"canary-{kind}", "c1", "c2")
            task = GameSpec(f"g{number}", "blackout", {"deals": 1}, seats, number, 1, number + 1, 0)
            lines += play_batch([task], settings)
    finally:
        close_batch_bots()
    for line, (kind, (fault_kind, detail)) in zip(lines, CANARY_FAULTS.items(), strict=True):
        name = f"canary-{kind}"
        faults = [f for f in line["faults"] if line["names"][f["seat"]] == name]
        assert [f["kind"] for f in faults] == [fault_kind], (kind, line["faults"])
        assert faults[0]["detail"].startswith(detail), (kind, faults[0]["detail"])
        assert tokens[name] in faults[0]["stderr_tail"], (kind, "its owner sees it")
        everyone = frozenset(line["names"])
        for owned in (frozenset(), frozenset({"c1", "c2"}), everyone - {name}, frozenset({name})):
            assert_hidden(line, tokens, owned)


OLD_START_FAILURES = [
    "exited before replying to hello: exited with code {code}",
    "exited before replying to hello: killed by signal SIGKILL",
    "no hello reply within {code}00 ms (used 3 ms of CPU: blocked on input, or the reply is not "
    "flushed)",
    "bad hello reply: reply is not JSON: b'{said}'",
]


def old_detail(rng: random.Random, stderr: str) -> str:
    """A start failure's detail as the arena wrote it before details held no stderr: the quote of
    the bot's last lines, an arena hint perhaps, and perhaps cut (the league's faults table keeps
    500 characters)."""
    from arena.records.visible import OLD_HINTS
    from arena.values.faults import quoted_stderr

    what = rng.choice(OLD_START_FAILURES).format(code=rng.randint(0, 255),
                                                  said=rng.choice(["", "hi", " (stderr: x", ")"]))
    detail = f"could not be started: bot 'x@1': {what}{quoted_stderr(stderr)}"
    detail += rng.choice(["", "", *OLD_HINTS])
    return detail[:rng.choice([len(detail), 500, rng.randint(0, len(detail))])]


def test_generated_records_show_no_stderr_but_their_owners_old_quotes_included() -> None:
    """Records as a league holds them, today's and those from before details held no stderr, with
    canaries in every place stderr went: the visible record hides each from everyone but its
    owner, whatever the seats, names and faults look like."""
    from arena.records.reader import parse_line
    from arena.records.visible import Viewer, visible_record

    base = parse_line((REPO / "tests" / "arena" / "records" / "old" / "clocks-blackout.jsonl")
                      .read_bytes().splitlines()[0])
    names = list(base["names"])
    for case in range(600):
        rng = random.Random(case)
        tokens = {}
        faults: list[object] = []
        for seat, name in enumerate(names):
            token, text = canary(rng, f"s{seat}")
            tokens[name] = token
            for _ in range(rng.randint(0, 3)):
                old = rng.random() < 0.5
                faults.append({"kind": rng.choice(["crash", "timeout", "malformed", "illegal"]),
                               "bot": name, "seat": seat, "deal": 1, "decision": 0,
                               "detail": old_detail(rng, text) if old else "exited with code 3",
                               "sent": "", "received": "",
                               "stderr_tail": rng.choice(["", text]) if old else text})
        if rng.random() < 0.1:  # faults of no seat of the game's, or not faults at all
            faults += [{"seat": rng.choice([None, -1, len(names), "0"]), "detail": "x",
                        "stderr_tail": tokens[names[0]]}, "not a fault", None]
        rng.shuffle(faults)
        record = {**base, "faults": faults}
        owned = frozenset(rng.sample(names, rng.randint(0, len(names))))
        assert_hidden(record, tokens, owned)
        shown = visible_record(record, Viewer(owned))
        for given, seen in zip(faults, shown["faults"], strict=True):  # today's: as written
            if isinstance(given, dict) and given.get("detail") == "exited with code 3":
                mine = given["bot"] in owned
                assert seen["stderr_tail"] == (given["stderr_tail"] if mine else ""), seen
