"""What a sandbox shows is the organiser's choice, never what a command names (issues 28, 33).

Real commands and real bot processes: a program linked from a fake home directory, a bare name
that PATH resolves into a home, installations the organiser names (and homes they may not), a
program the sandbox hides, and a Rust bot built with cargo inside the sandbox.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from arena.bots.process import BotProcess
from arena.bots.sandbox import bwrap_problem
from arena.bots.uids import UID_FIRST, UID_LAST
from arena.errors import BotStartError, ConfigError
from arena.plans.tournament import load_tournament
from arena.runs.sandboxes import tournament_sandboxes
from arena.values.sandbox_settings import Sandbox

from helpers import arena

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180)]

ROOT = Path(__file__).resolve().parents[3]
HOSTILE = ROOT / "tests" / "bots" / "hostile"
MISBEHAVING = ROOT / "tests" / "bots" / "misbehaving"
SYSTEM_PYTHON = "/usr/bin/python3"
SECRET = "-----BEGIN OPENSSH PRIVATE KEY----- the organiser's key"

needs_bwrap = pytest.mark.skipif(bwrap_problem() is not None,
                                 reason=f"no working bubblewrap: {bwrap_problem()}")
needs_system_python = pytest.mark.skipif(not os.access(SYSTEM_PYTHON, os.X_OK),
                                         reason=f"no {SYSTEM_PYTHON}")


def fake_home(tmp_path: Path) -> Path:
    """``hosthome/`` with a private key, and ``bin/python3``: a link to the system python."""
    home = tmp_path / "hosthome"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text(SECRET + "\n")
    (home / "bin").mkdir()
    (home / "bin" / "python3").symlink_to(SYSTEM_PYTHON)
    for path in (tmp_path, *tmp_path.rglob("*")):  # readable to a bot's own uid, as a home may be
        if not path.is_symlink():
            path.chmod(0o755 if path.is_dir() else 0o644)
    return home


def refusal(program: str) -> str:
    return (f"names '{program}', outside the bot and outside the interpreters this arena allows: "
            "run it by a name on PATH (python3, node, java, go, cargo), or have the organiser "
            "allow its installation with --interpreter DIR")


@needs_bwrap
@needs_system_python
def test_a_program_linked_from_a_fake_home_is_refused_and_the_home_never_shown(
        tmp_path: Path) -> None:
    # Before: the parent of the link's bin/ was mounted, and the bot read hosthome/.ssh/id_rsa.
    home = fake_home(tmp_path)
    python = str(home / "bin" / "python3")
    secret = str(home / ".ssh" / "id_rsa")
    log = tmp_path / "bot.log"
    bot = BotProcess("reader", [python, "reads_file.py", secret], cwd=HOSTILE, log_path=log,
                     sandbox=Sandbox(), start_timeout=60)
    with pytest.raises(BotStartError) as error:
        bot.start()
    assert str(error.value) == f"bot 'reader': not started in the sandbox: {refusal(python)}"
    assert SECRET not in log.read_text()
    done = arena("play", "blackout", "--sandbox", "bwrap", "-o", "deals=1",
                 f"reader={python} {HOSTILE / 'reads_file.py'} {secret}", "bots/c/random_bot",
                 "bots/c/random_bot")
    assert done.returncode == 2 and SECRET not in done.stdout + done.stderr
    assert done.stderr == f"arena: error: seat 0 (reader): {refusal(python)}\n"
    # Unsandboxed the organiser's own command runs as it is (the organiser chose it).
    bare = BotProcess("reader", [python, "reads_file.py", secret], cwd=HOSTILE, log_path=log)
    bare.start()
    bare.close()
    assert SECRET in log.read_text()


@needs_bwrap
@needs_system_python
def test_a_bare_name_that_path_finds_in_a_home_is_refused(tmp_path: Path) -> None:
    # Before: `tool` on PATH at ~/bin/tool mounted the whole home folder for the bot.
    home = fake_home(tmp_path)
    (home / "bin" / "tool").symlink_to(SYSTEM_PYTHON)
    env = {**os.environ, "HOME": str(home), "PATH": f"{home / 'bin'}:{os.environ['PATH']}"}
    done = arena("check-bot", "--sandbox", "bwrap", "--game", "blackout", "--", "tool",
                 HOSTILE / "reads_file.py", home / ".ssh" / "id_rsa", env=env)
    assert done.returncode == 2, done.stdout
    assert done.stderr == (f"arena: error: check-bot: names 'tool', which is {home}/bin/tool "
                           f"here, outside the bot and outside the interpreters this arena "
                           f"allows: run it by a name on PATH (python3, node, java, go, cargo), "
                           f"or have the organiser allow its installation with --interpreter "
                           f"DIR\n")
    assert done.stdout == "" and SECRET not in done.stderr
    report = arena("check-bot", "--sandbox-report", "--", "tool", HOSTILE / "reads_file.py",
                   env=env)
    assert report.returncode == 1
    assert f"command inside: refused: names 'tool', which is {home}/bin/tool here" in report.stdout
    assert str(home) not in "".join(line for line in report.stdout.splitlines()
                                    if line.startswith("allowed installation"))


def test_a_home_is_never_an_installation(tmp_path: Path) -> None:
    for given in (str(Path.home().resolve()), "/"):
        done = arena("check-bot", "--sandbox-report", "--interpreter", given, "--", "python3",
                     "bots/python/random_bot.py")
        assert done.returncode == 2 and done.stdout == ""
        assert done.stderr.startswith(f"arena: error: --interpreter: {given} ")
        assert " is a home directory: " in done.stderr or " holds the home directory " in \
            done.stderr
        assert done.stderr.count("\n") == 1
    file = tmp_path / "t.yaml"
    file.write_text("name: t\ngame: blackout\nplayers: 3\nsandbox_interpreters: [/home]\nbots:\n"
                    + "".join(f"  - {{name: b{n}, cmd: {ROOT}/bots/c/random_bot}}\n"
                              for n in range(3)))
    with pytest.raises(ConfigError) as error:
        load_tournament(file)
    assert str(error.value).startswith(f"{file}: sandbox_interpreters: /home is a home directory")


@needs_bwrap
@needs_system_python
def test_an_installation_the_organiser_allows_is_shown_and_runs(tmp_path: Path) -> None:
    opt = tmp_path / "opt" / "python"
    (opt / "bin").mkdir(parents=True)
    (opt / "bin" / "python3").symlink_to(SYSTEM_PYTHON)
    (opt / "README").write_text("the organiser's python\n")
    for path in (tmp_path, *tmp_path.rglob("*")):
        if not path.is_symlink():
            path.chmod(0o755 if path.is_dir() else 0o644)
    python = str(opt / "bin" / "python3")
    argv = [python, "reads_file.py", str(opt / "README")]
    with pytest.raises(BotStartError, match="outside the interpreters this arena allows"):
        BotProcess("reader", argv, cwd=HOSTILE, sandbox=Sandbox(), start_timeout=60).start()
    log = tmp_path / "bot.log"
    bot = BotProcess("reader", argv, cwd=HOSTILE, log_path=log, start_timeout=60,
                     sandbox=Sandbox(interpreters=(str(opt),)))
    bot.start()
    bot.close()
    assert "ATTACK reads_file: SUCCEEDED: read" in log.read_text()
    assert "the organiser's python" in log.read_text()
    done = arena("check-bot", "--sandbox", "bwrap", "--interpreter", opt, "--game", "blackout",
                 "--", python, MISBEHAVING / "well_behaved.py")
    assert done.returncode == 0, done.stdout + done.stderr
    report = arena("check-bot", "--sandbox-report", "--interpreter", opt, "--", python,
                   MISBEHAVING / "well_behaved.py")
    assert f"allowed installation (read-only): {opt}" in report.stdout.splitlines()


def test_a_tournament_refuses_a_hidden_program_before_any_build(tmp_path: Path) -> None:
    if bwrap_problem() is not None:
        pytest.skip(f"no working bubblewrap: {bwrap_problem()}")
    home = fake_home(tmp_path)
    file = tmp_path / "t.yaml"
    marker = tmp_path / "built"
    file.write_text(
        f"name: t\ngame: blackout\nplayers: 3\nsandbox: bwrap\nbots:\n"
        f"  - {{name: a, cmd: {ROOT}/bots/c/random_bot, build: 'touch {marker}'}}\n"
        f"  - {{name: b, cmd: {ROOT}/bots/c/random_bot}}\n"
        f"  - {{name: c, cmd: '{home}/bin/python3 {ROOT}/bots/python/random_bot.py'}}\n")
    with pytest.raises(ConfigError) as error:
        tournament_sandboxes(load_tournament(file))
    assert str(error.value) == f"{file}: bots[2].cmd: {refusal(str(home / 'bin' / 'python3'))}"
    done = arena("run", file, "--out", tmp_path / "out")
    assert done.returncode == 2 and not marker.exists()


HIDDEN_HINT = ("the sandbox hides that program (or the interpreter on its #! line): it shows only "
               "the system directories, the bot's directory and the interpreters this arena "
               "allows (arena check-bot --sandbox-report lists them; the organiser adds one with "
               "--interpreter DIR)")


@needs_bwrap
@needs_system_python
def test_a_program_the_sandbox_hides_is_named_in_the_error(tmp_path: Path) -> None:
    # The script's #! names an interpreter outside everything the sandbox shows: bwrap (or
    # setpriv, as root) can only say "No such file or directory"; the error says why.
    hidden = tmp_path / "hidden"
    hidden.mkdir()
    (hidden / "python3").symlink_to(SYSTEM_PYTHON)
    bot = tmp_path / "bot"
    bot.mkdir()
    for name in ("well_behaved.py", "_protocol.py"):
        shutil.copy(MISBEHAVING / name, bot)
    script = bot / "run.py"
    script.write_text(f"#!{hidden / 'python3'}\nimport runpy\nrunpy.run_path('well_behaved.py')\n")
    script.chmod(0o755)
    (bot / "build.sh").write_text(f"#!{hidden / 'python3'}\nprint('built')\n")
    (bot / "build.sh").chmod(0o755)
    for path in (tmp_path, *tmp_path.rglob("*")):
        if not path.is_symlink() and path.is_dir():
            path.chmod(0o755)
    unsandboxed = BotProcess("hidden", ["./run.py"], cwd=bot, start_timeout=60)
    unsandboxed.start()  # the same bot runs without the sandbox
    unsandboxed.close()
    with pytest.raises(BotStartError) as error:
        BotProcess("hidden", ["./run.py"], cwd=bot, sandbox=Sandbox(), start_timeout=60).start()
    assert str(error.value).endswith(f"; {HIDDEN_HINT}")
    (bot / "bot.yaml").write_text("name: hidden\nbuild: ./build.sh\nrun: ./run.py\n")
    done = arena("check-bot", "--sandbox", "bwrap", bot)
    assert done.returncode == 1  # the check's first failure: the bot's build
    assert done.stdout.startswith("FAIL  build (")
    assert f": ./build.sh: {bot}/bot.yaml: build: exited with " in done.stdout
    assert f"; {HIDDEN_HINT}; the end of its output:" in done.stdout


CARGO_TOML = '[package]\nname = "tinybot"\nversion = "0.1.0"\nedition = "2021"\n'
TINY_BOT = r"""
use std::io::{self, BufRead, Write};

