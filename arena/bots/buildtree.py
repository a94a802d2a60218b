"""The directory a build writes: measured while the build runs, and, where the arena is root and
the build runs as a uid of its own, handed to that uid for the build and given back after it.

Handing over (``handed_to``) records each entry's owner and mode, then gives every entry to the
build's uid (``lchown``: a link itself, never what it points to), so that a build that is not root
can write its bot's directory. Not handed over: a file with a hard link outside the directory
(handing it over would hand over that outside file too) and anything on another file system (a
mount point inside the directory is not descended). After the build, and before anything is given
back, every process of that uid is killed (no straggler can change a file while it is given back),
then each entry goes back to its owner (a new entry: the directory's owner), without the group and
other write bits the build added (an entry keeps those it had), without set-uid and set-gid bits
on anything but a directory (a chown by root clears them anyway, and file capabilities with them),
and without POSIX ACLs (an ACL could keep granting the build's uid access after it is given back).
A build killed with the arena (``kill -9``) leaves its directory owned by the build's uid.

Measuring (``size``) walks the directory the same way, adding up the sizes of its entries (their
``st_size``, not their blocks: a sparse file counts at its full length) and counting them.
"""

from __future__ import annotations

import contextlib
import os
import stat
import subprocess
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

_GROUP_OTHER_WRITE = stat.S_IWGRP | stat.S_IWOTH
ACL_XATTRS = ("system.posix_acl_access", "system.posix_acl_default")
KILL = "/bin/kill"


@dataclass(frozen=True)
class TreeSize:
    """What a directory holds: the bytes of its entries and how many entries."""

    bytes: int
    entries: int

    def __sub__(self, other: TreeSize) -> TreeSize:
        return TreeSize(self.bytes - other.bytes, self.entries - other.entries)


def tree_entries(root: str) -> Iterator[tuple[str, os.stat_result]]:
    """Every entry under ``root`` (not ``root`` itself) with its ``lstat``, directories before
    what they hold; links are not followed, other file systems not entered, and an entry that
    vanishes meanwhile is skipped."""
    try:
        device = os.lstat(root).st_dev
    except OSError:
        return
    pending = [root]
    while pending:
        directory = pending.pop()
        try:
            listing = os.scandir(directory)
        except OSError:  # gone, or unreadable: nothing in it can be seen
            continue
        with listing:
            for entry in listing:
                try:
                    info = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                if info.st_dev != device:
                    continue
                yield entry.path, info
                if stat.S_ISDIR(info.st_mode):
                    pending.append(entry.path)


def size(root: str) -> TreeSize:
    """The bytes and entries under ``root`` now."""
    total = count = 0
    for _, info in tree_entries(root):
        total += info.st_size
        count += 1
    return TreeSize(total, count)


def _with_root(root: str) -> Iterator[tuple[str, os.stat_result]]:
    yield root, os.lstat(root)
    yield from tree_entries(root)


def _linked_outside(entries: list[tuple[str, os.stat_result]]) -> set[tuple[int, int]]:
    """The (device, inode) of each file with more hard links than names among ``entries``."""
    names = Counter((info.st_dev, info.st_ino) for _, info in entries
                    if not stat.S_ISDIR(info.st_mode) and info.st_nlink > 1)
    return {key for _, info in entries
            if (key := (info.st_dev, info.st_ino)) in names and info.st_nlink > names[key]}


@contextlib.contextmanager
def handed_to(root: str, uid: int | None) -> Iterator[None]:
    """``root`` and what it holds belong to ``uid`` (also its group) inside the block, and are
    given back after it, every process of ``uid`` killed first (see the module's docstring).
    ``uid`` None: nothing is handed over."""
    if uid is None:
        yield
        return
    entries = list(_with_root(root))
    kept = _linked_outside(entries)
    before = {path: info for path, info in entries}
    owner = before[root]
    try:
        for path, info in entries:
            if (info.st_dev, info.st_ino) not in kept:
                os.chown(path, uid, uid, follow_symlinks=False)
        yield
    finally:
        kill_every_process_of(uid)
        for path, info in list(_with_root(root)):
            if (info.st_dev, info.st_ino) in kept:
                continue
            old = before.get(path)
            back = old if old is not None else owner
            os.chown(path, back.st_uid, back.st_gid, follow_symlinks=False)
            if stat.S_ISLNK(info.st_mode):
                continue
            mode = stat.S_IMODE(info.st_mode) & ~_GROUP_OTHER_WRITE
            if old is not None:
                mode |= stat.S_IMODE(old.st_mode) & _GROUP_OTHER_WRITE
            if not stat.S_ISDIR(info.st_mode):
                mode &= ~(stat.S_ISUID | stat.S_ISGID)
            os.chmod(path, mode)
            without_acls(path)


def without_acls(path: str) -> None:
    """Remove ``path``'s POSIX ACLs, if it has any (a file system without them: nothing to do)."""
    for name in ACL_XATTRS:
        with contextlib.suppress(OSError):  # none there, or not supported
            os.removexattr(path, name, follow_symlinks=False)


def kill_every_process_of(uid: int) -> None:
    """SIGKILL every process running as ``uid`` (``kill -KILL -1`` run as that uid: the kernel
    signals every process the caller may but itself, which is every other process of that uid).
    The arena must be root."""
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        subprocess.run([KILL, "-KILL", "-1"], user=uid, group=uid, extra_groups=[],
                       stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, check=False, timeout=30)
