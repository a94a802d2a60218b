"""Who owns each entrant's name: the ``owners`` table (schema 3), read and written here alone.

A participant's first accepted version of a new name makes the name theirs (``claim``, in the
transaction that accepts the version: ``arena.league.entrants``); only they may submit versions
of it after that, see its logs and its stderr. Names are compared by their keys (``arena.names``).
The organiser's entrants have no owner.
"""

from __future__ import annotations

from arena.league.database import Database
from arena.names import name_key


class Owners:
    """The owners of the league's names."""

    def __init__(self, database: Database) -> None:
        self.database = database
        self.db = database.db
        """The connection (``database``'s), for this module's queries."""

    def claim(self, name: str, participant: int) -> None:
        """Make ``name`` ``participant``'s unless it is someone's already; call inside the
        transaction that accepts its version."""
        self.db.execute("INSERT OR IGNORE INTO owners (name_key, participant) "
                                 "VALUES (?, ?)", (name_key(name), participant))

    def owner_of(self, name: str) -> int | None:
        """The participant who owns ``name``, or None (a new name, or the organiser's)."""
        row = self.db.execute("SELECT participant FROM owners WHERE name_key = ?",
                                       (name_key(name),)).fetchone()
        return None if row is None else int(row[0])

    def owns(self, participant: int, name: str) -> bool:
        """Whether the entrant ``name`` is ``participant``'s."""
        return self.owner_of(name) == participant

    def participants(self) -> dict[str, int]:
        """Every owned name's key, with the participant who owns it."""
        return {row[0]: int(row[1]) for row in self.db.execute(
            "SELECT name_key, participant FROM owners")}

    def keys_of(self, participant: int) -> list[str]:
        """The name keys of the entrants ``participant`` owns."""
        return [row[0] for row in self.db.execute(
            "SELECT name_key FROM owners WHERE participant = ?", (participant,))]
