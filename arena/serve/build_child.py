"""One upload through the submit pipeline, in a process of its own (``python -m
arena.serve.build_child LEAGUE UPLOAD``), started by a builder of the server (``arena.serve.build_queue``).

The upload's row says where it is as it moves: building (set by the builder that took it),
checking (the first check-bot step has come back), then accepted or rejected with the reason and
the steps, and its archive deleted (``Accounts.decide``). Ctrl-C or SIGTERM (the server stopping)
leaves the row as it is: the next server queues it again. Reasons and steps name files as the
participant knows them, inside their archive: never the server's paths, nor the archive's own name
in the league.
"""

from __future__ import annotations

import sys
from pathlib import Path

from arena.bots.registry import install_signal_handlers
from arena.checkbot.steps import StepResult
from arena.errors import ArenaError, RunInterrupted
from arena.league.accounts import UploadStatus
from arena.league.store import Store
from arena.league.submit import submit
from arena.printable import printable


def build_upload(league: Path, upload_id: int) -> UploadStatus:
    """Submit upload ``upload_id`` as its participant, recording each change of its status."""
    store = Store.open(league)
    try:
        accounts = store.accounts
        upload = accounts.upload(upload_id)
        if upload is None:
            raise ArenaError(f"{league}: no upload {upload_id}")
        steps: list[str] = []

        def step(result: StepResult) -> None:
            first = (result.detail.splitlines() or [""])[0]
            steps.append(f"{result.status}  {result.name}: {first}")
            accounts.mark(upload_id, UploadStatus.CHECKING, steps=tuple(steps))

        # In time if it arrived before the close, however long it waited for its build.
        submission = submit(league, league / upload.file, step, owner=upload.participant,
                            received=upload.created)
        status = UploadStatus.ACCEPTED if submission.accepted else UploadStatus.REJECTED

        def seen(text: str) -> str:  # as its participant knows it: paths inside their archive
            return _without_server_paths(text, store.directory, upload.file)

        # A rejected version was never stored: no version to show (or link to) on /my.
        accounts.decide(upload_id, status, reason=seen(submission.reason),
                        steps=tuple(seen(line) for line in submission.report),
                        bot=submission.name,
                        version=submission.version if submission.accepted else None)
        return status
    finally:
        store.close()


def _without_server_paths(text: str, league: Path, file: str) -> str:
    """``text`` without the server's paths: the league directory (as given and resolved) and the
    archive's name in it (``uploads/RANDOM.tar.gz``, which its participant never saw): a path
    inside the archive is left as they wrote it (``mybot/bot.yaml``)."""
    for directory in dict.fromkeys((str(league), str(league.resolve()))):
        text = text.replace(f"{directory}/", "")
    return text.replace(f"{file}: ", "").replace(file, "the upload")


def main(argv: list[str]) -> int:
    """Entry point: 0 when decided (accepted or rejected), 2 for an error, 130 when stopped."""
    install_signal_handlers()
    try:
        build_upload(Path(argv[0]), int(argv[1]))
    except (KeyboardInterrupt, RunInterrupted):
        return 130
    except ArenaError as error:
        print(f"arena: error: {printable(str(error))}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
