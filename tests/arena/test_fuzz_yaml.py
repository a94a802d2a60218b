"""Fuzzing the YAML reader: generated and mutated documents (aliases, anchors, merges, nesting,
long values, stray bytes) give a value or exactly one ConfigError line, within a time bound, never
another exception. Seeded generators: every case is reproducible from its seed.

Each case is also loaded as a bot manifest (the stranger-facing input), and mutations of the demo
tournament file as a tournament."""

from __future__ import annotations

import random
import time
from pathlib import Path

import pytest

from arena.botfiles.manifest import load_manifest
from arena.configfile import read_yaml
from arena.errors import ConfigError
from arena.plans.tournament import load_tournament

ROOT = Path(__file__).resolve().parents[2]
SEEDS = [
    (ROOT / "bots/js/bot.yaml").read_text(),
    (ROOT / "tournaments/demo.yaml").read_text(),
    "name: x\nrun: [python3, bot.py]\nbase: &b {a: 1}\nmore: {<<: *b, c: [*b, *b]}\n",
    "a: &a [x, x, x]\nb: &b [*a, *a, *a]\nc: &c [*b, *b, *b]\nname: *c\n",
    "- - - - [1, 2, {k: v}]\n",
    "name: [&l0 [lol, lol, lol], &l1 [*l0, *l0, *l0], &l2 [*l1, *l1, *l1], &l3 [*l2, *l2, *l2],"
    " &l4 [*l3, *l3, *l3], &l5 [*l4, *l4, *l4], &l6 [*l5, *l5, *l5], &l7 [*l6, *l6, *l6],"
    " &l8 [*l7, *l7, *l7], &l9 [*l8, *l8, *l8], &l10 [*l9, *l9, *l9], &l11 [*l10, *l10, *l10]]\n",
    "s: |\n  text\n  more\n? complex key\n: value\n",
]
SYMBOLS = list("&*[]{}:-!|>'\"%@#?,.\\\n\t ") + ["&a ", "*a", "<<: ", "!!python/object ", "!!int ",
                                                 "\x00", "\ufeff", "\udcff", "9" * 50, "---\n",
                                                 "...\n", "%YAML 1.1\n", "- ", "\n  "]
CASE_SECONDS = 5.0
"""A case's time bound: generous for a loaded machine (each takes milliseconds)."""


def scalar(rng: random.Random) -> str:
    if rng.random() < 0.02:  # rarely: beyond Python's integer digits, beyond the string limit
        return rng.choice(["9" * 4400, "y" * 10_001])
    return rng.choice(["x", "1", "-1", "1e400", "0x1F", "~", "null", "yes", "2024-02-30",
                       "'quoted'", '"esc\\x41"', "9" * 30, "blackout", "python3 bot.py"])


class Document:
    """A generated flow-style document of at most ``budget`` values: nested lists and mappings,
    anchors and aliases (some to a value that contains them), now and then a deep nest."""

    def __init__(self, rng: random.Random, budget: int) -> None:
        self.rng = rng
        self.budget = budget
        self.anchors: list[str] = []
        self.named = 0

    def value(self, depth: int = 0) -> str:
        rng = self.rng
        self.budget -= 1
        roll = rng.random()
        if roll < 0.02:
            levels = rng.choice([30, 70, 300])  # 5,000: test_configfile
            return "[" * levels + scalar(rng) + "]" * levels
        if self.anchors and roll < 0.2:
            return f"*{rng.choice(self.anchors)}"
        if self.budget <= 0 or roll < 0.4:
            return scalar(rng)
        anchor = ""
        if rng.random() < 0.3:
            self.named += 1
            anchor = f"&a{self.named} "
            if rng.random() < 0.2:  # its own children may then refer to it: a value inside itself
                self.anchors.append(anchor[1:-1])
        children = [self.value(depth + 1) for _ in range(rng.randint(0, 6))]
        if anchor and anchor[1:-1] not in self.anchors:
            self.anchors.append(anchor[1:-1])
        if rng.random() < 0.5:
            return f"{anchor}[{', '.join(children)}]"
        keys = [rng.choice(["name", "run", "build", "games", "author", "<<", f"k{i}"])
                for i in range(len(children))]
        return f"{anchor}{{{', '.join(f'{k}: {v}' for k, v in zip(keys, children, strict=True))}}}"


def mutated(rng: random.Random, text: str) -> str:
    chars = list(text)
    for _ in range(rng.randint(1, 8)):
        at = rng.randrange(len(chars) + 1)
        action = rng.random()
        if action < 0.5:
            chars.insert(at, rng.choice(SYMBOLS))
        elif action < 0.8 and chars:
            del chars[min(at, len(chars) - 1)]
        elif chars:
            chars[min(at, len(chars) - 1)] = rng.choice(SYMBOLS)
    return "".join(chars)


def case(seed: int) -> str:
    rng = random.Random(seed)
    kind = seed % 3
    if kind == 0:
        return mutated(rng, rng.choice(SEEDS))
    body = Document(rng, budget=rng.choice([5, 20, 80])).value()
    text = f"name: {body}\nrun: ./bot\n" if kind == 1 else f"{body}\n"
    return mutated(rng, text) if rng.random() < 0.3 else text


def outcome(call: object) -> str:
    """'ok' or the one-line ConfigError; any other exception fails the case."""
    assert callable(call)
    try:
        call()
    except ConfigError as error:
        message = str(error)
        assert "\n" not in message and len(message) < 600, message[:600]
        return message
    return "ok"


@pytest.mark.timeout(60)
@pytest.mark.parametrize("block", range(4))
@pytest.mark.slow
def test_generated_and_mutated_yaml_is_a_value_or_one_config_error(tmp_path: Path, block: int) -> None:
    directory = tmp_path / "bot"
    directory.mkdir()
    path = directory / "bot.yaml"
    for seed in range(block * 100, block * 100 + 100):
        text = case(seed)
        try:
            path.write_text(text, errors="surrogateescape")
        except UnicodeEncodeError:
            path.write_bytes(text.encode("utf-8", errors="replace"))
        started = time.monotonic()
        outcome(lambda: read_yaml(path, "bot manifest"))
        outcome(lambda: load_manifest(directory))
        assert time.monotonic() - started < CASE_SECONDS, f"seed {seed} took too long"


def test_a_file_that_is_not_text_is_one_config_error(tmp_path: Path) -> None:
    rng = random.Random(7)
    path = tmp_path / "bot.yaml"
    for _ in range(50):
        path.write_bytes(bytes(rng.randrange(256) for _ in range(rng.randint(0, 400))))
        outcome(lambda: read_yaml(path, "bot manifest"))


@pytest.mark.timeout(60)
def test_mutated_tournament_files_load_or_are_one_config_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # the demo's bot commands are relative to the repository
    demo = (ROOT / "tournaments/demo.yaml").read_text()
    path = tmp_path / "t.yaml"
    for seed in range(150):
        path.write_text(mutated(random.Random(seed), demo), errors="surrogateescape")
        started = time.monotonic()
        outcome(lambda: load_tournament(path))
        assert time.monotonic() - started < CASE_SECONDS, f"seed {seed} took too long"
