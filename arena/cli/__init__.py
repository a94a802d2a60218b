"""The ``arena`` command line: thin commands over library functions, one place for error exits.

``arena --help`` imports every command's module (typer reads each signature), so a command's
module imports at its top only what its options need (typer, ``arena.spec``, ``arena.settings``
with every option's bounds and default, the engine's game names) and the library it hands off
to inside its function: numpy, tabulate, the league, Dask, the report, the sandbox and the
bots' processes load only for the command that runs (tests/arena/cli/test_startup.py). The
command modules leave out ``from __future__ import annotations``: with it typer evaluates every
option's annotation again, several times per command, on each start.
"""

from __future__ import annotations

import functools
import sqlite3
import sys
from collections.abc import Callable
from typing import Annotated, Any

import typer
import typer.main

from arena.bots.registry import install_signal_handlers
from arena.cli.usage import (
    PLAIN_HELP_WIDTH,
    Abort,
    ClickException,
    NoArgsIsHelpError,
    UsageError,
)
from arena.errors import ArenaError, BotStartError, RunInterrupted
from arena.printable import printable
from engine.errors import EngineError

app = typer.Typer(
    help="Run Blackout and Partnership Blackout bot games and tournaments, and rate the bots.",
    no_args_is_help=True,
    # Click's plain help, on a terminal and piped alike: rich is not imported at start (it cost
    # every start), and rich not on a terminal wrapped options into one-word lines and cut values.
    rich_markup_mode=None,
    # The plain help is laid out 100 columns wide, whatever the terminal says: at 80, click cuts
    # the commands' summaries short and wraps options into a narrow column.
    context_settings={"terminal_width": PLAIN_HELP_WIDTH, "max_content_width": PLAIN_HELP_WIDTH},
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _show_version(shown: bool) -> None:
    """``arena --version``: the package's version and the build that runs (``arena.startup``)."""
    if shown:
        from importlib.metadata import version

        from arena.startup import running

        typer.echo(f"arena {version('blackout-arena')}: {running().describe()}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[bool, typer.Option(
        "--version", is_eager=True, callback=_show_version,
        help="Print the version and which build runs (compiled or pure Python), and exit.")] = False,
    pure: Annotated[bool, typer.Option(
        "--pure", help="Run pure Python, not the compiled build (as ARENA_PURE=1 does).")] = False,
) -> None:
    """Run Blackout and Partnership Blackout bot games and tournaments, and rate the bots."""
    # Both are acted on before this runs: --pure by arena.startup, before any module loads.


# Each command is a plain function with typer annotations in its own module.
from arena.cli.analyse import analyse_command  # noqa: E402
from arena.cli.audit import audit_command  # noqa: E402
from arena.cli.bot_command import BotCommandLine  # noqa: E402
from arena.cli.checkbot import check_bot_command  # noqa: E402
from arena.cli.deals import deals_command  # noqa: E402
from arena.cli.languages import languages_command  # noqa: E402
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
app.command("audit", short_help="Collusion: does an entrant score more when another sits at its "
                                 "table? Pairs flagged, with evidence.")(audit_command)
# A summary longer than the plain help's column would be cut with "..." (``arena --help | cat``).
app.command("match", short_help="Is CANDIDATE stronger than BASELINE? Paired games on the same "
                                "cards, Elo, SPRT.")(match_command)
app.command("rules")(rules_command)
app.command("deals")(deals_command)
app.command("languages", short_help="The languages whose programs are here, and whether each "
                                    "works in the sandbox.")(languages_command)
app.command("report", short_help="Write a static web report of finished games: ranking, plots, "
                                 "entrant pages, replays.")(report_command)
app.command("show")(show_command)
app.command("analyse", short_help="Value an entrant's decisions against the reference search: the "
                             "loss of each, marked.")(analyse_command)
app.add_typer(league_app, name="league",
              short_help="A league: submitted bots, games where the ranking is least certain, a "
                         "current table.")


@functools.cache
def command_line() -> Callable[..., Any]:
    """The click command typer builds of ``app``, every command's options read from its
    signature: built once a process (a fork server's children, tests/forkserver.py, share it).
    Called as typer's ``app()`` calls it, less typer's exception hook: its pretty tracebacks are
    off (``pretty_exceptions_enable``) and ``main`` turns every error into one line."""
    return typer.main.get_command(app)


def main() -> None:
    """Entry point: runs the app and turns every error, the command line's included, into one line
    (``_say``) and exit 2 (a bare command group still prints its help)."""
    install_signal_handlers()
    try:
        code = command_line()(standalone_mode=False)
    except NoArgsIsHelpError as error:  # `arena`, `arena league`: the help, as always
        _say(error.format_message())
        sys.exit(2)
    except UsageError as error:  # an unknown option, a value out of its range, a missing argument
        _say(f"arena: error: {usage_text(error)}")
        sys.exit(2)
    except ClickException as error:
        _say(f"arena: error: {error.format_message()}")
        sys.exit(error.exit_code)
    except Abort:
        _say("arena: aborted")
        sys.exit(1)
    except RunInterrupted as stopped:
        _say(f"arena: {stopped}")
        sys.exit(130)
    except (ArenaError, EngineError) as error:
        _say(f"arena: error: {error}{_stderr_of(error)}")
        sys.exit(2)
    except KeyboardInterrupt as interrupt:
        _say(f"arena: {interrupt or 'interrupted'}")
        sys.exit(130)
    except OSError as error:  # the net under every command: a full disk, a path not writable
        _say(f"arena: error: {os_error_text(error)}")
        sys.exit(2)
    except sqlite3.Error as error:  # a league database damaged past what arena.league.database says
        _say(f"arena: error: league database: {error}")
        sys.exit(2)
    sys.exit(code if isinstance(code, int) else 0)  # typer.Exit(N) comes back as N


def _stderr_of(error: Exception) -> str:
    """What a bot that failed to start wrote to stderr, for the line that says so: the person at
    this terminal runs the bot (``arena play``, a run's first start), so it is theirs to see; the
    error's message never holds it (``BotStartError.stderr_tail``)."""
    if not isinstance(error, BotStartError) or not error.stderr_tail:
        return ""
    from arena.values.faults import quoted_stderr

    return quoted_stderr(error.stderr_tail)


def _say(message: str) -> None:
    """Print ``message`` on stderr, made ``printable``: errors quote what they were given, and
    that can be a bot's (a stderr line in a start failure, a build's output, a manifest's text).
    A block of lines stays one (a build's output is), every control in it shown as an escape."""
    print(printable(message, lines=True), file=sys.stderr)


def usage_text(error: UsageError) -> str:
    """``arena table: Invalid value for '--resamples': ... (see arena table --help)``: typer's
    usage error as one line."""
    import re

    message = " ".join(error.format_message().split())
    # typer's click quotes a refused value whole (a 5,000-digit number included): its ends will do.
    message = re.sub(r"\S{200,}", lambda word: f"{word[0][:60]}...{word[0][-20:]} ({len(word[0]):,} "
                                                f"characters)", message)
    if error.ctx is None:
        return message
    path = error.ctx.command_path
    return f"{path}: {message} (see {path} --help)"


def os_error_text(error: OSError) -> str:
    """``PATH: STRERROR`` (the path the call named, when it named one), for one line."""
    text = error.strerror or str(error)
    if error.filename is not None:
        text = f"{error.filename}: {text}"
    if error.filename2 is not None:
        text += f" (to {error.filename2})"
    return text