fn after<'a>(line: &'a str, key: &str) -> &'a str {
    line.find(key).map_or("", |at| &line[at + key.len()..])
}

fn main() {
    let mut out = io::stdout().lock();
    for line in io::stdin().lock().lines() {
        let Ok(line) = line else { break };
        let kind = after(&line, "\"type\":\"").split('"').next().unwrap_or("");
        let id: String = after(&line, "\"id\":").chars().take_while(|c| c.is_ascii_digit()).collect();
        match kind {
            "quit" => break,
            "hello" => writeln!(out, "{{\"id\":{id},\"name\":\"tinybot\",\"protocol\":1}}").unwrap(),
            "act" => {
                let legal = after(&line, "\"legal\":[");
                let first = match legal.strip_prefix('"') {
                    Some(rest) => &legal[..rest.find('"').unwrap_or(0) + 2],
                    None => legal.split([',', ']']).next().unwrap_or(""),
                };
                writeln!(out, "{{\"id\":{id},\"action\":{first}}}").unwrap();
            }
            _ => continue,
        }
        out.flush().unwrap();
    }
}
"""


def toolchain() -> Path | None:
    """The active Rust toolchain's directory, as rustup (or a plain cargo) names it; None."""
    if shutil.which("cargo") is None or shutil.which("rustc") is None:
        return None
    done = subprocess.run(["rustc", "--print", "sysroot"], capture_output=True, text=True,
                          timeout=60, check=False)
    return Path(done.stdout.strip()) if done.returncode == 0 else None


