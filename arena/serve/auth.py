"""Who is asking: a participant's token (``Authorization: Bearer``, the API's) or their session
cookie (the pages'), as FastAPI dependencies; CSRF tokens for forms; the rate of failed logins.

- A session cookie is HttpOnly and SameSite=Strict, and Secure when the request came over TLS
  (``https``, as a reverse proxy on this machine says with ``X-Forwarded-Proto``).
- Every form carries a CSRF token equal to the ``arena_csrf`` cookie (the double-submit pattern:
  a page of another site can make the browser send the cookie, never read it to put it in the
  form); compared in constant time.
- A failed login or bad token counts against the client's address: more than
  ``FAILURES_ALLOWED`` in ``FAILURE_WINDOW`` seconds and that address is refused (429) until the
  window has passed.
"""

from __future__ import annotations

import hmac
import secrets
import threading
import time
from collections import defaultdict, deque
from collections.abc import Iterator
from pathlib import Path

from fastapi import HTTPException, Request

from arena.league.accounts import Accounts, Participant
from arena.league.store import Store

SESSION_COOKIE = "arena_session"
CSRF_COOKIE = "arena_csrf"
SESSION_SECONDS = 7 * 24 * 3600
FAILURES_ALLOWED = 10
FAILURE_WINDOW = 60.0


class FailedLogins:
    """Failed logins by client address, over the last ``FAILURE_WINDOW`` seconds."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._failures: defaultdict[str, deque[float]] = defaultdict(deque)

    def check(self, address: str) -> None:
        """HTTPException 429 when ``address`` failed too often lately."""
        with self._lock:
            recent = self._recent(address)
            if not recent:  # nothing to remember: many addresses must not grow the table
                del self._failures[address]
            elif len(recent) >= FAILURES_ALLOWED:
                raise HTTPException(429, "too many failed logins from this address: try again "
                                         "in a minute")

    def fail(self, address: str) -> None:
        """Count one failure of ``address``."""
        with self._lock:
            self._recent(address).append(time.monotonic())

    def _recent(self, address: str) -> deque[float]:
        recent = self._failures[address]
        while recent and recent[0] < time.monotonic() - FAILURE_WINDOW:
            recent.popleft()
        return recent


def league_store(request: Request) -> Iterator[Store]:
    """The league's store, opened for one request. A connection per request, used by one thread
    after another: FastAPI opens it in one worker thread and runs the page in the next."""
    store = Store.open(request.app.state.league, across_threads=True)
    try:
        yield store
    finally:
        store.close()


def client_address(request: Request) -> str:
    """The client's address (the proxy's view of it behind a trusted reverse proxy)."""
    return request.client.host if request.client is not None else "unknown"


def bearer_participant(request: Request) -> Participant:
    """The API's caller, by ``Authorization: Bearer TOKEN``; 401 without a valid token."""
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise HTTPException(401, "give a participant's token: Authorization: Bearer TOKEN",
                            headers={"WWW-Authenticate": "Bearer"})
    failures: FailedLogins = request.app.state.failures
    address = client_address(request)
    failures.check(address)
    participant = _by(request.app.state.league, token=token.strip())
    if participant is None:
        failures.fail(address)
        raise HTTPException(401, "not a valid token (revoked, or never issued)",
                            headers={"WWW-Authenticate": "Bearer"})
    return participant


def session_participant(request: Request) -> Participant | None:
    """The participant logged in on this browser, or None."""
    session = request.cookies.get(SESSION_COOKIE)
    if not session:
        return None
    return _by(request.app.state.league, session=session)


def _by(league: Path, *, token: str | None = None, session: str | None = None) -> Participant | None:
    store = Store.open(league)
    try:
        accounts = Accounts(store)
        if token is not None:
            return accounts.by_token(token)
        return accounts.by_session(session or "")
    finally:
        store.close()


def csrf_token(request: Request) -> str:
    """This browser's CSRF token (made by the middleware when it had none)."""
    return str(request.state.csrf)


def new_csrf() -> str:
    """A new CSRF token."""
    return secrets.token_urlsafe(32)


def check_csrf(request: Request, given: str) -> None:
    """HTTPException 403 unless ``given`` (the form's field) is this browser's CSRF cookie."""
    cookie = request.cookies.get(CSRF_COOKIE, "")
    if not cookie or not hmac.compare_digest(cookie.encode(), given.encode()):
        raise HTTPException(403, "the form's CSRF token does not match: reload the page and "
                                 "try again")


def is_secure(request: Request) -> bool:
    """Whether the request came over TLS (directly, or through a trusted reverse proxy)."""
    return request.url.scheme == "https"
