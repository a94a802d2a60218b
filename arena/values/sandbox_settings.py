"""A sandbox's settings, as a value: how bot processes are confined.

``arena.bots.sandbox`` runs bubblewrap with them; ``arena.botfiles.view`` says what they show a
program before anything runs. Work items (``arena.values.work.BotCommand``) carry one to every
worker.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace


def is_root_mode() -> bool:
    """True when sandboxes run without a user namespace, each bot as a uid of its own (root)."""
    return os.geteuid() == 0


@dataclass(frozen=True)
class Sandbox:
    """How bot processes are confined: scratch size, process limit, whether the bot's own
    directory is writable (build commands only), the bot's directory when a manifest says it, and
    the installations the organiser allows besides the arena's own interpreters."""

    scratch_mb: int = 64
    processes: int | None = 128
    """Processes and threads of the bot's uid together (RLIMIT_NPROC); None: not limited."""
    writable_bot_dir: bool = False
    bot_dir: str | None = None
    """The bot's directory (a manifest's); None: found from the argv
    (``arena.botfiles.view.bot_directory``)."""
    interpreters: tuple[str, ...] = ()
    """Installations the organiser allows (absolute, checked by
    ``arena.botfiles.installations.check_interpreters``), shown read-only besides the defaults."""

    @property
    def takes_uid(self) -> bool:
        """Whether a process in it runs as a uid of its own (``arena.bots.uids``): a root arena's
        bot or build."""
        return is_root_mode()

    def for_build(self, processes: int | None = None) -> Sandbox:
        """The same sandbox with the bot's own directory writable, for its build command, with
        the build's process limit (None: this sandbox's)."""
        return replace(self, writable_bot_dir=True,
                       processes=self.processes if processes is None else processes)
