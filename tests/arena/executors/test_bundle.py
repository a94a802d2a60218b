"""Bot files for cluster workers: what a run ships, and how its commands run from the copy."""

from __future__ import annotations

import io
import os
import tarfile
from pathlib import Path

import pytest

from arena.errors import ConfigError
from arena.executors.bundle import bundle_of, localised, unpack
from arena.plans.tournament import load_tournament
from arena.settings import check_cluster_address
from arena.values.work import BotCommand, RunSettings


def run_dir(tmp_path: Path) -> Path:
    base = tmp_path / "run"
    (base / "bots" / "c").mkdir(parents=True)
    (base / "bots" / "c" / "Makefile").write_text("random_bot:\n\tprintf '#!/bin/sh\\n' > random_bot\n"
                                                 "\tchmod +x random_bot\n")
    (base / "bots" / "c" / "__pycache__").mkdir()
    (base / "bots" / "c" / "__pycache__" / "x.pyc").write_text("cache")
    (base / "bots" / "py").mkdir()
    (base / "bots" / "py" / "bot.py").write_text("print('hi')\n")
    (base / "top.py").write_text("print('top')\n")
    (base / "results").mkdir()
    (base / "results" / "big.jsonl").write_text("x" * 1000)
    return base


def names(data: bytes) -> set[str]:
    import gzip

    with tarfile.open(fileobj=io.BytesIO(gzip.decompress(data))) as tar:
        return set(tar.getnames())


def settings_for(base: Path) -> RunSettings:
    return RunSettings(bots={
        "c": BotCommand(("bots/c/random_bot",), build=("make", "-C", "bots/c")),
        "py": BotCommand(("python3", str(base / "bots" / "py" / "bot.py"))),
        "top": BotCommand(("python3", "top.py")),
        "sys": BotCommand(("/bin/cat",)),
    }, log_dir="results/t/logs")


def test_a_bundle_holds_each_bots_directory_and_nothing_else(tmp_path: Path) -> None:
    base = run_dir(tmp_path)
    bundle = bundle_of(settings_for(base), base)
    assert set(bundle.members) == {"bots/c", "bots/py", "top.py"}
    shipped = names(bundle.data)
    assert {"bots/c/Makefile", "bots/py/bot.py", "top.py"} <= shipped
    assert not any("__pycache__" in name or name.startswith("results") for name in shipped)
    assert bundle_of(settings_for(base), base).digest == bundle.digest  # same files, same name


def test_unpacked_bots_are_built_and_their_commands_point_at_the_copy(tmp_path: Path) -> None:
    base = run_dir(tmp_path)
    settings = settings_for(base)
    bundle = bundle_of(settings, base)
    root = unpack(bundle, settings, tmp_path / "worker")
    assert os.access(root / "bots" / "c" / "random_bot", os.X_OK)  # built on the worker
    assert not (base / "bots" / "c" / "random_bot").exists()
    local = localised(settings, bundle.base, root)
    assert local.bots["c"] == BotCommand(("bots/c/random_bot",), str(root), build=("make", "-C", "bots/c"))
    assert local.bots["py"].argv == ("python3", str(root / "bots" / "py" / "bot.py"))
    assert local.bots["sys"] == BotCommand(("/bin/cat",), str(root))
    assert local.log_dir == str(root / "logs")
    assert unpack(bundle, settings, tmp_path / "worker") == root  # once per worker


def test_a_failing_build_on_a_worker_names_the_bot(tmp_path: Path) -> None:
    base = run_dir(tmp_path)
    settings = RunSettings(bots={"c": BotCommand(("bots/c/nothing",), build=("make", "-C", "bots/c",
                                                                             "nothing"))})
    expected = r"bot 'c': build on a worker: exited with 2; the end of its output:"
    with pytest.raises(ConfigError, match=expected):
        unpack(bundle_of(settings, base), settings, tmp_path / "worker")


@pytest.mark.parametrize("address", ["tcp://127.0.0.1:8786", "tls://scheduler.example:8786",
                                     "tcp://[::1]:8786"])
def test_dask_addresses_are_accepted(address: str) -> None:
    assert check_cluster_address(address) == address


@pytest.mark.parametrize("address", ["127.0.0.1:8786", "tcp://host", "http://host:80", ""])
def test_other_addresses_are_refused_with_the_option_named(address: str) -> None:
    with pytest.raises(ConfigError, match=r"^--cluster: .* is not a Dask scheduler address"):
        check_cluster_address(address)


def test_a_tournament_file_names_its_cluster(tmp_path: Path) -> None:
    path = tmp_path / "t.yaml"
    text = "name: t\ngame: blackout\nbots:\n" + "".join(
        f"  - {{name: b{i}, cmd: /bin/cat}}\n" for i in range(4))
    path.write_text(text + "cluster: tcp://127.0.0.1:8786\n")
    assert load_tournament(path).cluster == "tcp://127.0.0.1:8786"
    path.write_text(text + "cluster: localhost\n")
    with pytest.raises(ConfigError, match=rf"^{path}: cluster: 'localhost' is not a Dask"):
        load_tournament(path)
