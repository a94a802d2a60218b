"""The server-rendered pages: one function per page over the league's library, a Jinja2
template each. Every value a template prints is made printable (``arena.printable``: controls and
bidi overrides shown as escapes, as on a terminal), then escaped by HTML's rules (autoescape), by
the template environment itself (``arena.report.templating``, the report's too). They work
without JavaScript, but for the replay, which is the report's viewer, fetching its game as JSON."""

from __future__ import annotations

import time
from functools import cache
from typing import Annotated, Any

import orjson
from fastapi import APIRouter, Depends, Form, HTTPException, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from jinja2 import Environment

from arena.league.accounts import Participant
from arena.league.config import LeagueSettings
from arena.league.deadline import shown
from arena.league.store import Store
from arena.names import ORGANISER_OWNER, name_key
from arena.records.reader import parse_line
from arena.report.svg import line_plot
from arena.report.templating import environment
from arena.serve.auth import (
    CSRF_COOKIE,
    SESSION_COOKIE,
    SESSION_SECONDS,
    check_csrf,
    client_address,
    cookie,
    csrf_token,
    delete_cookie,
    league_store,
    new_csrf,
    session_participant,
    set_cookie,
)
from arena.serve.upload import queue_bot, read_upload, refuse_if_closed
from arena.serve.views import (
    GAME_ID,
    ROW_ID_MAX,
    decision_stderr,
    fault_rows,
    final_data,
    game_line,
    game_rows,
    logs_of,
    versions_of,
    viewer_of,
)

router = APIRouter()
StoreDep = Annotated[Store, Depends(league_store)]
Viewer = Annotated[Participant | None, Depends(session_participant)]


@cache
def templates() -> Environment:
    """The page templates (package data), in the arena's one environment for HTML
    (``arena.report.templating``: every value printed is made printable, then HTML-escaped, so
    no template can forget it); ``| entrant`` is the entrant's name of a table's
    ``NAME@VERSION``, which its page is named by."""
    pages = environment("arena.serve")
    pages.filters["entrant"] = entrant_of
    return pages


def entrant_of(key: str) -> str:
    """``greedy`` of the table's ``greedy@2`` (a name holds no ``@``: ``arena.names``)."""
    return key.partition("@")[0]


def _active_key(store: Store, name: str) -> str:
    """The table's name of entrant ``name``: its active version's ``NAME@VERSION`` (``name``
    itself when it has none: the table then has no row of it)."""
    key = name_key(name)
    return next((bot.key for bot in store.entrants.bots() if bot.state == "active"
                 and name_key(bot.name) == key), name)


def render(request: Request, template: str, status: int = 200, **values: Any) -> HTMLResponse:
    """The page ``template`` with ``values``, the viewer, the CSRF token and (``deadline``, from
    ``deadline_of``) when submissions close."""
    text = templates().get_template(template).render(
        league=request.app.state.league.name, csrf=csrf_token(request),
        viewer=values.pop("viewer", None), deadline=values.pop("deadline", None), **values)
    return HTMLResponse(text, status_code=status)


def deadline_of(store: Store) -> dict[str, Any] | None:
    """When the league's submissions close (``at``, ISO 8601 in UTC) and whether they have
    (``closed``); None: they never close."""
    closes = store.deadline.closes()
    return None if closes is None else {"at": shown(closes), "closed": time.time() >= closes}


def error_page(request: Request, status: int, message: str) -> Response:
    """A plain page saying what went wrong."""
    return render(request, "error.html", status=status, status_code=status, message=message)


def _table(request: Request) -> dict[str, Any] | None:
    table: dict[str, Any] | None = request.app.state.table.table()
    return table


@router.get("/", response_class=HTMLResponse)
def table_page(request: Request, viewer: Viewer, store: StoreDep) -> Response:
    """The live table: ratings, intervals, LOS, games; it reloads itself."""
    settings = LeagueSettings.of(store)
    authors = {bot.name: bot.author or "" for bot in store.entrants.bots()}
    suspended = {bot.key for bot in store.entrants.bots() if bot.suspended is not None}
    table = _table(request)
    # The owner column as in `league table`: where some entrant is not the organiser's own
    owners_shown = table is not None and any(
        row.get("owner") not in (None, ORGANISER_OWNER) for row in table.get("entrants", []))
    return render(request, "table.html", viewer=viewer, table=table, authors=authors,
                  owners_shown=owners_shown,
                  game=settings.game, players=settings.players, total=store.games.total(),
                  computing=not request.app.state.table.is_ready, suspended=suspended,
                  deadline=deadline_of(store))


