"""``league submit``: copy a bot into the league as an immutable version, build it, check it, accept
or reject it.

The bot (a directory, a manifest file, or a ``.zip`` / ``.tar.gz``) is copied or unpacked into
``staging/`` (``arena.league.archive``), its manifest is read there, the build runs in the copy
(under a sandbox, which refuses a program outside the bot and the allowed installations, and under
the league's build limits), the copy is checked again as it was when it came in (no link leading
out, no FIFO, device or socket; nor a set-uid or set-gid file, file capabilities, a hard link to
a file outside or more than the archive cap) and made the arena's with plain modes,
and it goes through every ``arena check-bot`` step for the league's game, at its table size with
its options. Only then, holding the league's ``submit.lock`` (so two submissions of one name take
turns for the version number), is it moved to ``bots/NAME/VERSION`` and recorded, in one
transaction. A rejected submission changes nothing in the league but the submissions log
(``submissions.jsonl``, every attempt with its reason, which ``league status`` shows): the
staged copy is dropped, the database is not written.

Atomic at every point: the database is the truth. Ctrl-C or SIGTERM removes what this submission
made (its staging directory; a version directory not yet recorded) and ends it with one line;
SIGKILL leaves them, and ``arena.league.leftovers`` removes them at the next submit or status.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import select
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path

import orjson

from arena.botfiles.manifest import MANIFEST, Manifest, load_manifest, manifest_file
from arena.bots.build import build_bot
from arena.checkbot.steps import StepResult, check_bot
from arena.checkbot.words import stderr_lines
from arena.errors import ConfigError, RunInterrupted
from arena.league.archive import bot_root, copy_tree, is_archive, seal, stored_problems, unpack
from arena.league.config import LeagueSettings
from arena.league.database import BOTS_DIR, STAGING_DIR, SUBMISSIONS_LOG
from arena.league.entrants import taken_name, taken_version
from arena.league.leftovers import STAGING_LOCK, STAGING_PREFIX, SUBMIT_LOCK, remove_leftovers
from arena.league.lock import LeagueBusy, league_lock
from arena.league.store import Store
from arena.names import NAME, NAME_RULE, ORGANISER_OWNER, is_reserved, name_key
from arena.settings import LOCK_WAIT

TEST_PAUSE_AFTER_STORE = "ARENA_TEST_PAUSE_AFTER_STORE"


@dataclass
class Submission:
    """What became of one submission: accepted as NAME vVERSION, or rejected with a reason."""

    source: str
    accepted: bool = False
    name: str | None = None
    version: str | None = None
    reason: str = ""
    report: list[str] = field(default_factory=list)
    """The check's lines (``PASS  step: detail``), when it ran."""
    owner: str | None = None
    """The accepted entrant's owner (``arena.league.owners``); None: the organiser's own."""
    owner_is_participant: bool = False
    """Whether ``owner`` is a participant of the league (an ``--owner`` may name one)."""
    by: str = ORGANISER_OWNER
    """Who submitted it: the participant who uploaded it, else the organiser."""


class Rejected(Exception):
    """A submission refused; the message is the reason."""


