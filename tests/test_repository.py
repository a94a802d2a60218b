"""The repository stands on its own: no tracked file points at files a user of it does not have."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# A path of some machine: a home or work directory, or the machine's own checkout.
MACHINE_PATH = re.compile(r"(?<![\w.~-])/(?:work|root/|home/\w+|Users/\w+|tmp/[\w.-]*arena)\b")
# The specifications folder of the developers' workplace, spelled so this file does not match.
OUTSIDE_DOC = re.compile("shar" + "ed/")


def _tracked_text_files() -> list[Path]:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: cannot list tracked files")
    names = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
                           ).stdout.decode().split("\0")
    files = []
    for name in filter(None, names):
        path = ROOT / name
        if path.is_file() and path.suffix not in {".png", ".jpg", ".zip", ".gz", ".class", ".jar"}:
            files.append(path)
    return files


def test_no_tracked_file_refers_to_documents_outside_the_repository() -> None:
    offenders = [f"{path.relative_to(ROOT)}:{number}"
                 for path in _tracked_text_files()
                 for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1)
                 if OUTSIDE_DOC.search(line)]
    assert offenders == []


def test_no_tracked_file_names_an_absolute_path_of_a_machine() -> None:
    offenders = [f"{path.relative_to(ROOT)}:{number}: {line.strip()[:80]}"
                 for path in _tracked_text_files() if path.name != "test_repository.py"
                 for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1)
                 if MACHINE_PATH.search(line)]
    assert offenders == []


def test_no_document_describes_the_old_address_space_memory_limit() -> None:
    """The memory limit counts resident memory; the address-space cap is only a backstop. Docs,
    starter-bot READMEs and tournament files once told JVM authors to fit a 2048 MB address space
    (-XX:CompressedClassSpaceSize): that advice must not come back."""
    old = re.compile(r"address[- ]space limit|\d+ MB (?:of )?address|CompressedClassSpaceSize",
                     re.IGNORECASE)
    offenders = [f"{path.relative_to(ROOT)}:{number}"
                 for path in _tracked_text_files() if path.suffix in {".md", ".yaml"}
                 for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1)
                 if old.search(line)]
    assert offenders == []
