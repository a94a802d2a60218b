"""``league submit`` is atomic, through the real CLI and real signals: killed at any point it leaves
the old league or the new version, never a half; two submissions at once take turns; a league at
a relative path works in the sandbox."""

from __future__ import annotations

import errno
import os
import shutil
import signal
import sqlite3
import subprocess
from pathlib import Path

import orjson
import pytest

from arena.bots.sandbox import bwrap_problem
from arena.errors import ConfigError
from arena.league.database import DATABASE, MIGRATIONS, SCHEMA_VERSION
from arena.league.status import league_status
from arena.league.store import Store
from arena.league.submit import TEST_PAUSE_AFTER_STORE

import helpers
from helpers import C_BOT, ROOT, arena, own_bot, start_arena, wait_for

pytestmark = [pytest.mark.timeout(240),
              pytest.mark.skipif(not C_BOT.exists(), reason="C bots not built (make bots)")]


def new_league(tmp_path: Path) -> Path:
    """A 3-player league of 2-deal games, made in process (the file tests submit, not init)."""
    return helpers.new_league(tmp_path / "league", options={"deals": "2"})


def stored_versions(league: Path, name: str) -> list[str]:
    connection = sqlite3.connect(f"file:{league / DATABASE}?mode=ro", uri=True, timeout=30)
    try:
        return [row[0] for row in connection.execute(
            "SELECT version FROM bots WHERE name = ? ORDER BY id", (name,))]
    finally:
        connection.close()


def last_submission(league: Path) -> dict[str, object]:
    entry: dict[str, object] = orjson.loads((league / "submissions.jsonl").read_bytes()
                                            .splitlines()[-1])
    return entry


def paused_submit(league: Path, bot: Path, fifo: Path) -> subprocess.Popen[str]:
    """``arena league submit`` made to pause between moving the bot into bots/NAME/VERSION and
    recording it (the test hook in arena/league/submit.py)."""
    os.mkfifo(fifo)
    return start_arena("league", "submit", league, bot,
                       env={**os.environ, TEST_PAUSE_AFTER_STORE: str(fifo)})


def in_the_window(fifo: Path, submission: subprocess.Popen[str]) -> int:
    """Wait until the submission is between its rename and its commit; the FIFO's write end (closing
    it lets the submission go on)."""
    opened: list[int] = []

    def reader_waits() -> bool:
        assert submission.poll() is None, submission.communicate()
        try:
            opened.append(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        except OSError as error:
            if error.errno != errno.ENXIO:  # ENXIO: nobody has it open for reading yet
                raise
            return False
        return True

    wait_for(reader_waits)
    return opened[0]


def entrant_rows(league: Path, name: str) -> int:
    """Rows of ``name`` in the league's status (read in process: ``league status`` through the CLI
    is tested where it tidies up, below, and in test_league.py)."""
    return sum(line.split()[:1] == [name] for line in league_status(league).splitlines())


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGKILL],
                         ids=lambda s: s.name)
