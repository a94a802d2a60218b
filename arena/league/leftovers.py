"""What an interrupted ``league submit`` can leave behind, found and removed.

The database is the truth. A submission stores its bot in two steps: it renames its checked copy
to ``bots/NAME/VERSION``, then records that version in one transaction, both while holding the
league's ``submit.lock``. Killed between the two (SIGKILL cannot be caught), it leaves a version
directory that the database does not know: an orphan, removed here. Each submission also works in
its own ``staging/submit-*`` directory and holds an ``flock`` on ``staging/submit-*/lock`` while it
lives; a staging directory whose lock nobody holds belongs to a dead submission and is removed.

Call ``remove_leftovers`` only while holding ``submit.lock``: then no submission is between its
rename and its commit, and none is creating its staging directory.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from arena.league.database import BOTS_DIR, STAGING_DIR
from arena.league.lock import is_locked
from arena.league.store import Store

SUBMIT_LOCK = "submit.lock"
"""The league lock held while a submission stores its bot (and while leftovers are removed)."""
STAGING_LOCK = "lock"
"""The file in a staging directory that its live submission holds an flock on."""
STAGING_PREFIX = "submit-"


def remove_leftovers(store: Store) -> list[str]:
    """Remove orphan version directories and dead submissions' staging directories; what was
    removed, as paths relative to the league (``bots/NAME/VERSION``, ``staging/submit-...``)."""
    league = store.directory
    removed = []
    known = {Path(bot.dir) for bot in store.entrants.by_id().values()}
    bots = league / BOTS_DIR
    for name in sorted(bots.iterdir()) if bots.is_dir() else ():
        if not name.is_dir():
            continue
        for version in sorted(name.iterdir()):
            relative = version.relative_to(league)
            if relative not in known:
                _remove(version)
                removed.append(str(relative))
        if not any(name.iterdir()):  # the name's first version was the orphan
            name.rmdir()
    staging = league / STAGING_DIR
    for directory in sorted(staging.glob(f"{STAGING_PREFIX}*")) if staging.is_dir() else ():
        if not is_locked(directory / STAGING_LOCK):
            _remove(directory)
            removed.append(str(directory.relative_to(league)))
    return removed


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)
