"""One upload through the submit pipeline, in a process of its own (``python -m
arena.serve.build_child LEAGUE UPLOAD``), started by a builder of the server (``arena.serve.build_queue``).

The upload's row says where it is as it moves: building (set by the builder that took it),
checking (the first check-bot step has come back), then accepted or rejected with the reason and
the steps, and its archive deleted (``Accounts.decide``). Ctrl-C or SIGTERM (the server stopping)
leaves the row as it is: the next server queues it again. Reasons name the upload by its place
in the league, never the server's paths.
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
        prefix = f"{store.directory}/"
        accounts.decide(upload_id, status, reason=submission.reason.replace(prefix, ""),
                        steps=tuple(line.replace(prefix, "") for line in submission.report),
                        bot=submission.name, version=submission.version)
        return status
    finally:
        store.close()


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