@needs_bwrap
@pytest.mark.skipif(toolchain() is None, reason="no cargo and rustc on PATH (rustup or a Rust "
                                                "package)")
def test_a_rust_bot_builds_with_cargo_and_passes_the_check_in_the_sandbox(tmp_path: Path) -> None:
    # Before: the sandbox mounted ~/.cargo (rustup's proxies) but not the toolchain, and the
    # build said "rustup could not choose a version of cargo to run".
    bot = tmp_path / "tinybot"
    (bot / "src").mkdir(parents=True)
    (bot / "Cargo.toml").write_text(CARGO_TOML)
    (bot / "src" / "main.rs").write_text(TINY_BOT)
    (bot / "bot.yaml").write_text("name: tinybot\nbuild: cargo build --release\n"
                                  "run: ./target/release/tinybot\n")
    for path in (tmp_path, *tmp_path.rglob("*")):
        path.chmod(0o755 if path.is_dir() else 0o644)
    done = arena("check-bot", "--sandbox", "bwrap", "--game", "blackout", bot, timeout=170)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines()[-1] == "6 of 6 steps passed"
    assert (bot / "target" / "release" / "tinybot").is_file()
    sysroot = toolchain()
    assert sysroot is not None
    report = arena("check-bot", "--sandbox-report", bot)
    assert report.returncode == 0, report.stdout
    lines = report.stdout.splitlines()
    if not any(sysroot == Path(p) or Path(p) in sysroot.parents for p in ("/usr", "/bin")):
        assert f"allowed installation (read-only): {sysroot}" in lines
    assert f"build command inside: {os.path.realpath(sysroot / 'bin' / 'cargo')} build --release" \
        in lines
    for private in (Path.home() / ".cargo", Path.home() / ".rustup"):
        assert f"allowed installation (read-only): {private}" not in lines