@router.get("/final", response_class=HTMLResponse)
def final_page(request: Request, viewer: Viewer, store: StoreDep) -> Response:
    """The final's table (``league final``): ratings, intervals, LOS, the versions that played;
    a note until a final has started. Never the collusion audit: that is the organiser's
    (``league table --final``, ``league audit``)."""
    return render(request, "final.html", viewer=viewer, final=final_data(store),
                  deadline=deadline_of(store))


@router.get("/entrants/{name}", response_class=HTMLResponse)
def entrant_page(name: str, request: Request, viewer: Viewer, store: StoreDep) -> Response:
    """An entrant: versions, author, rating over games, results by opponent, games, faults."""
    versions = versions_of(store, name)
    if not versions:
        raise HTTPException(404, f"no entrant named {name!r}")
    owner_id = store.owners.owner_of(name)
    owner = None if owner_id is None else store.accounts.name_of(owner_id)
    named_owner = None if owner is not None else store.owners.owner_name(name)
    named_is_participant = named_owner is not None and \
        name_key(named_owner) in store.accounts.names_by_key()
    is_owner = viewer is not None and store.owners.owns(viewer.id, name)
    table = _table(request) or {}
    active = _active_key(store, name)  # the table names versions
    row = next((r for r in table.get("entrants", []) if r["name"] == active), None)
    opponents = sorted(table.get("head_to_head", {}).get(active, {}).items())
    series = request.app.state.table.progress(active)
    plot = line_plot(series[0], [(name, series[1])], x_label="games stored",
                     y_label="Elo") if series and len(series[0]) > 1 else None
    games, _ = game_rows(store, (name,), 20)
    suspended = next((b for b in versions if b.state == "active" and b.suspended is not None), None)
    return render(request, "entrant.html", viewer=viewer, name=name, versions=versions,
                  owner=owner, named_owner=named_owner, named_is_participant=named_is_participant,
                  is_owner=is_owner, row=row, opponents=opponents, plot=plot,
                  games=games, faults=fault_rows(store, name, 20), suspended=suspended)


@router.get("/games", response_class=HTMLResponse)
def games_page(request: Request, viewer: Viewer, store: StoreDep, entrant: str = "",
               opponent: str = "",
               before: Annotated[int | None, Query(ge=1, le=ROW_ID_MAX)] = None) -> Response:
    """The games, newest first, of an entrant (against an opponent): 50 a page."""
    names = tuple(n for n in (entrant, opponent) if n)
    rows, after = game_rows(store, names, 50, before)
    return render(request, "games.html", viewer=viewer, games=rows, after=after, entrant=entrant,
                  opponent=opponent, entrants=sorted(bot.name for bot in store.entrants.bots()))


@router.get("/head-to-head", response_class=HTMLResponse)
def head_to_head_page(request: Request, viewer: Viewer, store: StoreDep, a: str = "",
                      b: str = "") -> Response:
    """Two entrants: their pairwise score and the games they played together."""
    table = _table(request) or {}
    meeting = table.get("head_to_head", {}).get(_active_key(store, a), {}).get(
        _active_key(store, b)) if a and b else None
    rows, after = game_rows(store, (a, b), 50) if a and b else ([], None)
    return render(request, "head_to_head.html", viewer=viewer, a=a, b=b, meeting=meeting,
                  games=rows, after=after, entrants=sorted(bot.name for bot in store.entrants.bots()))


@router.get("/games/{game_id}", response_class=HTMLResponse)
def replay_page(game_id: str, request: Request, viewer: Viewer, store: StoreDep) -> Response:
    """The replay of one game: the report's viewer."""
    if not GAME_ID.fullmatch(game_id) or store.games.line(game_id) is None:
        raise HTTPException(404, f"no game {game_id!r}")
    return render(request, "replay.html", viewer=viewer, game_id=game_id)


@router.get("/replays/{game_id}.json")
def replay_data(game_id: str, viewer: Viewer, store: StoreDep) -> Response:
    """The game for the viewer, which fetches it: ``{"record", "seed", "said"}``, the arguments
    of the report's ``games/KEY.js``; stderr only of the viewer's bots (their faults' stderr, and
    what they wrote while deciding each move). JSON, never script: a page of another site may
    include a script with this browser's cookies and read what it calls, never read JSON."""
    seeing = viewer_of(store, None if viewer is None else viewer.id)
    line = game_line(store, game_id, seeing)
    if line is None:
        raise HTTPException(404, f"no game {game_id!r}")
    seed = orjson.dumps(str(parse_line(line)["seed"]))  # JavaScript numbers hold 53 bits
    said = None if viewer is None else decision_stderr(store, line, seeing)
    return Response(b'{"record":' + line + b',"seed":' + seed + b',"said":'
                    + orjson.dumps(said) + b"}", media_type="application/json")


