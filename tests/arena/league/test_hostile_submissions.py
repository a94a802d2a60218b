"""Submissions a stranger could make to hurt the league are rejected with one line, in time, and
leave nothing behind: archives whose links lead out, a device for a bot, an alias bomb or a huge
field in bot.yaml; and an empty league.db is "not a league" to every command alike.
Real leagues (``arena league init``), real archives and the real ``arena league`` commands."""

from __future__ import annotations

import io
import os
import shutil
import tarfile
import time
from pathlib import Path

import pytest

from arena.bots.sandbox import bwrap_problem
from arena.league.archive import MAX_FILES
from arena.league.config import LeagueSettings
from arena.league.database import DATABASE, STAGING_DIR
from arena.league.store import Store
from arena.league.submit import submit
from arena.settings import SandboxMode
from arena.spec import BUILD_WALL, PlaySettings

from helpers import arena, new_league

ROOT = Path(__file__).resolve().parents[3]

pytestmark = pytest.mark.timeout(60)


@pytest.fixture(scope="module")
def empty_league(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return new_league(tmp_path_factory.mktemp("template") / "league")  # in process: a set-up


@pytest.fixture
def league(empty_league: Path, tmp_path: Path) -> Path:
    """A fresh copy, nested so that a link climbing four levels out of its staging copy still
    lands inside ``tmp_path``."""
    return Path(shutil.copytree(empty_league, tmp_path / "a" / "b" / "league"))


def tar_gz(path: Path, members: list[tuple[str, bytes, str]]) -> Path:
    """A .tar.gz of (name, type, content or link target)."""
    with tarfile.open(path, "w:gz") as archive:
        for name, kind, data in members:
            info = tarfile.TarInfo(name)
            info.type = kind
            if kind in (tarfile.SYMTYPE, tarfile.LNKTYPE):
                info.linkname = data
                archive.addfile(info)
            else:
                info.size = len(data.encode())
                archive.addfile(info, io.BytesIO(data.encode()))
    return path


def left_behind(league: Path) -> list[Path]:
    return list((league / STAGING_DIR).iterdir()) + list((league / "bots").iterdir())


@pytest.mark.slow
def test_an_archive_whose_link_chain_leads_out_is_rejected_and_writes_nothing(
        league: Path, tmp_path: Path) -> None:
    # Staged at league/staging/submit-*/unpacked: five levels up from there is tmp_path/a.
    chain = "b/b/b/b/b/../../../../../"
    archive = tar_gz(tmp_path / "evil.tar.gz", [
        ("bot.yaml", tarfile.REGTYPE, "name: evil\nrun: ./bot\n"),
        ("b", tarfile.SYMTYPE, "."), ("a", tarfile.SYMTYPE, chain),
        ("a/x/PWNED", tarfile.REGTYPE, "pwned")])
    done = arena("league", "submit", league, archive)
    assert done.returncode == 1
    assert done.stdout == (f"rejected: {archive}: entry 'a': a link pointing outside the bot "
                           f"('{chain}')\n")
    assert not any(p.name == "PWNED" for p in tmp_path.rglob("*"))
    assert left_behind(league) == []


def test_an_archive_hard_link_to_a_file_outside_is_rejected(league: Path, tmp_path: Path) -> None:
    # As above, ``a`` is tmp_path/a, where a secret file waits.
    (tmp_path / "a" / "passwd").write_text("root:x:0:0\n")
    archive = tar_gz(tmp_path / "evil.tar.gz", [
        ("bot.yaml", tarfile.REGTYPE, "name: evil\nrun: ./bot\n"),
        ("b", tarfile.SYMTYPE, "."), ("a", tarfile.SYMTYPE, "b/b/b/b/b/../../../../../"),
        ("passwd", tarfile.LNKTYPE, "a/passwd")])
    submission = submit(league, archive)
    assert not submission.accepted
    assert submission.reason == (f"{archive}: entry 'a': a link pointing outside the bot "
                                 f"('b/b/b/b/b/../../../../../')")
    assert left_behind(league) == []


@pytest.mark.slow
def test_a_device_for_a_bot_is_rejected_without_copying_its_directory(league: Path) -> None:
    done = arena("league", "submit", league, "/dev/null")
    assert done.returncode == 1
    assert done.stdout == ("rejected: /dev/null: not a bot directory or manifest (a device, FIFO "
                           "or other special file)\n")
    assert left_behind(league) == []


@pytest.mark.timeout(10)
def test_a_manifest_alias_bomb_is_rejected_at_once(league: Path, tmp_path: Path) -> None:
    lists = ["&l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    lists += [f"&l{i} [{', '.join([f'*l{i - 1}'] * 9)}]" for i in range(1, 9)]
    (tmp_path / "bomb").mkdir()
    (tmp_path / "bomb" / "bot.yaml").write_text(f"name: [{', '.join(lists)}]\nrun: ./bot\n")
    submission = submit(league, tmp_path / "bomb")
    assert not submission.accepted
    assert submission.reason == (f"{tmp_path / 'bomb'}/bot.yaml: line 1: more than 100,000 values "
                                 f"once aliases are expanded")


@pytest.mark.parametrize(("author", "problem"), [
    ("A" * 10_000_000, "bot.yaml: larger than 1 MiB, the most a bot manifest may be"),
    ("A" * 5_000, "bot.yaml: author: 'AAAA"),
], ids=["10MB", "5000"])
@pytest.mark.slow
def test_a_huge_author_is_rejected_and_never_shown(
        league: Path, tmp_path: Path, author: str, problem: str) -> None:
    (tmp_path / "big").mkdir()
    (tmp_path / "big" / "bot.yaml").write_text(f"name: big\nrun: ./bot\nauthor: {author}\n")
    done = arena("league", "submit", league, tmp_path / "big")
    assert done.returncode == 1 and problem in done.stdout
    assert len(done.stdout) < 300 and done.stdout.count("\n") == 1
    status = arena("league", "status", league)
    assert status.returncode == 0 and len(status.stdout) + len(status.stderr) < 5_000


@pytest.mark.slow  # six real commands
def test_an_empty_league_db_is_not_a_league_until_init_makes_it_one(tmp_path: Path) -> None:
    league = tmp_path / "lg"
    league.mkdir()
    (league / DATABASE).touch()
    for args in (["status", league], ["table", league],
                 ["submit", league, ROOT / "bots/c/random.bot.yaml"]):
        done = arena("league", *args)
        assert done.returncode == 2
        assert done.stderr == (f"arena: error: {league}: not a league ({DATABASE} is empty; "
                               f"create one with arena league init)\n")
    done = arena("league", "init", league, "--game", "blackout", "--players", "3")
    assert done.returncode == 0, done.stderr
    assert arena("league", "status", league).returncode == 0
    again = arena("league", "init", league, "--game", "blackout", "--players", "3")
    assert again.returncode == 2 and "already a league" in again.stderr


needs_bwrap = pytest.mark.skipif(bwrap_problem() is not None,
                                 reason=f"no working bubblewrap: {bwrap_problem()}")


@pytest.fixture(scope="module")
def empty_bwrap_league(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if bwrap_problem() is not None:
        pytest.skip(f"no working bubblewrap: {bwrap_problem()}")
    return new_league(tmp_path_factory.mktemp("template") / "league", sandbox="bwrap")


@pytest.fixture
def bwrap_league(empty_bwrap_league: Path, tmp_path: Path) -> Path:
    """A fresh copy of a league whose builds, checks and games run under bwrap."""
    return Path(shutil.copytree(empty_bwrap_league, tmp_path / "a" / "b" / "league"))


READS_KEY = """import json, sys
key = open(sys.argv[1]).read().strip()
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "quit":
        break
    if message["type"] == "hello":  # the key as its name: check-bot's report shows it
        reply = {"id": message["id"], "name": key[:40], "protocol": 1}
    elif message["type"] == "act":
        reply = {"id": message["id"], "action": message["legal"][0]}
    else:
        continue
    print(json.dumps(reply), flush=True)
"""


@needs_bwrap
@pytest.mark.skipif(not Path("/usr/bin/python3").exists(), reason="no /usr/bin/python3")
@pytest.mark.slow
def test_an_interpreter_linked_from_a_fake_home_is_refused_and_nothing_of_the_home_is_read(
        bwrap_league: Path, tmp_path: Path) -> None:
    # Before: the link's home was mounted for the bot, which read its key and could say it in
    # its hello, its bids and its cards (the league publishes them).
    home = tmp_path / "hosthome"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("PRIVATE KEY of the organiser\n")
    (home / "bin").mkdir()
    (home / "bin" / "python3").symlink_to("/usr/bin/python3")
    bot = tmp_path / "evil"
    bot.mkdir()
    (bot / "bot.py").write_text(READS_KEY)
    (bot / "bot.yaml").write_text(f"name: evil\nrun: [{home}/bin/python3, bot.py, "
                                  f"{home}/.ssh/id_rsa]\n")
    for path in (tmp_path, *tmp_path.rglob("*")):
        if not path.is_symlink():
            path.chmod(0o755 if path.is_dir() else 0o644)
    done = arena("league", "submit", bwrap_league, bot)
    assert done.returncode == 1
    assert done.stdout == (f"rejected: {bot}/bot.yaml: run: names '{home}/bin/python3', outside "
                           f"the bot and outside the interpreters this arena allows: run it by a "
                           f"name on PATH (python3, node, java, go, cargo), or have the "
                           f"organiser allow its installation with --interpreter DIR\n")
    status = arena("league", "status", bwrap_league)
    log = (bwrap_league / "submissions.jsonl").read_text()
    assert "PRIVATE KEY" not in status.stdout + log
    assert left_behind(bwrap_league) == []


@pytest.mark.parametrize(("build", "path", "problem"), [
    ("ln -s / rootlink", "rootlink", "a link pointing outside the bot ('/')"),
    ("ln -s ../../../league.db dblink", "dblink",
     "a link pointing outside the bot ('../../../league.db')"),
    ("mkdir -p deep/er && ln -s ../../.. deep/er/up", "deep/er/up",
     "a link pointing outside the bot ('../../..')"),
    ("mkfifo pipe", "pipe", "not a regular file (a device, FIFO or socket)"),
], ids=["root", "league.db", "nested", "fifo"])
def test_what_a_build_leaves_is_checked_like_what_was_submitted(
        league: Path, tmp_path: Path, build: str, path: str, problem: str) -> None:
    # Before: the no-links rule held before the build only, and the copy was stored with it.
    bot = tmp_path / "builder"
    bot.mkdir()
    shutil.copy(ROOT / "tests" / "bots" / "misbehaving" / "well_behaved.py", bot)
    shutil.copy(ROOT / "tests" / "bots" / "misbehaving" / "_protocol.py", bot)
    (bot / "bot.yaml").write_text(f"name: builder\nbuild: sh -c '{build}'\n"
                                  f"run: python3 well_behaved.py\n")
    submission = submit(league, bot)
    assert not submission.accepted
    assert submission.reason == f"{bot}/{path}: {problem}, left by its build"
    assert left_behind(league) == []


@needs_bwrap
def test_a_sandboxed_build_that_leaves_a_fifo_is_rejected(bwrap_league: Path,
                                                          tmp_path: Path) -> None:
    bot = tmp_path / "builder"
    bot.mkdir(mode=0o755)
    (bot / "bot.yaml").write_text("name: builder\nbuild: mkfifo pipe\nrun: python3 bot.py\n")
    (bot / "bot.py").write_text("")
    tmp_path.chmod(0o755)
    submission = submit(bwrap_league, bot)
    assert submission.reason == (f"{bot}/pipe: not a regular file (a device, FIFO or socket), "
                                 f"left by its build")
    assert left_behind(bwrap_league) == []


@pytest.mark.parametrize("packed", [False, True], ids=["directory", "tar.gz"])
@pytest.mark.slow
def test_a_rust_bot_submitted_with_its_target_directory_is_told_to_leave_it_out(
        league: Path, tmp_path: Path, packed: bool) -> None:
    """The Rust starter bot's sources with a target/ of cargo's build output past the league's
    5,000 files: one line that names target/ and why it is not needed."""
    bot = tmp_path / "rustbot"
    shutil.copytree(ROOT / "bots/rust", bot, ignore=shutil.ignore_patterns("target", "Cargo.lock"))
    objects = bot / "target" / "release" / "deps"
    objects.mkdir(parents=True)
    for index in range(MAX_FILES):
        (objects / f"o{index}").touch()
    source = bot
    if packed:
        source = tmp_path / "rustbot.tar.gz"
        with tarfile.open(source, "w:gz") as archive:
            archive.add(bot, arcname="rustbot")
    done = arena("league", "submit", league, source)
    assert done.returncode == 1
    where = "rustbot/target/" if packed else "target/"
    assert done.stdout == (f"rejected: {source}: more than {MAX_FILES} files; leave out '{where}' "
                           f"(cargo's build output: the league runs the bot's build itself)\n")
    assert left_behind(league) == []


# What a build may do: tests/bots/hostile/builds/ ---------------------------------------------

HOSTILE_BUILDS = ROOT / "tests" / "bots" / "hostile" / "builds"


@pytest.fixture(params=["none", pytest.param("bwrap", marks=needs_bwrap)])
def any_league(request: pytest.FixtureRequest) -> Path:
    """A fresh league whose builds run without a sandbox, then one whose builds run in bwrap."""
    if request.param == "none":
        return request.getfixturevalue("league")
    return request.getfixturevalue("bwrap_league")


def hostile_bot(tmp_path: Path, build: str, *scripts: str, name: str = "builder") -> Path:
    """A well-behaved bot whose ``build`` runs the hostile build ``scripts``, readable by a
    sandboxed build's own uid."""
    bot = tmp_path / name
    bot.mkdir()
    for source in (ROOT / "tests/bots/misbehaving/well_behaved.py",
                   ROOT / "tests/bots/misbehaving/_protocol.py",
                   *(HOSTILE_BUILDS / script for script in scripts)):
        shutil.copy(source, bot)
    (bot / "bot.yaml").write_text(f"name: {name}\nbuild: {build}\nrun: python3 well_behaved.py\n")
    for path in (tmp_path, bot, *bot.iterdir()):
        path.chmod(0o755 if path.is_dir() else 0o644)
    return bot


def special_files(top: Path) -> list[str]:
    """Everything under ``top`` with a set-uid, set-gid or sticky bit, or writable by others."""
    return [f"{path}: {oct(path.lstat().st_mode)}" for path in (top, *top.rglob("*"))
            if not path.is_symlink() and path.lstat().st_mode & 0o7022]


def test_a_build_that_makes_a_set_uid_copy_of_python_is_rejected(any_league: Path,
                                                                tmp_path: Path) -> None:
    # Before: accepted, and bots/builder/1/py was -rwsr-xr-x root: euid 0 for any local user.
    bot = hostile_bot(tmp_path, "sh setuid_copy.sh", "setuid_copy.sh")
    submission = submit(any_league, bot)
    assert submission.reason == (f"{bot}/py: a set-uid or set-gid file (a bot runs with its own "
                                 f"rights only), left by its build")
    assert left_behind(any_league) == []
    assert special_files(any_league / "bots") == []


@pytest.mark.slow  # a build, then every check-bot step
def test_what_a_build_leaves_is_stored_as_the_arenas_and_nobody_elses(
        any_league: Path, tmp_path: Path) -> None:
    """Accepted, the version belongs to the arena's user, with plain modes: nothing set-gid,
    nothing writable by the build's uid or anyone else."""
    # Before: open/ stayed 2777 and open/file 666 in bots/ (and, in bwrap, the build's uid).
    bot = hostile_bot(tmp_path, "sh opens_up.sh", "opens_up.sh")
    submission = submit(any_league, bot)
    assert submission.accepted, submission.reason
    stored = any_league / "bots" / "builder" / "1"
    assert (stored / "open" / "file").read_text() == "data\n"
    assert special_files(stored) == []
    owners = {(path.lstat().st_uid, path.lstat().st_gid) for path in (stored, *stored.rglob("*"))}
    assert owners == {(os.geteuid(), os.getegid())}


def test_a_build_that_hard_links_a_file_from_outside_is_rejected(league: Path,
                                                                 tmp_path: Path) -> None:
    """Without a sandbox a build can link any file of its file system it may read into the bot
    (under bwrap the link cannot be made: its directory is a mount of its own)."""
    # Before: accepted, and the stored bot held the league's own database under another name.
    bot = hostile_bot(tmp_path, f"sh links_outside.sh {league / DATABASE}", "links_outside.sh")
    submission = submit(league, bot)
    assert submission.reason == (f"{bot}/stolen: a hard link to a file outside the bot, left by "
                                 f"its build")
    assert left_behind(league) == []


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can give a file capabilities")
@pytest.mark.slow  # copies a python
def test_a_build_that_gives_a_file_capabilities_is_rejected(league: Path, tmp_path: Path) -> None:
    # Before: accepted, and bots/builder/1/raw was a python with CAP_NET_RAW for whoever ran it.
    bot = hostile_bot(tmp_path, "python3 sets_capability.py raw", "sets_capability.py")
    submission = submit(league, bot)
    assert submission.reason == (f"{bot}/raw: a file with capabilities (security.capability), "
                                 f"left by its build")
    assert left_behind(league) == []


@pytest.mark.slow  # three real commands and a 2-second build
def test_a_sleeping_build_ends_at_the_leagues_build_limit(tmp_path: Path) -> None:
    """`league init --build-seconds`, `submit` and `status` as an organiser runs them."""
    # Before: --build-seconds did not exist, and a build slept up to 600 s per upload.
    league = tmp_path / "league"
    done = arena("league", "init", league, "--players", "3", "--build-seconds", "2",
                 "--build-cpu-seconds", "5")
    assert done.returncode == 0, done.stderr
    bot = hostile_bot(tmp_path, "sh sleeps.sh", "sleeps.sh")
    started = time.monotonic()
    done = arena("league", "submit", league, bot)
    assert time.monotonic() - started < 60
    assert done.returncode == 1
    assert done.stdout == (f"rejected: {bot}/bot.yaml: build: did not finish within 2 s (its time "
                           f"limit); the end of its output:\n  | sleeping\n")
    status = arena("league", "status", league)
    assert ", builds up to 2 s (5 s of CPU a process);" in status.stdout.splitlines()[0]
    assert left_behind(league) == []


@needs_bwrap
@pytest.mark.slow  # a 2-second build
def test_a_sleeping_build_ends_at_the_leagues_build_limit_in_bwrap(tmp_path: Path) -> None:
    league = tmp_path / "league"
    Store.create(league, LeagueSettings.checked(
        "blackout", 3, {}, PlaySettings(sandbox=SandboxMode.BWRAP),
        build={BUILD_WALL.key: 2}).stored()).close()
    bot = hostile_bot(tmp_path, "sh sleeps.sh", "sleeps.sh")
    submission = submit(league, bot)
    assert submission.reason == (f"{bot}/bot.yaml: build: did not finish within 2 s (its time "
                                 f"limit); the end of its output:\n  | sleeping")
    assert left_behind(league) == []
