"""The key table of play settings (arena.spec): docs, tournament files and command lines agree."""

from __future__ import annotations

import ast
import enum
from pathlib import Path
from typing import Any

import pytest
import typer.main

from arena import spec
from arena.cli import app
from arena.errors import ConfigError
from arena.league.config import LeagueSettings
from arena.league.store import Store
from arena.plans.tournament import load_tournament
from arena.settings import Clock, FaultPolicy, Limits, SandboxMode, TimeControl

from helpers import option_range

ROOT = Path(__file__).resolve().parents[2]
COMMANDS = {"play": ("play",), "check-bot": ("check-bot",), "match": ("match",),
            "league init": ("league", "init")}


def command(path: tuple[str, ...]) -> Any:
    """The click command at ``path`` (typer's own click, whose classes are not ``click``'s)."""
    group: Any = typer.main.get_command(app)
    for name in path:
        group = group.commands[name]
    return group


def test_docs_hold_each_settings_row_as_the_table_says_it() -> None:
    text = (ROOT / "docs" / "tournaments.md").read_text()
    for setting in spec.SETTINGS:
        assert setting.doc_row() in text, f"docs/tournaments.md: {setting.key} differs:\n" \
                                          f"{setting.doc_row()}"


@pytest.mark.parametrize("name", list(COMMANDS))
def test_every_commands_setting_option_is_the_tables(name: str) -> None:
    """Each option of a play setting has the table's name, bounds and default (help may say
    more than the table's line, never less)."""
    options = {param.opts[0]: param for param in command(COMMANDS[name]).params
               if param.param_type_name == "option"}
    found = [setting for setting in spec.SETTINGS if setting.option_name in options]
    assert len(found) >= 8, (name, sorted(options))
    for setting in found:
        param = options[setting.option_name]
        assert setting.help in (param.help or ""), (name, setting.key)
        if name == "check-bot" and setting.key == spec.SEED_SETTING.key:
            continue  # its games take seeds from it on: it stops 10 short of the last
        if name == "check-bot" and setting is spec.GAME:
            continue  # repeatable: the games to check, every game when none is given
        if setting.range is not None:
            assert option_range(param) == (setting.range.low, setting.range.high), \
                (name, setting.key)
        default = setting.default.value if isinstance(setting.default, enum.Enum) else \
            setting.default
        if setting.key == spec.CLOCK.key and name == "match":
            assert param.default is None  # a resumed match keeps its own clock
        elif setting.type in (list, dict):  # a repeatable option: nothing given, nothing
            assert not param.default
        else:
            shown = param.default.value if isinstance(param.default, enum.Enum) else param.default
            assert shown == default, (name, setting.key, param.default)


def test_the_commands_that_play_take_every_time_setting() -> None:
    for name, path in COMMANDS.items():
        options = {param.opts[0] for param in command(path).params}
        assert {s.option_name for s in spec.TIME_SETTINGS} <= options, name


