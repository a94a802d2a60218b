"""docs/serve.md's walk-through, as a new user copies it: its league is made with the sandbox
that the same page recommends (the upload and check that follow are the serve tests' own)."""

from __future__ import annotations

import shlex
import shutil
from pathlib import Path

import pytest

from helpers import ROOT, arena

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(shutil.which("bwrap") is None, reason="bwrap is not installed")]


def test_the_walk_through_makes_a_sandboxed_league(tmp_path: Path) -> None:
    walk = (ROOT / "docs" / "serve.md").read_text().split("## 1. Walk-through")[1].split("\n## ")[0]
    [init] = [line.split() for line in walk.splitlines()
              if line.strip().startswith("arena league init ")]
    assert init[:3] == ["arena", "league", "init"] and "--sandbox" in init, init
    args = [str(tmp_path / word) if word == "myleague" else word for word in init[1:]]
    done = arena(*args)
    assert done.returncode == 0, done.stderr
    status = arena("league", "status", tmp_path / "myleague")
    assert status.returncode == 0 and ", sandbox bwrap, " in status.stdout, shlex.join(args)
