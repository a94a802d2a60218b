"""``arena play``: one game between bot commands, with a deal-by-deal report."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import orjson
import typer

from arena.bots.sandbox import SANDBOX_HELP, choose_sandbox
from arena.game.play import parse_option_pairs, play_one
from arena.game.transcript import game_report
from arena.settings import FaultPolicy, SandboxMode, TimeControl


def play_command(
    game: Annotated[str, typer.Argument(help="blackout or partnership-blackout.")],
    bots: Annotated[list[str], typer.Argument(
        help="One command per seat, each quoted, e.g. \"python3 bots/python/random_bot.py\". "
             "Partnership Blackout takes 4, or 2 (each bot then partners a copy of itself).",
        show_default=False)],
    seed: Annotated[int, typer.Option(help="Seed of the deals (and of the bots' own seeds).")] = 1,
    option: Annotated[list[str] | None, typer.Option(
        "--option", "-o", help="A game option as name=value, e.g. -o hook=true; repeatable.")] = None,
    log: Annotated[Path | None, typer.Option(
        help="Write the full game record (with faults) as JSON to this file.")] = None,
    move_ms: Annotated[int, typer.Option(help="Each decision's time allowance, ms.")] = 1000,
    bank_ms: Annotated[int, typer.Option(help="Extra time per game a decision may draw on, ms.")] = 10000,
    start_ms: Annotated[int, typer.Option(help="Time from start to the hello reply, ms.")] = 10000,
    policy: Annotated[FaultPolicy, typer.Option(
        help="What a fault costs: forfeit (placed last) or substitute (result stands).")] =
        FaultPolicy.FORFEIT,
    stderr_dir: Annotated[Path | None, typer.Option(
        help="Save each bot's stderr to a file in this directory.")] = None,
    sandbox: Annotated[SandboxMode, typer.Option(help=SANDBOX_HELP)] = SandboxMode.NONE,
) -> None:
    """Play one game between bot programs and print it deal by deal.

    Example: arena play blackout "python3 bots/python/random_bot.py" "node bots/js/random_bot.js"
    bots/c/random_bot
    """
    box, note = choose_sandbox(sandbox, "--sandbox")
    if note is not None:
        typer.echo(note, err=True)
    if stderr_dir is not None:
        stderr_dir.mkdir(parents=True, exist_ok=True)
    record = play_one(game, bots, seed=seed, options=parse_option_pairs(option or []),
                      time_control=TimeControl(start_ms, move_ms, bank_ms), policy=policy,
                      log_dir=stderr_dir, sandbox=box)
    typer.echo(game_report(record))
    if log is not None:
        log.write_bytes(orjson.dumps(record, option=orjson.OPT_INDENT_2))
        typer.echo(f"\nrecord written to {log}")