def test_a_submit_killed_between_storing_and_recording_leaves_the_name_free(
        tmp_path: Path, signum: signal.Signals) -> None:
    league = new_league(tmp_path)
    bot = own_bot(tmp_path)
    fifo = tmp_path / "pause"
    submission = paused_submit(league, bot, fifo)
    try:
        writer = in_the_window(fifo, submission)
        assert (league / "bots" / "mine" / "1" / "bot").is_file()  # moved, not yet recorded
        submission.send_signal(signum)
        out, err = submission.communicate(timeout=60)
        os.close(writer)
    finally:
        if submission.poll() is None:
            submission.kill()
            submission.wait()
    assert stored_versions(league, "mine") == []
    if signum == signal.SIGKILL:  # nothing could run: the next status or submit tidies up
        assert submission.returncode == -signal.SIGKILL
        assert (league / "bots" / "mine" / "1").is_dir()
        status = arena("league", "status", league).stdout
        assert "removed what interrupted submissions left" in status and "bots/mine/1" in status
    else:
        assert submission.returncode == 130 and out == ""
        assert err == "arena: interrupted: mine was not added; nothing changed\n"
        entry = last_submission(league)
        assert entry["accepted"] is False
        assert entry["reason"] == "interrupted: mine was not added; nothing changed"
    assert not (league / "bots" / "mine").exists()
    assert list((league / "staging").iterdir()) == []
    done = arena("league", "submit", league, bot)
    assert done.stdout == "accepted mine v1\n", done.stdout + done.stderr
    assert stored_versions(league, "mine") == ["1"]
    assert [p.name for p in (league / "bots" / "mine").iterdir()] == ["1"]
    assert entrant_rows(league, "mine") == 1


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=lambda s: s.name)
def test_a_submit_interrupted_during_its_check_says_so_in_one_line(
        tmp_path: Path, signum: signal.Signals) -> None:
    league = new_league(tmp_path)
    slow = tmp_path / "slow-src"  # a bot whose hello takes 30 s: the check is where it waits
    slow.mkdir()
    shutil.copy(ROOT / "tests/bots/misbehaving/slow.py", slow / "bot.py")
    shutil.copy(ROOT / "tests/bots/misbehaving/_protocol.py", slow)
    (slow / "bot.yaml").write_text("name: slow\nrun: python3 bot.py 30 0\n")
    submission = start_arena("league", "submit", league, slow)
    try:  # the bot is running once its staged copy has a live python3 child under the submit
        wait_for(lambda: any((league / "staging").iterdir())
                 and bool(subprocess.run(["pgrep", "-P", str(submission.pid)],
                                         capture_output=True).stdout))
        submission.send_signal(signum)
        out, err = submission.communicate(timeout=60)
    finally:
        if submission.poll() is None:
            submission.kill()
            submission.wait()
    assert (submission.returncode, out) == (130, "")
    assert err == "arena: interrupted: slow was not added; nothing changed\n"
    assert last_submission(league)["reason"] == "interrupted: slow was not added; nothing changed"
    assert list((league / "staging").iterdir()) == []
    assert list((league / "bots").iterdir()) == []


@pytest.mark.slow
def test_a_leftover_of_an_interrupted_submit_does_not_wedge_the_name(tmp_path: Path) -> None:
    # Exactly what a submit killed between its rename and its commit leaves: the checked copy
    # in bots/NAME/VERSION that the database does not know, and its dead staging directory.
    league = new_league(tmp_path)
    bot = own_bot(tmp_path)
    shutil.copytree(bot, league / "bots" / "mine" / "1")
    dead = league / "staging" / "submit-dead1234"
    dead.mkdir()
    (dead / "lock").write_text("999999\n")
    done = arena("league", "submit", league, bot)
    assert done.stdout == "accepted mine v1\n", done.stdout + done.stderr
    assert stored_versions(league, "mine") == ["1"]
    assert list((league / "staging").iterdir()) == []


@pytest.mark.slow
def test_two_submissions_of_one_name_take_turns(tmp_path: Path) -> None:
    league = new_league(tmp_path)
    first = own_bot(tmp_path)
    fifo = tmp_path / "pause"
    holder = paused_submit(league, first, fifo)
    second: subprocess.Popen[str] | None = None
    try:
        writer = in_the_window(fifo, holder)
        impatient = arena("league", "submit", league, first, "--wait", "0.5")
        assert impatient.returncode == 2 and impatient.stdout == ""
        assert impatient.stderr.splitlines()[-1] == (
            f"arena: error: {league}/submit.lock: held by pid {holder.pid} (another league "
            f"submit storing its bot) for 0.5 s: submit again when it ends")
        second = start_arena("league", "submit", league, first)
        assert second.stderr is not None
        assert second.stderr.readline() == (f"arena: waiting for pid {holder.pid} (another "
                                            f"league submit storing its bot)\n")
        os.close(writer)
        assert holder.communicate(timeout=60)[0] == "accepted mine v1\n"
        out, _ = second.communicate(timeout=120)
        assert out == "accepted mine v2\n"
    finally:
        for process in (holder, second):
            if process is not None and process.poll() is None:
                process.kill()
                process.wait()
    assert stored_versions(league, "mine") == ["1", "2"]
    assert sorted(p.name for p in (league / "bots" / "mine").iterdir()) == ["1", "2"]
    assert "not stored: " in str(orjson.loads((league / "submissions.jsonl").read_bytes()
                                              .splitlines()[0])["reason"])


