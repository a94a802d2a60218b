"""Deal suites: ``arena deals`` writes one, ``deals: FILE`` and ``arena match --deals`` play its
lines in order (one per duplicate set, every seat rotation on it), a resumed run refuses a changed
file, a bad file is one line naming file, line and problem."""

from __future__ import annotations

import io
import json
from pathlib import Path

import orjson
import pytest

import engine
from arena.errors import ConfigError
from arena.plans.deals import load_suite, suite_text
from arena.plans.extension import changed_key
from arena.plans.match import new_match, unit_games
from arena.plans.schedule import schedule
from arena.plans.tournament import load_tournament
from arena.runs.match import play_match
from arena.runs.run import run_tournament
from arena.settings import TimeControl
from arena.spec import PlaySettings
from arena.values.ids import match_unit
from engine.chance import Preset

from helpers import C_BOT, FIRST_BOT, ROOT, arena

SHIPPED = ROOT / "tournaments" / "deals"


def suite(tmp_path: Path, count: int = 3, seed: int = 5, players: int = 3,
          name: str = "d.jsonl") -> Path:
    path = tmp_path / name
    path.write_text(suite_text("blackout", players, {"deals": 2}, count, seed))
    return path


def tournament(tmp_path: Path, deals: Path | None, bots: int = 3, rounds: int = 2) -> Path:
    lines = ["name: t", "game: blackout", "players: 3", f"rounds: {rounds}", "seed: 5",
             "options: {deals: 2}", "time: {move_ms: 5000, bank_ms: 5000}"]
    if deals is not None:
        lines.append(f"deals: {deals}")
    lines.append("bots:")
    lines += [f"  - {{name: c{i}, cmd: {C_BOT if i % 2 else FIRST_BOT}}}" for i in range(bots)]
    path = tmp_path / "t.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


def presets(path: Path) -> list[dict[str, object]]:
    """The file's lines as the records write a preset (lists of card names)."""
    return [Preset.parse(json.loads(line)).to_json() for line in path.read_text().splitlines()
            if line and not line.startswith("#")]


@pytest.mark.parametrize(("file", "game"), [("blackout-4.jsonl", "blackout"),
                                            ("partnership-blackout.jsonl", "partnership-blackout")])
def test_the_shipped_suites_load_for_their_game(file: str, game: str) -> None:
    loaded = load_suite(SHIPPED / file, game, 4, engine.game(game).resolve_options(4), "test")
    assert len(loaded) >= 20


def test_the_schedule_gives_the_lines_to_the_sets_in_order(tmp_path: Path) -> None:
    deals = suite(tmp_path, count=3)
    specs = schedule(load_tournament(tournament(tmp_path, deals, bots=4, rounds=2)))
    lines = presets(deals)
    sets = sorted({(spec.round, spec.table) for spec in specs})
    assert len(sets) == 8  # 4 tables a round: lines 1, 2, 3, 1 | 2, 3, 1, 2
    for spec in specs:
        index = (spec.round - 1) * 4 + spec.table
        assert spec.preset is not None and spec.preset.to_json() == lines[index % 3]
    plain = schedule(load_tournament(tournament(tmp_path, None, bots=4, rounds=2)))
    assert [s.seed for s in plain] == [s.seed for s in specs]  # the seeds stay the file's
    assert all(s.preset is None for s in plain)


