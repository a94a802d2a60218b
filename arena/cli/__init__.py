"""The ``arena`` command line: thin commands over library functions, one place for error exits."""

from __future__ import annotations

import sqlite3
import sys

import typer

from arena.bots.process import install_signal_handlers
from arena.errors import ArenaError, RunInterrupted
from engine.errors import EngineError

app = typer.Typer(
    help="Run Blackout and Partnership Blackout bot games and tournaments, and rate the bots.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.callback()
def _root() -> None:
    """Run Blackout and Partnership Blackout bot games and tournaments, and rate the bots."""


# Each command is a plain function with typer annotations in its own module.
from arena.cli.bot_command import BotCommandLine  # noqa: E402
from arena.cli.checkbot import check_bot_command  # noqa: E402
from arena.cli.league import app as league_app  # noqa: E402
from arena.cli.match import match_command  # noqa: E402
from arena.cli.play import play_command  # noqa: E402
from arena.cli.report import report_command, show_command  # noqa: E402
from arena.cli.rules import rules_command  # noqa: E402
from arena.cli.run import run_command  # noqa: E402
from arena.cli.table import table_command  # noqa: E402

app.command("run")(run_command)
app.command("play", cls=BotCommandLine)(play_command)
app.command("check-bot", cls=BotCommandLine)(check_bot_command)
app.command("table")(table_command)
app.command("match")(match_command)
app.command("rules")(rules_command)
app.command("report")(report_command)
app.command("show")(show_command)
app.add_typer(league_app, name="league")


def main() -> None:
    """Entry point: runs the app and turns the library's own errors into one line and exit 2."""
    install_signal_handlers()
    try:
        app()
    except RunInterrupted as stopped:
        print(f"arena: {stopped}", file=sys.stderr)
        sys.exit(130)
    except (ArenaError, EngineError) as error:
        print(f"arena: error: {error}", file=sys.stderr)
        sys.exit(2)
    except KeyboardInterrupt as interrupt:
        print(f"arena: {interrupt or 'interrupted'}", file=sys.stderr)
        sys.exit(130)
    except OSError as error:  # the net under every command: a full disk, a path not writable
        print(f"arena: error: {os_error_text(error)}", file=sys.stderr)
        sys.exit(2)
    except sqlite3.Error as error:  # a league database damaged past what arena.league.store says
        print(f"arena: error: league database: {error}", file=sys.stderr)
        sys.exit(2)


def os_error_text(error: OSError) -> str:
    """``PATH: STRERROR`` (the path the call named, when it named one), for one line."""
    text = error.strerror or str(error)
    if error.filename is not None:
        text = f"{error.filename}: {text}"
    if error.filename2 is not None:
        text += f" (to {error.filename2})"
    return text