def test_league_init_sets_every_play_setting(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    done = CliRunner().invoke(app, [
        "league", "init", str(tmp_path / "lg"), "--game", "blackout", "--start-ms", "3000",
        "--move-ms", "50", "--bank-ms", "0", "--clock", "wall", "--wall-ms", "900",
        "--memory-mb", "300", "--cpu-seconds", "60", "--file-mb", "4", "--quit-grace-ms", "100",
        "--policy", "substitute", "--seed", "9", "--sandbox", "none"])
    assert done.exit_code == 0, done.output
    store = Store.open(tmp_path / "lg")
    try:
        settings = LeagueSettings.of(store)
    finally:
        store.close()
    assert settings.play.time == TimeControl(3000, 50, 0, Clock.WALL, 900)
    assert settings.play.limits == Limits(memory_mb=300, cpu_seconds=60, file_mb=4, quit_grace_ms=100)
    assert (settings.play.policy, settings.seed, settings.play.sandbox) == \
        (FaultPolicy.SUBSTITUTE, 9, SandboxMode.NONE)


def test_a_tournament_file_sets_every_setting_of_the_table(tmp_path: Path) -> None:
    bot = ROOT / "bots" / "c" / "random_bot"
    path = tmp_path / "t.yaml"
    path.write_text(
        "name: t\ngame: blackout\nplayers: 3\nseed: 7\nfault_policy: substitute\n"
        "sandbox: none\nrating: places\nsandbox_interpreters: []\n"
        "time: {start_ms: 3000, move_ms: 50, bank_ms: 0, clock: cpu, wall_ms: 900}\n"
        "limits: {memory_mb: null, cpu_seconds: 60, file_mb: 4, quit_grace_ms: 100}\n"
        f"bots:\n  - {{name: a, cmd: {bot}}}\n  - {{name: b, cmd: {bot}}}\n"
        f"  - {{name: c, cmd: {bot}}}\n")
    tournament = load_tournament(path)
    assert tournament.play.time == TimeControl(3000, 50, 0, Clock.CPU, 900)
    assert tournament.play.limits == Limits(memory_mb=None, cpu_seconds=60, file_mb=4, quit_grace_ms=100)
    assert (tournament.seed, tournament.play.policy, tournament.rating.value) == \
        (7, FaultPolicy.SUBSTITUTE, "places")
    assert tournament.clock_given


@pytest.mark.parametrize("setting", [s for s in spec.SETTINGS if s.range is not None],
                         ids=lambda s: s.key)
def test_a_tournament_file_value_out_of_the_tables_range_is_one_line(
        tmp_path: Path, setting: spec.Setting) -> None:
    assert setting.range is not None
    section, _, name = setting.key.rpartition(".")
    value = f"{name}: {setting.range.high + 1}"
    text = f"{section}: {{{value}}}\n" if section else f"{value}\n"
    bot = ROOT / "bots" / "c" / "random_bot"
    path = tmp_path / "t.yaml"
    path.write_text(f"name: t\ngame: blackout\nplayers: 3\n{text}bots:\n"
                    + "".join(f"  - {{name: {n}, cmd: {bot}}}\n" for n in "abc"))
    with pytest.raises(ConfigError) as error:
        load_tournament(path)
    assert str(error.value).startswith(f"{path}: {setting.key}: ")


# Each default declared once ---------------------------------------------------------------------

VALUE_TYPES = ("TimeControl", "Limits")
"""The play settings' value types: their fields' defaults are the key table's (``arena.settings``
declares them, ``DEFAULT_TIME`` and ``DEFAULT_LIMITS`` are the one instance of each)."""
ENUM_DEFAULTS = {f"{type(s.default).__name__}.{s.default.name}" for s in spec.SETTINGS
                 if isinstance(s.default, enum.Enum)}
"""The enum settings' defaults as code names them (``FaultPolicy.FORFEIT``, ``Clock.FAIR``...)."""


def literal_defaults(source: str) -> list[str]:
    """Where ``source`` writes a play setting's default itself instead of naming the key table's:
    an enum setting's default as a function's or a class field's default (``policy: FaultPolicy =
    FaultPolicy.FORFEIT``, ``field(default=SandboxMode.NONE)``; another member is another meaning,
    as a request's ``clock: Clock = Clock.WALL``), or a value type made with its own defaults
    anywhere (``TimeControl()``, ``field(default_factory=Limits)``); ``LINE: TEXT``."""
    tree = ast.parse(source)
    defaults: list[ast.expr] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            defaults += node.args.defaults + [d for d in node.args.kw_defaults if d is not None]
        elif isinstance(node, ast.ClassDef):
            defaults += [item.value for item in node.body
                         if isinstance(item, ast.AnnAssign | ast.Assign) and item.value is not None]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id == "field":
            defaults += [k.value for k in node.keywords if k.arg == "default"]
    found = [default for default in defaults if ast.unparse(default) in ENUM_DEFAULTS]
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            if node.func.id in VALUE_TYPES and not node.args and not node.keywords:
                found.append(node)
            found += [k.value for k in node.keywords if k.arg == "default_factory"
                      and isinstance(k.value, ast.Name) and k.value.id in VALUE_TYPES]
    return [f"{node.lineno}: {ast.unparse(node)}" for node in found]


def test_no_play_setting_default_is_written_outside_the_key_table() -> None:
    """arena/settings.py declares the value types and the defaults the key table (arena/spec.py)
    takes; everything else names them (``DEFAULT_POLICY``, ``spec.POLICY.default``...)."""
    written = {str(path.relative_to(ROOT)): found for path in sorted((ROOT / "arena").rglob("*.py"))
               if path != ROOT / "arena" / "settings.py"
               and (found := literal_defaults(path.read_text()))}
    assert written == {}


def test_the_default_finder_finds_each_way_of_writing_one() -> None:
    source = '''
@dataclass
class Settings:
    policy: FaultPolicy = FaultPolicy.FORFEIT
    box: SandboxMode = field(default=SandboxMode.NONE)
    limits: Limits = field(default_factory=Limits)
    kept: FaultPolicy = DEFAULT_POLICY

def play(time: TimeControl = TimeControl(), *, clock: Clock = Clock.FAIR,
         limits: Limits = DEFAULT_LIMITS, asked: Clock = Clock.WALL) -> None:
    if clock is Clock.WALL:
        pass
'''
    assert sorted(literal_defaults(source)) == [
        "4: FaultPolicy.FORFEIT", "5: SandboxMode.NONE", "6: Limits", "9: Clock.FAIR",
        "9: TimeControl()"]


def test_play_settings_defaults_are_the_key_tables() -> None:
    play = spec.PlaySettings()
    for setting in spec.TIME_SETTINGS + spec.LIMIT_SETTINGS:
        part = play.time if setting in spec.TIME_SETTINGS else play.limits
        assert getattr(part, setting.field) == setting.default, setting.key
    assert (play.policy, play.sandbox, play.interpreters) == \
        (spec.POLICY.default, spec.SANDBOX.default, spec.INTERPRETERS.default)
    assert set(play.file_keys().values()) == {"time", "limits"} | {
        s.key for s in spec.SETTINGS if not s.key.startswith(("time.", "limits."))} - {
        s.key for s in (*spec.GAME_SETTINGS, spec.SEED_SETTING, spec.RATING, spec.SEATING)}
