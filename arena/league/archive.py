"""Bringing a submitted bot into the league safely: a directory copied, or a ``.zip`` / ``.tar.gz``
unpacked, with every entry checked first.

Refused: absolute paths, ``..`` components, device files, FIFOs and sockets, more than ``MAX_FILES``
entries or ``MAX_BYTES`` of content (counted while unpacking, so an archive that lies about its sizes
is still stopped), and whatever could reach outside the bot through a link:

- a symbolic link whose target, resolved against the directory as unpacked so far (the links
  already written followed, as the kernel would), leaves the bot; and, once every entry is in,
  every link is resolved again, since a later link can change where an earlier one leads;
- an entry written through a link (``a/x`` after a link ``a``), or over one (a directory or file
  where a link is);
- a hard link, unless it names a regular file already unpacked inside the bot: it is then copied,
  never linked.

The same check of the whole tree (``stored_problems``) runs again after a submission's build, so
nothing a build leaves (``ln -s / rootlink``, a FIFO, a set-uid copy of an interpreter, a hard
link to a file outside, more than ``MAX_BYTES``) reaches the stored copy either; the copy is then
made the arena's, with an unpacked submission's modes (``seal``).

Paths are resolved with ``os.path.realpath`` against the real directory, never compared as text
(``b/b/b/../../..`` looks inside and is not when ``b`` is a link to ``.``). A refusal raises
ConfigError naming the source and the entry; the destination is then left for the caller to drop.
Too many files is most often a directory that has no place in a submission (``LEAVE_OUT``): the
error then names it.
"""

from __future__ import annotations

import itertools
import os
import stat
import tarfile
import zipfile
import zlib
from collections import Counter
from collections.abc import Iterator
from pathlib import Path, PurePosixPath
from typing import IO

from arena.bots.buildtree import without_acls
from arena.errors import ConfigError
from arena.settings import STORED_MB
from engine.errors import shown

MAX_FILES = 5_000
MAX_BYTES = STORED_MB << 20
CAPABILITY = "security.capability"
ARCHIVE_SUFFIXES = (".zip", ".tar.gz", ".tgz", ".tar")
MAX_NAME = 1024
"""The most bytes in an entry's path (a file system's own limit is 4096, 255 per component)."""
MAX_LINK = 1024
"""The most bytes in a symbolic link's target."""
_CHUNK = 1 << 20
LEAVE_OUT = {
    "target": "cargo's build output: the league runs the bot's build itself",
    "node_modules": "installed npm packages: bundle the code the bot loads into its own files",
    ".git": "a git repository's history",
    "__pycache__": "Python's bytecode cache, made again when the bot runs",
}
"""Directories that fill a submission past ``MAX_FILES`` without being part of the bot, by name,
with what each holds: a refusal for too many files names the ones it met, to be left out."""
_LEAVE_OUT_SHOWN = 3


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
        self.left_out: dict[str, str] = {}
        """The ``LEAVE_OUT`` directories met so far (their path in the bot, with a ``/``), in
        order, with what each holds."""

    def entry(self, name: str, is_dir: bool) -> None:
        """Count the entry ``name`` (its path in the bot, as the archive or directory gives it)."""
        self.files += 1
        parts = name.replace("\\", "/").split("/")
        directories = parts if is_dir else parts[:-1]
        for index, part in enumerate(directories):
            if part in LEAVE_OUT:
                path = "/".join(directories[: index + 1]) + "/"
                self.left_out.setdefault(path, LEAVE_OUT[part])
                break
        if self.files > self.max_files:
            raise ConfigError(f"{self.source}: more than {self.max_files} files{self._advice()}")

    def _advice(self) -> str:
        """What to leave out, when the entries counted went through a ``LEAVE_OUT`` directory."""
        if not self.left_out:
            return ""
        named = [f"{shown(path)} ({what})" for path, what in
                 itertools.islice(self.left_out.items(), _LEAVE_OUT_SHOWN)]
        more = len(self.left_out) - len(named)
        if more:
            named.append(f"{more} more such director{'y' if more == 1 else 'ies'}")
        listed = named[0] if len(named) == 1 else f"{', '.join(named[:-1])} and {named[-1]}"
        return f"; leave out {listed}"

    def add(self, count: int) -> None:
        self.bytes += count
        if self.bytes > self.max_bytes:
            raise ConfigError(f"{self.source}: more than {_size(self.max_bytes)} of files")


def _size(count: int) -> str:
    """A cap in bytes as the refusals say it: ``256 MB``, or ``1,000 bytes`` under a MB."""
    return f"{count // (1024 * 1024)} MB" if count >= 1024 * 1024 else f"{count:,} bytes"


