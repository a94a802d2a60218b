"""Creates the file named by its argument, outside its scratch directory, and writes a marker into
it; also writes into its own bot directory. The attack succeeds if either write does."""

import os
import sys

from _hostile import report, serve

done = []
failed = []
for path in (sys.argv[1], os.path.join(os.path.dirname(os.path.abspath(__file__)), "written")):
    try:
        with open(path, "w") as file:
            file.write("written by writes_outside\n")
        done.append(path)
    except OSError as error:
        failed.append(f"{path}: {error.strerror}")
report(bool(done), f"wrote {done}" if done else "; ".join(failed))
serve()
