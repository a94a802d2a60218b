"""The server's connections: uvicorn configured in one place, with the limits that keep a slow,
idle or oversized client from holding the server, and the proxies whose ``X-Forwarded-For`` and
``X-Forwarded-Proto`` are believed.

uvicorn closes a connection idle between two requests (``KEEP_ALIVE_SECONDS``), bounds a
request's line and headers (``HEADER_BYTES``: larger, 400) and the connections served at once
(``MAX_CONNECTIONS``: more, 503), but has no deadline for a client that opens a connection and
sends nothing, or sends its headers or its body a byte at a time (slowloris). ``GuardedH11Protocol``
adds them, checked once a second on each connection:

- a connection must start a request within ``HEADERS_SECONDS`` of opening (a kept-alive one, within
  uvicorn's ``KEEP_ALIVE_SECONDS`` of the previous answer), and have sent all its headers within
  ``HEADERS_SECONDS`` of its first byte;
- a request's body, after ``BODY_GRACE_SECONDS``, must average ``BODY_MIN_RATE`` bytes a second
  (time the server itself stops reading, busy with what came, is not counted).

A client past a deadline is disconnected; nothing else waits on it. An ASGI middleware cannot do
this: the app is called only once the headers are in.
"""

from __future__ import annotations

import asyncio
import ipaddress
from typing import Any

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from arena.errors import ConfigError

HEADERS_SECONDS = 5.0
KEEP_ALIVE_SECONDS = 5
BODY_GRACE_SECONDS = 5.0
BODY_MIN_RATE = 4096
"""Bytes a second a request's body must average after its grace (32 kbit/s: a 16 MB upload may
take an hour)."""
HEADER_BYTES = 16 * 1024
"""The longest request line and headers (h11's ``max_incomplete_event_size``)."""
MAX_CONNECTIONS = 500
"""Connections served at once (uvicorn's ``limit_concurrency``): a request beyond them gets 503."""
BACKLOG = 1024
"""Connections the kernel holds for the server before it accepts them."""
CHECK_SECONDS = 1.0


class GuardedH11Protocol(H11Protocol):
    """uvicorn's HTTP/1.1 protocol, with deadlines for a client that sends too slowly."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        now = self.loop.time()
        self._waiting_since = now  # for the next request, then for the rest of its headers
        self._started = False  # whether the next request's first byte came
        self._body_since: float | None = None
        self._body_bytes = 0
        self._checked = now
        self._watch: asyncio.TimerHandle | None = self.loop.call_later(CHECK_SECONDS, self._check)

    def connection_lost(self, exc: Exception | None) -> None:
        if self._watch is not None:
            self._watch.cancel()
            self._watch = None
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        was = self.conn.their_state
        if was is h11.IDLE and not self._started:
            self._started, self._waiting_since = True, self.loop.time()
        super().data_received(data)
        if self.conn.their_state is h11.SEND_BODY:
            if was is h11.SEND_BODY:
                self._body_bytes += len(data)
            else:
                self._body_since, self._body_bytes = self.loop.time(), 0

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._waiting_since, self._started = self.loop.time(), False
        self._body_since = None

    def _check(self) -> None:
        self._watch = None
        if self.transport.is_closing():
            return
        now = self.loop.time()
        since_check, self._checked = now - self._checked, now
        state = self.conn.their_state
        if state is h11.IDLE and now - self._waiting_since > HEADERS_SECONDS:
            self.transport.close()
            return
        if state is h11.SEND_BODY and self._body_since is not None:
            if self.flow.read_paused:  # the server is not reading: not the client's time
                self._body_since += since_check
            elapsed = now - self._body_since - BODY_GRACE_SECONDS
            if elapsed > 0 and self._body_bytes < elapsed * BODY_MIN_RATE:
                self.transport.close()
                return
        self._watch = self.loop.call_later(CHECK_SECONDS, self._check)


def trusted_proxies(text: str) -> str:
    """``--forwarded-allow-ips``: addresses or networks, comma-separated (``*``: any), checked;
    ConfigError naming the one that is neither."""
    items = [item.strip() for item in text.split(",") if item.strip()]
    if not items:
        raise ConfigError("--forwarded-allow-ips: give the reverse proxy's address "
                          "(127.0.0.1 for one on this machine)")
    for item in items:
        if item == "*":
            continue
        try:
            ipaddress.ip_network(item, strict=False)
        except ValueError:
            raise ConfigError(f"--forwarded-allow-ips: {item!r} is not an address or a network "
                              f"(such as 127.0.0.1 or 10.0.0.0/8)") from None
    return ",".join(items)


def uvicorn_config(app: Any, forwarded_allow_ips: str | None) -> uvicorn.Config:
    """uvicorn's configuration for ``app``: the limits above, and ``X-Forwarded-*`` believed
    from ``forwarded_allow_ips`` only (None: from no one, the client's own address is used)."""
    return uvicorn.Config(
        app, log_level="warning", access_log=False, lifespan="off", http=GuardedH11Protocol,
        proxy_headers=forwarded_allow_ips is not None,
        forwarded_allow_ips=forwarded_allow_ips or "", timeout_keep_alive=KEEP_ALIVE_SECONDS,
        limit_concurrency=MAX_CONNECTIONS, h11_max_incomplete_event_size=HEADER_BYTES,
        backlog=BACKLOG)