@pytest.mark.parametrize(("content", "problem"), [
    ("", "holds no deals"),
    ("# only a comment\n", "holds no deals"),
    ('{"dealer": 0,\n', "line 1: not JSON"),
    ('# c\n[1, 2]\n', "line 2: expected a JSON object"),
    ('{"dealer": 0, "deals": [{"hands": ["AH", "AS"], "trump_card": "5H"}]}\n',
     "line 1: deal 1: 2 hands for 3 seats"),
    ('{"dealer": 0, "deals": [{"hands": ["AH", "AS", "ZZ"], "trump_card": "5H"}]}\n',
     "line 1: deals[0].hands[2]: 'ZZ' is not a card"),
    ('{"dealer": 0, "deals": [{"hands": ["AH", "AS", "AH"], "trump_card": "5H"}]}\n',
     "line 1: deal 1: AH is dealt twice"),
    ('{"dealer": 0, "deals": [{"hands": ["AH", "AS", "2C"]}]}\n',
     "line 1: deal 1: the rules turn a card in this deal"),
    ('{"dealer": 7, "deals": [{"hands": ["AH", "AS", "2C"], "trump_card": "5H"}]}\n',
     "line 1: dealer 7 is not a seat"),
    ('{"dealer": 0, "deals": []}\n', "line 1: no deals"),
    ('{"dealer": 0, "hands": []}\n', "line 1: unknown key 'hands'"),
])
def test_a_bad_file_is_one_error_naming_file_line_and_problem(tmp_path: Path, content: str,
                                                              problem: str) -> None:
    deals = tmp_path / "d.jsonl"
    deals.write_text(content)
    with pytest.raises(ConfigError) as raised:
        load_tournament(tournament(tmp_path, deals))
    message = str(raised.value)
    assert message.startswith(f"{tmp_path / 't.yaml'}: deals: {deals}: ") and problem in message, \
        message
    assert "\n" not in message


def test_a_missing_file_says_where_it_was_looked_for(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="deals: no such file 'nope.jsonl' \\(resolved from"):
        load_tournament(tournament(tmp_path, Path("nope.jsonl")))


def test_a_deals_file_for_other_options_is_refused(tmp_path: Path) -> None:
    deals = tmp_path / "d.jsonl"
    deals.write_text(suite_text("blackout", 3, {"deals": 3}, 2, 1))  # three deals, the game two
    with pytest.raises(ConfigError, match="line 2: 3 deals given, the game has 2"):
        load_tournament(tournament(tmp_path, deals))


def test_a_partnership_deals_file_longer_than_max_deals_is_refused(tmp_path: Path) -> None:
    """A game that ends after max_deals never reaches the lines' later deals: not played silently."""
    deals = tmp_path / "d.jsonl"
    deals.write_text(suite_text("partnership-blackout", 4, {"max_deals": 4}, 2, 1))
    game = ("name: t\ngame: partnership-blackout\nplayers: 4\noptions: {max_deals: 3}\n"
            f"deals: {deals}\nbots:\n" + "".join(f"  - {{name: b{i}, cmd: {C_BOT}}}\n" for i in range(2)))
    (tmp_path / "t.yaml").write_text(game)
    with pytest.raises(ConfigError, match="line 2: 4 deals given, the game lasts at most 3 "
                                          r"\(max_deals\)"):
        load_tournament(tmp_path / "t.yaml")
    (tmp_path / "t.yaml").write_text(game.replace("max_deals: 3", "max_deals: 4"))
    assert len(load_tournament(tmp_path / "t.yaml").deals or ()) == 2


def test_extending_a_deals_run_keeps_what_was_dealt_or_is_refused(tmp_path: Path) -> None:
    deals = suite(tmp_path)
    before = load_tournament(tournament(tmp_path, deals, bots=3, rounds=2))
    more_rounds = load_tournament(tournament(tmp_path, deals, bots=3, rounds=3))
    assert changed_key(before, more_rounds) is None
    more_bots = load_tournament(tournament(tmp_path, deals, bots=4, rounds=2))
    change = changed_key(before, more_bots)
    assert change is not None and change[0] == "bots" and "deals file" in change[1]
    other = load_tournament(tournament(tmp_path, suite(tmp_path, seed=9, name="e.jsonl")))
    change = changed_key(before, other)
    assert change is not None and change[0] == "deals" and "e.jsonl" in change[1]
    moved = tmp_path / "moved.jsonl"
    moved.write_bytes(deals.read_bytes())
    assert changed_key(before, load_tournament(tournament(tmp_path, moved))) is None


