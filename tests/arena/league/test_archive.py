"""Submitted archives and directories are brought in safely: hostile entries are refused with the
entry named, caps hold even when an archive lies about its sizes. Real archives, made here."""

from __future__ import annotations

import io
import os
import stat
import tarfile
import zipfile
from pathlib import Path

import pytest

from arena.errors import ConfigError
from arena.league.archive import bot_root, copy_tree, seal, stored_problems, unpack


def make_tar(path: Path, members: list[tuple[tarfile.TarInfo, bytes | None]]) -> Path:
    with tarfile.open(path, "w:gz") as archive:
        for info, data in members:
            if data is not None:
                info.size = len(data)
            archive.addfile(info, None if data is None else io.BytesIO(data))
    return path


def entry(name: str, kind: bytes = tarfile.REGTYPE, link: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = link
    info.mode = 0o644
    return info


def test_a_good_zip_and_tar_gz_unpack_with_their_files_and_modes(tmp_path: Path) -> None:
    with zipfile.ZipFile(tmp_path / "bot.zip", "w") as archive:
        archive.writestr("mybot/bot.yaml", "name: x\n")
        info = zipfile.ZipInfo("mybot/run.sh")
        info.external_attr = (stat.S_IFREG | 0o755) << 16
        archive.writestr(info, "#!/bin/sh\n")
    unpack(tmp_path / "bot.zip", tmp_path / "z")
    assert bot_root(tmp_path / "z", "bot.yaml") == tmp_path / "z" / "mybot"
    assert os.access(tmp_path / "z/mybot/run.sh", os.X_OK)
    make_tar(tmp_path / "bot.tar.gz", [(entry("bot.yaml"), b"name: x\n"), (entry("lib/a.py"), b""),
                                       (entry("lib/b.py", tarfile.SYMTYPE, "a.py"), None)])
    unpack(tmp_path / "bot.tar.gz", tmp_path / "t")
    assert bot_root(tmp_path / "t", "bot.yaml") == tmp_path / "t"
    assert os.readlink(tmp_path / "t/lib/b.py") == "a.py"


@pytest.mark.parametrize(("name", "problem"), [
    ("../evil.py", "'..' in its path"),
    ("bot/../../evil.py", "'..' in its path"),
    ("/etc/evil", "absolute path"),
])
def test_zip_entries_outside_the_bot_are_refused(tmp_path: Path, name: str, problem: str) -> None:
    with zipfile.ZipFile(tmp_path / "bad.zip", "w") as archive:
        archive.writestr("bot.yaml", "name: x\n")
        archive.writestr(name, "boom")
    with pytest.raises(ConfigError, match=f"bad.zip: entry '{name}': {problem}"):
        unpack(tmp_path / "bad.zip", tmp_path / "out")
    assert not (tmp_path / "evil.py").exists()


def test_a_zip_symlink_pointing_out_is_refused(tmp_path: Path) -> None:
    info = zipfile.ZipInfo("escape")
    info.external_attr = (stat.S_IFLNK | 0o777) << 16
    with zipfile.ZipFile(tmp_path / "bad.zip", "w") as archive:
        archive.writestr(info, "../../../etc/passwd")
    with pytest.raises(ConfigError, match="entry 'escape': a link pointing outside the bot"):
        unpack(tmp_path / "bad.zip", tmp_path / "out")


@pytest.mark.parametrize(("member", "problem"), [
    (entry("escape", tarfile.SYMTYPE, "/etc/passwd"), "a link pointing outside the bot"),
    (entry("dir/escape", tarfile.SYMTYPE, "../../x"), "a link pointing outside the bot"),
    (entry("hard", tarfile.LNKTYPE, "/etc/passwd"), "absolute path"),
    (entry("hard", tarfile.LNKTYPE, "../x"), "'..' in its path"),
    (entry("null", tarfile.CHRTYPE), "not a regular file"),
    (entry("disk", tarfile.BLKTYPE), "not a regular file"),
    (entry("pipe", tarfile.FIFOTYPE), "not a regular file"),
    (entry("../up"), "'..' in its path"),
])
def test_hostile_tar_members_are_refused(tmp_path: Path, member: tarfile.TarInfo,
                                          problem: str) -> None:
    path = make_tar(tmp_path / "bad.tar.gz", [(entry("bot.yaml"), b"name: x\n"), (member, None)])
    with pytest.raises(ConfigError, match=problem):
        unpack(path, tmp_path / "out")


def test_caps_on_file_count_and_unpacked_size_hold(tmp_path: Path) -> None:
    with zipfile.ZipFile(tmp_path / "many.zip", "w") as archive:
        for i in range(30):
            archive.writestr(f"f{i}", "")
    with pytest.raises(ConfigError, match="more than 20 files"):
        unpack(tmp_path / "many.zip", tmp_path / "a", max_files=20)
    with zipfile.ZipFile(tmp_path / "bomb.zip", "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("zeros", b"\0" * (3 * 1024 * 1024))
    assert (tmp_path / "bomb.zip").stat().st_size < 64 * 1024
    with pytest.raises(ConfigError, match="more than 2 MB"):
        unpack(tmp_path / "bomb.zip", tmp_path / "b", max_bytes=2 * 1024 * 1024)


def test_a_tar_that_lies_about_a_size_or_is_cut_is_a_damaged_archive(tmp_path: Path) -> None:
    path = make_tar(tmp_path / "ok.tar.gz", [(entry("bot.yaml"), b"name: x\n" * 1000)])
    data = path.read_bytes()
    (tmp_path / "cut.tar.gz").write_bytes(data[: len(data) // 2])
    with pytest.raises(ConfigError, match="cut.tar.gz: "):
        unpack(tmp_path / "cut.tar.gz", tmp_path / "out")
    (tmp_path / "junk.zip").write_bytes(b"not a zip at all")
    with pytest.raises(ConfigError, match="junk.zip: not a readable zip archive"):
        unpack(tmp_path / "junk.zip", tmp_path / "out2")


def test_a_directory_with_a_link_out_or_a_fifo_is_refused(tmp_path: Path) -> None:
    source = tmp_path / "src"
    source.mkdir()
    (source / "bot.yaml").write_text("name: x\n")
    (source / "inside").symlink_to("bot.yaml")
    copy_tree(source, tmp_path / "copy")
    assert os.readlink(tmp_path / "copy" / "inside") == "bot.yaml"
    (source / "secret").symlink_to(Path.home())
    with pytest.raises(ConfigError, match="secret: a link pointing outside the bot"):
        copy_tree(source, tmp_path / "copy2")
    (source / "secret").unlink()
    os.mkfifo(source / "pipe")
    with pytest.raises(ConfigError, match="pipe: not a regular file"):
        copy_tree(source, tmp_path / "copy3")


# -- links resolved against the real directory, not as text ------------------------------------

Spec = tuple[str, str, str]
"""An archive entry: (kind, name, content or link target); kind is file, dir, sym or hard."""


def make_archive(path: Path, specs: list[Spec]) -> Path:
    """A .tar.gz or .zip (by ``path``'s suffix) holding ``specs`` in order."""
    if path.name.endswith(".zip"):
        with zipfile.ZipFile(path, "w") as archive:
            for kind, name, data in specs:
                info = zipfile.ZipInfo(name + ("/" if kind == "dir" else ""))
                modes = {"file": stat.S_IFREG | 0o644, "dir": stat.S_IFDIR | 0o755,
                         "sym": stat.S_IFLNK | 0o777}
                info.external_attr = modes[kind] << 16
                archive.writestr(info, data)
        return path
    kinds = {"file": tarfile.REGTYPE, "dir": tarfile.DIRTYPE, "sym": tarfile.SYMTYPE,
             "hard": tarfile.LNKTYPE}
    return make_tar(path, [(entry(name, kinds[kind], data if kind in ("sym", "hard") else ""),
                            data.encode() if kind == "file" else None) for kind, name, data in specs])


CHAIN = [("sym", "b", "."), ("sym", "a", "b/b/b/b/../../../../")]
"""``a`` looks four levels down and four up as text; with ``b`` a link to ``.`` it is four levels
above the bot. Unpacked at ``tmp_path/l1/l2/l3/out``, ``a`` is ``tmp_path``."""
LATER = [("sym", "c", "x/.."), ("sym", "x", ".")]
"""``c`` is the bot's own directory while ``x`` is missing; once ``x`` links to ``.``, ``c`` is its
parent: every link checked when written stays inside, and the pair leads out."""


@pytest.mark.parametrize("suffix", [".tar.gz", ".zip"])
@pytest.mark.parametrize(("specs", "problem"), [
    (CHAIN + [("file", "a/x/PWNED", "pwned")], "entry 'a': a link pointing outside the bot"),
    (LATER + [("file", "c/l2/l3/x/PWNED", "pwned")], "entry 'c/l2/l3/x/PWNED': written through "
                                                     "the link 'c'"),
    (LATER + [("file", "bot.yaml", "name: x\n")], "entry 'c': a link pointing outside the bot"),
    ([("dir", "sub", ""), ("sym", "d", "sub"), ("file", "d/../../x/PWNED", "")], "'..' in its path"),
], ids=["chain", "later-link-then-write", "later-link", "dotdot-through-link"])
def test_links_that_lead_out_through_other_links_are_refused_and_write_nothing_outside(
        tmp_path: Path, suffix: str, specs: list[Spec], problem: str) -> None:
    archive = make_archive(tmp_path / f"bot{suffix}", specs)
    root = tmp_path / "l1" / "l2" / "l3" / "out"
    with pytest.raises(ConfigError) as caught:
        unpack(archive, root)
    assert problem in str(caught.value) and "\n" not in str(caught.value)
    assert str(caught.value).startswith(f"{archive}: ")
    assert not (tmp_path / "x").exists() and not (tmp_path / "l1" / "l2" / "x").exists()
    assert not any(p.name == "PWNED" for p in tmp_path.rglob("*"))


@pytest.mark.parametrize("specs", [
    CHAIN + [("hard", "stolen", "a/secret")],
    [("sym", "c", "x/.."), ("sym", "x", "."), ("hard", "stolen", "c/secret")],
    [("sym", "up", "."), ("hard", "stolen", "up/../secret")],
], ids=["chain", "later-link", "dotdot"])
def test_a_hard_link_through_links_copies_nothing_from_outside(
        tmp_path: Path, specs: list[Spec]) -> None:
    root = tmp_path / "l1" / "l2" / "l3" / "out"
    for secret in (tmp_path / "secret", root.parent / "secret"):
        secret.parent.mkdir(parents=True, exist_ok=True)
        secret.write_text("root:x:0:0\n")
    archive = make_archive(tmp_path / "bot.tar.gz", specs)
    with pytest.raises(ConfigError) as caught:
        unpack(archive, root)
    assert "\n" not in str(caught.value)
    assert not (root / "stolen").exists()
    assert not any("root:x" in p.read_text() for p in root.rglob("*") if p.is_file())


def test_a_hard_link_to_a_file_unpacked_inside_is_a_copy(tmp_path: Path) -> None:
    archive = make_archive(tmp_path / "bot.tar.gz", [
        ("dir", "lib", ""), ("file", "lib/a.py", "print(1)\n"), ("sym", "here", "lib"),
        ("hard", "b.py", "lib/a.py"), ("hard", "c.py", "here/a.py")])
    unpack(archive, tmp_path / "out")
    for name in ("b.py", "c.py"):
        copy = tmp_path / "out" / name
        assert copy.read_text() == "print(1)\n" and not copy.is_symlink()
        assert copy.stat().st_ino != (tmp_path / "out/lib/a.py").stat().st_ino


@pytest.mark.filterwarnings("ignore:Duplicate name")  # zipfile's, for the entries listed twice
@pytest.mark.parametrize("suffix", [".tar.gz", ".zip"])
@pytest.mark.parametrize(("specs", "problem"), [
    ([("dir", "sub", ""), ("sym", "d", "sub"), ("dir", "d", "")],
     "entry 'd/?': a directory where a link or a file was unpacked"),
    ([("dir", "d", ""), ("sym", "d", ".")], "entry 'd': listed twice"),
    ([("file", "d", ""), ("sym", "d", ".")], "entry 'd': listed twice"),
    ([("dir", "sub", ""), ("sym", "d", "sub"), ("file", "d", "")], "entry 'd': listed twice"),
    ([("dir", "sub", ""), ("sym", "d", "sub"), ("file", "d/x", "")],
     "entry 'd/x': written through the link 'd'"),
    ([("file", "f", ""), ("file", "f/x", "")], "entry 'f/x': inside 'f', which is a file"),
], ids=["dir-over-link", "link-over-dir", "link-over-file", "file-over-link", "through-link",
        "under-a-file"])
def test_an_entry_over_or_through_a_link_is_refused(
        tmp_path: Path, suffix: str, specs: list[Spec], problem: str) -> None:
    archive = make_archive(tmp_path / f"bot{suffix}", specs)
    with pytest.raises(ConfigError, match=problem):
        unpack(archive, tmp_path / "out")


def test_links_inside_the_bot_are_kept(tmp_path: Path) -> None:
    archive = make_archive(tmp_path / "bot.zip", [
        ("dir", "lib", ""), ("file", "lib/a.py", ""), ("sym", "lib/up", ".."),
        ("sym", "b", "lib/up/lib/a.py"), ("sym", "later", "not-yet/..")])
    unpack(archive, tmp_path / "out")
    assert (tmp_path / "out/b").resolve() == (tmp_path / "out/lib/a.py").resolve()
    assert os.readlink(tmp_path / "out/later") == "not-yet/.."


def test_a_bot_in_one_directory_may_not_link_into_the_rest_of_the_archive(tmp_path: Path) -> None:
    """Links are checked against the whole archive; when the bot is its only directory, a link to
    the archive's top (``..``) leaves the bot that is kept."""
    archive = make_archive(tmp_path / "bot.tar.gz", [
        ("dir", "mybot", ""), ("file", "mybot/bot.yaml", "name: x\n"), ("sym", "mybot/up", "..")])
    unpack(archive, tmp_path / "out")
    with pytest.raises(ConfigError, match=r"mybot/up: a link pointing outside the bot \('..'\)"):
        bot_root(tmp_path / "out", "bot.yaml")


@pytest.mark.parametrize(("links", "problem"), [
    ({"b": ".", "a": "b/b/../.."}, "a link pointing outside the bot ('b/b/../..')"),
    ({"c": "x/..", "x": "."}, "c: a link pointing outside the bot ('x/..')"),
])
def test_a_directory_copy_resolves_its_links_in_the_copy(
        tmp_path: Path, links: dict[str, str], problem: str) -> None:
    source = tmp_path / "src"
    source.mkdir()
    (source / "bot.yaml").write_text("name: x\n")
    for name, target in links.items():
        (source / name).symlink_to(target)
    with pytest.raises(ConfigError) as caught:
        copy_tree(source, tmp_path / "deep" / "copy")
    assert problem in str(caught.value) and "\n" not in str(caught.value)


def test_zip_entries_without_a_name_or_with_a_password_are_one_line(tmp_path: Path) -> None:
    with zipfile.ZipFile(tmp_path / "nameless.zip", "w") as archive:
        archive.writestr(zipfile.ZipInfo(""), "x")
    with pytest.raises(ConfigError, match="nameless.zip: an entry without a name$"):
        unpack(tmp_path / "nameless.zip", tmp_path / "a")
    with zipfile.ZipFile(tmp_path / "secret.zip", "w") as archive:
        archive.writestr("bot.yaml", "x")
    data = bytearray((tmp_path / "secret.zip").read_bytes())
    for header, flags in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):  # as an encrypting tool sets
        data[data.index(header) + flags] |= 0x1
    (tmp_path / "secret.zip").write_bytes(bytes(data))
    with pytest.raises(ConfigError, match="entry 'bot.yaml': encrypted"):
        unpack(tmp_path / "secret.zip", tmp_path / "b")


def test_a_file_that_is_no_archive_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "junk.tar.gz").write_bytes(b"\x1f\x8b" + b"junk" * 100)
    with pytest.raises(ConfigError) as caught:
        unpack(tmp_path / "junk.tar.gz", tmp_path / "out")
    assert str(caught.value).startswith(f"{tmp_path / 'junk.tar.gz'}: not a readable tar archive (")
    assert "\n" not in str(caught.value)


def test_too_many_files_in_a_build_output_directory_says_to_leave_it_out(tmp_path: Path) -> None:
    """A Rust bot with its target/ (and a git checkout's .git/) copied: the refusal names what
    to leave out, where it is, and why; files elsewhere get the plain refusal."""
    source = tmp_path / "rustbot"
    (source / "src").mkdir(parents=True)
    (source / "bot.yaml").write_text("name: x\nrun: ./target/release/x\n")
    (source / "src" / "main.rs").write_text("fn main() {}\n")
    (source / ".git").write_text("gitdir: elsewhere\n")  # a worktree's .git is a file: no hint
    for index in range(8):
        (source / "src" / f"m{index}.rs").write_text("")
    with pytest.raises(ConfigError) as plain:
        copy_tree(source, tmp_path / "a", max_files=5)
    assert str(plain.value) == f"{source}: more than 5 files"
    (source / "target" / "release" / "deps").mkdir(parents=True)
    for index in range(30):
        (source / "target" / "release" / "deps" / f"d{index}.o").write_text("")
    with pytest.raises(ConfigError) as refused:
        copy_tree(source, tmp_path / "b", max_files=20)
    assert str(refused.value) == (f"{source}: more than 20 files; leave out 'target/' (cargo's "
                                  f"build output: the league runs the bot's build itself)")


def test_an_archive_of_too_many_files_names_each_directory_to_leave_out(tmp_path: Path) -> None:
    with zipfile.ZipFile(tmp_path / "bot.zip", "w") as archive:
        archive.writestr("jsbot/bot.yaml", "name: x\n")
        archive.writestr("jsbot/node_modules/", "")
        for index in range(15):
            archive.writestr(f"jsbot/node_modules/pkg{index}/index.js", "")
    with pytest.raises(ConfigError, match=r"more than 10 files; leave out 'jsbot/node_modules/' "
                                          r"\(installed npm packages: "):
        unpack(tmp_path / "bot.zip", tmp_path / "z", max_files=10)
    members = [(entry("bot.yaml"), b"name: x\n")]
    members += [(entry(f".git/objects/{index:02x}"), b"") for index in range(6)]
    members += [(entry(f"lib/__pycache__/m{index}.pyc"), b"") for index in range(6)]
    members += [(entry(f"{name}/target/x"), b"") for name in ("a", "b", "c")]
    path = make_tar(tmp_path / "bot.tar.gz", members)
    with pytest.raises(ConfigError) as refused:
        unpack(path, tmp_path / "t", max_files=15)
    assert str(refused.value) == (
        f"{path}: more than 15 files; leave out '.git/' (a git repository's history), "
        f"'lib/__pycache__/' (Python's bytecode cache, made again when the bot runs), 'a/target/' "
        f"(cargo's build output: the league runs the bot's build itself) and 2 more such "
        f"directories")


def test_a_tree_over_the_cap_is_a_problem_and_hard_links_inside_it_are_not(tmp_path: Path) -> None:
    """What a build leaves: cargo hard-links its binary inside target/ (fine); a tree past the
    archive cap is named by its root."""
    (tmp_path / "bin").write_bytes(b"x" * 700)
    os.link(tmp_path / "bin", tmp_path / "bin-again")
    assert list(stored_problems(tmp_path, max_bytes=1_400)) == []
    assert list(stored_problems(tmp_path, max_bytes=1_000)) == [
        (tmp_path, "more than 1,000 bytes of files")]


def test_a_sealed_tree_has_a_submissions_modes(tmp_path: Path) -> None:
    (tmp_path / "open").mkdir(mode=0o777)
    (tmp_path / "open").chmod(0o3777)
    (tmp_path / "open" / "run").write_text("")
    (tmp_path / "open" / "run").chmod(0o6777)
    (tmp_path / "data").write_text("")
    (tmp_path / "data").chmod(0o666)
    os.symlink("data", tmp_path / "link")
    seal(tmp_path)
    modes = {path.name: stat.S_IMODE(path.lstat().st_mode) for path in tmp_path.rglob("*")
             if not path.is_symlink()}
    assert modes == {"open": 0o755, "run": 0o755, "data": 0o644}
    assert stat.S_IMODE(tmp_path.stat().st_mode) == 0o755
