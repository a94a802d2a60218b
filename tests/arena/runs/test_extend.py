"""Through the real `arena run`: extending a finished run, the fault summary, `requires`, builds."""

from __future__ import annotations

import io
import os
import shutil
from pathlib import Path

import orjson
import pytest

from arena.plans.schedule import schedule
from arena.plans.seating import Seating
from arena.plans.tournament import load_tournament
from arena.runs.runner import recorded_seating, run_tournament

from helpers import arena

ROOT = Path(__file__).resolve().parents[3]
C_BOT = str(ROOT / "bots" / "c" / "random_bot")
MISBEHAVING = ROOT / "tests" / "bots" / "misbehaving"

pytestmark = pytest.mark.timeout(180)


def write(tmp_path: Path, bots: list[tuple[str, str]], rounds: int = 1, *extra: str,
          name: str = "t.yaml") -> Path:
    lines = ["name: t", "game: blackout", "players: 3", f"rounds: {rounds}", "seed: 5",
             "options: {deals: 3}", "time: {move_ms: 2000, bank_ms: 2000}", *extra, "bots:"]
    for bot, cmd in bots:
        lines += [f"  - name: {bot}", f"    cmd: {cmd}"]
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n")
    return path


def played(path: Path, out: Path) -> None:
    """The tournament ``path`` played into ``out`` in process (one job): the run that the command
    under test then resumes."""
    run_tournament(path, out=out, jobs=1, resamples=0, progress_stream=io.StringIO())


def lines_by_id(out: Path) -> dict[str, dict]:
    lines = [orjson.loads(line) for line in (out / "games.jsonl").read_bytes().splitlines()]
    by_id = {line["id"]: line for line in lines}
    assert len(by_id) == len(lines), "a game was played twice"
    return by_id


def c_bots(count: int) -> list[tuple[str, str]]:
    return [(f"c{i}", C_BOT) for i in range(count)]


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished run of 3 bots, 2 rounds (6 games), played once for the tests below to copy."""
    base = tmp_path_factory.mktemp("finished")
    played(write(base, c_bots(3), 2), base / "out")
    return base


def copy_of(finished: Path, tmp_path: Path) -> tuple[Path, Path]:
    """The finished run's tournament file and results directory, copied into ``tmp_path``."""
    shutil.copytree(finished / "out", tmp_path / "out")
    shutil.copyfile(finished / "t.yaml", tmp_path / "t.yaml")
    return tmp_path / "t.yaml", tmp_path / "out"


