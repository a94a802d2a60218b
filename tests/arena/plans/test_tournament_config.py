"""Tournament files: every mistake is one ConfigError naming the file, the key and the problem."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from arena.errors import ConfigError
from arena.plans.tournament import Tournament, load_tournament
from arena.settings import DEFAULT_RATING, FaultPolicy, Limits, RatingModel, TimeControl

from helpers import arena

REPO = Path(__file__).resolve().parents[3]
PY_BOT = "python3 bots/python/random_bot.py"


pytestmark = pytest.mark.usefixtures("in_repo")


def valid(**changes: Any) -> dict[str, Any]:
    """A valid four-bot Blackout tournament, with top-level keys replaced (None deletes)."""
    config: dict[str, Any] = {
        "name": "cfg-test",
        "game": "blackout",
        "players": 4,
        "bots": [{"name": f"bot{i}", "cmd": PY_BOT} for i in range(4)],
    }
    for key, value in changes.items():
        if value is None:
            config.pop(key, None)
        else:
            config[key] = value
    return config


def write(tmp_path: Path, config: dict[str, Any] | str, name: str = "t.yaml") -> Path:
    path = tmp_path / name
    path.write_text(config if isinstance(config, str) else yaml.safe_dump(config, sort_keys=False))
    return path


def bots_with(index: int, **entry: Any) -> list[dict[str, Any]]:
    """The valid bots with entry ``index`` updated (a value of None deletes that key)."""
    bots = copy.deepcopy(valid()["bots"])
    for key, value in entry.items():
        if value is None:
            bots[index].pop(key)
        else:
            bots[index][key] = value
    return bots


def error_of(path: Path) -> str:
    with pytest.raises(ConfigError) as caught:
        load_tournament(path)
    return str(caught.value)


# (case id, the file's contents, the key the message must name, the problem it must state)
CASES: list[tuple[str, dict[str, Any], str, str]] = [
    ("unknown top-level key", valid(round=3), "round", "unknown key; did you mean rounds?"),
    ("unknown rating model", valid(rating="elo"), "rating",
     "'elo' is not a rating model (models: places, duplicate, deals, adjusted, margins)"),
    ("unknown bot key", valid(bots=bots_with(1, cmdd=PY_BOT)), "bots[1].cmdd",
     "unknown key; did you mean cmd?"),
    ("unknown time key", valid(time={"move": 100}), "time.move", "unknown key; did you mean move_ms?"),
    ("unknown limits key, nothing close", valid(limits={"ram": 100}), "limits.ram",
     "unknown key (allowed: "),
    ("players not an integer", valid(players="four"), "players", "expected an integer"),
    ("players too few", valid(players=2), "players", "2 is out of range (3..7)"),
    ("players too many", valid(players=8), "players", "8 is out of range (3..7)"),
    ("partnership players", valid(game="partnership-blackout", players=3), "players", "out of range"),
    ("rounds zero", valid(rounds=0), "rounds", "0 is out of range"),
    ("rounds a string", valid(rounds="two"), "rounds", "expected an integer"),
    ("rounds a bool", valid(rounds=True), "rounds", "expected an integer"),
    ("max_tables zero", valid(max_tables=0), "max_tables", "out of range"),
    ("seed negative", valid(seed=-1), "seed", "out of range"),
    ("jobs zero", valid(jobs=0), "jobs", "out of range"),
    ("move_ms zero", valid(time={"move_ms": 0}), "time.move_ms", "out of range"),
    ("memory a string", valid(limits={"memory_mb": "lots"}), "limits.memory_mb", "expected an integer"),
    ("quit grace negative", valid(limits={"quit_grace_ms": -1}), "limits.quit_grace_ms",
     "out of range"),
    ("time not a mapping", valid(time=[100]), "time", "expected a mapping"),
    ("bots not a list", valid(bots={"name": "x", "cmd": PY_BOT}), "bots", "expected a list of bots"),
    ("bots empty", valid(bots=[]), "bots", "expected a list of bots"),
    ("bot not a mapping", valid(bots=[PY_BOT] * 4), "bots[0]", "expected a mapping"),
    ("unknown game", valid(game="hearts"), "game", "unknown game 'hearts'"),
    ("bad option value", valid(options={"hook": "maybe"}), "options.hook",
     "expected true or false, got 'maybe'"),
    ("oh_hell scoring without its zero bid", valid(options={"scoring": "oh_hell"}), "options.scoring",
     "set zero_bid to bonus_only with it"),
    ("unknown option", valid(options={"hok": True}), "options.hok", "blackout has no such option"),
    ("options not a mapping", valid(options=["hook"]), "options", "expected a mapping"),
    ("missing program", valid(bots=bots_with(2, cmd="bots/nope")), "bots[2].cmd",
     "no such file 'bots/nope'"),
    ("missing script", valid(bots=bots_with(0, cmd="python3 bots/python/nope.py")), "bots[0].cmd",
     "no such file 'bots/python/nope.py'"),
    ("program not on PATH", valid(bots=bots_with(3, cmd="no-such-interpreter-x bot.py")), "bots[3].cmd",
     "not a program on PATH"),
    ("empty command", valid(bots=bots_with(1, cmd="")), "bots[1].cmd", "expected a command"),
    ("unsplittable command", valid(bots=bots_with(1, cmd="python3 'bots")), "bots[1].cmd",
     "cannot split"),
    ("missing workdir", valid(bots=bots_with(1, workdir="no/such/dir")), "bots[1].workdir",
     "no such directory 'no/such/dir'"),
    ("duplicate bot names", valid(bots=bots_with(3, name="bot1")), "bots[3].name",
     "'bot1' is already the name of another bot"),
    ("bot names differing in case", valid(bots=bots_with(3, name="BOT1")), "bots[3].name",
     "'BOT1' is the name of another bot, 'bot1', written differently"),
    ("bot names differing by a trailing dot", valid(bots=bots_with(3, name="bot1.")), "bots[3].name",
     "'bot1.' is the name of another bot, 'bot1', written differently"),
    ("challenger named like a bot in another case",
     valid(format="gauntlet", bots=bots_with(0)[:3], challengers=[{"name": "Bot0", "cmd": PY_BOT}]),
     "challengers[0].name", "'Bot0' is the name of a bot, 'bot0', written differently"),
    ("bot name with a plus", valid(bots=bots_with(0, name="a+b")), "bots[0].name", "use letters"),
    ("bot name missing", valid(bots=bots_with(2, name=None)), "bots[2].name", "missing (required)"),
    ("bot cmd missing", valid(bots=bots_with(2, cmd=None)), "bots[2].cmd", "missing (required)"),
    ("name missing", valid(name=None), "name", "missing (required)"),
    ("game missing", valid(game=None), "game", "missing (required)"),
    ("bots missing", valid(bots=None), "bots", "missing (required)"),
    ("name with a slash", valid(name="a/b"), "name", "use letters"),
    ("name empty", valid(name="  "), "name", "expected a non-empty string"),
    ("teams in blackout", valid(teams=[["bot0", "bot1"]]), "teams", "only partnership-blackout has teams"),
    ("team naming an unknown bot", valid(game="partnership-blackout", players=None,
                                         teams=[["bot0", "bot1"], ["bot2", "botx"]]),
     "teams[1]", "no bot named 'botx'"),
    ("team not a pair", valid(game="partnership-blackout", players=None,
                              teams=[["bot0", "bot1", "bot2"], ["bot2", "bot3"]]),
     "teams[0]", "expected a pair of bot names"),
    ("team listed twice", valid(game="partnership-blackout", players=None,
                                teams=[["bot0", "bot1"], ["bot0", "bot1"]]),
     "teams[1]", "listed twice"),
    ("teams not a list", valid(game="partnership-blackout", players=None, teams="bot0+bot1"),
     "teams", "expected a list"),
    ("too few bots", valid(players=5), "bots", "4 entrants: at least 5 bots for 5-player tables needed"),
    ("too few teams", valid(game="partnership-blackout", players=None, teams=[["bot0", "bot1"]]),
     "bots", "1 entrants: at least 2 teams needed"),
    ("one partnership bot", valid(game="partnership-blackout", players=None, bots=bots_with(0)[:1]),
     "bots", "at least 2 teams needed"),
    ("fault_policy typo", valid(fault_policy="forfiet"), "fault_policy",
     "'forfiet' is not one of forfeit, substitute"),
    ("unknown schedule", valid(schedule="swiss"), "schedule", "'swiss' is not one of round-robin"),
    ("requires not a name", valid(bots=bots_with(1, requires=3)), "bots[1].requires",
     "expected a program name or a list of them, got int 3"),
    ("requires empty list", valid(bots=bots_with(1, requires=[])), "bots[1].requires",
     "expected a program name or a list of them"),
    ("too few bots left", valid(bots=bots_with(3, requires="no-such-program-xyz")), "bots",
     "3 entrants: at least 4 bots for 4-player tables needed"),
]


@pytest.mark.parametrize(("config", "key", "problem"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_config_error_names_file_key_and_problem(tmp_path: Path, config: dict[str, Any], key: str,
                                                  problem: str) -> None:
    path = write(tmp_path, config)
    message = error_of(path)
    assert message.startswith(f"{path}: {key}: "), message
    assert problem in message, message
    assert "\n" not in message


def test_not_a_mapping_at_top(tmp_path: Path) -> None:
    path = write(tmp_path, "- just\n- a list\n")
    assert error_of(path) == f"{path}: expected a mapping, got list ['just', 'a list']"


def test_empty_file(tmp_path: Path) -> None:
    path = write(tmp_path, "")
    assert error_of(path) == f"{path}: expected a mapping, got nothing"


def test_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "absent.yaml"
    assert error_of(path) == f"{path}: no such tournament file"


@pytest.mark.parametrize(("text", "line"), [
    ("name: x\ngame: blackout\nbots: [1, 2\n", 4),
    ("name: x\ngame: blackout\n  players: 4\n", 3),
    ("name: x\nbots:\n  - name: a\n    cmd: 'unterminated\n", 5),
    ("name: x\ngame: blackout\nseed: @1\n", 3),
    ("name: x\ngame: blackout\nseed: 1\nbots: []\nseed: 2\n", 5),  # PyYAML would keep the last
    ("name: x\nbots:\n  - name: a\n    cmd: a\n    name: b\n", 5),
])
def test_bad_yaml_names_the_line(tmp_path: Path, text: str, line: int) -> None:
    path = write(tmp_path, text)
    message = error_of(path)
    assert message.startswith(f"{path}: line {line}: invalid YAML: "), message
    assert "\n" not in message


def test_yaml_merge_keys_may_be_overridden(tmp_path: Path) -> None:
    """Only keys written twice are duplicates: a merged key overridden by its own entry is not."""
    text = f"name: x\ngame: blackout\nbots:\n  - &py {{name: b0, cmd: {PY_BOT}}}\n" + "".join(
        f"  - {{<<: *py, name: b{i}}}\n" for i in range(1, 4))
    tournament = load_tournament(write(tmp_path, text))
    assert [bot.name for bot in tournament.bots] == ["b0", "b1", "b2", "b3"]


def test_workdir_makes_cmd_relative(tmp_path: Path) -> None:
    bots = bots_with(0, workdir="bots/python", cmd="python3 ./random_bot.py")
    tournament = load_tournament(write(tmp_path, valid(bots=bots)))
    assert tournament.bots[0].workdir == str(Path("bots/python").absolute())  # resolved once
    assert tournament.bots[0].argv == ("python3", "./random_bot.py")
    bots = bots_with(0, workdir="bots/python", cmd="python3 ./nope.py")
    assert "bots[0].cmd: no such file './nope.py'" in error_of(write(tmp_path, valid(bots=bots)))


def test_build_command_defers_the_program_check(tmp_path: Path) -> None:
    bots = bots_with(0, cmd="bots/c/not_built_yet", build="make -C bots/c")
    tournament = load_tournament(write(tmp_path, valid(bots=bots)))
    assert tournament.bots[0].build == ("make", "-C", "bots/c")
    assert tournament.bots[0].argv == ("bots/c/not_built_yet",)


def test_defaults(tmp_path: Path) -> None:
    config = valid(players=None)
    tournament = load_tournament(write(tmp_path, config))
    assert isinstance(tournament, Tournament)
    assert tournament.players == 4
    assert tournament.rounds == 1
    assert tournament.max_tables == 200
    assert tournament.seed == 1
    assert tournament.schedule == "round-robin"
    assert tournament.play.time == TimeControl()
    assert tournament.play.limits == Limits()
    assert tournament.play.policy is FaultPolicy.FORFEIT
    assert tournament.jobs is None
    assert tournament.teams == ()
    assert tournament.rating is DEFAULT_RATING
    assert tournament.options["hook"] is False
    assert [bot.argv for bot in tournament.bots] == [("python3", "bots/python/random_bot.py")] * 4


@pytest.mark.parametrize("model", list(RatingModel))
def test_rating_names_the_model(tmp_path: Path, model: RatingModel) -> None:
    assert load_tournament(write(tmp_path, valid(rating=model.value))).rating is model


def test_every_key_is_read(tmp_path: Path) -> None:
    config = valid(players=3, options={"hook": "true", "deals": 5}, rounds=2, max_tables=7, seed=0,
                   time={"start_ms": 500, "move_ms": 20, "bank_ms": 0},
                   limits={"memory_mb": None, "cpu_seconds": 30, "file_mb": 2, "quit_grace_ms": 500},
                   fault_policy="substitute", jobs=3, schedule="round-robin")
    config["bots"][0]["cmd"] = ["python3", "bots/python/random_bot.py"]
    tournament = load_tournament(write(tmp_path, config))
    assert (tournament.players, tournament.rounds, tournament.max_tables, tournament.seed) == (3, 2, 7, 0)
    assert tournament.options["hook"] is True and tournament.options["deals"] == 5
    assert tournament.play.time == TimeControl(start_ms=500, move_ms=20, bank_ms=0)
    assert tournament.play.limits == Limits(memory_mb=None, cpu_seconds=30, file_mb=2, quit_grace_ms=500)
    assert tournament.play.policy is FaultPolicy.SUBSTITUTE
    assert tournament.jobs == 3
    assert tournament.bots[0].argv == ("python3", "bots/python/random_bot.py")


def test_partnership_teams(tmp_path: Path) -> None:
    config = valid(game="partnership-blackout", players=None,
                   teams=[["bot0", "bot1"], ["bot2", "bot3"], ["bot0", "bot0"]])
    tournament = load_tournament(write(tmp_path, config))
    assert tournament.has_teams
    assert tournament.players == 4
    assert tournament.teams == (("bot0", "bot1"), ("bot2", "bot3"), ("bot0", "bot0"))


def test_a_team_names_its_bots_as_names_are_compared(tmp_path: Path) -> None:
    """A team written ``BOT0`` is the bot ``bot0`` (names compare by ``arena.names.name_key``), and
    is recorded under the bot's own spelling."""
    config = valid(game="partnership-blackout", players=None,
                   teams=[["BOT0", "bot1."], ["bot2", "Bot3"]])
    tournament = load_tournament(write(tmp_path, config))
    assert tournament.teams == (("bot0", "bot1"), ("bot2", "bot3"))


