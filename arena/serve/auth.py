"""Who is asking: a participant's token (``Authorization: Bearer``, the API's) or their session
cookie (the pages'), as FastAPI dependencies; forms that another site cannot forge; the rate of
failed logins.

- A session cookie is HttpOnly and SameSite=Strict; over TLS (``https``, as a trusted reverse
  proxy says with ``X-Forwarded-Proto``) it is Secure and named with the ``__Host-`` prefix, which
  no other host (a sibling subdomain) and no plain-HTTP page (another port) can set or overwrite.
  The pre-session cookie is made the same way.
- A form's CSRF token is an HMAC, under the league's server secret (``serve.secret``, made once,
  readable by its owner alone), of the browser's session id, or before login of its pre-session
  cookie (``arena_csrf``, random). Another site may set this site's cookies (a page on another
  port of the same host, or on a sibling subdomain: cookie tossing) but cannot compute the token
  that goes with a cookie; logging in makes a new session, so a new token. Compared in constant
  time.
- Every state-changing request (any method but GET, HEAD and OPTIONS) that carries a cookie must
  come from this server's own pages: its ``Origin`` is this server's origin, or, where a browser
  sends ``Origin: null`` or none, its ``Sec-Fetch-Site`` says ``same-origin``; anything else is
  refused (403). A request with no cookie, or with an ``Authorization`` header (a script with its
  token: no page of another site can make a browser add that header), has no browser's
  credentials to abuse and is not asked.
- A failed login or bad token counts against the client's address: after ``FAILURES_ALLOWED``
  in ``FAILURE_WINDOW`` seconds, that address's bad tokens are refused with 429 until the window
  has passed. A valid token is never refused: tokens are looked up first (by hash, so in a time
  that does not depend on how much of a guess was right), and only a bad one meets the limit.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import threading
import time
from collections import defaultdict, deque
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

from fastapi import HTTPException, Request, Response

from arena.errors import ConfigError
from arena.league.accounts import SESSION_MAX_AGE, Participant
from arena.league.store import Store
from arena.printable import printable

SESSION_COOKIE = "arena_session"
CSRF_COOKIE = "arena_csrf"
"""The pre-session cookie: random, the login form's token is bound to it."""
SESSION_SECONDS = int(SESSION_MAX_AGE)
SECRET_FILE = "serve.secret"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
FAILURES_ALLOWED = 10
FAILURE_WINDOW = 60.0


class FailedLogins:
    """Failed logins by client address, over the last ``FAILURE_WINDOW`` seconds."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._failures: defaultdict[str, deque[float]] = defaultdict(deque)
        self._swept = time.monotonic()

    def note(self, address: str) -> None:
        """Count a failure of ``address`` (a bad token, a failed login); HTTPException 429
        instead when it failed too often lately (that one is not counted: the window ends a
        minute after the failures that filled it)."""
        with self._lock:
            recent = self._recent(address)
            if len(recent) >= FAILURES_ALLOWED:
                raise HTTPException(429, "too many failed logins from this address: try again "
                                         "in a minute")
            now = time.monotonic()
            recent.append(now)
            if now - self._swept > FAILURE_WINDOW:  # many addresses must not grow the table
                self._swept = now
                for quiet in [a for a in self._failures if not self._recent(a)]:
                    del self._failures[quiet]

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
    participant = _by(request.app.state.league, token=token.strip())
    if participant is None:
        request.app.state.failures.note(client_address(request))
        raise HTTPException(401, "not a valid token (revoked, or never issued)",
                            headers={"WWW-Authenticate": "Bearer"})
    return participant


def session_participant(request: Request) -> Participant | None:
    """The participant logged in on this browser, or None."""
    session = cookie(request, SESSION_COOKIE)
    if not session:
        return None
    return _by(request.app.state.league, session=session)


def _by(league: Path, *, token: str | None = None, session: str | None = None) -> Participant | None:
    store = Store.open(league)
    try:
        accounts = store.accounts
        if token is not None:
            return accounts.by_token(token)
        return accounts.by_session(session or "")
    finally:
        store.close()


def server_secret(league: Path) -> bytes:
    """The league's server secret, which CSRF tokens are HMACs under: made at the first start
    (256 random bits, in ``serve.secret``, readable by its owner alone), read after. ConfigError
    when it can be neither read nor made."""
    path = league / SECRET_FILE
    try:
        try:
            descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            secret = bytes.fromhex(path.read_text().strip())
        else:
            secret = secrets.token_bytes(32)
            with open(descriptor, "w") as out:
                out.write(secret.hex() + "\n")
    except (OSError, ValueError) as error:
        raise ConfigError(f"{path}: the server secret cannot be read or made "
                          f"({getattr(error, 'strerror', None) or error})") from None
    if len(secret) < 32:
        raise ConfigError(f"{path}: not a server secret (remove it: the next start makes one)")
    return secret


def new_csrf() -> str:
    """A new pre-session cookie's value."""
    return secrets.token_urlsafe(32)


