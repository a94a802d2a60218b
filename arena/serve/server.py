"""Start the server: check the options, hold ``serve.lock``, start the builders and the supervisor
of the league's run, and serve the app with uvicorn until Ctrl-C or SIGTERM."""

from __future__ import annotations

import ipaddress
import socket
import sys
from dataclasses import dataclass
from pathlib import Path

import uvicorn

from arena.errors import ConfigError
from arena.league.config import LeagueSettings
from arena.league.lock import league_lock
from arena.league.store import Store
from arena.serve.app import create_app
from arena.serve.build_queue import Builders
from arena.serve.connections import BACKLOG, uvicorn_config
from arena.serve.supervisor import Supervisor
from arena.settings import SandboxMode

SERVE_LOCK = "serve.lock"
UPLOADS_DIR = "uploads"


@dataclass(frozen=True)
class ServeOptions:
    """What ``arena league serve`` was asked for."""

    league: Path
    host: str = "127.0.0.1"
    port: int = 8000
    jobs: int | None = None
    cluster: str | None = None
    play: bool = True
    build_jobs: int = 1
    max_upload_bytes: int = 16 * 1024 * 1024
    max_pending: int = 3
    """Uploads a participant may have queued or in the pipeline at once (more: 429)."""
    max_stored_bytes: int | None = 256 * 1024 * 1024
    """What a participant's stored versions and uploads waiting may take on disk (more: 413;
    None: no quota; ``arena.league.quota``)."""
    unsafe_no_sandbox: bool = False
    forwarded_allow_ips: str | None = None
    """The reverse proxies whose ``X-Forwarded-For`` and ``-Proto`` are believed (None: none)."""


def is_loopback(host: str) -> bool:
    """Whether ``host`` is a loopback address (or ``localhost``): reachable from this machine only."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def serve(options: ServeOptions) -> None:
    """Serve the league until interrupted; ConfigError (one line) for what cannot be served."""
    league = options.league.absolute()
    store = Store.open(league)
    try:
        settings = LeagueSettings.of(store)
    finally:
        store.close()
    if (settings.play.sandbox is SandboxMode.NONE and not is_loopback(options.host)
            and not options.unsafe_no_sandbox):
        raise ConfigError(f"--host {options.host}: a public server runs its participants' bots, "
                          f"and {league} has sandbox none: make a league with --sandbox bwrap, "
                          f"or give --unsafe-no-sandbox")
    (league / UPLOADS_DIR).mkdir(exist_ok=True)
    listener = _listen(options.host, options.port)
    with league_lock(league / SERVE_LOCK, what="another arena league serve of this league",
                     advice="stop it first (kill -INT {pid})"):
        store = Store.open(league)
        try:  # under the lock: no other server is queueing, building or deciding uploads
            accounts = store.accounts
            requeued = accounts.requeue_unfinished()
            accounts.remove_decided_archives(UPLOADS_DIR)
        finally:
            store.close()
        warning = readable_warning(league)
        if warning is not None:
            print(f"arena serve: {warning}", file=sys.stderr, flush=True)
        address = listener.getsockname()
        shown = f"[{address[0]}]" if ":" in address[0] else address[0]
        print(f"serving {league} at http://{shown}:{address[1]}/", flush=True)
        if requeued:
            print(f"queued again {requeued} uploads a stopped server was checking", flush=True)
        builders = Builders(league, options.build_jobs)
        supervisor = Supervisor(league, options.jobs, options.cluster) if options.play else None
        app = create_app(league, max_upload_bytes=options.max_upload_bytes,
                         max_pending=options.max_pending, on_upload=builders.wake,
                         max_stored_bytes=options.max_stored_bytes)
        builders.on_accepted = supervisor.wake if supervisor is not None else None
        builders.start()
        if supervisor is not None:
            supervisor.start()
        server = uvicorn.Server(uvicorn_config(app, options.forwarded_allow_ips))
        try:
            server.run(sockets=[listener])
        finally:
            builders.stop()
            if supervisor is not None:
                supervisor.stop()
            listener.close()
        print("stopped", file=sys.stderr, flush=True)


def _listen(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port`` (port 0: a free one), or ConfigError naming it."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except OSError as error:
        raise ConfigError(f"--host {host}: cannot resolve it ({error.strerror or error})") from None
    family, kind, proto, _, address = infos[0]
    listener = socket.socket(family, kind, proto)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind(address)
        listener.listen(BACKLOG)
    except OSError as error:
        listener.close()
        raise ConfigError(f"--port {port}: cannot listen on {host}:{port} "
                          f"({error.strerror or error})") from None
    return listener


def readable_warning(league: Path) -> str | None:
    """A warning when users of this machine other than its owner may read ``league``: it holds
    every bot's stderr, the games with their faults' stderr, and the server's secret."""
    try:
        mode = league.stat().st_mode & 0o777
    except OSError:
        return None
    if not mode & 0o077:
        return None
    return (f"warning: {league} can be read by other users of this machine (mode {mode:o}): it "
            f"holds the bots' stderr logs and the server's secret; chmod 700 {league}")