@pytest.mark.parametrize("name", ["demo.yaml", "demo-partnership.yaml"])
def test_demo_files_load(name: str) -> None:
    tournament = load_tournament(REPO / "tournaments" / name)
    assert tournament.name == name.removesuffix(".yaml")
    assert len(tournament.bots) >= 3


# --- The command line -------------------------------------------------------------------------------


@pytest.mark.parametrize("config", [
    valid(players="four"),
    valid(bots=bots_with(1, cmdd=PY_BOT)),
    "name: x\ngame: blackout\nbots: [1, 2\n",
], ids=["wrong type", "unknown nested key", "bad yaml"])
@pytest.mark.slow
def test_cli_prints_one_error_line_and_exits_2(tmp_path: Path, config: dict[str, Any] | str) -> None:
    path = write(tmp_path, config, "bad.yaml")
    done = arena("run", str(path), "--out", str(tmp_path / "out"))
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(f"arena: error: {path}: ")
    assert "Traceback" not in done.stderr + done.stdout
    assert not (tmp_path / "out").exists()


@pytest.mark.slow
def test_cli_run_help_explains_resume() -> None:
    done = arena("run", "--help")
    assert done.returncode == 0, done.stderr
    assert "--resume" in done.stdout
    text = " ".join(done.stdout.replace("\u2502", " ").split())  # rich draws boxes with U+2502
    assert "finished games are kept" in text, text


