"""A participant's storage in a served league: what their stored bot versions and their uploads
still waiting take on the league's disk, held to a quota (``league serve --max-stored-mb``).

A directory takes what its entries take on disk, links not followed and each inode counted once;
each entry takes at least one ``BLOCK``, so that a tree of many empty files is not free. The
archive of a decided upload is deleted (``arena.serve.build_child``): what stays is the version the
build made, in ``bots/NAME/VERSION``, and that is what counts.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from arena.league.store import Store

BLOCK = 4096
"""The least an entry is taken to use: one block of a common file system."""


def disk_bytes(path: Path) -> int:
    """What ``path`` (a file or a directory, not followed if a link) takes on disk; 0 if it is
    gone."""
    seen: set[tuple[int, int]] = set()
    total = 0
    stack = [os.fspath(path)]
    while stack:
        current = stack.pop()
        try:
            info = os.lstat(current)
        except OSError:
            continue
        if (info.st_dev, info.st_ino) not in seen:
            seen.add((info.st_dev, info.st_ino))
            total += max(info.st_blocks * 512, BLOCK)
        if stat.S_ISDIR(info.st_mode):
            try:
                stack.extend(os.path.join(current, name) for name in os.listdir(current))
            except OSError:
                continue
    return total


def stored_bytes(store: Store, participant: int) -> int:
    """What every stored version of ``participant``'s entrants takes on disk, replaced and
    retired ones too."""
    directories = store.entrants.directories(store.owners.keys_of(participant))
    return sum(disk_bytes(store.directory / directory) for directory in directories)