@pytest.mark.slow
def test_a_run_plays_the_files_deals_and_its_resume_refuses_a_changed_file(
        tmp_path: Path) -> None:
    deals = suite(tmp_path, count=2)
    path = tournament(tmp_path, deals, bots=3, rounds=2)
    out = tmp_path / "out"
    run_tournament(path, out=out, jobs=2, resamples=0, progress_stream=io.StringIO())
    records = [orjson.loads(line) for line in (out / "games.jsonl").read_bytes().splitlines()]
    lines = presets(deals)
    assert len(records) == 6
    for record in records:  # r1-t0000-s0..2 on line 1, r2-... on line 2
        assert record["preset"] == lines[int(record["id"][1]) - 1], record["id"]
        engine.game("blackout").replay(record)  # the record replays from its preset
    assert "deals_sha256:" in (out / "tournament.yaml").read_text()
    done = arena("run", path, "--out", out, "--resume")
    assert done.returncode == 0, done.stderr
    deals.write_text(suite_text("blackout", 3, {"deals": 2}, 2, 99))
    done = arena("run", path, "--out", out, "--resume")
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert f"deals: {deals} changed since the run started" in done.stderr


@pytest.mark.slow
def test_a_match_plays_the_files_lines_unit_by_unit(tmp_path: Path) -> None:
    deals = suite(tmp_path, count=3)
    time = TimeControl(start_ms=20_000, move_ms=5_000, bank_ms=5_000)
    match = new_match(str(C_BOT), str(FIRST_BOT), [str(C_BOT)], players=3, options={"deals": 2}, games=8,
                      play=PlaySettings(time), deals=str(deals))
    lines = presets(deals)
    for unit in range(4):
        for game in unit_games(match, unit):
            assert game.preset is not None and game.preset.to_json() == lines[unit % 3]
    play_match(match, tmp_path / "m", jobs=2)
    records = [orjson.loads(line) for line in (tmp_path / "m" / "games.jsonl").read_bytes()
               .splitlines()]
    assert len(records) == 8
    for record in records:  # u00002-c: unit 2
        unit = match_unit(record["id"])
        assert unit is not None and record["preset"] == lines[unit[0] % 3], record["id"]
    deals.write_text(suite_text("blackout", 3, {"deals": 2}, 3, 99))
    done = arena("match", C_BOT, FIRST_BOT, "--field", C_BOT, "--players", "3", "-o", "deals=2",
                 "--games", "8", "--deals", deals, "--out", tmp_path / "m", "--resume")
    assert done.returncode == 2 and "differs in deals" in done.stderr, done.stderr


@pytest.mark.slow
def test_arena_deals_writes_a_file_that_reads_back_the_same_for_a_seed(tmp_path: Path) -> None:
    done = arena("deals", "blackout", "--players", "5", "--count", "4", "--seed", "3")
    assert done.returncode == 0, done.stderr
    assert done.stdout == suite_text("blackout", 5, {}, 4, 3)
    assert done.stdout.startswith("# arena deals blackout --players 5 --count 4 --seed 3")
    (tmp_path / "d.jsonl").write_text(done.stdout)
    loaded = load_suite(tmp_path / "d.jsonl", "blackout", 5, engine.game("blackout")
                        .resolve_options(5), "test")
    assert len(loaded) == 4
    done = arena("deals", "blackout", "--players", "9")
    assert done.returncode == 2 and done.stderr == \
        "arena: error: --players: blackout is for 3, 4, 5, 6, 7 players, not 9\n"


@pytest.mark.slow
def test_the_dry_run_says_which_lines_the_sets_play(tmp_path: Path) -> None:
    deals = suite(tmp_path, count=3)
    done = arena("run", tournament(tmp_path, deals, bots=4, rounds=2), "--dry-run")
    assert done.returncode == 0, done.stderr
    assert f"deals: {deals}: 8 sets play lines 1..3 of its 3, each played by up to 3 sets" \
        in done.stdout.splitlines()
