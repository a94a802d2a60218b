"""What a sandbox shows a program, found before anything runs (``arena.botfiles.view``)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from arena.botfiles.view import layout_of
from arena.values.sandbox_settings import Sandbox

ROOT = Path(__file__).resolve().parents[3]


def test_bot_directory_is_the_scripts_directory() -> None:
    layout = layout_of(Sandbox(), ["python3", "bots/python/random_bot.py"], str(ROOT))
    assert layout.bot_dir == str(ROOT / "bots" / "python")
    assert os.path.isabs(layout.argv[0]) and layout.argv[1:] == ("bots/python/random_bot.py",)


def test_bot_directory_of_a_program_in_its_workdir() -> None:
    assert layout_of(Sandbox(), ["./random_bot"], str(ROOT / "bots" / "c")).bot_dir == str(
        ROOT / "bots" / "c")


def test_a_venv_interpreter_mounts_the_venv_and_its_base() -> None:
    venv_python = os.path.join(sys.prefix, "bin", "python")
    layout = layout_of(Sandbox(), [venv_python, "bots/python/random_bot.py"], str(ROOT))
    assert layout.bot_dir == str(ROOT / "bots" / "python")
    if sys.prefix != sys.base_prefix:
        assert sys.prefix in layout.installations
    assert str(ROOT) not in layout.installations
