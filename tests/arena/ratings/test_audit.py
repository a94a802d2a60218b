"""The collusion audit (arena.ratings.audit, `arena audit`) on real games of real bot processes:
a kingmaker helper beside its partner is flagged, honest bots are not (an expectation resting on
two sets included), a pair of one owner is not audited, the command's output and errors, and
the report's audit section."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import orjson
import pytest

from arena.ratings.audit import _t_upper, audit
from arena.records.reader import ReadNotes, read_audit_inputs
from arena.runs.runner import run_tournament

from helpers import ROOT, arena

GREEDY = f"{sys.executable} -S {ROOT}/bots/python/greedy_bot.py"
KINGMAKER = f"{sys.executable} -S {ROOT}/tests/bots/kingmaker_bot.py --partner partner"


def _tournament(tmp: Path, name: str, bots: list[tuple[str, str]], rounds: int) -> Path:
    listed = "\n".join(f"  - name: {bot}\n    cmd: {cmd}" for bot, cmd in bots)
    file = tmp / f"{name}.yaml"
    file.write_text(f"""
name: {name}
game: blackout
players: 4
options: {{deals: 8}}
rounds: {rounds}
seed: 7
time: {{move_ms: 5000, bank_ms: 20000, start_ms: 20000}}
bots:
{listed}
""")
    out = tmp / name
    run_tournament(file, out=out, jobs=2, resamples=0, progress_stream=None)
    return out


@pytest.fixture(scope="module")
def colluded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """180 games: four greedy bots, a plain greedy copy named partner and its kingmaker helper."""
    bots = [(f"greedy-{tag}", GREEDY) for tag in "abcd"]
    bots += [("partner", GREEDY), ("helper", KINGMAKER)]
    return _tournament(tmp_path_factory.mktemp("audit"), "collude", bots, rounds=3)


def _audited(results: Path) -> list[tuple[str, str, bool]]:
    inputs = list(read_audit_inputs([results], ReadNotes()))
    return [(pair.beneficiary, pair.helper, pair.flagged) for pair in audit(inputs).pairs]


@pytest.mark.slow
def test_kingmaker_pair_is_flagged_and_no_other(colluded: Path) -> None:
    pairs = _audited(colluded)
    assert [(a, b) for a, b, flagged in pairs if flagged] == [("partner", "helper")]
    assert pairs[0] == ("partner", "helper", True)  # flagged pairs come first


@pytest.mark.slow
def test_a_pair_of_one_owner_is_not_audited(colluded: Path, tmp_path: Path) -> None:
    lines = [orjson.loads(line) for line in (colluded / "games.jsonl").read_bytes().splitlines()]
    for line in lines:
        line["owners"] = ["ada" if name in ("partner", "helper") else name
                          for name in line["names"]]
    owned = tmp_path / "games.jsonl"
    owned.write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in lines))
    pairs = _audited(owned)
    assert not any({a, b} == {"partner", "helper"} for a, b, _ in pairs)
    assert not any(flagged for _, _, flagged in pairs)


@pytest.mark.slow
def test_honest_bots_are_not_flagged(tmp_path: Path) -> None:
    bots = [("greedy", GREEDY), ("noisy-0.1", f"{GREEDY} --noise 0.1"),
            ("noisy-0.3", f"{GREEDY} --noise 0.3"),
            ("random", f"{sys.executable} -S {ROOT}/bots/python/random_bot.py"),
            ("greedy-2", GREEDY)]
    results = _tournament(tmp_path, "honest", bots, rounds=2)
    assert [pair for pair in _audited(results) if pair[2]] == []


@pytest.mark.slow
def test_command_json_and_text(colluded: Path) -> None:
    done = arena("audit", colluded, "--format", "json", "--resamples", "50")
    assert done.returncode == 0, done.stderr
    pairs = json.loads(done.stdout)["pairs"]
    assert set(json.loads(done.stdout)) == {"pairs"}
    assert all(set(pair) == {"beneficiary", "helper", "effect", "low", "high", "p", "flagged",
                             "deals"} for pair in pairs)
    assert (pairs[0]["beneficiary"], pairs[0]["helper"], pairs[0]["flagged"]) == \
        ("partner", "helper", True)
    assert pairs[0]["low"] <= pairs[0]["effect"] <= pairs[0]["high"]
    text = arena("audit", colluded, "--resamples", "50").stdout
    assert text.startswith("FLAGGED: 1 pair")
    assert "partner helped by helper:" in text.splitlines()[1]
    assert "games together" in text.splitlines()[1]


def test_bad_input_is_one_line(tmp_path: Path) -> None:
    missing = arena("audit", tmp_path / "nothing")
    assert missing.returncode == 2
    assert missing.stderr.strip().splitlines()[-1] == \
        f"arena: error: {tmp_path / 'nothing'}: no such file or directory"
    bad = tmp_path / "games.jsonl"
    bad.write_text('{"names": ["a", "b"], "owners": ["x"], '
                   '"result": {"entrants": ["a", "b"], "scores": [1, 2]}}\n')
    wrong = arena("audit", bad)
    assert wrong.returncode == 2
    assert wrong.stderr.strip().splitlines()[-1] == \
        f"arena: error: {bad}:1: 'owners' must be a list of 2 names, one per seat"
    assert arena("audit", bad, "--format", "xml").returncode == 2


def test_names_reach_the_terminal_printable(tmp_path: Path) -> None:
    lines = []
    for rotation, names in enumerate((["evil\x1b[2J", "b"], ["b", "evil\x1b[2J"])):
        lines.append({"names": names, "set": "s1", "seed": 1, "deal_scores": [[1, 2], [3, 1]],
                      "result": {"entrants": names, "scores": [4, 3]}, "id": f"g{rotation}"})
    file = tmp_path / "games.jsonl"
    file.write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in lines))
    done = arena("audit", file, "--resamples", "50")
    assert done.returncode == 0, done.stderr
    assert "\x1b" not in done.stdout
    assert "evil" in done.stdout


@pytest.mark.slow
def test_the_report_shows_the_audit_flagged_pairs_first(colluded: Path, tmp_path: Path) -> None:
    done = arena("report", colluded, "--out", tmp_path / "site", "--resamples", "50")
    assert done.returncode == 0, done.stderr
    page = (tmp_path / "site" / "index.html").read_text()
    section = page[page.index('<h2 id="audit">'):]
    assert "1 pair flagged of " in section
    rows = section.split('<tr')[2:]  # after the header's row
    assert rows[0].startswith(' class="flagged"><td>partner</td><td>helper</td><td>FLAGGED</td>')
    assert not any('class="flagged"' in row for row in rows[1:])
    assert "<td>greedy-a</td>" in section  # the other pairs follow, unflagged


def test_an_expectation_on_two_sets_flags_nothing() -> None:
    """40 games of five honest bots (greedy at noise 0, 0.1 and 0.3, random, search; the audit
    inputs of the bench's seed 2): each pair's expectation rests on the 2 sets of the one table
    without the helper. The audit read its bootstrap error as a normal tail and flagged 'search
    helped by random' (p 1e-5, interval unbounded); with 1 degree of freedom it flags nothing."""
    lines = (Path(__file__).parent / "honest-40-games.jsonl").read_bytes().splitlines()
    found = audit([orjson.loads(line) for line in lines])
    assert found.games == 40 and found.flagged == ()
    pair = next(p for p in found.pairs if (p.beneficiary, p.helper) == ("search", "random"))
    assert pair.effect is not None and pair.effect > 0.01  # the effect is there, untestable
    assert pair.p is None or pair.p > 0.05


@pytest.mark.parametrize(("t", "df", "upper"), [
    (1.0, 1, 0.25), (2.0, 2, 0.09175), (2.0, 5, 0.05097), (3.0, 10, 0.00667), (-2.0, 5, 0.94903),
    (0.0, 7, 0.5), (2.0, 200, 0.02343)])
def test_student_t_tail_matches_the_tables(t: float, df: int, upper: float) -> None:
    assert _t_upper(t, df) == pytest.approx(upper, abs=5e-5)