def submit(directory: Path, source: Path,
           on_step: Callable[[StepResult], None] | None = None, *, wait: float = LOCK_WAIT.default,
           on_wait: Callable[[int | None], None] | None = None,
           name: str | None = None, owner: int | None = None,
           received: float | None = None, named_owner: str | None = None) -> Submission:
    """Submit the bot at ``source`` to the league in ``directory``; never raises for a bad bot
    (the Submission says why it was rejected), ConfigError when ``directory`` is not a league or
    ``name`` is not a name.

    ``name``: the entrant to enter it as instead of its manifest's name: a variant beside the
    entrant the manifest names (its own versions, v1 first), or a new version of another one.

    ``owner``: the participant submitting it (``arena.league.accounts``), who may submit only a
    new name or one of their own; None (the organiser's ``league submit``) may submit any.

    ``named_owner``: the entrant's owner, as the organiser names it (``league submit --owner``;
    ``arena.league.owners``): a name that is not ``organiser``; it must be the owner the name has
    already, if it has one.

    ``received``: when the submission came (a served upload's arrival; None: now). One received
    once the league had closed (``arena.league.deadline``) is rejected before anything is
    copied, and checked again in the transaction that accepts it.

    LeagueBusy when another submission held ``submit.lock`` for ``wait`` seconds (``on_wait`` is
    told its pid when the wait begins); RunInterrupted on Ctrl-C or SIGTERM, the league unchanged.
    """
    if name is not None and not NAME.fullmatch(name):
        raise ConfigError(f"--name: {name!r}: {NAME_RULE}")
    if named_owner is not None:
        check_owner(named_owner)
    received = time.time() if received is None else received
    store = Store.open(directory)
    try:
        settings = LeagueSettings.of(store)
        submission = Submission(str(source))
        if owner is not None:
            submission.by = store.accounts.name_of(owner)
        league = store.directory
        try:
            with _staging(store, wait, on_wait) as staging:
                try:
                    _submit(store, settings, source, staging, submission, on_step, wait, on_wait,
                            name, (owner, named_owner), received)
                except (Rejected, ConfigError) as error:
                    submission.accepted = False
                    submission.reason = _named_as_submitted(str(error), staging, source)
        except LeagueBusy as busy:
            submission.reason = f"not stored: {busy}"
            _log(league, submission)
            raise
        except KeyboardInterrupt:
            if not submission.accepted:  # else the interrupt came after the commit: it stands
                what = submission.name or str(source)
                submission.reason = f"interrupted: {what} was not added; nothing changed"
                _log(league, submission)
                raise RunInterrupted(submission.reason) from None
        _log(league, submission)
        return submission
    finally:
        store.close()


def check_owner(owner: str) -> None:
    """ConfigError, one line, for an ``--owner`` that cannot be one: not a name
    (``arena.names``), or ``organiser``, which the tables show for the organiser's own entrants
    (each its own owner)."""
    if not NAME.fullmatch(owner):
        raise ConfigError(f"--owner: {owner!r}: {NAME_RULE}")
    if is_reserved(owner):
        raise ConfigError(f"--owner: {owner!r}: the tables show the organiser's own entrants "
                          f"as {ORGANISER_OWNER!r} (each its own owner): give the owner's name, "
                          f"or leave --owner out")


@contextmanager
def _staging(store: Store, wait: float,
             on_wait: Callable[[int | None], None] | None) -> Iterator[Path]:
    """A staging directory of this submission's own, locked while it lives, removed after.

    It is made under ``submit.lock``, after removing what interrupted submissions left, so that a
    tidier never mistakes it for a dead one's (it is locked before the league lock is let go)."""
    with _submit_lock(store, wait, on_wait):
        remove_leftovers(store)
        staging = Path(tempfile.mkdtemp(prefix=STAGING_PREFIX, dir=store.directory / STAGING_DIR))
        handle = (staging / STAGING_LOCK).open("w")
        fcntl.flock(handle, fcntl.LOCK_EX)  # nobody else can hold it yet: it cannot block
    try:
        yield staging
    finally:
        _remove(staging)
        handle.close()


def _submit_lock(store: Store, wait: float,
                 on_wait: Callable[[int | None], None] | None) -> AbstractContextManager[None]:
    return league_lock(store.directory / SUBMIT_LOCK, what="another league submit storing its bot",
                       advice="submit again when it ends", wait=wait, on_wait=on_wait)


def _named_as_submitted(reason: str, staging: Path, source: Path) -> str:
    """Name the user's file, not the staged copy's (the same file, by its relative path; a named
    manifest, ``NAME.bot.yaml``, is the copy's ``bot.yaml``)."""
    reason = reason.replace(f"{staging / 'unpacked'}/", f"{source}: ")
    if source.is_file():
        reason = reason.replace(f"{staging / 'bot' / MANIFEST}", str(source))
        source = source.parent
    return reason.replace(f"{staging / 'bot'}/", f"{source}/")


