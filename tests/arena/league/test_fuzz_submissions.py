"""Fuzzing submissions: generated and mutated archives (random member names, links, hard links,
nesting, sizes, damaged bytes), copied directories and manifests. Each case ends, within a time
bound, in success or exactly one ConfigError line (a submission: rejected with a one-line reason),
never another exception, and writes nothing outside its unpack root. Seeded generators: every case
is reproducible from its seed.

The unpack root is six directories down in ``tmp_path`` and no generated target climbs more than
five levels, so anything that escaped would land inside ``tmp_path``, where a snapshot finds it.
"""

from __future__ import annotations

import io
import os
import random
import stat
import tarfile
import time
import zipfile
from pathlib import Path

import pytest

from arena.errors import ConfigError
from arena.league.archive import MAX_BYTES, MAX_FILES, copy_tree, unpack
from arena.league.config import LeagueSettings
from arena.league.database import STAGING_DIR
from arena.league.store import Store
from arena.league.submit import submit

pytestmark = pytest.mark.filterwarnings("ignore:Duplicate name")  # zipfile's: entries listed twice

CASE_SECONDS = 5.0
"""A case's time bound: generous for a loaded machine (each takes milliseconds)."""
PARTS = ["a", "b", "c", "x", "bot.yaml", ".", "..", "", "sub dir", "é", "A" * 300, "c:", "\\"]
KINDS = ["file", "file", "file", "dir", "sym", "sym", "sym", "hard", "special"]

Entry = tuple[str, str, str, bytes]
"""(kind, name, link target, content)."""


def name_of(rng: random.Random, made: list[Entry]) -> str:
    """Mostly plain names, often under (or over) a directory or link already listed, now and then a
    hostile one (absolute, ``..``, empty parts, very long, a drive, a backslash)."""
    reused = [name.strip("/") for kind, name, _, _ in made if kind in ("dir", "sym")]
    if reused and rng.random() < 0.5:
        base = rng.choice(reused)
        return base if rng.random() < 0.2 else f"{base}/{rng.choice(PARTS[:5])}"
    parts = PARTS[:4] if rng.random() < 0.85 else PARTS
    name = "/".join([rng.choice(parts) for _ in range(rng.randint(0, 3))] + [rng.choice(PARTS[:5])])
    start = "/" if rng.random() < 0.04 else rng.choice(["", "./"])
    return start + name + rng.choice(["", "", "/"])


def target_of(rng: random.Random, made: list[Entry]) -> str:
    if rng.random() < 0.05:
        return rng.choice(["/etc/passwd", "/", "", "x" * 2000])
    names = [name.strip("/").split("/")[0] for _, name, _, _ in made[-4:]]
    parts = [rng.choice(["..", "..", ".", *PARTS[:4], *names]) for _ in range(rng.randint(1, 6))]
    while parts.count("..") > 5:
        parts.remove("..")
    return "/".join(parts)


def entries(rng: random.Random) -> list[Entry]:
    made: list[Entry] = [("file", "bot.yaml", "", b"name: fuzz\nrun: ./nothing\n")]
    for _ in range(rng.randint(0, 12)):
        kind = rng.choice(KINDS)
        made.append((kind, name_of(rng, made), target_of(rng, made) if kind in ("sym", "hard") else "",
                     rng.randbytes(rng.choice([0, 10, 3000]))))
    return made


def tar_archive(path: Path, made: list[Entry], rng: random.Random) -> None:
    types = {"file": tarfile.REGTYPE, "dir": tarfile.DIRTYPE, "sym": tarfile.SYMTYPE,
             "hard": tarfile.LNKTYPE}
    with tarfile.open(path, "w:gz", format=tarfile.PAX_FORMAT) as archive:
        for kind, name, target, data in made:
            info = tarfile.TarInfo(name)
            info.type = types.get(kind) or rng.choice([tarfile.FIFOTYPE, tarfile.CHRTYPE])
            info.linkname = target
            info.mode = rng.choice([0o644, 0o755, 0o4777])
            if kind == "file":
                info.size = len(data)
                archive.addfile(info, io.BytesIO(data))
            else:
                archive.addfile(info)


def zip_archive(path: Path, made: list[Entry], rng: random.Random) -> None:
    modes = {"file": stat.S_IFREG | 0o644, "dir": stat.S_IFDIR | 0o755, "sym": stat.S_IFLNK | 0o777,
             "hard": stat.S_IFREG | 0o644, "special": stat.S_IFIFO | 0o644}
    with zipfile.ZipFile(path, "w", rng.choice([zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED])) as zf:
        for kind, name, target, data in made:
            info = zipfile.ZipInfo(name + ("/" if kind == "dir" and not name.endswith("/") else ""))
            info.external_attr = modes[kind] << 16
            zf.writestr(info, target.encode() if kind == "sym" else data)


def damaged(rng: random.Random, path: Path) -> None:
    data = bytearray(path.read_bytes())
    if rng.random() < 0.3:
        del data[rng.randrange(len(data)):]
    for _ in range(rng.randint(1, 6)):
        if data:
            data[rng.randrange(len(data))] = rng.randrange(256)
    path.write_bytes(bytes(data))


