"""Bringing a submitted bot into the league safely: a directory copied, or a ``.zip`` / ``.tar.gz``
unpacked, with every entry checked first.

Refused: absolute paths, ``..`` components, links that point outside the bot (symbolic or hard),
device files, FIFOs and sockets, more than ``MAX_FILES`` entries or ``MAX_BYTES`` of content (counted
while unpacking, so an archive that lies about its sizes is still stopped). A refusal raises
ConfigError naming the source and the entry; the destination is then left for the caller to drop.
"""

from __future__ import annotations

import os
import stat
import tarfile
import zipfile
import zlib
from pathlib import Path, PurePosixPath
from typing import IO

from arena.errors import ConfigError

MAX_FILES = 5_000
MAX_BYTES = 256 * 1024 * 1024
ARCHIVE_SUFFIXES = (".zip", ".tar.gz", ".tgz")
_CHUNK = 1 << 20


def is_archive(path: Path) -> bool:
    """Whether ``path`` names an archive the league unpacks (by its suffix)."""
    return path.name.endswith(ARCHIVE_SUFFIXES)


class _Budget:
    """Counts entries and bytes against the caps."""

    def __init__(self, source: Path, max_files: int, max_bytes: int) -> None:
        self.source = source
        self.files = 0
        self.bytes = 0
        self.max_files = max_files
        self.max_bytes = max_bytes

    def entry(self) -> None:
        self.files += 1
        if self.files > self.max_files:
            raise ConfigError(f"{self.source}: more than {self.max_files} files")

    def add(self, count: int) -> None:
        self.bytes += count
        if self.bytes > self.max_bytes:
            raise ConfigError(f"{self.source}: more than {self.max_bytes // (1024 * 1024)} MB "
                              f"of files")


def _relative(source: Path, name: str) -> PurePosixPath:
    """An entry's path, checked: relative, without ``..``; ConfigError otherwise."""
    path = PurePosixPath(name.replace("\\", "/"))
    if path.is_absolute() or name.startswith(("/", "\\")) or (path.parts and ":" in path.parts[0]):
        raise ConfigError(f"{source}: entry {name!r}: absolute path")
    if ".." in path.parts:
        raise ConfigError(f"{source}: entry {name!r}: '..' in its path")
    return path


def _inside(root: Path, link_dir: PurePosixPath, target: str) -> bool:
    """Whether a link in ``link_dir`` (relative to the root) to ``target`` stays inside the root."""
    if target.startswith("/"):
        return False
    depth = 0
    for part in (link_dir / target).parts:
        if part == "..":
            depth -= 1
            if depth < 0:
                return False
        elif part != ".":
            depth += 1
    return True


def _write(stream: IO[bytes], destination: Path, budget: _Budget, mode: int) -> None:
    destination.parent.mkdir(parents=True, exist_ok=True)
    with destination.open("xb") as out:  # x: an entry listed twice cannot overwrite
        while chunk := stream.read(_CHUNK):
            budget.add(len(chunk))
            out.write(chunk)
    destination.chmod(0o755 if mode & 0o111 else 0o644)


def unpack(source: Path, destination: Path, max_files: int = MAX_FILES,
           max_bytes: int = MAX_BYTES) -> None:
    """Unpack the archive ``source`` into the new directory ``destination``, checked entry by entry."""
    destination.mkdir(parents=True)
    budget = _Budget(source, max_files, max_bytes)
    if source.name.endswith(".zip"):
        _unzip(source, destination, budget)
    else:
        _untar(source, destination, budget)


def _unzip(source: Path, destination: Path, budget: _Budget) -> None:
    try:
        archive = zipfile.ZipFile(source)
    except (zipfile.BadZipFile, OSError) as error:
        raise ConfigError(f"{source}: not a readable zip archive ({error})") from None
    with archive:
        for info in archive.infolist():
            budget.entry()
            path = _relative(source, info.filename)
            mode = info.external_attr >> 16
            if stat.S_ISLNK(mode):  # a link's target is its content: allowed only inside
                target = archive.read(info).decode(errors="replace")
                if not _inside(destination, path.parent, target):
                    raise ConfigError(f"{source}: entry {info.filename!r}: a link pointing "
                                      f"outside the bot ({target!r})")
                (destination / path).parent.mkdir(parents=True, exist_ok=True)
                os.symlink(target, destination / path)
                continue
            if stat.S_IFMT(mode) and not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
                raise ConfigError(f"{source}: entry {info.filename!r}: not a regular file")
            if info.is_dir():
                (destination / path).mkdir(parents=True, exist_ok=True)
                continue
            try:
                with archive.open(info) as stream:
                    _write(stream, destination / path, budget, mode)
            except (zipfile.BadZipFile, EOFError, OSError, NotImplementedError, zlib.error) as error:
                if isinstance(error, FileExistsError):
                    raise ConfigError(f"{source}: entry {info.filename!r}: listed twice") from None
                raise ConfigError(f"{source}: entry {info.filename!r}: {error}") from None


