"""YAML inputs are read with limits: a file that is too large, too deep, too long in one value or
an alias bomb is one ConfigError line naming the file, at once; messages quote a short prefix."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.configfile import (
    MAX_DEPTH,
    MAX_FILE_BYTES,
    MAX_STRING,
    FileChecker,
    kind,
    read_yaml,
)
from arena.errors import ConfigError
from engine.errors import SHOWN_LENGTH, shown

from helpers import arena

ROOT = Path(__file__).resolve().parents[2]


def laughs(key: str, levels: int = 9) -> str:
    """A "billion laughs" in ``key``'s value: ``levels`` lists of nine aliases of the one before,
    under 1 KB, standing for 9 ** levels strings once expanded."""
    lists = ["&l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    lists += [f"&l{i} [{', '.join([f'*l{i - 1}'] * 9)}]" for i in range(1, levels)]
    return f"{key}: [{', '.join(lists)}]\n"


def error_of(path: Path) -> str:
    with pytest.raises(ConfigError) as caught:
        read_yaml(path, "tournament file")
    message = str(caught.value)
    assert "\n" not in message and len(message) < len(str(path)) + 200, message
    return message


@pytest.mark.timeout(10)
def test_an_alias_bomb_is_refused_at_once(tmp_path: Path) -> None:
    path = tmp_path / "bomb.yaml"
    path.write_text(laughs("name"))
    assert path.stat().st_size < 1024
    assert "more than 100,000 values once aliases are expanded" in error_of(path)


@pytest.mark.timeout(10)
def test_aliases_that_stay_small_and_merge_keys_still_load(tmp_path: Path) -> None:
    path = tmp_path / "ok.yaml"
    path.write_text(laughs("name", levels=4) + "base: &base {a: 1, b: 2}\nmerged: {<<: *base, b: 3}\n")
    loaded = read_yaml(path, "tournament file")
    assert isinstance(loaded, dict) and loaded["merged"] == {"a": 1, "b": 3}


@pytest.mark.timeout(10)
@pytest.mark.parametrize(("text", "problem"), [
    ("x: " + "[" * 5000 + "]" * 5000 + "\n", f"line 1: nested more than {MAX_DEPTH} levels deep"),
    ("x: " + "{a: " * 5000 + "1" + "}" * 5000 + "\n", f"nested more than {MAX_DEPTH} levels deep"),
    ("".join(f"{' ' * i}- \n" for i in range(0, 2 * (MAX_DEPTH + 5), 2)),
     f"nested more than {MAX_DEPTH} levels deep"),
    ("\n".join(["a0: &a0 1"] + [f"a{i}: &a{i} [*a{i - 1}]" for i in range(1, 200)]) + "\n",
     f"nested more than {MAX_DEPTH} levels deep (aliases expanded)"),
    ("a: &a [1, *a]\n", "an alias inside the value it names"),
], ids=["lists", "mappings", "block", "alias-chain", "itself"])
def test_deep_nesting_is_one_line_not_a_recursion_error(
        tmp_path: Path, text: str, problem: str) -> None:
    path = tmp_path / "deep.yaml"
    path.write_text(text)
    assert problem in error_of(path)


def test_a_file_over_the_size_limit_is_not_read_whole(tmp_path: Path) -> None:
    path = tmp_path / "huge.yaml"
    path.write_text("name: x\n" + "#" * MAX_FILE_BYTES)
    assert error_of(path) == f"{path}: larger than 1 MiB, the most a tournament file may be"
    assert error_of(Path("/dev/zero")).startswith("/dev/zero: larger than 1 MiB")


def test_a_value_over_the_length_limit_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "long.yaml"
    path.write_text(f"name: {'x' * MAX_STRING}\n")
    assert read_yaml(path, "tournament file") == {"name": "x" * MAX_STRING}
    path.write_text(f"name: {'x' * (MAX_STRING + 1)}\ngame: blackout\n")
    assert error_of(path) == f"{path}: line 1: a value of 10,001 characters (at most 10,000)"
    path.write_text(f"? {'k' * (MAX_STRING + 1)}\n: 1\n")
    assert "a value of 10,001 characters" in error_of(path)


@pytest.mark.parametrize(("text", "problem"), [
    ("seed: " + "9" * 5000 + "\n", "line 1: invalid YAML: cannot read '9999"),
    ("seed: 2024-13-45\n", "line 1: invalid YAML: cannot read '2024-13-45': month must be in 1..12"),
    (f"{'k' * 500}: 1\n{'k' * 500}: 2\n", "line 2: invalid YAML: duplicate key 'kkk"),
], ids=["huge-integer", "bad-date", "long-duplicate-key"])
def test_a_value_python_cannot_build_is_one_line(tmp_path: Path, text: str, problem: str) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    assert problem in error_of(path)


def test_messages_quote_a_short_prefix_of_a_value(tmp_path: Path) -> None:
    where = FileChecker(tmp_path / "t.yaml")
    huge = "x" * 10_000_000
    looped: list[object] = []
    looped.append(looped)
    for value in (huge, [huge] * 1000, {huge: [[[[huge]]]]}, looped, 10 ** 4000):
        assert len(shown(value)) <= SHOWN_LENGTH
        assert len(kind(value)) <= SHOWN_LENGTH + 20
    for check in (lambda: where.name(huge, "name"), lambda: where.integer(10 ** 4000, "seed", 0, 9),
                  lambda: where.text(huge, "author", 100), lambda: where.mapping(huge, "", set())):
        with pytest.raises(ConfigError) as caught:
            check()
        assert len(str(caught.value)) < len(str(where.path)) + 200, str(caught.value)[:300]
    assert shown("short") == "'short'" and shown("x" * 100).startswith("'xxx")


@pytest.mark.timeout(30)  # starts the real command; finishing at all is the point (main ran forever)
@pytest.mark.slow
def test_run_dry_run_of_a_tournament_alias_bomb_is_one_line_at_once(tmp_path: Path) -> None:
    path = tmp_path / "bomb.yaml"
    path.write_text(laughs("name") + "game: blackout\nbots: []\n")
    done = arena("run", path, "--dry-run", "--out", tmp_path / "out", timeout=25)
    assert done.returncode == 2
    assert done.stderr == (f"arena: error: {path}: line 1: more than 100,000 values once aliases "
                           f"are expanded\n")


@pytest.mark.parametrize(("key", "problem"), [
    ("round", "unknown key; did you mean rounds?"),
    ("Rounds", "unknown key; did you mean rounds?"),
    ("seeds", "unknown key; did you mean seed?"),
    ("colour", "unknown key (allowed: name, rounds, seed)"),
    ("r" * 5000, "unknown key (allowed: name, rounds, seed)"),
])
def test_an_unknown_key_suggests_the_allowed_key_it_is_a_typo_of(key: str, problem: str) -> None:
    where = FileChecker(Path("t.yaml"))
    with pytest.raises(ConfigError) as caught:
        where.mapping({key: 1}, "", {"name", "rounds", "seed"})
    assert str(caught.value) == f"t.yaml: {key}: {problem}"