def _relative(source: Path, name: str) -> PurePosixPath:
    """An entry's path, checked: relative, without ``..``, of a sane length; ConfigError otherwise."""
    if not name:
        raise ConfigError(f"{source}: an entry without a name")
    path = PurePosixPath(name.replace("\\", "/"))
    if path.is_absolute() or name.startswith(("/", "\\")) or (path.parts and ":" in path.parts[0]):
        raise ConfigError(f"{source}: entry {shown(name)}: absolute path")
    if ".." in path.parts:
        raise ConfigError(f"{source}: entry {shown(name)}: '..' in its path")
    if "\0" in name:
        raise ConfigError(f"{source}: entry {shown(name)}: a NUL character in its name")
    if len(os.fsencode(name)) > MAX_NAME or any(len(os.fsencode(p)) > 255 for p in path.parts):
        raise ConfigError(f"{source}: entry {shown(name)}: name too long")
    return path


def _is_inside(root: str, path: str) -> bool:
    return path == root or path.startswith(root + os.sep)


def _place(source: Path, root: Path, path: PurePosixPath, name: str) -> Path:
    """Where entry ``name`` (at ``path``) is written under ``root`` (a real directory): its parent
    directories are created, none of them may be a link or a file; ConfigError otherwise."""
    if not path.parts:
        raise ConfigError(f"{source}: entry {shown(name)}: no file name")
    here = root
    for part in path.parts[:-1]:
        here = here / part
        try:
            mode = here.lstat().st_mode
        except FileNotFoundError:
            here.mkdir()
            continue
        if stat.S_ISLNK(mode):
            raise ConfigError(f"{source}: entry {shown(name)}: written through the link "
                              f"{shown(here.relative_to(root).as_posix())}")
        if not stat.S_ISDIR(mode):
            raise ConfigError(f"{source}: entry {shown(name)}: inside "
                              f"{shown(here.relative_to(root).as_posix())}, which is a file")
    return here / path.parts[-1]


def _real(path: Path) -> str:
    """``path`` with every link followed as the tree is now. A loop of links is left unresolved
    by realpath: its ``..`` are then taken as text, the farthest it could reach."""
    return os.path.normpath(os.path.realpath(path))


def _resolves_inside(root: Path, path: Path) -> bool:
    """Whether ``path`` (under ``root``, following every link as written so far) stays in ``root``."""
    return _is_inside(str(root), _real(path))


def _link(source: Path, root: Path, path: PurePosixPath, name: str, target: str) -> None:
    """Write the symbolic link ``path`` -> ``target``, refused if it resolves outside ``root``."""
    where = _place(source, root, path, name)
    if not target or "\0" in target or len(target) > MAX_LINK:
        raise ConfigError(f"{source}: entry {shown(name)}: a link whose target is empty, holds a "
                          f"NUL or is longer than {MAX_LINK} characters")
    if target.startswith("/") or not _resolves_inside(root, where.parent / target):
        raise ConfigError(f"{source}: entry {shown(name)}: a link pointing outside the bot "
                          f"({shown(target)})")
    if os.path.lexists(where):
        raise ConfigError(f"{source}: entry {shown(name)}: listed twice")
    os.symlink(target, where)


def _directory(source: Path, root: Path, path: PurePosixPath, name: str) -> None:
    if not path.parts:
        return  # "./": the root itself
    where = _place(source, root, path, name)
    try:
        where.mkdir()
    except FileExistsError:
        if where.is_symlink() or not where.is_dir():
            raise ConfigError(f"{source}: entry {shown(name)}: a directory where a link or a file "
                              f"was unpacked") from None


def _hard_link_source(source: Path, root: Path, name: str, linkname: str) -> Path:
    """The unpacked regular file a hard link names (resolved, inside ``root``); ConfigError if it
    is not one."""
    resolved = _real(root / _relative(source, linkname))
    try:
        is_file = stat.S_ISREG(os.lstat(resolved).st_mode)
    except OSError:
        is_file = False
    if not is_file or not _is_inside(str(root), resolved):
        raise ConfigError(f"{source}: entry {shown(name)}: a link to {shown(linkname)}, which is "
                          f"not a file unpacked inside the bot before it")
    return Path(resolved)


