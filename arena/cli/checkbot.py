"""``arena check-bot``: take a bot through the protocol step by step, one PASS/FAIL line per step."""

import shlex
from dataclasses import replace
from time import perf_counter
from typing import TYPE_CHECKING, Annotated

import typer

from arena import spec
from arena.cli.options import option
from arena.printable import printable
from arena.settings import (
    Clock,
    Limits,
    SandboxMode,
    TimeControl,
)

if TYPE_CHECKING:
    from arena.botfiles.manifest import Manifest
    from arena.checkbot.steps import StderrWritten, StepResult
    from arena.values.sandbox_settings import Sandbox


def check_bot_command(
    bot_command: Annotated[list[str] | None, typer.Argument(
        metavar="BOT_CMD",
        help="The bot's command: one quoted string (\"python3 my_bot.py\") or several words "
             "(python3 my_bot.py). Put -- before it when it has options of its own "
             "(-- python3 -u my_bot.py --depth 3). Or a bot directory with a bot.yaml "
             "(or a NAME.bot.yaml manifest file): it is built, then run from its directory.",
        show_default=False)] = None,
    game: Annotated[list[str] | None, typer.Option(
        "--game", "-g", help=f"Check only this game. {spec.GAME.help} Repeatable; default: "
                             f"every game.", show_default=False)] = None,
    players: Annotated[int, option(spec.PLAYERS)] = spec.PLAYERS.default,
    option: Annotated[list[str] | None, option(
        spec.OPTIONS, "-o", help=f"{spec.OPTIONS.help} Each game is checked short (a few deals: "
                                 f"blackout deals=3) unless an option says otherwise.")] = None,
    # each game adds 1 to the seed: the last must still be a 64-bit seed
    seed: Annotated[int, option(spec.SEED_SETTING, help=f"{spec.SEED_SETTING.help} Each game "
                                                        f"of the check adds 1.",
                                max=spec.SEED_SETTING.range.high - 10)] = spec.SEED_SETTING.default,
    move_ms: Annotated[int, option(spec.MOVE)] = spec.MOVE.default,
    bank_ms: Annotated[int, option(spec.BANK, help=f"{spec.BANK.help} Not in the time step.")] = \
        spec.BANK.default,
    clock: Annotated[Clock, option(spec.CLOCK)] = spec.CLOCK.default,
    wall_ms: Annotated[int | None, option(spec.WALL)] = spec.WALL.default,
    start_ms: Annotated[int, option(spec.START)] = spec.START.default,
    memory_mb: Annotated[int, option(spec.MEMORY)] = spec.MEMORY.default,
    quit_grace_ms: Annotated[int, option(spec.QUIT_GRACE)] = spec.QUIT_GRACE.default,
    sandbox: Annotated[SandboxMode, option(spec.SANDBOX)] = spec.SANDBOX.default,
    interpreter: Annotated[list[str] | None, option(spec.INTERPRETERS)] = None,
    sandbox_report: Annotated[bool, typer.Option(
        help="Print what the bot and its build would see inside the sandbox (the allowed "
             "installations, files, network, processes) and exit without checking it; exit "
             "status 1 when the sandbox would refuse its program.")] = False,
) -> None:
    """Take a bot through the protocol step by step: PASS or FAIL per step, with the reason.

    Exit status 0 only when every step passes, 1 when one fails, 2 for bad input.

    \b
    Steps (docs/protocol.md, "Checking a bot with arena check-bot"):
    1 start and hello: answers hello within --start-ms.
    2 play GAME: 4 copies of the bot (or --players) play a small game
      of each game (or of --game, with any --option) through the real
      referee: no faults, and every kind of decision (bid, call, play)
      answered legally.
    3 second game in the same processes: a process plays on after
      game_end.
    4 unknown message types and fields: ignored; answers stay right.
    5 time limit and restart: an act with time_ms 1 is answered in
      time or recorded as a timeout; the process is then restarted
      and plays a game with no bank, each answer within --move-ms.
    6 quit: each process exits by itself within --quit-grace-ms
      (how long it took is reported).
    Then how much the bot wrote to stderr, with its last lines.

    \b
    The command is one quoted string or several words; put -- before
    it when it has options of its own:
      arena check-bot python3 bots/python/random_bot.py
      arena check-bot bots/js          (a directory with a bot.yaml)
      arena check-bot "node bots/js/random_bot.js" --game blackout
      arena check-bot -g blackout --players 3 -o deals=5 -o hook=true bots/js
      arena check-bot --move-ms 200 -- python3 -u my_bot.py --depth 3
      arena check-bot --sandbox bwrap python3 my_bot.py
      arena check-bot --sandbox bwrap --interpreter /opt/pypy3 -- /opt/pypy3/bin/pypy3 my_bot.py
      arena check-bot --sandbox-report python3 my_bot.py
    """
    from arena.botfiles.installations import check_interpreters
    from arena.botfiles.manifest import is_bot_target
    from arena.botfiles.resolve import resolve_manifest
    from arena.bots.sandbox import bwrap_problem, choose_sandbox, visibility_report
    from arena.checkbot.steps import bot_argv, check_bot
    from arena.checkbot.tables import checked_tables
    from arena.referee.command_game import parse_option_pairs
    from arena.values.sandbox_settings import Sandbox

    options = parse_option_pairs(option or [])
    words = bot_command or []
    bot = resolve_manifest(words[0]) if len(words) == 1 and is_bot_target(words[0]) else None
    manifest = None if bot is None else bot.manifest
    argv = bot_argv(words) if bot is None else list(bot.argv)
    workdir = None if bot is None else bot.workdir
    allowed = Sandbox(interpreters=check_interpreters(interpreter or [], "--interpreter"))
    if sandbox_report:
        problem = bwrap_problem()
        if problem is not None:
            typer.echo(f"note: {problem}")
        report = visibility_report(argv, workdir, allowed, bot_dir=workdir,
                                   build=None if manifest is None else manifest.build)
        for line in report.lines:
            typer.echo(printable(line))  # it names the paths in the bot's manifest
        if report.refused:
            raise typer.Exit(1)
        return
    box, note = choose_sandbox(sandbox, "--sandbox", allowed)
    if note is not None:
        typer.echo(note)
    if box is not None and workdir is not None:  # the manifest's directory is the bot's
        box = replace(box, bot_dir=workdir)
    if manifest is not None:
        game = game or list(manifest.games) or None
    checked_tables(game, players, options)  # a bad --option is bad input: before the build
    if manifest is not None:
        _build(manifest, box)
    results = check_bot(argv, games=game, seed=seed,
                        time_control=TimeControl(start_ms, move_ms, bank_ms, clock, wall_ms),
                        limits=Limits(memory_mb=memory_mb, quit_grace_ms=quit_grace_ms),
                        on_step=_print_step, workdir=workdir, sandbox=box, on_note=typer.echo,
                        players=players, options=options, on_stderr=_print_stderr)
    passed = sum(result.passed for result in results)
    typer.echo(f"{passed} of {len(results)} steps passed")
    if passed < len(results):
        raise typer.Exit(1)


