"""A wheel of the arena compiled where it can be: mypyc builds ``arena.startup.COMPILED_MODULES``
as C extensions next to their sources (as black's wheels are built) when a C compiler and the
Python headers are found, and the wheel is pure Python otherwise. An editable install (``pip
install -e``, the Makefile's .venv) stays pure: an extension in the working tree would shadow its
source after every edit; ``make`` builds the tree's compiled build in build/compiled instead.
ARENA_PURE=1 at install time asks for a pure wheel. The rest of the package is in pyproject.toml.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

from setuptools import setup

ROOT = Path(__file__).resolve().parent


def compiler_problem() -> str | None:
    """Why no C extension can be built here (no compiler, no Python headers), or None."""
    compiler = shlex.split(os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc")
    with tempfile.TemporaryDirectory() as scratch:
        source = Path(scratch) / "probe.c"
        source.write_text("#include <Python.h>\nint main(void) { return 0; }\n")
        try:
            done = subprocess.run([*compiler, "-fsyntax-only", f"-I{sysconfig.get_paths()['include']}",
                                   str(source)], capture_output=True, text=True, check=False)
        except OSError as error:
            return f"no C compiler ({compiler[0]}: {error.strerror})"
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["failed"])[-1]
        return f"cannot compile against the Python headers ({compiler[0]}: {last})"
    return None


def compiled_extensions() -> list[object]:
    """mypyc's extensions of the hot modules, or none (and a line on stderr saying why)."""
    if "editable_wheel" in sys.argv or not {"bdist_wheel", "build_ext", "build", "install"} & set(sys.argv):
        return []  # an editable install, or only the package's metadata asked for
    why = "ARENA_PURE=1" if os.environ.get("ARENA_PURE") == "1" else compiler_problem()
    if why is None:
        try:
            from mypyc.build import mypycify
        except ImportError as error:
            why = f"no mypyc ({error})"
    if why is not None:
        print(f"blackout-arena: building pure Python: {why}", file=sys.stderr)
        return []
    sys.path.insert(0, str(ROOT))
    from arena.startup import COMPILED_MODULES

    paths = [name.replace(".", "/") + ".py" for name in COMPILED_MODULES]
    # The packages the modules import (orjson, yaml...) are not in the build's environment: their
    # values are Any to mypyc. Hence mypy's defaults, not the strict [tool.mypy] of pyproject.toml
    # (`make lint` type-checks against those packages), as under the Makefile's mypyc.
    with tempfile.NamedTemporaryFile("w", suffix=".ini") as defaults:
        defaults.write("[mypy]\n")
        defaults.flush()
        return list(mypycify([f"--config-file={defaults.name}", "--ignore-missing-imports", *paths],
                             opt_level="3"))


setup(ext_modules=compiled_extensions())