@pytest.mark.slow
@pytest.mark.skipif(bwrap_problem() is not None, reason=f"no working bubblewrap: {bwrap_problem()}")
def test_a_league_at_a_relative_path_submits_and_plays_in_bwrap(tmp_path: Path) -> None:
    # The walk-through's own form: a relative league and relative bots, from where they are.
    done = arena("league", "init", "friends", "--game", "blackout", "--players", "3",
                 "--option", "deals=2", "--sandbox", "bwrap", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    for name in ("one", "two", "three"):
        own_bot(tmp_path, name)
        done = arena("league", "submit", "friends", f"{name}-src", cwd=tmp_path)
        assert done.stdout == f"accepted {name} v1\n", done.stdout + done.stderr
    done = arena("league", "run", "friends", "--games", "3", "--jobs", "1", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "3 games played" in done.stdout


@pytest.mark.slow
def test_a_submission_being_checked_keeps_its_staging_while_another_tidies(tmp_path: Path) -> None:
    league = new_league(tmp_path)
    with sqlite3.connect(league / DATABASE) as db:  # a first start may wait as long as it takes
        (stored,) = db.execute("SELECT value FROM settings WHERE key = 'time_control'").fetchone()
        db.execute("UPDATE settings SET value = ? WHERE key = 'time_control'",
                   (orjson.dumps({**orjson.loads(stored), "start_ms": 600_000}).decode(),))
    db.close()
    go = tmp_path / "go"  # the slow bot says hello once this exists: still being checked meanwhile
    slow = own_bot(tmp_path, "slow")
    (slow / "bot.yaml").write_text(
        f"name: slow\nrun: sh -c 'while [ ! -e {go} ]; do sleep 0.05; done; exec ./bot'\n")
    checked = start_arena("league", "submit", league, slow)
    try:
        wait_for(lambda: bool(subprocess.run(["pgrep", "-P", str(checked.pid)],
                                             capture_output=True).stdout))
        [staging] = list((league / "staging").iterdir())
        done = arena("league", "submit", league, own_bot(tmp_path, "quick"))
        assert done.stdout == "accepted quick v1\n", done.stdout + done.stderr
        assert staging.is_dir()  # alive and locked: not a leftover
        assert checked.poll() is None  # the slow one is still waiting for its first hello
        go.touch()
        out, err = checked.communicate(timeout=200)
    finally:
        if checked.poll() is None:
            checked.kill()
            checked.wait()
    assert out == "accepted slow v1\n", out + err
    assert list((league / "staging").iterdir()) == []


def spelled_bot(tmp_path: Path, name: str, version: str | None = None, folder: str = "") -> Path:
    """``own_bot`` under a folder of its own (one per spelling or version), with ``version:``
    written as given (quoted or not)."""
    (tmp_path / folder).mkdir(exist_ok=True)
    directory = own_bot(tmp_path / folder, name)
    if version is not None:
        with (directory / "bot.yaml").open("a") as manifest:
            manifest.write(f"version: {version}\n")
    return directory


@pytest.mark.slow
def test_another_spelling_of_an_entrants_name_is_refused_naming_the_entrant(tmp_path: Path) -> None:
    league = new_league(tmp_path)
    assert arena("league", "submit", league, own_bot(tmp_path, "okone")).stdout == "accepted okone v1\n"
    for spelling in ("OKONE", "okone.", "OkOne.."):
        bot = spelled_bot(tmp_path, spelling, folder=spelling)
        done = arena("league", "submit", league, bot)
        assert done.returncode == 1, done.stdout + done.stderr
        assert done.stdout.splitlines()[0] == (
            f"rejected: {bot}/bot.yaml: name: '{spelling}' is the name of the entrant 'okone', "
            f"written differently (names compare without case, width or trailing dots): submit "
            f"it as 'okone' for a new version of that entrant, or choose another name")
        assert stored_versions(league, spelling) == []
    assert [p.name for p in (league / "bots").iterdir()] == ["okone"]
    assert entrant_rows(league, "okone") == 1
    again = spelled_bot(tmp_path, "okone", folder="again")
    assert arena("league", "submit", league, again).stdout == "accepted okone v2\n"


@pytest.mark.slow
def test_a_version_is_text_and_versions_compare_as_names_do(tmp_path: Path) -> None:
    league = new_league(tmp_path)
    unquoted = spelled_bot(tmp_path, "mine", "1.10", folder="unquoted")
    done = arena("league", "submit", league, unquoted)
    assert done.returncode == 1 and stored_versions(league, "mine") == []
    assert done.stdout.splitlines()[0] == (
        f"rejected: {unquoted}/bot.yaml: version: float 1.1 is a number, not text: YAML reads an "
        f'unquoted version as a number (1.10 as 1.1); quote it, e.g. version: "1.10"')
    for version in ("1.10", "1.1"):  # two versions, as written (YAML would have made one of them)
        done = arena("league", "submit", league, spelled_bot(tmp_path, "mine", f'"{version}"',
                                                             folder=version))
        assert done.stdout == f"accepted mine v{version}\n", done.stdout + done.stderr
    same = spelled_bot(tmp_path, "mine", '"1.10."', folder="same")
    done = arena("league", "submit", league, same)
    assert done.returncode == 1 and done.stdout.splitlines()[0] == (
        f"rejected: {same}/bot.yaml: version: mine v1.10. is already in the league (as v1.10) "
        f"(give the new one another version)")
    assert stored_versions(league, "mine") == ["1.10", "1.1"]


@pytest.mark.slow
def test_a_second_spelling_waiting_for_the_first_to_be_stored_is_refused(tmp_path: Path) -> None:
    """Two spellings submitted at once: the second is checked again once the first is stored."""
    league = new_league(tmp_path)
    fifo = tmp_path / "pause"
    holder = paused_submit(league, own_bot(tmp_path, "okone"), fifo)
    second: subprocess.Popen[str] | None = None
    try:
        writer = in_the_window(fifo, holder)
        second = start_arena("league", "submit", league,
                             spelled_bot(tmp_path, "OKONE", folder="upper"))
        assert second.stderr is not None
        assert second.stderr.readline().startswith(f"arena: waiting for pid {holder.pid}")
        os.close(writer)
        assert holder.communicate(timeout=60)[0] == "accepted okone v1\n"
        out, _ = second.communicate(timeout=120)
    finally:
        for process in (holder, second):
            if process is not None and process.poll() is None:
                process.kill()
                process.wait()
    assert second.returncode == 1 and "'OKONE' is the name of the entrant 'okone'" in out
    assert stored_versions(league, "OKONE") == [] and stored_versions(league, "okone") == ["1"]
    assert [p.name for p in (league / "bots").iterdir()] == ["okone"]


def older_league(tmp_path: Path, names: list[str]) -> Path:
    """A league as an arena of schema 1 left it (before names were compared by their keys), with
    an accepted version 1 of each of ``names``: its settings are a new league's."""
    league = new_league(tmp_path)
    with sqlite3.connect(league / DATABASE) as new:
        settings = new.execute("SELECT key, value FROM settings").fetchall()
    new.close()
    for leftover in league.glob(f"{DATABASE}*"):
        leftover.unlink()
    old = sqlite3.connect(league / DATABASE, isolation_level=None)
    old.execute("PRAGMA journal_mode = WAL")
    old.executescript(MIGRATIONS[0])
    old.executemany("INSERT INTO settings (key, value) VALUES (?, ?)", settings)
    for name in names:
        shutil.copytree(spelled_bot(tmp_path, name, folder=f"old-{name}"), league / "bots" / name / "1")
        old.execute("INSERT INTO bots (name, version, dir, run, language, author, submitted, state) "
                    "VALUES (?, '1', ?, '[\"./bot\"]', NULL, NULL, 0, 'active')",
                    (name, f"bots/{name}/1"))
    old.execute("PRAGMA user_version = 1")
    old.close()
    return league


@pytest.mark.slow
def test_an_older_league_with_two_spellings_of_one_name_opens_and_keeps_both(tmp_path: Path) -> None:
    league = older_league(tmp_path, ["OKONE", "okone", "third"])
    status = arena("league", "status", league)
    assert status.returncode == 0, status.stderr
    assert entrant_rows(league, "OKONE") == 1 and entrant_rows(league, "okone") == 1
    with sqlite3.connect(f"file:{league / DATABASE}?mode=ro", uri=True) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert db.execute("SELECT name, name_key, version_key FROM bots ORDER BY id").fetchall() == [
            ("OKONE", "okone", "1"), ("okone", "okone", "1"), ("third", "third", "1")]
    db.close()
    third = spelled_bot(tmp_path, "Okone.", folder="third-spelling")
    done = arena("league", "submit", league, third)
    assert done.returncode == 1 and "'Okone.' is the name of the entrants 'OKONE' and 'okone', " \
                                    "written differently" in done.stdout
    done = arena("league", "submit", league, spelled_bot(tmp_path, "OKONE", folder="exact"))
    assert done.stdout == "accepted OKONE v2\n", done.stdout + done.stderr
    done = arena("league", "retire", league, "okone.")
    assert done.returncode == 2 and "'okone.' is the name of 2 active bots written differently" \
                                    in done.stderr
    assert arena("league", "retire", league, "okone").stdout == "retired okone v1\n"
    assert arena("league", "retire", league, "third.").stdout == "retired third v1\n"
    assert stored_versions(league, "OKONE") == ["1", "2"]


def test_the_store_refuses_another_spelling_in_the_transaction_that_writes(tmp_path: Path) -> None:
    """The last word is the store's: a writer that did not check first (or checked before another
    committed) is refused inside its own write transaction, and nothing is written."""
    store = Store.create(tmp_path / "league", {})
    try:
        store.entrants.add("okone", "1", "bots/okone/1", ["./bot"], None, None)
        with pytest.raises(ConfigError, match="'OKONE' is the name of the entrant 'okone'"):
            store.entrants.add("OKONE", "1", "bots/OKONE/1", ["./bot"], None, None)
        with pytest.raises(ConfigError, match=r"okone v1\. is already in the league \(as v1\)"):
            store.entrants.add("okone", "1.", "bots/okone/1.", ["./bot"], None, None)
        assert [(bot.name, bot.version) for bot in store.entrants.bots(("active", "replaced"))] == [
            ("okone", "1")]
    finally:
        store.close()


def active_versions(league: Path) -> dict[str, str]:
    store = Store.open(league)
    try:
        return {bot.name: bot.version for bot in store.entrants.bots()}
    finally:
        store.close()


@pytest.mark.slow
def test_a_variant_enters_beside_the_current_version_under_its_own_name(tmp_path: Path) -> None:
    league = new_league(tmp_path)
    bot = own_bot(tmp_path, "mine")
    assert arena("league", "submit", league, bot).stdout == "accepted mine v1\n"
    done = arena("league", "submit", league, bot, "--name", "mine-wild")
    assert done.stdout == "accepted mine-wild v1\n", done.stdout + done.stderr
    assert active_versions(league) == {"mine": "1", "mine-wild": "1"}  # both play
    done = arena("league", "submit", league, bot, "--name", "mine-wild")
    assert done.stdout == "accepted mine-wild v2\n"
    assert active_versions(league) == {"mine": "1", "mine-wild": "2"}
    done = arena("league", "submit", league, bot, "--name", "MINE")  # the entrant's other spelling
    assert done.returncode == 1 and "'MINE' is the name of the entrant 'mine'" in done.stdout
    done = arena("league", "submit", league, bot, "--name", "no/slash")
    assert done.returncode == 2 and done.stderr.startswith("arena: error: --name: 'no/slash': use")


@pytest.mark.slow
def test_rollback_makes_an_earlier_version_active_again(tmp_path: Path) -> None:
    league = new_league(tmp_path)
    bot = own_bot(tmp_path, "mine")
    for _ in range(3):
        helpers.submitted(league, bot)
    assert active_versions(league) == {"mine": "3"}
    done = arena("league", "rollback", league, "mine", "v1")
    assert (done.returncode, done.stdout) == (0, "active: mine v1 (v3 replaced)\n"), done.stderr
    assert active_versions(league) == {"mine": "1"}
    done = arena("league", "rollback", league, "MINE", "3")  # names and versions as names compare
    assert done.stdout == "active: mine v3 (v1 replaced)\n"
    for args, problem in [(["mine", "3"], "mine v3 is the active version already"),
                          (["mine", "7"], "mine has no version '7' (it has v1, v2, v3)"),
                          (["yours", "1"], "no entrant named 'yours' (entrants: mine)")]:
        done = arena("league", "rollback", league, *args)
        assert done.returncode == 2 and done.stderr == f"arena: error: {league}: {problem}\n"
    assert arena("league", "retire", league, "mine").returncode == 0
    assert active_versions(league) == {}
    done = arena("league", "rollback", league, "mine", "2")  # a retired entrant back in the pool
    assert done.stdout == "active: mine v2\n" and active_versions(league) == {"mine": "2"}


@pytest.mark.slow
def test_the_submission_check_plays_the_leagues_table_size_and_options(tmp_path: Path) -> None:
    # A 3-player league of 5 deals with the hook: the check plays that game, not check-bot's
    # short 4-player one of 3 deals
    league = helpers.new_league(tmp_path / "league", players=3,
                                options={"deals": "5", "hook": "true"})
    done = arena("league", "submit", league, own_bot(tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr
    report = last_submission(league)["report"]
    assert isinstance(report, list)
    played = [line for line in report if line.startswith("PASS  play blackout: ")]
    assert played and played[0].startswith("PASS  play blackout: 3 processes, deals=5, hook=true: "
                                           "5 deals, no faults"), report
    persisted = [line for line in report if line.startswith("PASS  second game")]
    assert "the same 3 processes" in persisted[0], report