def _untar(source: Path, destination: Path, budget: _Budget) -> None:
    try:
        archive = tarfile.open(source, mode="r:*")  # noqa: SIM115 (closed by the `with` below)
    except (tarfile.TarError, OSError, EOFError, zlib.error) as error:
        raise ConfigError(f"{source}: not a readable tar archive ({error})") from None
    with archive:
        try:
            for member in archive:
                budget.entry()
                _tar_member(source, destination, archive, member, budget)
        except (tarfile.TarError, EOFError, OSError, zlib.error) as error:
            if isinstance(error, FileExistsError):
                raise ConfigError(f"{source}: an entry is listed twice") from None
            raise ConfigError(f"{source}: damaged archive ({error})") from None


def _tar_member(source: Path, destination: Path, archive: tarfile.TarFile,
                member: tarfile.TarInfo, budget: _Budget) -> None:
    path = _relative(source, member.name)
    if member.isdir():
        (destination / path).mkdir(parents=True, exist_ok=True)
    elif member.issym():
        if not _inside(destination, path.parent, member.linkname):
            raise ConfigError(f"{source}: entry {member.name!r}: a link pointing outside the bot "
                              f"({member.linkname!r})")
        (destination / path).parent.mkdir(parents=True, exist_ok=True)
        os.symlink(member.linkname, destination / path)
    elif member.islnk():  # a hard link names another entry of the archive: copied as a file
        target = _relative(source, member.linkname)
        if not (destination / target).is_file() or (destination / target).is_symlink():
            raise ConfigError(f"{source}: entry {member.name!r}: a link to {member.linkname!r}, "
                              f"which is not a file unpacked before it")
        with (destination / target).open("rb") as stream:
            _write(stream, destination / path, budget, member.mode)
    elif member.isreg():
        content = archive.extractfile(member)
        assert content is not None
        with content:
            _write(content, destination / path, budget, member.mode)
    else:
        raise ConfigError(f"{source}: entry {member.name!r}: not a regular file "
                          f"(a device, FIFO or other special file)")


def copy_tree(source: Path, destination: Path, max_files: int = MAX_FILES,
              max_bytes: int = MAX_BYTES) -> None:
    """Copy the directory ``source`` to the new ``destination`` under the same rules as archives."""
    budget = _Budget(source, max_files, max_bytes)
    destination.mkdir(parents=True)
    for top, dirs, files in os.walk(source):
        here = Path(top)
        relative = PurePosixPath(here.relative_to(source).as_posix())
        for name in sorted(dirs) + sorted(files):
            budget.entry()
            entry = here / name
            info = entry.lstat()
            target = destination / relative / name
            if stat.S_ISLNK(info.st_mode):
                link = os.readlink(entry)
                if not _inside(destination, relative, link):
                    raise ConfigError(f"{entry}: a link pointing outside the bot ({link!r})")
                os.symlink(link, target)
                if name in dirs:
                    dirs.remove(name)  # os.walk would not follow it anyway; keep it a link
            elif stat.S_ISDIR(info.st_mode):
                target.mkdir()
            elif stat.S_ISREG(info.st_mode):
                with entry.open("rb") as stream:
                    _write(stream, target, budget, info.st_mode)
            else:
                raise ConfigError(f"{entry}: not a regular file (a device, FIFO or socket)")


def bot_root(unpacked: Path, manifest: str) -> Path:
    """Where the bot is in an unpacked archive: its root, or its only top-level directory."""
    if (unpacked / manifest).exists():
        return unpacked
    entries = [p for p in unpacked.iterdir() if not p.name.startswith(".")]
    if len(entries) == 1 and entries[0].is_dir() and not entries[0].is_symlink():
        return entries[0]
    return unpacked
