"""The ASGI app: the pages, the API, the static files (the report's style sheet and replay
viewer), the security headers on every response, and errors as one line.

Every response carries a Content-Security-Policy that allows scripts, styles, images and forms
from this server only (no inline script or style, no frame), ``nosniff``, a referrer for this
server alone (so that its own forms' ``Origin`` is sent), ``Cross-Origin-Resource-Policy:
same-origin`` (no other site, not even another port of this host, may embed an answer) and
``Cache-Control: no-store`` (a private page or log stays out of every cache), but for the static
files (the same for everyone: ``no-cache``, revalidated). A state-changing request from anywhere
but this server's pages is refused before any route sees it (``auth.check_origin``). An error is
``{"error": ...}`` on one line for the API and a plain page otherwise; an unexpected exception is
one line on the server's stderr and a 500 without detail, never a traceback.
"""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import ClientDisconnect

from arena.printable import printable
from arena.serve import api, pages
from arena.serve.auth import (
    CSRF_COOKIE,
    FailedLogins,
    check_origin,
    cookie,
    cookie_name,
    new_csrf,
    server_secret,
    set_cookie,
)
from arena.serve.views import TableCache

CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'")


def create_app(league: Path, *, max_upload_bytes: int, max_pending: int,
               on_upload: Callable[[], None] = lambda: None,
               max_stored_bytes: int | None = None) -> FastAPI:
    """The app serving ``league``."""
    app = FastAPI(docs_url=None, redoc_url=None, openapi_url=None)
    app.state.league = league
    app.state.max_upload_bytes = max_upload_bytes
    app.state.max_pending = max_pending
    app.state.max_stored_bytes = max_stored_bytes
    app.state.on_upload = on_upload
    app.state.failures = FailedLogins()
    app.state.secret = server_secret(league)
    app.state.table = TableCache(league)
    app.state.table.start()
    app.include_router(api.router)
    app.include_router(pages.router)
    app.mount("/static", StaticFiles(packages=[("arena.serve", "static"),
                                               ("arena.report", "static")]), name="static")

    @app.middleware("http")
    async def headers(request: Request,
                      call_next: Callable[[Request], Awaitable[Response]]) -> Response:
        csrf = cookie(request, CSRF_COOKIE)
        request.state.csrf = csrf or new_csrf()
        try:
            check_origin(request)
            response = await call_next(request)
        except StarletteHTTPException as refused:
            response = _error(request, refused.status_code, str(refused.detail))
        except ClientDisconnect:  # gone mid-body (or disconnected as too slow): no one to answer
            response = Response(status_code=400)
        except Exception as error:  # the last net: one line, no traceback to anyone
            print(f"arena serve: error: {request.method} {printable(request.url.path)}: "
                  f"{type(error).__name__}: {printable(str(error))}", file=sys.stderr, flush=True)
            response = _error(request, 500, "internal error (the server's log says more)")
        named = f"{cookie_name(request, CSRF_COOKIE)}="
        if not csrf and not any(given.startswith(named)
                                for given in response.headers.getlist("set-cookie")):
            set_cookie(request, response, CSRF_COOKIE, request.state.csrf)
        response.headers["Content-Security-Policy"] = CSP
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Referrer-Policy"] = "same-origin"
        response.headers["X-Frame-Options"] = "DENY"
        response.headers["Cross-Origin-Resource-Policy"] = "same-origin"
        response.headers["Cache-Control"] = ("no-cache" if request.url.path.startswith("/static/")
                                             else "no-store")
        return response

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, error: StarletteHTTPException) -> Response:
        response = _error(request, error.status_code, str(error.detail))
        for name, value in (error.headers or {}).items():
            response.headers[name] = value
        return response

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, error: RequestValidationError) -> Response:
        first = error.errors()[0] if error.errors() else {}
        where = ".".join(str(part) for part in first.get("loc", ()))
        return _error(request, 400, f"{where}: {first.get('msg', 'invalid')}")

    return app


def _error(request: Request, status: int, message: str) -> Response:
    if request.url.path.startswith("/api/"):
        return JSONResponse({"error": message}, status_code=status)
    return pages.error_page(request, status, message)


