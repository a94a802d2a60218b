"""``make bench``: every benchmark, each reporting ratios against a baseline measured in the same run."""

from __future__ import annotations

import importlib
import sys
import time

SUITES = ("startup", "engine", "arena", "memory", "tournament", "ratings", "models", "match", "report",
          "league", "serve", "fields", "cluster", "sandbox", "versus", "clocks", "analyse", "audit")


def main(names: list[str]) -> None:
    """Run the named suites (all by default) and print their lines as they finish, on the build
    the ``arena`` command runs (``arena.startup``: the compiled one when it is there, ahead of the
    working directory's sources)."""
    from arena.startup import start

    print(f"[build] {start(['bench']).describe()}", flush=True)
    for name in names or SUITES:
        try:
            module = importlib.import_module(f"bench.{name}")
        except ModuleNotFoundError as error:
            print(f"[{name}] not available: {error}")
            continue
        start = time.perf_counter()
        print(f"[{name}]", flush=True)
        for line in module.run():
            print(f"  {line}", flush=True)
        print(f"  ({time.perf_counter() - start:.1f} s)", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
