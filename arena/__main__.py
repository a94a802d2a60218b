"""The ``arena`` command (and ``python -m arena``): the build chosen first (``arena.startup``), then
the command line (``arena.cli``)."""

from __future__ import annotations

import sys

from arena.startup import start


def main() -> None:
    """Choose the build (a pure run not asked for says why, on stderr), then run the command line."""
    build = start(sys.argv)
    if not build.compiled and not build.asked:
        print(f"arena: running pure Python: {build.reason}", file=sys.stderr)
    from arena.cli import main as command_line

    command_line()


if __name__ == "__main__":
    main()