def snapshot(tmp_path: Path, skip: Path) -> set[tuple[str, int]]:
    """Every path under ``tmp_path`` but inside ``skip``, with its size (links not followed)."""
    found = set()
    for top, dirs, files in os.walk(tmp_path):
        if Path(top) == skip:
            dirs.clear()
            continue
        for name in dirs + files:
            path = Path(top) / name
            info = path.lstat()
            if path != skip:
                found.add((str(path), 0 if stat.S_ISDIR(info.st_mode) else info.st_size))
    return found


def settled(root: Path) -> None:
    """What an accepted unpack leaves: only files, directories and links that stay inside."""
    real = os.path.realpath(root)
    for top, dirs, files in os.walk(root):
        for name in dirs + files:
            path = Path(top) / name
            mode = path.lstat().st_mode
            assert stat.S_ISREG(mode) or stat.S_ISDIR(mode) or stat.S_ISLNK(mode), path
            if stat.S_ISLNK(mode):
                resolved = os.path.normpath(os.path.realpath(path))
                assert resolved == real or resolved.startswith(real + os.sep), (path, resolved)


def one_line(error: ConfigError) -> None:
    message = str(error)
    assert "\n" not in message and len(message) < 1000, message[:1000]


def archive_case(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    case = tmp_path / str(seed)
    root = case / "d1" / "d2" / "d3" / "d4" / "d5" / "out"
    root.parent.mkdir(parents=True)
    source = case / ("bot.zip" if seed % 2 else "bot.tar.gz")
    (zip_archive if seed % 2 else tar_archive)(source, entries(rng), rng)
    if rng.random() < 0.25:
        damaged(rng, source)
    before = snapshot(case, root)
    started = time.monotonic()
    try:
        unpack(source, root, max_files=rng.choice([MAX_FILES, 5]),
               max_bytes=rng.choice([MAX_BYTES, 4000]))
    except ConfigError as error:
        one_line(error)
    else:
        settled(root)
    assert time.monotonic() - started < CASE_SECONDS, f"seed {seed} took too long"
    assert snapshot(case, root) == before, f"seed {seed} wrote outside its unpack root"


@pytest.mark.timeout(60)
@pytest.mark.parametrize("block", range(3))
def test_generated_and_damaged_archives_unpack_or_are_one_config_error(
        tmp_path: Path, block: int) -> None:
    for seed in range(block * 150, block * 150 + 150):
        archive_case(tmp_path, seed)


@pytest.mark.timeout(60)
def test_generated_directories_copy_or_are_one_config_error(tmp_path: Path) -> None:
    for seed in range(150):
        rng = random.Random(seed)
        case = tmp_path / str(seed)
        source = case / "src"
        source.mkdir(parents=True)
        made: list[Entry] = []
        for _ in range(rng.randint(1, 10)):
            name = "/".join(rng.choice(PARTS[:5]) for _ in range(rng.randint(1, 3)))
            path = source / name
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                if rng.random() < 0.5:
                    path.symlink_to(target_of(rng, made))
                elif rng.random() < 0.5:
                    path.mkdir()
                else:
                    path.write_bytes(rng.randbytes(rng.choice([0, 100])))
            except OSError:
                continue  # a name under a file or a link, already there: the tree stays as it is
            made.append(("sym", name, "", b""))
        root = case / "d1" / "d2" / "d3" / "d4" / "d5" / "copy"
        root.parent.mkdir(parents=True)
        before = snapshot(case, root)
        try:
            copy_tree(source, root)
        except ConfigError as error:
            one_line(error)
        else:
            settled(root)
        assert snapshot(case, root) == before, f"seed {seed} wrote outside its copy"


@pytest.mark.timeout(120)
def test_generated_submissions_are_rejected_with_one_line_and_leave_nothing(tmp_path: Path) -> None:
    """Through ``submit`` into a real league: archives and manifests generated together; none can
    be accepted (their program is missing), each is one line, the staging area is left empty."""
    league = tmp_path / "d1" / "d2" / "d3" / "league"
    Store.create(league, LeagueSettings.checked("blackout", 3, {}).stored()).close()
    manifests = [b"name: [&a [x, x], *a]\nrun: ./nothing\n", b"name: ok\nrun: ./nothing\n",
                 b"name: ok\nrun: ./nothing\nauthor: " + b"A" * 20_000 + b"\n",
                 b"name: ok\nrun: " + b"[" * 3000 + b"\n", b"\xff\xfe", b"name: ok\nrun: [a, *b]\n"]
    for seed in range(40):
        rng = random.Random(seed)
        case = tmp_path / f"case{seed}"
        case.mkdir()
        made = entries(rng)
        made[0] = ("file", rng.choice(["bot.yaml", "bot/bot.yaml"]), "", rng.choice(manifests))
        source = case / ("bot.zip" if seed % 2 else "bot.tar.gz")
        (zip_archive if seed % 2 else tar_archive)(source, made, rng)
        before = snapshot(tmp_path, league)
        started = time.monotonic()
        submission = submit(league, source)
        assert time.monotonic() - started < CASE_SECONDS, f"seed {seed} took too long"
        assert not submission.accepted and submission.reason
        assert "\n" not in submission.reason, submission.reason
        assert list((league / STAGING_DIR).iterdir()) == []
        assert snapshot(tmp_path, league) == before, f"seed {seed} wrote outside the league"
