"""Owners through ``arena run``: the dry run and the games keep one owner's bots apart, the run
refuses in one line what it cannot keep apart, the records say each seat's owner, and
``names: hidden`` reaches the bots as seat labels. Real bot processes, real files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from helpers import ROOT, arena, build_c_bots, result_lines

SPY = ROOT / "tests" / "bots" / "spy_bot.py"


def write(tmp_path: Path, owners: list[str | None], **extra: Any) -> Path:
    """A 3-player tournament of C random bots b0, b1... with these owners, one short deal a game."""
    c_bots = build_c_bots()
    config: dict[str, Any] = {
        "name": "owners", "game": "blackout", "players": 3, "options": {"deals": 1},
        "bots": [{"name": f"b{i}", "cmd": str(c_bots / "random_bot"),
                  **({} if owner is None else {"owner": owner})} for i, owner in enumerate(owners)],
        **extra}
    path = tmp_path / "owners.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path


def test_a_run_with_owners_never_seats_one_owners_bots_together(tmp_path: Path) -> None:
    file = write(tmp_path, ["ann", "ann", "bob", "bob", None])
    dry = arena("run", file, "--dry-run", "--jobs", "1")
    assert dry.returncode == 0, dry.stderr
    assert "owners: no table seats two bots of one owner (ann: b0, b1; bob: b2, b3)" in dry.stdout
    assert "tables per round: 4;" in dry.stdout  # of C(5, 3) = 10, those of three owners
    done = arena("run", file, "--out", tmp_path / "out", "--jobs", "1")
    assert done.returncode == 0, done.stderr
    lines = result_lines(tmp_path / "out")
    assert len(lines) == 4 * 3
    owner = {"b0": "ann", "b1": "ann", "b2": "bob", "b3": "bob", "b4": "b4"}
    for line in lines:
        assert line["format"] == 3
        assert line["owners"] == [owner[name] for name in line["names"]]
        assert len(set(line["owners"])) == 3
        assert list(line).index("owners") == list(line).index("names") + 1


def test_a_field_that_cannot_keep_owners_apart_is_refused_unless_allowed(tmp_path: Path) -> None:
    file = write(tmp_path, ["ann", "ann", "ann", "bob", "bob"])
    dry = arena("run", file, "--dry-run", "--jobs", "1")
    assert dry.returncode == 0, dry.stderr
    assert ("owners: CANNOT be kept apart: owner 'ann' enters 3 of the 5 bots (b0, b1, b2): "
            "3-player tables of different owners need 3 owners, and these bots have 2; the run "
            "refuses this schedule unless the file says same_owner_tables: allow") in dry.stdout
    refused = arena("run", file, "--out", tmp_path / "out")
    assert refused.returncode != 0
    assert refused.stderr.strip().splitlines() == [
        f"arena: error: {file}: same_owner_tables: owner 'ann' enters 3 of the 5 bots (b0, b1, "
        f"b2): 3-player tables of different owners need 3 owners, and these bots have 2; "
        f"'same_owner_tables: allow' would seat them together"]
    assert not (tmp_path / "out").exists()
    allowed = write(tmp_path, ["ann", "ann", "ann", "bob", "bob"], same_owner_tables="allow")
    dry = arena("run", allowed, "--dry-run", "--format", "json", "--jobs", "1")
    assert dry.returncode == 0, dry.stderr
    summary = json.loads(dry.stdout)
    assert summary["together_sets"] == 10 and summary["same_owner_tables"] is True


def test_hidden_names_reach_the_bots_as_seat_labels(tmp_path: Path) -> None:
    logs = [tmp_path / f"spy{i}.log" for i in range(3)]
    config = {"name": "hidden", "game": "blackout", "players": 3, "options": {"deals": 1},
              "names": "hidden",
              "bots": [{"name": f"spy{i}", "owner": "ann" if i < 2 else None,
                        "cmd": ["python3", str(SPY), str(log)]} for i, log in enumerate(logs)]}
    config["bots"][2].pop("owner")
    config["same_owner_tables"] = "allow"
    file = tmp_path / "hidden.yaml"
    file.write_text(yaml.safe_dump(config, sort_keys=False))
    done = arena("run", file, "--out", tmp_path / "out", "--jobs", "1")
    assert done.returncode == 0, done.stderr
    for log in logs:
        starts = [json.loads(line) for line in log.read_text().splitlines()
                  if '"game_start"' in line]
        assert starts and all(start["names"] == ["seat 0", "seat 1", "seat 2"] for start in starts)
    line = result_lines(tmp_path / "out")[0]
    assert sorted(line["names"]) == ["spy0", "spy1", "spy2"]  # the record keeps who sat where
    assert sorted(line["owners"]) == ["ann", "ann", "spy2"]
