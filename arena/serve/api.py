"""The JSON API for scripts: ``Authorization: Bearer TOKEN`` as the participant; errors are one
line of JSON (``{"error": ...}``)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, HTTPException, Query, Request
from fastapi.responses import JSONResponse, Response

from arena.league.accounts import Participant, Upload
from arena.league.store import Store
from arena.serve.auth import bearer_participant, league_store
from arena.serve.upload import queue_bot, read_upload, refuse_if_closed
from arena.serve.views import final_data, game_json, game_line, game_rows, logs_of, row_id, viewer_of

router = APIRouter(prefix="/api")
StoreDep = Annotated[Store, Depends(league_store)]
Caller = Annotated[Participant, Depends(bearer_participant)]


def upload_json(upload: Upload) -> dict[str, Any]:
    """An upload as the API shows it to its owner."""
    return {"id": upload.number, "status": upload.status.value, "reason": upload.reason,
            "bot": upload.bot, "version": upload.version, "steps": list(upload.steps)}


@router.post("/submissions", status_code=202)
async def post_submission(request: Request, caller: Caller, store: StoreDep) -> dict[str, Any]:
    """Queue the archive in the multipart field ``file``: 202 ``{"id", "status": "queued"}``
    (``id``: its number among the caller's uploads); 403 with the reason once the league has
    closed for submissions."""
    await refuse_if_closed(request)
    upload, _ = await read_upload(request, request.app.state.max_upload_bytes)
    upload_id = await queue_bot(request, caller.id, upload)
    queued = store.accounts.upload(upload_id)
    assert queued is not None  # an upload's row is never deleted
    return {"id": queued.number, "status": "queued"}


@router.get("/submissions/{upload_id}")
def get_submission(upload_id: str, caller: Caller, store: StoreDep) -> dict[str, Any]:
    """The caller's upload by its number among theirs (``Upload.number``: 1 for their first):
    status, reason, bot and version (404 for a number that names none of theirs)."""
    number = row_id(upload_id)
    upload = None if number is None else store.accounts.numbered(caller.id, number)
    if upload is None:
        raise HTTPException(404, f"no submission {upload_id!r} of yours")
    return upload_json(upload)


@router.get("/table")
def get_table(request: Request) -> Any:
    """The rows of ``arena league table --format json`` (refreshed in the background)."""
    cache = request.app.state.table
    table = cache.table()
    if not cache.is_ready:
        raise HTTPException(503, "the table is being computed (a fit of every game): try again "
                                 "in a few seconds", headers={"Retry-After": "5"})
    if table is None:
        raise HTTPException(404, "no games among the active entrants yet")
    return table


@router.get("/final")
def get_final(store: StoreDep) -> dict[str, Any]:
    """The final's table: ``arena league table --final --format json`` (404 before a final)."""
    data = final_data(store)
    if data is None:
        raise HTTPException(404, "no final yet: the organiser closes the league, then plays it")
    return data


@router.get("/games")
def get_games(store: StoreDep, entrant: str | None = None,
              limit: Annotated[int, Query(ge=1, le=500)] = 50) -> dict[str, Any]:
    """The latest games (of ``entrant``), newest first: id, entrants, places, faults."""
    rows, _ = game_rows(store, (entrant,) if entrant else (), limit)
    return {"games": [game_json(row) for row in rows]}


@router.get("/games/{game_id}")
def get_game(game_id: str, request: Request, store: StoreDep) -> Response:
    """The game's record as in games.jsonl; a fault's stderr only to the owner of its bot."""
    participant = bearer_participant(request) if "authorization" in request.headers else None
    line = game_line(store, game_id, viewer_of(store, None if participant is None else participant.id))
    if line is None:
        raise HTTPException(404, f"no game {game_id!r}")
    return Response(line, media_type="application/json")


@router.get("/bots/{name}/logs")
def get_logs(name: str, caller: Caller, store: StoreDep) -> JSONResponse:
    """The stderr logs of the caller's own bot ``name`` (403 for another's)."""
    if not store.owners.owns(caller.id, name):
        raise HTTPException(403, f"{name!r} is not your bot: only its owner sees its logs")
    return JSONResponse({"bot": name, "logs": [
        {"file": log.file, "version": log.version, "bytes": log.size, "tail": log.tail}
        for log in logs_of(store, name)]})
