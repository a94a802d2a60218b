"""An open league: its database (``arena.league.database``: the connection, the schema and its
migrations, transactions) and one repository per aggregate, each of which alone reads and writes
its tables:

- ``entrants``: the bot versions, their conduct and suspension (``arena.league.entrants``);
- ``games``: the duplicate sets, and each finished game with its seats and faults
  (``arena.league.games``);
- ``owners``: who owns each entrant's name, a participant or an owner the organiser named
  (``arena.league.owners``);
- ``accounts``: the participants, their sessions and their uploads (``arena.league.accounts``);
- ``deadline``: when submissions close (``arena.league.deadline``);
- ``finals``: the final, its games and their seats, apart from the ladder's
  (``arena.league.finals``).

A repository that needs another's rows asks it (a game recorded counts in its versions'
conduct through ``entrants``), in the same transaction where it must.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from arena.league.accounts import Accounts
from arena.league.database import Database
from arena.league.deadline import Deadline
from arena.league.entrants import Entrants
from arena.league.finals import Finals
from arena.league.games import Games
from arena.league.owners import Owners


class Store:
    """An open league database and its repositories."""

    def __init__(self, database: Database) -> None:
        self.database = database
        self.directory = database.directory
        """The league's directory, absolute (``Database.directory``)."""
        self.accounts = Accounts(database)
        self.owners = Owners(database, self.accounts)
        self.deadline = Deadline(database)
        self.entrants = Entrants(database, self.owners, self.deadline)
        self.games = Games(database, self.entrants)
        self.finals = Finals(database, self.entrants)

    @classmethod
    def create(cls, directory: Path, settings: dict[str, Any]) -> Store:
        """Create the league directory and its database (``Database.create``)."""
        return cls(Database.create(directory, settings))

    @classmethod
    def open(cls, directory: Path, *, across_threads: bool = False) -> Store:
        """Open an existing league (``Database.open``)."""
        return cls(Database.open(directory, across_threads=across_threads))

    def owner_names(self) -> dict[str, str]:
        """Each entrant's owner, by the entrant's name key: the participant who owns it, or the
        owner the organiser named (``league submit --owner``); the organiser's other entrants
        are not in it (each its own owner: ``Owners.names``)."""
        return self.owners.names()

    def close(self) -> None:
        """Close the connection."""
        self.database.close()
