"""Which of /etc a sandbox shows for the runtimes it allows: found from each runtime, only what
every user may read."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from arena.botfiles.configuration import _linked_configuration, is_public, runtime_configuration


def test_a_directory_only_its_owner_may_read_is_not_public(tmp_path: Path) -> None:
    (tmp_path / "conf").mkdir()
    (tmp_path / "conf" / "settings").write_text("x")
    for path in (tmp_path, tmp_path / "conf"):
        path.chmod(0o755)
    (tmp_path / "conf" / "settings").chmod(0o644)
    assert is_public(str(tmp_path / "conf"))
    (tmp_path / "conf" / "settings").chmod(0o600)
    assert not is_public(str(tmp_path / "conf"))
    (tmp_path / "conf" / "settings").chmod(0o644)
    (tmp_path / "conf").chmod(0o700)
    assert not is_public(str(tmp_path / "conf"))


def test_a_link_is_never_shown_as_what_it_points_to(tmp_path: Path) -> None:
    (tmp_path / "conf").symlink_to("/etc/passwd")
    assert not is_public(str(tmp_path / "conf"))


def test_an_installations_links_into_etc_show_their_public_targets(tmp_path: Path) -> None:
    home = tmp_path / "jdk"
    (home / "bin").mkdir(parents=True)
    (home / "conf" / "security").mkdir(parents=True)
    (home / "conf" / "users").symlink_to("/etc/passwd")  # public
    (home / "conf" / "security" / "secret").symlink_to("/etc/shadow")  # root's alone
    found = _linked_configuration(str(home))
    assert "/etc/passwd" in found
    assert not any(path.startswith("/etc/shadow") for path in found)
    assert "/etc/passwd" in runtime_configuration((str(home),))


@pytest.mark.skipif(not os.path.isdir("/etc/mono") or shutil.which("mono") is None,
                    reason="Mono is not installed here (apt-get install mono-mcs)")
def test_monos_configuration_is_found_from_its_programs() -> None:
    # mcs is a script that runs /usr/bin/mono, whose configuration is /etc/mono
    assert "/etc/mono" in runtime_configuration()


def test_nothing_secret_is_ever_found() -> None:
    for path in runtime_configuration():
        assert path.startswith("/etc/") and is_public(path), path