def _build(manifest: "Manifest", box: "Sandbox | None") -> None:
    """Build the bot as a league would, saying how long it took; a failed build is the check's
    first failure (its output's tail shown), exit status 1: the bot, not the input, is at fault."""
    from arena.bots.build import build_bot
    from arena.checkbot.steps import StepResult
    from arena.errors import ConfigError

    if manifest.build is None:
        build_bot(manifest, sandbox=box)  # only checks that the program is there
        return
    command = printable(shlex.join(manifest.build))
    started = perf_counter()
    try:
        build_bot(manifest, sandbox=box)
    except ConfigError as error:
        _print_step(StepResult("build", False, f"{command}: {error}", perf_counter() - started))
        typer.echo("the build failed: no step was run")
        raise typer.Exit(1) from None
    typer.echo(f"built ({_duration(perf_counter() - started)}): {command}")


def _print_step(result: "StepResult") -> None:
    """``PASS  name (312 ms): detail``, continuation lines of the detail indented, then the end of
    the bot's stderr behind a failure (the author's own, from the step's ``stderr``); all made
    ``printable`` (they quote the bot: its hello, what it sent, its stderr)."""
    from arena.checkbot.words import stderr_lines

    timing = "" if result.skipped else f" ({_duration(result.seconds)})"
    first, *rest = printable(result.detail, lines=True).splitlines() or [""]
    typer.echo(f"{result.status}  {result.name}{timing}: {first}")
    for line in [*rest, *(printable(said) for said in stderr_lines(result.stderr))]:
        typer.echo(f"      {line}")


def _print_stderr(written: "StderrWritten") -> None:
    """How much the bot wrote to stderr over the check, and its last lines (``printable``: the
    bot's own text), so that a bot logging errors on every move does not pass unnoticed."""
    from arena.checkbot.words import stderr_summary

    for line in stderr_summary(written.size, written.lines, written.processes, written.tail):
        typer.echo(printable(line))


def _duration(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms" if seconds < 10 else f"{seconds:.1f} s"