def cookie_name(request: Request, name: str) -> str:
    """``name`` as this request's cookie is called: ``__Host-NAME`` over TLS, ``NAME`` over plain
    HTTP (where a cookie cannot be kept from other ports and subdomains anyway)."""
    return f"__Host-{name}" if is_secure(request) else name


def cookie(request: Request, name: str) -> str | None:
    """The value of this browser's cookie ``name`` (SESSION_COOKIE, CSRF_COOKIE), or None."""
    return request.cookies.get(cookie_name(request, name))


def set_cookie(request: Request, response: Response, name: str, value: str,
               max_age: int | None = None) -> None:
    """Give this browser the cookie ``name``: HttpOnly, SameSite=Strict, for the whole site;
    Secure and ``__Host-`` over TLS."""
    response.set_cookie(cookie_name(request, name), value, max_age=max_age, httponly=True,
                        samesite="strict", secure=is_secure(request), path="/")


def delete_cookie(request: Request, response: Response, name: str) -> None:
    """Take the cookie ``name`` away from this browser."""
    response.delete_cookie(cookie_name(request, name), path="/", secure=is_secure(request),
                           httponly=True, samesite="strict")


def csrf_token(request: Request) -> str:
    """The token this browser's forms carry: bound to its session cookie, or before login to its
    pre-session cookie (which the middleware made when it had none)."""
    session = cookie(request, SESSION_COOKIE)
    binding = f"session:{session}" if session else f"login:{request.state.csrf}"
    secret: bytes = request.app.state.secret
    digest = hmac.new(secret, binding.encode("utf-8", "surrogatepass"), hashlib.sha256)
    return digest.hexdigest()


def check_csrf(request: Request, given: str) -> None:
    """HTTPException 403 unless ``given`` (the form's field) is this browser's token."""
    if not hmac.compare_digest(csrf_token(request).encode(), given.encode("utf-8", "replace")):
        raise HTTPException(403, "the form's CSRF token does not match: reload the page and "
                                 "try again")


def check_origin(request: Request) -> None:
    """HTTPException 403 for a state-changing request with a browser's credentials (a cookie, no
    ``Authorization``) that does not say it comes from this server's own pages."""
    headers = request.headers
    if request.method in SAFE_METHODS or "cookie" not in headers or "authorization" in headers:
        return
    own = own_origin(request)
    origin = headers.get("origin")
    if origin is not None and origin != "null":
        if _origin_of(origin) == own:
            return
        raise HTTPException(403, f"this request comes from {printable(origin)}, not from this "
                                 f"server's pages ({own[0]}://{own[1]}:{own[2]}): a form is sent "
                                 f"from the server's own pages only (behind a TLS proxy, "
                                 f"give league serve --forwarded-allow-ips)")
    if headers.get("sec-fetch-site") == "same-origin":
        return
    raise HTTPException(403, "this request does not say it comes from this server's pages "
                             "(no Origin, no Sec-Fetch-Site: same-origin): a form is sent from "
                             "the server's own pages only")


def own_origin(request: Request) -> tuple[str, str, int]:
    """This server's origin as the browser names it: scheme (https behind a trusted TLS proxy),
    host and port (from the request's ``Host``)."""
    url = request.url
    return url.scheme, (url.hostname or "").lower(), url.port or (443 if url.scheme == "https"
                                                                  else 80)


def _origin_of(text: str) -> tuple[str, str, int] | None:
    try:
        parts = urlsplit(text.strip())
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https") or not parts.hostname:
        return None
    return scheme, parts.hostname.lower(), port or (443 if scheme == "https" else 80)


def is_secure(request: Request) -> bool:
    """Whether the request came over TLS (directly, or through a trusted reverse proxy)."""
    return request.url.scheme == "https"