def _submit(store: Store, settings: LeagueSettings, source: Path, staging: Path,
            submission: Submission, on_step: Callable[[StepResult], None] | None,
            wait: float, on_wait: Callable[[int | None], None] | None,
            name: str | None = None, owners: tuple[int | None, str | None] = (None, None),
            received: float | None = None) -> None:
    """Stage, build, check and store the bot; ``owners``: the participant submitting it and the
    owner the organiser names (``submit``'s ``owner`` and ``named_owner``)."""
    owner, named_owner = owners
    late = store.deadline.refusal(time.time() if received is None else received)
    if late is not None:
        raise Rejected(f"{store.directory}: {late}")
    copy = _stage(source, staging)
    manifest = load_manifest(copy)
    if name is not None:  # entered under another name than the manifest's: a variant
        manifest = replace(manifest, name=name)
    submission.name = manifest.name
    problem = store.entrants.owner_problem(manifest.name, owner) or (  # early; again as it writes
        None if named_owner is None else store.owners.given_problem(manifest.name, named_owner))
    if problem is not None:
        raise Rejected(f"{source}: name: {problem}")
    if not manifest.plays(settings.game):
        raise Rejected(f"{source}: games: {manifest.name} does not play {settings.game} "
                       f"(it plays {', '.join(manifest.games)})")
    submission.version = _version(store, manifest)  # early, to refuse a taken version at once
    sandbox = settings.bot_sandbox(copy)
    # What the build left is checked as the build's uid left it (a set-uid bit is seen before
    # the copy is given back), then again as it is stored: the arena's, with a submission's modes.
    build_bot(manifest, copy, settings.build, sandbox=sandbox, check=_refuse_what_it_left)
    seal(copy)
    _refuse_what_it_left(copy)
    lines: list[str] = []

    def step(result: StepResult) -> None:
        first, *more = result.detail.splitlines() or [""]
        lines.append(f"{result.status}  {result.name}: {first}")
        if result.status == "FAIL":  # what was sent and came back, the stderr: as check-bot shows
            # The report is its submitter's (and the organiser's) to read; the reason, made from
            # the detail alone, holds no stderr (arena.checkbot.steps.StepResult).
            lines.extend(f"      {line}" for line in [*more, *stderr_lines(result.stderr)])
        if on_step is not None:
            on_step(result)

    # The game the league plays, not check-bot's short one: its table size and every deal size,
    # the last no-trump deal and its options (hook...) included.
    results = check_bot(manifest.run, games=[settings.game], time_control=settings.play.time,
                        limits=settings.play.limits, on_step=step, workdir=str(copy),
                        sandbox=sandbox, players=settings.players, options=settings.options)
    submission.report = lines
    failed = [r for r in results if not r.passed and not r.skipped]
    if failed or not all(r.passed for r in results):
        first = (failed or [r for r in results if not r.passed])[0]
        raise Rejected(f"check-bot step '{first.name}' failed: {_reason(first.detail)}")
    with _submit_lock(store, wait, on_wait):
        _store(store, manifest, copy, submission, owners, received)


def _refuse_what_it_left(copy: Path) -> None:
    """Rejected for the first entry of ``copy`` a stored bot may not hold (``stored_problems``)."""
    for path, problem in stored_problems(copy):  # what the build made, under the same rules
        raise Rejected(f"{path}: {problem}, left by its build")


def _reason(detail: str) -> str:
    """A failed step's reason on one line: its first line, and the line the bot sent when there
    was one (a bot printing debug text on stdout is told which text)."""
    first, *more = detail.splitlines() or ["no detail"]
    received = next((line.split(":", 1)[1].strip() for line in more
                     if line.startswith("received:")), None)
    return first if received in (None, "(nothing)") else f"{first}; it sent: {received}"


