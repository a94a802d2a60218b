"""Real ``arena league serve`` processes for the serve tests: a league, participants, bots packed
as archives, a server on a free loopback port read from its first line, and a clean stop."""

from __future__ import annotations

import contextlib
import io
import os
import re
import signal
import subprocess
import tarfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import orjson

from helpers import ROOT, arena, new_league, own_bot, start_arena, wait_for

KEEP_ALIVE = httpx.Limits(keepalive_expiry=2.0)
"""A client drops a connection idle for 2 s, well before the server closes it (5 s): one reused
just as the server closes it fails to read (a test that waits between two requests, on a command
that takes seconds under load, met that race)."""

RANDOM_PY = ROOT / "bots" / "python" / "random_bot.py"
PACED = ROOT / "tests" / "bots" / "paced_bot.py"


@dataclass
class Server:
    """A running server: its process, its address, its league."""

    process: subprocess.Popen[str]
    url: str
    league: Path

    def client(self, token: str | None = None) -> httpx.Client:
        """An HTTP client of the server, as the participant of ``token`` (None: anonymous)."""
        headers = {} if token is None else {"Authorization": f"Bearer {token}"}
        return httpx.Client(base_url=self.url, headers=headers, timeout=60, limits=KEEP_ALIVE)


def start_server(league: Path, *args: str) -> Server:
    """``arena league serve LEAGUE --port 0 ARGS``, once it has printed its address."""
    process = start_arena("league", "serve", league, "--port", "0", *args)
    assert process.stdout is not None
    first = process.stdout.readline()
    if not first.startswith("serving "):
        process.kill()
        _, err = process.communicate(timeout=30)
        raise AssertionError(f"the server did not start: {first!r} {err!r}")
    return Server(process, first.rsplit(" at ", 1)[1].strip().rstrip("/"), league)


@contextlib.contextmanager
def served_alone(directory: Path, *args: str) -> Iterator[tuple[Server, str]]:
    """A league of its own with no entrants, served only (``--no-play``, then ARGS), and its
    participant ada's token; stopped as ``stop_cleanly`` stops it. For a test that changes what
    the server remembers of a client (its failed logins), which a shared server would carry into
    the module's other tests."""
    from arena.league.store import Store

    league = new_league(directory / "league")
    store = Store.open(league)
    try:
        _, token = store.accounts.invite("ada")
    finally:
        store.close()
    server = start_server(league, "--no-play", *args)
    try:
        yield server, token
    finally:
        stop_cleanly(server)


def stop_server(server: Server) -> int:
    """SIGTERM, as a service manager stops it; its exit status."""
    server.process.send_signal(signal.SIGTERM)
    try:
        return server.process.wait(timeout=60)
    finally:
        if server.process.poll() is None:
            server.process.kill()


def stop_cleanly(server: Server) -> str:
    """``stop_server``, which must end the server as a stop does (exit status 0, or 130 for the
    signal); what it wrote to stderr, printed too (pytest shows it with a failure)."""
    code = stop_server(server)
    said = server.process.stderr.read() if server.process.stderr else ""
    print(said)
    assert code in (0, 130), said
    return said


def invite(league: Path, name: str) -> str:
    """``arena league invite LEAGUE NAME --format json``: the token."""
    done = arena("league", "invite", league, name, "--format", "json")
    assert done.returncode == 0, done.stderr
    return str(orjson.loads(done.stdout)["token"])


def packed(directory: Path) -> bytes:
    """A bot directory as a .tar.gz archive (the directory at its top), in memory."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        archive.add(directory, arcname=directory.name)
    return buffer.getvalue()


def python_bot(parent: Path, name: str, **fields: str) -> Path:
    """The random Python starter bot as a bot directory ``parent/NAME`` with manifest ``fields``
    (``stderr=TEXT``: the bot writes TEXT to stderr as it starts)."""
    directory = parent / name
    directory.mkdir(parents=True)
    source = RANDOM_PY.read_text()
    stderr = fields.pop("stderr", None)
    if stderr is not None:
        source = f"import sys\nprint({stderr!r}, file=sys.stderr, flush=True)\n" + source
    (directory / "bot.py").write_text(source)
    manifest = {"name": name, "run": "python3 bot.py", **fields}
    (directory / "bot.yaml").write_bytes(orjson.dumps(manifest))  # JSON is YAML: exact strings
    return directory


def upload(client: httpx.Client, archive: bytes, filename: str = "bot.tar.gz") -> httpx.Response:
    """POST /api/submissions with ``archive`` in the field ``file``."""
    return client.post("/api/submissions", files={"file": (filename, archive)})


def decided(client: httpx.Client, upload_id: int, timeout: float = 120) -> dict[str, object]:
    """The upload once accepted or rejected (polled as a script would)."""
    seen: dict[str, object] = {}

    def done() -> bool:
        seen.update(client.get(f"/api/submissions/{upload_id}").json())
        return seen.get("status") in ("accepted", "rejected")

    wait_for(done, timeout, f"upload {upload_id} to be decided")
    return seen


def processes_naming(text: str) -> list[int]:
    """The pids of live processes whose command line holds ``text``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            command = (entry / "cmdline").read_bytes()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if text.encode() in command and state != "Z":
            found.append(int(entry.name))
    return found


def logged_in(url: str, token: str) -> httpx.Client:
    """A browser's session: the login form posted with its CSRF token from the server's own page
    (its ``Origin``, as a browser sends it); the caller closes it."""
    client = httpx.Client(base_url=url, timeout=60, headers={"Origin": url}, limits=KEEP_ALIVE)
    assert client.post("/login", data={"token": token,
                                       "csrf": form_token(client, "/login")}).status_code < 400
    return client


def form_token(client: httpx.Client, page: str, headers: dict[str, str] | None = None) -> str:
    """The CSRF token in the form of ``page`` (asked with ``headers``)."""
    found = re.search(r'name="csrf" value="([^"]+)"', client.get(page, headers=headers).text)
    assert found is not None
    return found.group(1)


def house_bot(parent: Path, name: str) -> Path:
    """A house bot of a served league's field: a correct bot that takes 5 ms a decision
    (``tests/bots/paced_bot.py``), so a league the tests serve plays a few games a second on next
    to no CPU, where one of C bots kept a core busy for as long as its server lived."""
    return own_bot(parent, name, PACED)


def stderr_until(server: Server, text: str, timeout: float = 120) -> str:
    """What the running server has written on stderr, read as it comes until it holds ``text``
    (the rest is left for ``stop_cleanly``)."""
    assert server.process.stderr is not None
    descriptor = server.process.stderr.fileno()
    seen = b""
    os.set_blocking(descriptor, False)
    try:
        def holds() -> bool:
            nonlocal seen
            try:
                while chunk := os.read(descriptor, 65536):
                    seen += chunk
            except BlockingIOError:
                pass
            return text.encode() in seen

        wait_for(holds, timeout, f"the server to say {text!r}")
    finally:
        os.set_blocking(descriptor, True)
    return seen.decode("utf-8", "replace")
