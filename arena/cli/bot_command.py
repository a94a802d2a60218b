"""A typer command class for commands that take a bot's command line (``check-bot``, ``play``).

A bot command's own options (``java -cp dir Bot``) look like the arena's to the parser, which
says only "No such option: -c"; this class adds how to pass them through.
"""

from __future__ import annotations

from typing import Any

from typer.core import TyperCommand

from arena.cli.usage import NoSuchOption

MEMORY_HELP = ("Resident-memory limit of each bot process (with its children), MB; the bot is "
               "killed past it. Reserved address space does not count: a JVM, Go or node bot "
               "runs with its defaults.")
"""``--memory-mb``'s help, one text for every command that starts bots."""

HINT = ("if it belongs to the bot's command, quote the command (\"java -cp dir Bot\") "
        "or put -- before it (-- java -cp dir Bot)")


class BotCommandLine(TyperCommand):
    """A command whose "No such option" error tells how to pass options that are the bot's."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        """Parse as usual; an unknown option's error gains the quoting hint."""
        try:
            return super().parse_args(ctx, args)
        except NoSuchOption as error:
            error.message = f"{error.message}; {HINT}"
            raise