def test_requires_leaves_out_a_bot_and_its_teams(tmp_path: Path) -> None:
    bots = bots_with(2, requires=["sh", "no-such-program-xyz"], cmd="no-such-program-xyz --x")
    path = write(tmp_path, valid(game="partnership-blackout", players=None, bots=bots,
                                 teams=[["bot0", "bot1"], ["bot2", "bot3"], ["bot3", "bot0"]]))
    tournament = load_tournament(path)
    assert [bot.name for bot in tournament.bots] == ["bot0", "bot1", "bot3"]
    assert tournament.teams == (("bot0", "bot1"), ("bot3", "bot0"))
    assert tournament.left_out == (f"{path}: bots[2] (bot2) left out: requires "
                                   "'no-such-program-xyz', which is not on PATH (and with it "
                                   "teams[1], bot2+bot3)",)


def test_the_docs_list_every_bot_key_once() -> None:
    """docs/tournaments.md's bot keys table, read against the keys the loader allows (it once
    listed build twice)."""
    from arena.plans.tournament import BOT_KEYS

    docs = (REPO / "docs" / "tournaments.md").read_text()
    table = docs.split("### Bots", 1)[1].split("| key | type | meaning |", 1)[1].split("\n\n")[0]
    keys = [line.split("`")[1] for line in table.splitlines() if line.startswith("| `")]
    assert sorted(keys) == sorted(BOT_KEYS)