def stored_problems(root: Path, max_bytes: int = MAX_BYTES) -> Iterator[tuple[Path, str]]:
    """Every entry under ``root`` that a stored bot may not hold, with what is wrong with it, as
    the tree is now: a symbolic link that resolves outside ``root`` (a link checked when it was
    written may lead out through links written after it, or a build may have made it), a FIFO,
    a device or a socket, a set-uid or set-gid file, a file with capabilities
    (``security.capability``), a hard link to a file outside ``root``, and more than
    ``max_bytes`` of files in all (``root`` named). The one check of a bot's tree, after
    unpacking, copying and building. A directory that cannot be listed is a problem too (nothing
    in it could be checked)."""
    real = _real(root)
    unreadable: list[OSError] = []
    names: Counter[tuple[int, int]] = Counter()
    linked: dict[tuple[int, int], tuple[Path, int]] = {}
    total = 0
    for top, dirs, files in os.walk(root, onerror=unreadable.append):  # never follows a link
        for name in dirs + files:
            path = Path(top) / name
            info = path.lstat()
            mode = info.st_mode
            if stat.S_ISLNK(mode):
                if not _is_inside(real, _real(path)):
                    yield path, f"a link pointing outside the bot ({shown(os.readlink(path))})"
            elif stat.S_ISREG(mode):
                total += info.st_size
                if mode & (stat.S_ISUID | stat.S_ISGID):
                    yield path, "a set-uid or set-gid file (a bot runs with its own rights only)"
                if _has_capabilities(path):
                    yield path, "a file with capabilities (security.capability)"
                if info.st_nlink > 1:
                    key = (info.st_dev, info.st_ino)
                    names[key] += 1
                    linked.setdefault(key, (path, info.st_nlink))
            elif not stat.S_ISDIR(mode):
                yield path, "not a regular file (a device, FIFO or socket)"
    for key, (path, links) in linked.items():
        if names[key] < links:
            yield path, "a hard link to a file outside the bot"
    if total > max_bytes:
        yield root, f"more than {_size(max_bytes)} of files"
    for error in unreadable:
        yield Path(error.filename), f"cannot be read ({error.strerror})"


def _has_capabilities(path: Path) -> bool:
    try:
        os.getxattr(path, CAPABILITY, follow_symlinks=False)
    except OSError:  # none, or a file system without extended attributes
        return False
    return True


def seal(root: Path) -> None:
    """Make ``root`` and everything in it the arena's (its effective uid and gid), with the modes
    of an unpacked submission (directories 0755, files 0755 with an execute bit, else 0644) and
    no ACLs: nothing in it writable by anyone else, nothing set-uid, set-gid or sticky."""
    uid, gid = os.geteuid(), os.getegid()
    for path in (root, *(Path(top) / name for top, dirs, files in os.walk(root)
                         for name in dirs + files)):
        info = path.lstat()
        if (info.st_uid, info.st_gid) != (uid, gid):
            os.chown(path, uid, gid, follow_symlinks=False)
        if stat.S_ISLNK(info.st_mode):
            continue
        executable = stat.S_ISDIR(info.st_mode) or info.st_mode & 0o111
        path.chmod(0o755 if executable else 0o644)
        without_acls(str(path))


def _check_links(root: Path, source: Path) -> None:
    for path, problem in stored_problems(root):
        raise ConfigError(f"{source}: entry {shown(path.relative_to(root).as_posix())}: {problem}")


def _write(stream: IO[bytes], destination: Path, budget: _Budget, mode: int) -> None:
    with destination.open("xb") as out:  # x: an entry listed twice (or a link) is not overwritten
        while chunk := stream.read(_CHUNK):
            budget.add(len(chunk))
            out.write(chunk)
    destination.chmod(0o755 if mode & 0o111 else 0o644)


def unpack(source: Path, destination: Path, max_files: int = MAX_FILES,
           max_bytes: int = MAX_BYTES) -> None:
    """Unpack the archive ``source`` into the new directory ``destination``, checked entry by entry."""
    destination.mkdir(parents=True)
    root = Path(_real(destination))
    budget = _Budget(source, max_files, max_bytes)
    if source.name.endswith(".zip"):
        _unzip(source, root, budget)
    else:
        _untar(source, root, budget)
    _check_links(root, source)


def _unzip(source: Path, root: Path, budget: _Budget) -> None:
    try:
        archive = zipfile.ZipFile(source)
    except Exception as error:  # zipfile raises many kinds on bad bytes (NotImplementedError...)
        raise ConfigError(f"{source}: not a readable zip archive ({_problem(error)})") from None
    with archive:
        for info in archive.infolist():
            budget.entry(info.filename, info.filename.endswith("/"))  # is_dir() fails on ''
            try:
                _zip_member(source, root, archive, info, budget)
            except FileExistsError:
                raise ConfigError(f"{source}: entry {shown(info.filename)}: listed twice") from None
            except (zipfile.BadZipFile, EOFError, OSError, NotImplementedError, zlib.error,
                    ValueError, RuntimeError) as error:
                raise ConfigError(f"{source}: entry {shown(info.filename)}: {_problem(error)}") from None


