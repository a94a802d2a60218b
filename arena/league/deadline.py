"""When a league stops taking submissions (``league close``): the ``deadline`` table (schema 6),
read and written here alone.

A submission is in time when it was **received** before the close: a ``league submit`` when the
command started, a served upload when the server took it (its ``created`` time). Both are
refused at once when late (the command with one line, the server with 403), and the transaction
that accepts a version checks again (``Entrants.add``), so a submission racing the close is
either received before it and stored, or refused: never a version received after the close. An
upload taken before the close and still waiting for its build is built and accepted after the
close: its archive was fixed when it arrived, so waiting in the queue gives nobody more time.

Times are Unix times; ``league close --at`` reads ISO 8601 (``parse_time``: a time without a
zone is the machine's local time) and every page and line shows them in UTC (``shown``).
"""

from __future__ import annotations

import time
from datetime import UTC, datetime

from arena.errors import ConfigError
from arena.league.database import Database


class Deadline:
    """The close of an open league's submissions."""

    def __init__(self, database: Database) -> None:
        self.database = database
        self.db = database.db

    def closes(self) -> float | None:
        """When submissions close (or closed): a Unix time; None: the league never closes."""
        row = self.db.execute("SELECT closes FROM deadline WHERE id = 1").fetchone()
        return None if row is None else float(row[0])

    def close(self, at: float) -> float | None:
        """Close submissions at ``at`` (now or later; earlier than now closes them now, the
        versions accepted meanwhile staying). Replaces a close set before, which it returns."""
        with self.database.transaction():
            before = self.closes()
            self.db.execute("INSERT INTO deadline (id, closes, set_at) VALUES (1, ?, ?) "
                            "ON CONFLICT (id) DO UPDATE SET closes = excluded.closes, "
                            "set_at = excluded.set_at", (at, time.time()))
        return before

    def is_closed(self, now: float | None = None) -> bool:
        """Whether submissions are closed at ``now`` (default: now)."""
        closes = self.closes()
        return closes is not None and (time.time() if now is None else now) >= closes

    def refusal(self, received: float) -> str | None:
        """Why a submission received at ``received`` is refused (the league closed before), or
        None: it is in time."""
        closes = self.closes()
        if closes is None or received < closes:
            return None
        return f"the league is closed for submissions (since {shown(closes)})"


def shown(when: float) -> str:
    """A Unix time as the league shows it: ISO 8601 in UTC, to the second."""
    return datetime.fromtimestamp(when, UTC).isoformat(timespec="seconds")


def parse_time(text: str, key: str = "--at") -> float:
    """An ISO 8601 time (``2027-01-31T18:00``, ``2027-01-31 18:00:00+01:00``; without a zone: the
    machine's local time) as a Unix time; ConfigError naming ``key`` for anything else."""
    try:
        parsed = datetime.fromisoformat(text.strip())
    except ValueError:
        raise ConfigError(f"{key}: {text!r} is not an ISO 8601 time (e.g. 2027-01-31T18:00 or "
                          f"2027-01-31T18:00:00+00:00)") from None
    return parsed.timestamp()
