"""The arena's error types. The CLI turns each into one line and a non-zero exit status."""


class ArenaError(Exception):
    """Base of every error the arena raises for bad input or a failed run."""


class ConfigError(ArenaError):
    """A tournament file or command-line value that is wrong: the message names file, key, problem."""


class BotStartError(ArenaError):
    """A bot that could not be started or failed its handshake.

    The message is the arena's words alone; what the bot wrote to stderr meanwhile is
    ``stderr_tail``, shown only where its owner looks (the CLI's line adds it; a league's fault
    keeps it in the fault's private field)."""

    def __init__(self, message: str, stderr_tail: str = "") -> None:
        super().__init__(message)
        self.stderr_tail = stderr_tail


class ProtocolError(ArenaError):
    """A bot that broke the protocol where no game is running to record it as a fault."""


class ResultsError(ArenaError):
    """A results file that cannot be read (missing, or not results)."""


class StorageError(ArenaError):
    """A file or database the arena keeps that cannot be written now: a full disk, a lock another
    process held past the wait allowed. Nothing committed before it is lost."""


class RunInterrupted(ArenaError):
    """Ctrl-C or SIGTERM stopped a run; the message says what was saved and how to resume."""


class ClusterError(ArenaError):
    """A Dask cluster that cannot be reached, was lost mid-run, or cannot run the bots."""