def _zip_member(source: Path, root: Path, archive: zipfile.ZipFile, info: zipfile.ZipInfo,
                budget: _Budget) -> None:
    path = _relative(source, info.filename)
    mode = info.external_attr >> 16
    if info.flag_bits & 0x1:
        raise ConfigError(f"{source}: entry {shown(info.filename)}: encrypted (a submission "
                          f"cannot have a password)")
    if stat.S_ISLNK(mode):  # a link's target is its content
        with archive.open(info) as stream:  # read no more than a target may hold
            target = stream.read(MAX_LINK + 1).decode(errors="replace")
        _link(source, root, path, info.filename, target)
    elif stat.S_IFMT(mode) and not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        raise ConfigError(f"{source}: entry {shown(info.filename)}: not a regular file")
    elif info.is_dir() or stat.S_ISDIR(mode):
        _directory(source, root, path, info.filename)
    else:
        where = _place(source, root, path, info.filename)
        with archive.open(info) as stream:
            _write(stream, where, budget, mode)


def _untar(source: Path, root: Path, budget: _Budget) -> None:
    try:
        archive = tarfile.open(source, mode="r:*")  # noqa: SIM115 (closed by the `with` below)
    except (tarfile.TarError, OSError, EOFError, zlib.error, ValueError) as error:
        raise ConfigError(f"{source}: not a readable tar archive ({_problem(error)})") from None
    with archive:
        try:
            for member in archive:
                budget.entry(member.name, member.isdir())
                try:
                    _tar_member(source, root, archive, member, budget)
                except FileExistsError:
                    raise ConfigError(f"{source}: entry {shown(member.name)}: listed twice") from None
        except (tarfile.TarError, EOFError, OSError, zlib.error, ValueError) as error:
            raise ConfigError(f"{source}: damaged archive ({_problem(error)})") from None


def _tar_member(source: Path, root: Path, archive: tarfile.TarFile,
                member: tarfile.TarInfo, budget: _Budget) -> None:
    path = _relative(source, member.name)
    if member.isdir():
        _directory(source, root, path, member.name)
    elif member.issym():
        _link(source, root, path, member.name, member.linkname)
    elif member.islnk():  # a hard link names another entry of the archive: copied as a file
        original = _hard_link_source(source, root, member.name, member.linkname)
        where = _place(source, root, path, member.name)
        with original.open("rb") as stream:
            _write(stream, where, budget, member.mode)
    elif member.isreg():
        where = _place(source, root, path, member.name)
        content = archive.extractfile(member)
        assert content is not None
        with content:
            _write(content, where, budget, member.mode)
    else:
        raise ConfigError(f"{source}: entry {shown(member.name)}: not a regular file "
                          f"(a device, FIFO or other special file)")


def copy_tree(source: Path, destination: Path, max_files: int = MAX_FILES,
              max_bytes: int = MAX_BYTES) -> None:
    """Copy the directory ``source`` to the new ``destination`` under the same rules as archives:
    links are copied as links, each resolved in the copy and refused if it leads outside."""
    budget = _Budget(source, max_files, max_bytes)
    destination.mkdir(parents=True)
    root = Path(_real(destination))
    for top, dirs, files in os.walk(source):  # never follows a link to a directory
        here = Path(top)
        relative = PurePosixPath(here.relative_to(source).as_posix())
        for name in sorted(dirs) + sorted(files):
            entry = here / name
            info = entry.lstat()
            budget.entry((relative / name).as_posix(), stat.S_ISDIR(info.st_mode))
            target = root / relative / name
            if stat.S_ISLNK(info.st_mode):
                link = os.readlink(entry)
                if link.startswith("/") or not _resolves_inside(root, target.parent / link):
                    raise ConfigError(f"{entry}: a link pointing outside the bot ({shown(link)})")
                os.symlink(link, target)
            elif stat.S_ISDIR(info.st_mode):
                target.mkdir()
            elif stat.S_ISREG(info.st_mode):
                with entry.open("rb") as stream:
                    _write(stream, target, budget, info.st_mode)
            else:
                raise ConfigError(f"{entry}: not a regular file (a device, FIFO or socket)")
    for path, problem in stored_problems(root):
        raise ConfigError(f"{source / path.relative_to(root)}: {problem}")


def _problem(error: BaseException) -> str:
    """A library's error as one short line. tarfile lists one line per compression it tried:
    gzip's is the one that matters for a .tar.gz."""
    lines = [line.strip(" -") for line in str(error).splitlines() if line.strip(" -")]
    chosen = next((line for line in lines if line.startswith("method gz:")), None)
    text = chosen.removeprefix("method gz: ") if chosen else (lines[0] if lines else
                                                              type(error).__name__)
    return text[:200]


def bot_root(unpacked: Path, manifest: str) -> Path:
    """Where the bot is in an unpacked archive: its root, or its only top-level directory."""
    if (unpacked / manifest).exists():
        return unpacked
    entries = [p for p in unpacked.iterdir() if not p.name.startswith(".")]
    if len(entries) == 1 and entries[0].is_dir() and not entries[0].is_symlink():
        # Links were checked against the whole archive; the bot is now only this directory.
        for path, problem in stored_problems(entries[0]):
            raise ConfigError(f"{path}: {problem}")
        return entries[0]
    return unpacked