@router.get("/login", response_class=HTMLResponse)
def login_page(request: Request, viewer: Viewer) -> Response:
    """The login form: the token the organiser gave."""
    return render(request, "login.html", viewer=viewer, problem=None)


@router.post("/login")
def login(request: Request, token: Annotated[str, Form()], csrf: Annotated[str, Form()]) -> Response:
    """Exchange a token for a session cookie (and a new pre-session cookie: the tokens of the
    forms before are worth nothing after)."""
    check_csrf(request, csrf)
    store = Store.open(request.app.state.league)
    try:
        accounts = store.accounts
        participant = accounts.by_token(token.strip())
        if participant is None:
            request.app.state.failures.note(client_address(request))
            return render(request, "login.html", status=401, viewer=None,
                          problem="That token is not valid (revoked, or never issued).")
        session = accounts.open_session(participant.id)
    finally:
        store.close()
    response = RedirectResponse("/my", status_code=303)
    set_cookie(request, response, SESSION_COOKIE, session, max_age=SESSION_SECONDS)
    set_cookie(request, response, CSRF_COOKIE, new_csrf())
    return response


@router.post("/logout")
def logout(request: Request, csrf: Annotated[str, Form()]) -> Response:
    """End this browser's session."""
    check_csrf(request, csrf)
    session = cookie(request, SESSION_COOKIE)
    if session:
        store = Store.open(request.app.state.league)
        try:
            store.accounts.close_session(session)
        finally:
            store.close()
    response = RedirectResponse("/", status_code=303)
    delete_cookie(request, response, SESSION_COOKIE)
    set_cookie(request, response, CSRF_COOKIE, new_csrf())
    return response


def _logged_in(viewer: Participant | None) -> Participant:
    if viewer is None:
        raise HTTPException(401, "log in first (/login)")
    return viewer


@router.get("/my", response_class=HTMLResponse)
def my_page(request: Request, viewer: Viewer, store: StoreDep) -> Response:
    """My submissions, each with its status as it moves; my bots."""
    participant = _logged_in(viewer)
    accounts = store.accounts
    uploads = accounts.uploads_of(participant.id)
    mine = set(store.owners.keys_of(participant.id))
    bots = sorted({bot.name for bot in store.entrants.bots(("active", "replaced", "retired"))
                   if name_key(bot.name) in mine})
    suspended = {bot.name: bot for bot in store.entrants.bots() if bot.suspended is not None
                 and name_key(bot.name) in mine}
    return render(request, "my.html", viewer=participant, uploads=uploads, bots=bots,
                  pending=any(u.status.is_pending for u in uploads), suspended=suspended,
                  deadline=deadline_of(store))


@router.get("/my/logs/{name}", response_class=HTMLResponse)
def my_logs_page(name: str, request: Request, viewer: Viewer, store: StoreDep) -> Response:
    """The stderr logs of one of my bots."""
    participant = _logged_in(viewer)
    if not store.owners.owns(participant.id, name):
        raise HTTPException(403, f"{name!r} is not your bot: only its owner sees its logs")
    return render(request, "logs.html", viewer=participant, name=name, logs=logs_of(store, name))


@router.get("/upload", response_class=HTMLResponse)
def upload_page(request: Request, viewer: Viewer, store: StoreDep) -> Response:
    """The upload form (none once the league has closed for submissions)."""
    return render(request, "upload.html", viewer=_logged_in(viewer),
                  limit_mb=request.app.state.max_upload_bytes / (1024 * 1024),
                  deadline=deadline_of(store))


@router.post("/upload")
async def upload(request: Request) -> Response:
    """Queue the bot sent from the form, then show my submissions."""
    participant = _logged_in(session_participant(request))
    await refuse_if_closed(request)
    file, fields = await read_upload(request, request.app.state.max_upload_bytes)
    try:
        check_csrf(request, fields.get("csrf", ""))
    except HTTPException:
        await file.close()
        raise
    await queue_bot(request, participant.id, file)
    return RedirectResponse("/my", status_code=303)


@router.get("/favicon.ico")
def favicon() -> Response:
    """No icon (browsers ask for one on every site)."""
    return Response(status_code=204)
