"""Bot manifests: the starter bots' load, mistakes are one line naming file and key, and a bot
directory works wherever a command did (check-bot, play, tournament files)."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.botfiles.manifest import load_manifest
from arena.bots.build import build_bot
from arena.errors import ConfigError
from arena.plans.tournament import load_tournament

from helpers import arena

ROOT = Path(__file__).resolve().parents[3]
STARTERS = ["bots/python/greedy.bot.yaml", "bots/python/random.bot.yaml", "bots/js",
            "bots/c/random.bot.yaml", "bots/c/first.bot.yaml"]

pytestmark = pytest.mark.timeout(120)


def bot_dir(tmp_path: Path, manifest: str, name: str = "mine") -> Path:
    directory = tmp_path / name
    directory.mkdir()
    (directory / "random_bot.py").write_bytes((ROOT / "bots/python/random_bot.py").read_bytes())
    (directory / "bot.yaml").write_text(manifest)
    return directory


@pytest.mark.parametrize("target", STARTERS)
def test_every_starter_bot_has_a_manifest_that_loads(target: str) -> None:
    manifest = load_manifest(ROOT / target)
    assert manifest.plays("blackout") and manifest.plays("partnership-blackout")
    assert manifest.version == "1"
    build_bot(manifest)  # the C bots' make; the program then exists in the bot's directory


@pytest.mark.parametrize(("text", "key", "problem"), [
    ("run: python3 random_bot.py\n", "name", "missing (required)"),
    ("name: x\n", "run", "missing (required)"),
    ("name: x\nrun: python3 random_bot.py\nlanguge: py\n", "languge",
     "unknown key; did you mean language?"),
    ("name: x\nrun: python3 nothere.py\n", "run", "no such file 'nothere.py'"),
    ("name: x y\nrun: python3 random_bot.py\n", "name", "use letters"),
    ("name: x\nrun: python3 random_bot.py\ngames: [chess]\n", "games[0]", "chess"),
    ("name: x\nrun: python3 random_bot.py\nversion: '../2'\n", "version", "use letters"),
    ("name: x\nname: y\nrun: python3 random_bot.py\n", "line 2", "duplicate key 'name'"),
])
def test_a_wrong_manifest_is_one_error_naming_file_key_and_problem(
        tmp_path: Path, text: str, key: str, problem: str) -> None:
    directory = bot_dir(tmp_path, text)
    with pytest.raises(ConfigError) as caught:
        load_manifest(directory)
    message = str(caught.value)
    assert message.startswith(f"{directory / 'bot.yaml'}: {key}")
    assert problem in message and "\n" not in message


@pytest.mark.parametrize(("written", "problem"), [
    ("1.10", "version: float 1.1 is a number, not text: YAML reads an unquoted version as a number "
             '(1.10 as 1.1); quote it, e.g. version: "1.10"'),
    ("2", "version: int 2 is a number, not text"),
    ("1.0e+3", "version: float 1000.0 is a number, not text"),
    ("0x1F", "version: int 31 is a number, not text"),
    ("yes", 'version: expected text, got bool True: quote it, e.g. version: "1.10"'),
    ("2024-01-02", "version: expected text, got date datetime.date(2024, 1, 2)"),
])
def test_an_unquoted_version_that_yaml_reads_as_no_text_is_refused_with_a_hint_to_quote_it(
        tmp_path: Path, written: str, problem: str) -> None:
    directory = bot_dir(tmp_path, f"name: x\nrun: python3 random_bot.py\nversion: {written}\n")
    with pytest.raises(ConfigError) as caught:
        load_manifest(directory)
    assert str(caught.value).startswith(f"{directory / 'bot.yaml'}: {problem}")


@pytest.mark.parametrize(("written", "version"), [('"1.10"', "1.10"), ("'2'", "2"),
                                                  ("1.10-beta", "1.10-beta"), ("1e3", "1e3")])
def test_a_version_is_kept_as_the_text_written(tmp_path: Path, written: str, version: str) -> None:
    """``1e3`` is text to YAML 1.1 (its floats need a dot), so it is kept as written."""
    directory = bot_dir(tmp_path, f"name: x\nrun: python3 random_bot.py\nversion: {written}\n")
    assert load_manifest(directory).version == version


def test_a_directory_of_several_bots_names_their_manifests(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="name one: .*greedy.bot.yaml, .*random.bot.yaml"):
        load_manifest(ROOT / "bots/python")
    with pytest.raises(ConfigError, match="no bot.yaml"):
        load_manifest(tmp_path)


def test_a_failing_build_names_the_manifest_and_the_output(tmp_path: Path) -> None:
    directory = bot_dir(tmp_path, "name: x\nrun: ./prog\n"
                                  "build: [sh, -c, 'echo no compiler >&2; exit 3']\n")
    expected = r"bot.yaml: build: exited with 3; the end of its output:\n  \| no compiler"
    with pytest.raises(ConfigError, match=expected):
        build_bot(load_manifest(directory))


@pytest.mark.slow
def test_a_run_program_missing_says_where_it_was_looked_for_and_what_would_make_it(
        tmp_path: Path) -> None:
    unbuilt = bot_dir(tmp_path, "name: gobot\nrun: ./gobot\n", "unbuilt")
    done = arena("check-bot", str(unbuilt))
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert done.stderr == (f"arena: error: {unbuilt / 'bot.yaml'}: run: no such file './gobot' "
                           f"(resolved from the manifest's directory, {unbuilt}): build it, or add "
                           f"a `build:` that makes it\n")
    wrong_output = bot_dir(tmp_path, "name: gobot\nrun: ./gobot\nbuild: [sh, -c, 'touch bot']\n",
                           "wrong")  # builds ./bot, runs ./gobot
    done = arena("play", "blackout", str(wrong_output), str(wrong_output), str(wrong_output))
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert done.stderr.endswith("run: no such file './gobot' (resolved from the manifest's "
                                f"directory, {wrong_output}): does `build:` create it?\n")


@pytest.mark.parametrize("command", [["play", "blackout", "bots/nope", "bots/nope", "bots/nope"],
                                     ["match", "bots/nope", "bots/nope", "--field", "bots/nope"],
                                     ["check-bot", "--game", "blackout", "bots/nope"]])
@pytest.mark.slow
def test_a_missing_relative_path_says_it_was_resolved_from_where_arena_runs(
        tmp_path: Path, command: list[str]) -> None:
    done = arena(*command, cwd=tmp_path)
    text = done.stdout + done.stderr
    assert "no such file 'bots/nope' (resolved from the directory arena runs in, " \
           f"{tmp_path})" in text, text


@pytest.mark.slow
def test_check_bot_takes_a_bot_directory_and_runs_it_from_there(tmp_path: Path) -> None:
    directory = bot_dir(tmp_path, "name: mine\nrun: python3 random_bot.py\ngames: [blackout]\n")
    done = arena("check-bot", str(directory), cwd=tmp_path.parent)  # relative path works only in it
    assert done.returncode == 0, done.stdout + done.stderr
    assert "play blackout" in done.stdout and "play partnership-blackout" not in done.stdout


@pytest.mark.slow
def test_check_bot_with_a_broken_manifest_is_one_line_and_exit_2(tmp_path: Path) -> None:
    directory = bot_dir(tmp_path, "name: mine\n")
    done = arena("check-bot", str(directory))
    assert done.returncode == 2
    assert done.stderr.strip() == f"arena: error: {directory / 'bot.yaml'}: run: missing (required)"


@pytest.mark.slow
def test_play_seats_bot_directories_and_commands_together(tmp_path: Path) -> None:
    done = arena("play", "blackout", "bots/c/random.bot.yaml", "bots/python/greedy.bot.yaml",
                 "bots/c/first_bot", "python3 bots/python/random_bot.py", "-o", "deals=2",
                 "--log", str(tmp_path / "game.json"))
    assert done.returncode == 0, done.stderr
    record = (tmp_path / "game.json").read_text()
    assert '"random-c"' in record and '"greedy"' in record


def test_a_tournament_bot_may_be_a_dir(tmp_path: Path) -> None:
    directory = bot_dir(tmp_path, "name: mine\nrun: python3 random_bot.py\n")
    path = tmp_path / "t.yaml"
    path.write_text(f"name: t\ngame: blackout\nbots:\n  - dir: {directory}\n"
                    f"  - {{name: c1, cmd: {ROOT}/bots/c/random_bot}}\n"
                    f"  - {{name: c2, cmd: {ROOT}/bots/c/random_bot}}\n"
                    f"  - {{name: other, dir: {ROOT}/bots/c/first.bot.yaml}}\n")
    tournament = load_tournament(path)
    mine, other = tournament.bots[0], tournament.bots[3]
    assert (mine.name, mine.argv, mine.workdir) == ("mine", ("python3", "random_bot.py"), str(directory))
    assert (other.name, other.build) == ("other", ("make", "first_bot"))


def test_a_tournament_dir_named_like_another_bot_in_another_case_is_refused(tmp_path: Path) -> None:
    directory = bot_dir(tmp_path, "name: Mine\nrun: python3 random_bot.py\n")
    path = tmp_path / "t.yaml"
    path.write_text(f"name: t\ngame: blackout\nbots:\n  - {{name: mine, cmd: {ROOT}/bots/c/random_bot}}\n"
                    f"  - dir: {directory}\n")
    with pytest.raises(ConfigError, match=r"t.yaml: bots\[1\].name: 'Mine' is the name of another "
                                          r"bot, 'mine', written differently"):
        load_tournament(path)


def test_a_tournament_dir_with_cmd_or_a_bad_manifest_names_the_bot_entry(tmp_path: Path) -> None:
    directory = bot_dir(tmp_path, "name: mine\nrun: python3 gone.py\n")
    path = tmp_path / "t.yaml"
    path.write_text(f"name: t\ngame: blackout\nbots:\n  - {{dir: {directory}, cmd: x}}\n")
    with pytest.raises(ConfigError, match=r"t.yaml: bots\[0\].cmd: not with dir"):
        load_tournament(path)
    path.write_text(f"name: t\ngame: blackout\nbots:\n  - dir: {directory}\n")
    with pytest.raises(ConfigError, match=r"t.yaml: bots\[0\].dir: .*bot.yaml: run: no such file 'gone.py'"):
        load_tournament(path)


@pytest.mark.parametrize(("field", "value", "problem"), [
    ("author", "A" * 101, "author: 'AAAA"),
    ("language", "python" * 10, "language: 'pythonpython"),
    ("games", "[" + "b" * 65 + "]", "games[0]: 'bbbb"),
    ("run", "python3 random_bot.py " + "x" * 1001, "run: word 3 ('xxxx"),
    ("run", "python3 random_bot.py" + " -v" * 63, "run: 65 words (at most 64)"),
    ("build", "make " + "x" * 1001, "build: word 2 ('xxxx"),
])
def test_manifest_text_fields_have_length_limits(
        tmp_path: Path, field: str, value: str, problem: str) -> None:
    text = f"name: x\nrun: python3 random_bot.py\n{field}: {value}\n".replace(
        "run: python3 random_bot.py\nrun:", "run:")
    directory = bot_dir(tmp_path, text)
    with pytest.raises(ConfigError) as caught:
        load_manifest(directory)
    message = str(caught.value)
    assert message.startswith(f"{directory / 'bot.yaml'}: {problem}"), message
    assert "too long" in message or "words" in message
    assert len(message) < len(str(directory)) + 200


def test_manifest_text_fields_at_their_limits_load(tmp_path: Path) -> None:
    manifest = load_manifest(bot_dir(tmp_path, f"name: {'n' * 64}\nrun: python3 random_bot.py\n"
                                               f"author: {'A' * 100}\nlanguage: {'l' * 32}\n"))
    assert manifest.author == "A" * 100 and manifest.language == "l" * 32


def test_a_device_is_not_a_manifest(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="^/dev/null: not a bot directory or manifest"):
        load_manifest("/dev/null")
