"""``league submit``: copy a bot into the league as an immutable version, build it, check it, accept
or reject it.

The bot (a directory, a manifest file, or a ``.zip`` / ``.tar.gz``) is copied or unpacked into
``staging/`` (``arena.league.archive``), its manifest is read there, the build runs in the copy,
and the copy goes through every ``arena check-bot`` step for the league's game. Only then is it
moved to ``bots/NAME/VERSION`` and recorded, in one transaction. A rejected submission changes
nothing in the league but the submissions log (``submissions.jsonl``, every attempt with its
reason, which ``league status`` shows): the staged copy is dropped, the database is not written.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from arena.bots.manifest import MANIFEST, Manifest, build_bot, load_manifest, manifest_file
from arena.errors import ConfigError
from arena.game.checkbot import StepResult, check_bot
from arena.league.archive import bot_root, copy_tree, is_archive, unpack
from arena.league.settings import LeagueSettings
from arena.league.store import BOTS_DIR, STAGING_DIR, SUBMISSIONS_LOG, Store


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


class Rejected(Exception):
    """A submission refused; the message is the reason."""


def submit(directory: Path, source: Path,
           on_step: Callable[[StepResult], None] | None = None) -> Submission:
    """Submit the bot at ``source`` to the league in ``directory``; never raises for a bad bot
    (the Submission says why it was rejected), ConfigError when ``directory`` is not a league."""
    store = Store.open(directory)
    try:
        settings = LeagueSettings.of(store)
        submission = Submission(str(source))
        staging = Path(tempfile.mkdtemp(prefix="submit-", dir=directory / STAGING_DIR))
        try:
            _submit(store, settings, source, staging, submission, on_step)
        except (Rejected, ConfigError) as error:
            submission.accepted = False
            # Name the user's file, not the staged copy's (the same file, by its relative path).
            submission.reason = str(error).replace(f"{staging / 'unpacked'}/", f"{source}: ")
            submission.reason = submission.reason.replace(f"{staging / 'bot'}/", f"{source}/")
        finally:
            _remove(staging)
        _log(directory, submission)
        return submission
    finally:
        store.close()


def _submit(store: Store, settings: LeagueSettings, source: Path, staging: Path,
            submission: Submission, on_step: Callable[[StepResult], None] | None) -> None:
    copy = _stage(source, staging)
    manifest = load_manifest(copy)
    submission.name = manifest.name
    if not manifest.plays(settings.game):
        raise Rejected(f"{source}: games: {manifest.name} does not play {settings.game} "
                       f"(it plays {', '.join(manifest.games)})")
    version = _version(store, manifest)
    submission.version = version
    sandbox = settings.bot_sandbox(copy)
    build_bot(manifest, copy, sandbox=sandbox)
    lines: list[str] = []

    def step(result: StepResult) -> None:
        detail = result.detail.splitlines()[0] if result.detail else ""
        lines.append(f"{result.status}  {result.name}: {detail}")
        if on_step is not None:
            on_step(result)

    results = check_bot(manifest.run, games=[settings.game], time_control=settings.time_control,
                        limits=settings.limits, on_step=step, workdir=str(copy),
                        sandbox=sandbox)
    submission.report = lines
    failed = [r for r in results if not r.passed and not r.skipped]
    if failed or not all(r.passed for r in results):
        first = (failed or [r for r in results if not r.passed])[0]
        raise Rejected(f"check-bot step '{first.name}' failed: "
                       f"{first.detail.splitlines()[0] if first.detail else 'no detail'}")
    target = store.directory / BOTS_DIR / manifest.name / version
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.rename(copy, target)  # same file system: the version appears whole or not at all
    except OSError as error:
        raise Rejected(f"{manifest.name} v{version}: cannot store it ({error.strerror})") from None
    try:
        store.add_bot(manifest.name, version, str(target.relative_to(store.directory)),
                      manifest.run, manifest.language, manifest.author)
    except Exception:
        _remove(target)
        raise
    submission.accepted = True


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
    """The manifest's version, or the next whole number after the name's versions so far."""
    known = store.versions(manifest.name)
    if manifest.version is not None:
        if manifest.version in known:
            raise Rejected(f"{manifest.path}: version: {manifest.name} v{manifest.version} is "
                           f"already in the league (give the new one another version)")
        return manifest.version
    numbers = [int(v) for v in known if v.isdigit()]
    return str(max(numbers, default=0) + 1)


def _log(directory: Path, submission: Submission) -> None:
    entry = {"at": time.time(), "source": submission.source, "accepted": submission.accepted,
             "name": submission.name, "version": submission.version, "reason": submission.reason,
             "report": submission.report}
    with (directory / SUBMISSIONS_LOG).open("ab") as log:
        log.write(orjson.dumps(entry) + b"\n")  # one write: concurrent submissions do not mix


def _remove(path: Path) -> None:
    shutil.rmtree(path, ignore_errors=True)
