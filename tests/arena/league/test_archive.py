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
from arena.league.archive import bot_root, copy_tree, unpack


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
