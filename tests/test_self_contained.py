"""The repository stands on its own: no tracked file points to documents outside it (a ``shared``
folder of the developers') or to a path of some machine (a home or work directory)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# Spelt in pieces, so that this file does not match itself.
OUTSIDE = re.compile(rb"\bshared" + rb"/|/(?:work|root|home|Users)" + rb"/")


def tracked_files() -> list[Path]:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: the tracked files are unknown")
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True)
    return [ROOT / name for name in listed.stdout.decode().split("\0") if name]


def test_no_tracked_file_points_outside_the_repository() -> None:
    files = tracked_files()
    assert len(files) > 50
    found = []
    for path in files:
        if not path.is_file():  # deleted in the work tree, not yet committed
            continue
        for number, line in enumerate(path.read_bytes().splitlines(), start=1):
            if OUTSIDE.search(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.decode(errors='replace')[:100]}")
    assert not found, "references outside the repository:\n" + "\n".join(found)
