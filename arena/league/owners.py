"""Who owns each entrant's name: the participants' names (the ``owners`` table, schema 3) and the
owners the organiser names (``league submit --owner``: the ``named_owners`` table, schema 7),
read and written here alone.

A participant's first accepted version of a new name makes the name theirs (``claim``, in the
transaction that accepts the version: ``arena.league.entrants``); only they may submit versions
of it after that, see its logs and its stderr. The organiser may name an entrant's owner instead
(``name_owner``): a name, which gives nobody any right over the entrant; it says only who entered
it, so that the matchmaker, the final and the records keep one owner's entrants apart. An
owner named so is compared by its key (``arena.names``) with the participants' names: ``--owner
ada`` is the participant ada (shown in her spelling), whether she was invited before or after.
A name's owner, once it has one, stays its owner for every later version (``given_problem``).
The organiser's other entrants have no owner: each is its own (shown as ``ORGANISER_OWNER``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from arena.league.database import Database
from arena.names import ORGANISER_OWNER, name_key

if TYPE_CHECKING:
    from arena.league.accounts import Accounts

def shown_owners(owners: Mapping[str, str], names: Sequence[tuple[str, str]],
                 *, always: bool = False) -> dict[str, str] | None:
    """The owner shown for each of ``names`` (``(what it is shown as, its entrant's name)``: a
    table's ``NAME@VERSION`` and ``NAME``), from ``owners`` (``Owners.names``),
    ``ORGANISER_OWNER`` for the organiser's own; None when all are the organiser's own and not
    ``always``: a table of such a league shows no owner column (it is the same for every
    row)."""
    shown = {row: owners.get(name_key(name), ORGANISER_OWNER) for row, name in names}
    return shown if always or any(owner != ORGANISER_OWNER for owner in shown.values()) else None


class Owners:
    """The owners of the league's names."""

    def __init__(self, database: Database, accounts: Accounts) -> None:
        self.database = database
        self.db = database.db
        """The connection (``database``'s), for this module's queries."""
        self.accounts = accounts
        """The participants, for their names."""

    def claim(self, name: str, participant: int) -> None:
        """Make ``name`` ``participant``'s unless it is someone's already; call inside the
        transaction that accepts its version."""
        self.db.execute("INSERT OR IGNORE INTO owners (name_key, participant) "
                                 "VALUES (?, ?)", (name_key(name), participant))

    def name_owner(self, name: str, owner: str) -> None:
        """Record ``owner`` (the organiser's ``--owner``) as the owner of ``name`` unless it has
        one already (a participant, or an owner named before); call inside the transaction that
        accepts its version, after ``given_problem``."""
        if self.owner_of(name) is None:
            self.db.execute("INSERT OR IGNORE INTO named_owners (name_key, owner) VALUES (?, ?)",
                            (name_key(name), owner))

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

    def names(self) -> dict[str, str]:
        """Each entrant's owner that has one, by the entrant's name key: the participant who owns
        it, or the owner the organiser named (in a participant's spelling when it is one's name);
        the organiser's other entrants are not in it (each its own owner)."""
        spelled = self.accounts.names_by_key()
        named = {row[0]: spelled.get(name_key(row[1]), row[1]) for row in self.db.execute(
            "SELECT name_key, owner FROM named_owners")}
        return named | {key: self.accounts.name_of(participant)
                        for key, participant in self.participants().items()}

    def owner_name(self, name: str) -> str | None:
        """The owner of the entrant ``name`` as ``names`` has it; None: the organiser's own."""
        return self.names().get(name_key(name))

    def given_problem(self, name: str, owner: str) -> str | None:
        """Why ``owner`` may not be named the owner of ``name``: the name has another already (a
        participant, or the owner named with an earlier version); None when it has none or that
        one. An owner does not change: the records of the name's games say who it was, and a
        version may not slip from its owner's other entrants by being entered for another."""
        current = self.owner_name(name)
        if current is None or name_key(current) == name_key(owner):
            return None
        return (f"{name!r} is {current}'s: --owner {owner} would change its owner, which stays as "
                f"it was first given (its games' records say so): enter the bot under another "
                f"name (--name), or leave --owner out")