@needs_bwrap
def test_a_bot_sees_the_active_toolchain_but_not_rustups_own_files(tmp_path: Path) -> None:
    rustup = Path.home() / ".rustup"
    sysroot = toolchain()
    if sysroot is None or not (rustup / "settings.toml").is_file() or rustup not in sysroot.parents:
        pytest.skip("no rustup toolchain under ~/.rustup")
    inside = sysroot / "lib" / "rustlib" / "components"  # a text file of every rustup toolchain
    if not inside.is_file():
        pytest.skip(f"no {inside}")
    outcomes = {}
    for target in (inside, rustup / "settings.toml", Path.home() / ".cargo" / "bin" / "rustup"):
        log = tmp_path / f"{target.name}.log"
        bot = BotProcess("reader", ["python3", "reads_file.py", str(target)], cwd=HOSTILE,
                         log_path=log, sandbox=Sandbox(), start_timeout=60)
        bot.start()
        bot.close()
        outcomes[target] = "SUCCEEDED" in log.read_text()
    assert outcomes == {inside: True, rustup / "settings.toml": False,
                        Path.home() / ".cargo" / "bin" / "rustup": False}


@needs_bwrap
def test_the_sandbox_report_shows_the_builds_view_too(tmp_path: Path) -> None:
    bot = tmp_path / "c"
    bot.mkdir()
    shutil.copy(ROOT / "bots" / "c" / "random_bot.c", bot)
    (bot / "bot.yaml").write_text("name: c\nbuild: cc -O2 -o random_bot random_bot.c\n"
                                  "run: ./random_bot\n")
    done = arena("check-bot", "--sandbox-report", bot)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    cc = shutil.which("cc")
    assert lines.index(f"build command inside: {cc} -O2 -o random_bot random_bot.c") < \
        lines.index("command inside: ./random_bot")
    who = (f"as a uid of its own ({UID_FIRST}..{UID_LAST}), which owns the bot directory for the "
           "build and gives it back after" if os.geteuid() == 0 else "as the arena's user")
    assert f"build: bot directory (writable): {bot}; {who}; no capabilities; no network" in lines
    limits = next(line for line in lines if line.startswith("build: limits: "))
    assert limits.startswith("build: limits: 300 s of wall time, 300 s of CPU per process, "
                             "2048 MB of resident memory, 512 processes and threads")
    assert f"bot directory (read-only): {bot}" in lines
