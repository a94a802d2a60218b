"""``arena league audit`` on a league made, filled and played by the real commands: every
ordered pair of entrants of different owners that sat together is printed (text and JSON); a
participant's two bots are kept apart by the matchmaker and never audited as a pair."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers import ROOT, arena, own_bot

pytestmark = [pytest.mark.slow, pytest.mark.timeout(240)]


@pytest.fixture(scope="module")
def league(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Five C bots, two the organiser's (each its own owner), two of ada's and one of bob's,
    3-player tables of two deals, 18 ladder games."""
    tmp = tmp_path_factory.mktemp("league-audit")
    path = tmp / "league"
    done = arena("league", "init", path, "--players", "3", "-o", "deals=2")
    assert done.returncode == 0, done.stderr
    for bot, owner in ((ROOT / "bots/c/random.bot.yaml", None),
                       (ROOT / "bots/c/first.bot.yaml", None),
                       (own_bot(tmp, "mine"), "ada"), (own_bot(tmp, "other"), "ada"),
                       (own_bot(tmp, "third"), "bob")):
        done = arena("league", "submit", path, bot, *(("--owner", owner) if owner else ()))
        assert done.returncode == 0, done.stderr
    done = arena("league", "run", path, "--games", "18", "--jobs", "1")
    assert done.returncode == 0, done.stderr
    return path


def test_league_audit_prints_every_pair_of_different_owners(league: Path) -> None:
    done = arena("league", "audit", league, "--format", "json", "--resamples", "50")
    assert done.returncode == 0, done.stderr
    pairs = json.loads(done.stdout)["pairs"]
    owner = {"random-c@1": "random-c@1", "first-legal-c@1": "first-legal-c@1", "mine@1": "ada",
             "other@1": "ada", "third@1": "bob"}
    measured = {(pair["beneficiary"], pair["helper"]) for pair in pairs}
    assert all(owner[a] != owner[b] and (b, a) in measured for a, b in measured)
    assert len(measured) >= 10  # 18 games of 3 of 5: most pairs met; ada's two never did
    assert ("mine@1", "third@1") in measured and ("mine@1", "other@1") not in measured
    assert any(pair["effect"] is not None and pair["deals"] > 0 for pair in pairs)
    text = arena("league", "audit", league, "--resamples", "50")
    assert text.returncode == 0, text.stderr
    lines = text.stdout.splitlines()
    shown = [line for line in lines if line.startswith("  ")]
    assert len(shown) == len(pairs)  # one line a pair, in the JSON's order
    assert all(line.strip().startswith(f"{a} / {b}:") or
               line.strip().startswith(f"{a} helped by {b}:")
               for line, (a, b) in zip(shown, ((p["beneficiary"], p["helper"]) for p in pairs),
                                       strict=True))
    assert lines[-1].startswith("Intervals and p from 50 bootstrap resamples")