@pytest.mark.slow
def test_more_rounds_and_bots_extend_a_finished_run(finished: Path, tmp_path: Path) -> None:
    path, out = copy_of(finished, tmp_path)
    first = lines_by_id(out)
    assert len(first) == 6
    write(tmp_path, c_bots(4), 3)  # one bot and one round more, same file
    done = arena("run", str(path), "--out", str(out), "--resume", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "6 from before" in done.stdout
    extended = lines_by_id(out)
    assert sorted(extended) == sorted(spec.id for spec in schedule(load_tournament(path)))
    assert len(extended) == 3 * 4 * 3  # 4 tables of 3 (from 4 bots), 3 rotations, 3 rounds
    assert all(extended[game_id] == line for game_id, line in first.items())  # kept, not replayed
    # The copy is the new file, with the seat-order design the run keeps.
    assert (out / "tournament.yaml").read_text() == recorded_seating(
        path.read_bytes(), Seating.BALANCED).decode()


@pytest.mark.parametrize(("change", "key"), [
    ({"seed": "seed: 6"}, "seed"),
    ({"rounds": "rounds: 0"}, "rounds"),
    ({"bots": "c9"}, "bots[1].name"),
    ({"options": "options: {deals: 4}"}, "options"),
    ({"time": "time: {move_ms: 500, bank_ms: 2000}"}, "time.move_ms"),
])
@pytest.mark.slow
def test_any_other_change_is_refused_naming_its_key(finished: Path, tmp_path: Path,
                                                    change: dict[str, str], key: str) -> None:
    path, out = copy_of(finished, tmp_path)
    before = (out / "games.jsonl").read_bytes()
    text = path.read_text()
    (what, replacement), = change.items()
    if what == "bots":
        text = text.replace("name: c1", f"name: {replacement}")
    elif what == "rounds":
        text = text.replace("rounds: 2", "rounds: 1")
    else:
        text = "\n".join(replacement if line.startswith(f"{what}:") else line
                         for line in text.splitlines()) + "\n"
    path.write_text(text)
    done = arena("run", str(path), "--out", str(out), "--resume", cwd=tmp_path)
    assert done.returncode == 2
    error = done.stderr.strip().splitlines()
    assert len(error) == 1 and f"{path}: {key}: " in error[0] and "--restart" in error[0], error
    assert (out / "games.jsonl").read_bytes() == before


@pytest.mark.slow
def test_comments_and_layout_are_not_changes(finished: Path, tmp_path: Path) -> None:
    path, out = copy_of(finished, tmp_path)
    path.write_text("# the same tournament, reworded\n" + path.read_text().replace("seed: 5",
                                                                                  "seed:   5  # x"))
    done = arena("run", str(path), "--out", str(out), "--resume", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "0 played now, 6 from before" in done.stdout


@pytest.mark.slow
def test_a_bot_added_to_a_sampled_schedule_is_refused(tmp_path: Path) -> None:
    """With more tables than max_tables, the sample changes with the bots: the saved games no
    longer match, and the run says so instead of mixing two schedules."""
    out = tmp_path / "out"
    path = write(tmp_path, c_bots(5), 1, "max_tables: 6")
    played(path, out)
    before = (out / "games.jsonl").read_bytes()
    write(tmp_path, c_bots(6), 1, "max_tables: 6")
    done = arena("run", str(path), "--out", str(out), "--resume", cwd=tmp_path)
    assert done.returncode == 2
    assert "--restart" in done.stderr and "max_tables" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert (out / "games.jsonl").read_bytes() == before


@pytest.mark.slow
def test_fault_summary_after_the_table(tmp_path: Path) -> None:
    bots = [*c_bots(2), ("crasher", f"python3 -S {MISBEHAVING / 'crash_mid_game.py'} 2"),
            ("cheat", f"python3 -S {MISBEHAVING / 'illegal.py'} junk 1")]
    path = write(tmp_path, bots, 1, "players: 4")
    path.write_text(path.read_text().replace("players: 3\n", "", 1))
    done = arena("run", str(path), "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    summary = done.stdout.split("faults by bot")[1].splitlines()
    games = lines_by_id(tmp_path / "out")
    first = {kind: min(game_id for game_id, line in games.items()
                       if any(f["kind"] == kind for f in line["faults"]))
             for kind in ("crash", "illegal")}
    assert "  cheat: 4 (illegal 4)" in summary and "  crasher: 4 (crash 4)" in summary
    crash = next(line for line in summary if line.startswith("    crash: "))
    assert crash.startswith(f"    crash: {first['crash']} deal ") and "exited with code 3" in crash
    illegal = next(line for line in summary if line.startswith("    illegal: "))
    assert illegal.startswith(f"    illegal: {first['illegal']} deal ")


@pytest.mark.slow
def test_no_fault_summary_without_faults(finished: Path, tmp_path: Path) -> None:
    path, out = copy_of(finished, tmp_path)
    done = arena("run", str(path), "--out", str(out), "--resume", cwd=tmp_path)
    assert done.returncode == 0 and "Elo" in done.stdout and "faults by bot" not in done.stdout


@pytest.mark.slow
def test_a_bot_whose_required_program_is_missing_is_left_out_with_a_warning(tmp_path: Path) -> None:
    path = write(tmp_path, c_bots(3))
    path.write_text(path.read_text() + "  - name: needs-tool\n"
                    "    cmd: no-such-tool-xyz --play\n"
                    "    build: no-such-compiler-xyz Bot.x\n"
                    "    requires: [no-such-compiler-xyz, no-such-tool-xyz]\n")
    done = arena("run", str(path), "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (f"arena: warning: {path}: bots[3] (needs-tool) left out: requires "
            f"'no-such-compiler-xyz', which is not on PATH") in done.stderr
    assert "needs-tool" not in done.stdout and len(lines_by_id(tmp_path / "out")) == 3


def test_a_required_program_that_is_present_keeps_the_bot(tmp_path: Path) -> None:
    path = write(tmp_path, c_bots(3))
    path.write_text(path.read_text().replace(f"cmd: {C_BOT}\n", f"cmd: {C_BOT}\n    requires: sh\n", 1))
    tournament = load_tournament(path)
    assert len(tournament.bots) == 3 and tournament.left_out == ()


@pytest.mark.slow
def test_a_failed_build_shows_the_tail_of_its_output(tmp_path: Path) -> None:
    source = tmp_path / "broken.c"
    source.write_text("int main(void) { return undeclared_thing; }\n")
    path = write(tmp_path, c_bots(3))
    path.write_text(path.read_text() + "  - name: broken\n    cmd: ./broken\n"
                    f"    build: cc -o broken {source}\n")
    done = arena("run", str(path), "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.startswith(f"arena: error: {path}: bots[3].build: exited with 1")
    assert "undeclared_thing" in done.stderr and "error" in done.stderr  # the compiler's own words
    assert "Traceback" not in done.stderr


@pytest.mark.slow
def test_a_build_tail_is_at_most_twenty_lines(tmp_path: Path) -> None:
    script = tmp_path / "noisy.sh"
    script.write_text("#!/bin/sh\nfor i in $(seq 1 50); do echo line $i; done\n"
                      "echo fatal: last >&2\nexit 4\n")
    os.chmod(script, 0o755)
    path = write(tmp_path, c_bots(3))
    path.write_text(path.read_text() + f"  - name: noisy\n    cmd: ./x\n    build: {script}\n")
    done = arena("run", str(path), "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert done.returncode == 2
    shown = [line for line in done.stderr.splitlines() if line.startswith("  | ")]
    assert shown == [f"  | line {i}" for i in range(32, 51)] + ["  | fatal: last"]


def _as_before_clocks(out: Path) -> None:
    """Make the run's records look like those of a run begun before clocks were recorded."""
    games = out / "games.jsonl"
    lines = []
    for line in games.read_bytes().splitlines():
        record = orjson.loads(line)
        for key in ("format", "clock", "wall_ms", "stalls"):  # no format: a format-1 line
            record.pop(key)
        for deal in record["deals"]:
            for key in [key for key in deal if key.endswith("_cpu_ms")]:
                deal.pop(key)
        lines.append(orjson.dumps(record))
    games.write_bytes(b"\n".join(lines) + b"\n")


@pytest.mark.slow
def test_a_run_begun_before_clocks_resumes_on_the_wall_clock(finished: Path,
                                                             tmp_path: Path) -> None:
    path, out = copy_of(finished, tmp_path)
    assert {line["clock"] for line in lines_by_id(out).values()} == {"fair"}  # the new default
    _as_before_clocks(out)
    write(tmp_path, c_bots(3), 3)  # one more round; the file does not say time.clock
    done = arena("run", str(path), "--out", str(out), "--resume", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    added = [line for line in lines_by_id(out).values() if "clock" in line]
    assert len(added) == 3 and {line["clock"] for line in added} == {"wall"}


def test_a_run_begun_on_the_cpu_clock_resumes_on_it(finished: Path, tmp_path: Path) -> None:
    """A run begun before the fair clock was the default has `cpu` in its lines: resumed from a
    file that does not say time.clock, it stays on the clock its games were timed by."""
    path, out = copy_of(finished, tmp_path)
    games = out / "games.jsonl"
    records = [{**orjson.loads(line), "clock": "cpu"} for line in games.read_bytes().splitlines()]
    games.write_bytes(b"".join(orjson.dumps(record) + b"\n" for record in records))
    write(tmp_path, c_bots(3), 3)  # one more round; the file does not say time.clock
    done = arena("run", str(path), "--out", str(out), "--resume", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    clocks = [line["clock"] for line in lines_by_id(out).values()]
    assert len(clocks) == len(records) + 3 and set(clocks) == {"cpu"}


def _with_clock(path: Path, clock: str) -> None:
    text = path.read_text().replace("bank_ms: 2000}", f"bank_ms: 2000, clock: {clock}}}")
    path.write_text(text)


@pytest.mark.slow
def test_a_resumed_run_refuses_another_clock_said_in_its_file(finished: Path,
                                                              tmp_path: Path) -> None:
    path, out = copy_of(finished, tmp_path)
    _as_before_clocks(out)
    _with_clock(write(tmp_path, c_bots(3), 3), "cpu")
    refused = arena("run", str(path), "--out", str(out), "--resume", cwd=tmp_path)
    assert refused.returncode != 0
    assert "time.clock: was wall, now cpu" in refused.stderr, refused.stderr
    _with_clock(write(tmp_path, c_bots(3), 3), "wall")
    done = arena("run", str(path), "--out", str(out), "--resume", cwd=tmp_path)
    assert done.returncode == 0, done.stderr


@pytest.mark.slow
def test_the_summary_counts_the_decisions_the_arena_itself_was_late_for(finished: Path,
                                                                         tmp_path: Path) -> None:
    path, out = copy_of(finished, tmp_path)
    games = out / "games.jsonl"
    records = [orjson.loads(line) for line in games.read_bytes().splitlines()]
    records[0]["stalls"] = [2, 0, 1]
    games.write_bytes(b"".join(orjson.dumps(record) + b"\n" for record in records))
    done = arena("run", str(path), "--out", str(out), "--resume", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert ("the machine was overloaded: 3 decisions were late because the arena itself did not "
            "run (not held against the bots)") in done.stdout
    assert "faults by bot" not in done.stdout


def first_orders(out: Path) -> dict[tuple[int, int], tuple[str, ...]]:
    """Each set's seat order (its first rotation's seats), by (round, table)."""
    return {(int(game_id[1:].split("-")[0]), int(game_id.split("-t")[1][:4])): tuple(line["names"])
            for game_id, line in lines_by_id(out).items() if game_id.endswith("-s0")}


@pytest.mark.slow
def test_a_run_begun_before_seating_resumes_with_its_own(tmp_path: Path) -> None:
    # A run from before seating existed: games seated cyclic, a saved copy without the key.
    path = write(tmp_path, c_bots(4), 1, "seating: cyclic")
    out = tmp_path / "out"
    played(path, out)
    saved = out / "tournament.yaml"
    saved.write_text("".join(line for line in saved.read_text().splitlines(keepends=True)
                             if "seating" not in line))
    assert "seating" not in saved.read_text()
    write(tmp_path, c_bots(4), 3)  # two rounds more, the file silent on seating as before
    done = arena("run", str(path), "--out", "out", "--resume", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    orders = first_orders(out)
    assert len(orders) == 3 * 4
    assert all(orders[r, t] == orders[1, t] for r, t in orders)  # cyclic: one order per table
    assert saved.read_text().endswith("seating: cyclic\n")  # recorded from now on
    # Naming another design for that run is a change, not an extension.
    write(tmp_path, c_bots(4), 4, "seating: balanced")
    saved.write_text(saved.read_text().replace("seating: cyclic\n", ""))
    refused = arena("run", str(path), "--out", "out", "--resume", cwd=tmp_path)
    assert refused.returncode == 2
    assert "seating: was 'cyclic', now 'balanced'" in refused.stderr


@pytest.mark.slow
def test_a_new_run_records_its_seating_and_varies_the_order(tmp_path: Path) -> None:
    path = write(tmp_path, c_bots(4), 2)
    done = arena("run", str(path), "--out", "out", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "out" / "tournament.yaml").read_text().endswith("seating: balanced\n")
    orders = first_orders(tmp_path / "out")
    assert any(orders[2, t] != orders[1, t] for r, t in orders if r == 1)
    write(tmp_path, c_bots(4), 3)
    done = arena("run", str(path), "--out", "out", "--resume", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert len(first_orders(tmp_path / "out")) == 3 * 4
