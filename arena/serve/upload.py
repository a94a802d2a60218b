"""An uploaded bot read from a request in a bounded way: the body is counted as it streams in,
and a request larger than the limit is refused (413) as soon as it is seen to be, without keeping
what came (the multipart parser's spooled file is dropped with the request)."""

from __future__ import annotations

import shutil
from collections.abc import AsyncGenerator
from pathlib import Path

from fastapi import HTTPException, Request
from starlette.datastructures import UploadFile
from starlette.formparsers import MultiPartException, MultiPartParser

from arena.league.archive import ARCHIVE_SUFFIXES

FORM_OVERHEAD = 64 * 1024
"""Bytes a multipart body may hold beyond the file itself (boundaries, headers, a CSRF field)."""


class TooLarge(Exception):
    """The body went past the limit."""


class Closed(Exception):
    """The league takes no more submissions; the message says since when."""


def closed_reason(league: Path, now: float | None = None) -> str | None:
    """Why the league refuses an upload arriving ``now`` (default: now): it is closed; None:
    it takes submissions (``arena.league.deadline``)."""
    import time

    from arena.league.store import Store

    store = Store.open(league)
    try:
        return store.deadline.refusal(time.time() if now is None else now)
    finally:
        store.close()


async def refuse_if_closed(request: Request) -> None:
    """HTTPException 403 with the reason when the league is closed for submissions: before the
    body is read (``queue_bot`` checks again as it queues the upload)."""
    from fastapi.concurrency import run_in_threadpool

    reason = await run_in_threadpool(closed_reason, request.app.state.league)
    if reason is not None:
        raise HTTPException(403, reason)


def archive_suffix(filename: str) -> str | None:
    """The archive suffix ``filename`` ends with (``.tar.gz``...), or None."""
    lowered = filename.lower()
    return next((suffix for suffix in ARCHIVE_SUFFIXES if lowered.endswith(suffix)), None)


async def read_upload(request: Request, max_bytes: int) -> tuple[UploadFile, dict[str, str]]:
    """The multipart field ``file`` and the text fields of ``request``; HTTPException 413 above
    ``max_bytes`` (by its Content-Length, or as it streams in), 400 for no file or a bad form."""
    limit = max_bytes + FORM_OVERHEAD
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise HTTPException(413, f"the upload is larger than the limit of {_mb(max_bytes)}")
    if not request.headers.get("content-type", "").startswith("multipart/form-data"):
        raise HTTPException(400, "send the bot as multipart/form-data, in the field 'file'")

    async def counted() -> AsyncGenerator[bytes, None]:
        seen = 0
        async for chunk in request.stream():
            seen += len(chunk)
            if seen > limit:
                raise TooLarge
            yield chunk

    parser = MultiPartParser(request.headers, counted(), max_files=1, max_fields=8)
    try:
        form = await parser.parse()
    except TooLarge:
        raise HTTPException(413, f"the upload is larger than the limit of {_mb(max_bytes)}") \
            from None
    except MultiPartException as error:
        raise HTTPException(400, f"not a form this server reads: {error.message}") from None
    upload = form.get("file")
    fields = {key: value for key, value in form.items() if isinstance(value, str)}
    if not isinstance(upload, UploadFile):
        await form.close()
        raise HTTPException(400, "no file: send the bot's archive in the field 'file'")
    if upload.size is not None and upload.size > max_bytes:
        await form.close()
        raise HTTPException(413, f"the upload is larger than the limit of {_mb(max_bytes)}")
    return upload, fields


def save_upload(upload: UploadFile, target: Path) -> None:
    """Write the uploaded file to ``target`` (a new file; fsynced: it is an accepted upload)."""
    import os

    upload.file.seek(0)
    with open(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644), "wb") as out:
        shutil.copyfileobj(upload.file, out)
        out.flush()
        os.fsync(out.fileno())


def _mb(size: int) -> str:
    return f"{round(size / (1024 * 1024), 2):g} MB"


async def queue_bot(request: Request, participant: int, upload: UploadFile) -> int:
    """Write ``upload`` into the league's ``uploads/`` and queue it as ``participant``'s: its id.
    HTTPException 400 for a file that is no archive, 403 when the league has closed for
    submissions, 429 when they have enough uploads pending, 413 when it would take their storage
    past their quota (``arena.league.quota``)."""
    import secrets
    import time

    from fastapi.concurrency import run_in_threadpool

    from arena.league.accounts import OverQuota, TooManyPending
    from arena.league.quota import stored_bytes
    from arena.league.store import Store

    suffix = archive_suffix(upload.filename or "")
    if suffix is None:
        raise HTTPException(400, f"{upload.filename or 'the file'}: not an archive: send a "
                                 f"{', '.join(ARCHIVE_SUFFIXES)}")
    league: Path = request.app.state.league
    max_pending: int = request.app.state.max_pending
    quota: int | None = request.app.state.max_stored_bytes
    stored = size = 0

    def store_it() -> int:
        nonlocal stored, size
        store = Store.open(league)
        try:
            accounts = store.accounts
            late = store.deadline.refusal(time.time())
            if late is not None:  # the upload's arrival (its row's time) is checked at acceptance
                raise Closed(late)
            if accounts.pending(participant) >= max_pending:
                raise TooManyPending(max_pending)
            stored = 0 if quota is None else stored_bytes(store, participant)
            file = f"uploads/{secrets.token_hex(12)}{suffix}"
            save_upload(upload, league / file)  # before its row: a queued upload has its file
            size = (league / file).stat().st_size
            try:
                return accounts.queue_upload(participant, file, max_pending,
                                             None if quota is None else quota - stored).id
            except (TooManyPending, OverQuota):
                (league / file).unlink(missing_ok=True)
                raise
        finally:
            store.close()

    try:
        upload_id = await run_in_threadpool(store_it)
    except Closed as closed:
        raise HTTPException(403, str(closed)) from None
    except TooManyPending:
        raise HTTPException(429, f"you have {max_pending} uploads waiting already: wait for "
                                 f"one to be decided") from None
    except OverQuota as over:
        raise HTTPException(413, f"over your storage quota of {_mb(quota or 0)}: your bots' "
                                 f"versions take {_mb(stored)} and your uploads waiting "
                                 f"{_mb(over.waiting)}, with this one ({_mb(size)}) "
                                 f"{_mb(stored + over.waiting + size)}: ask the organiser for "
                                 f"room") from None
    finally:
        await upload.close()
    request.app.state.on_upload()
    return upload_id