def _store(store: Store, manifest: Manifest, copy: Path, submission: Submission,
           owners: tuple[int | None, str | None], received: float | None = None) -> None:
    """Move the checked copy to ``bots/NAME/VERSION`` and record it: under ``submit.lock``, so the
    version is still free, and no other submission is between its own rename and commit."""
    remove_leftovers(store)  # a directory the database does not know is an interrupted one's
    version = _version(store, manifest)  # another submission of the name may have come first
    submission.version = version
    target = store.directory / BOTS_DIR / manifest.name / version
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.rename(copy, target)  # same file system: the version appears whole or not at all
    except OSError as error:
        raise Rejected(f"{manifest.name} v{version}: cannot store it ({error.strerror})") from None
    try:
        _pause_for_tests()
        store.entrants.add(manifest.name, version, str(target.relative_to(store.directory)),
                           manifest.run, manifest.language, manifest.author, owners[0], received,
                           owners[1])
        submission.accepted = True
        submission.owner = store.owners.owner_name(manifest.name)
        submission.owner_is_participant = submission.owner is not None and \
            name_key(submission.owner) in store.accounts.names_by_key()
    except BaseException:
        # Committed before the exception (an interrupt just after COMMIT): the version stands.
        if version in store.entrants.versions(manifest.name):
            submission.accepted = True
        else:
            _remove(target)
            with contextlib.suppress(OSError):  # the name's first version: no directory of it
                target.parent.rmdir()
        raise


def _pause_for_tests() -> None:
    """Test hook: with ``ARENA_TEST_PAUSE_AFTER_STORE`` naming a FIFO, wait between the rename and
    the commit until a writer has opened the FIFO and closed it again. The opening tells the test
    that the submission is in that window (where it kills it); nothing else reads the variable."""
    fifo = os.environ.get(TEST_PAUSE_AFTER_STORE)
    if not fifo:
        return
    # Polled, not one blocking read: a signal the kernel hands to another thread (the memory
    # watch's) does not interrupt this thread's read, so its handler would wait for the read.
    fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        poller = select.poll()
        poller.register(fd, select.POLLIN | select.POLLHUP)
        while True:  # no event until a writer has come; POLLHUP once it has gone again
            if poller.poll(100) and not os.read(fd, 4096):
                return
    finally:
        os.close(fd)


def _stage(source: Path, staging: Path) -> Path:
    """The bot copied or unpacked into ``staging``; the directory holding its ``bot.yaml``."""
    if not source.exists():
        raise Rejected(f"{source}: no such bot directory, manifest or archive")
    if source.is_file() and is_archive(source):
        unpack(source, staging / "unpacked")
        root = bot_root(staging / "unpacked", MANIFEST)
        if not (root / MANIFEST).is_file():
            raise Rejected(f"{source}: no {MANIFEST} at the top of the archive (or in its only "
                           f"directory)")
        return root
    if source.is_file() and source.suffix not in (".yaml", ".yml"):
        raise Rejected(f"{source}: not a bot directory, a manifest (.yaml) or an archive "
                       f"(.zip, .tar.gz)")
    manifest = manifest_file(source)  # a named manifest (NAME.bot.yaml) becomes the copy's bot.yaml
    copy = staging / "bot"
    copy_tree(manifest.parent, copy)
    if manifest.name != MANIFEST:
        (copy / MANIFEST).unlink(missing_ok=True)
        (copy / manifest.name).rename(copy / MANIFEST)
    return copy


def _version(store: Store, manifest: Manifest) -> str:
    """The manifest's version, or the next whole number after the name's versions so far.

    Rejected when the name is another entrant's written differently, or the version is one the
    entrant has (``arena.names``: compared by their keys); the store checks both again as it
    writes."""
    problem = taken_name(manifest.name, store.entrants.spellings(manifest.name))
    if problem is not None:
        raise Rejected(f"{manifest.path}: name: {problem}")
    if manifest.version is not None:
        problem = taken_version(manifest.name, manifest.version,
                                store.entrants.same_version(manifest.name, manifest.version))
        if problem is not None:
            raise Rejected(f"{manifest.path}: version: {problem}")
        return manifest.version
    numbers = [int(key) for v in store.entrants.versions(manifest.name) if (key := name_key(v)).isdigit()]
    return str(max(numbers, default=0) + 1)


def _log(directory: Path, submission: Submission) -> None:
    entry = {"at": time.time(), "source": submission.source, "accepted": submission.accepted,
             "name": submission.name, "version": submission.version, "reason": submission.reason,
             "report": submission.report, "by": submission.by, "owner": submission.owner}
    with (directory / SUBMISSIONS_LOG).open("ab") as log:
        log.write(orjson.dumps(entry) + b"\n")  # one write: concurrent submissions do not mix


def _remove(path: Path) -> None:
    shutil.rmtree(path, ignore_errors=True)
