"""``arena match``: is CANDIDATE stronger than BASELINE? Paired duplicate games, optional SPRT."""

from pathlib import Path
from typing import Annotated

import typer

from arena import spec
from arena.cli.options import option
from arena.errors import ConfigError
from arena.settings import (
    GAME_COUNT,
    JOBS,
    Clock,
    FaultPolicy,
    Limits,
    SandboxMode,
    TimeControl,
    available_cpus,
    check_cluster_address,
)


def match_command(
    candidate: Annotated[str, typer.Argument(
        help="The program under test: a quoted command (\"python3 mybot_v2.py\"), a bot "
             "directory or a manifest file.",
        show_default=False)],
    baseline: Annotated[str, typer.Argument(
        help="The program it is compared with, e.g. \"python3 mybot_v1.py\".",
        show_default=False)],
    field: Annotated[list[str], typer.Option(
        "--field", help="A bot for the other seats (a command, bot directory or manifest); "
                        "repeat it once per other seat (three times for four players) or give "
                        "it once for all of them. "
                        "Partnership Blackout: the field team, once or twice.",
        show_default=False)],
    game: Annotated[str, option(spec.GAME)] = spec.GAME.default,
    players: Annotated[int, option(spec.PLAYERS)] = spec.PLAYERS.default,
    option: Annotated[list[str] | None, option(spec.OPTIONS, "-o")] = None,
    games: Annotated[int, typer.Option(
        help="Most games to play (two per unit); the match stops earlier when --sprt decides.",
        min=2, max=GAME_COUNT.high)] = 1000,
    sprt: Annotated[str | None, typer.Option(
        help="Stop as soon as a sequential test decides: elo0=E0,elo1=E1,alpha=A,beta=B "
             "(defaults elo0=0, elo1=10, alpha=beta=0.05; see docs/match.md).",
        show_default=False)] = None,
    seed: Annotated[int, option(spec.SEED_SETTING)] = spec.SEED_SETTING.default,
    deals: Annotated[Path | None, typer.Option(
        help="A deals file (docs/tournaments.md, Deal suites; arena deals writes one): unit k "
             "plays its line k, from the first again after the last, instead of deals drawn "
             "from --seed. A resumed match refuses a file whose content changed.",
        show_default=False)] = None,
    jobs: Annotated[int | None, typer.Option(
        help="Games played in parallel (default: the number of CPUs).", min=JOBS.low, max=JOBS.high,
        show_default=False)] = None,
    cluster: Annotated[str | None, typer.Option(
        help="Play the games on the Dask cluster whose scheduler is at this address "
             "(e.g. tcp://127.0.0.1:8786; docs/cluster.md) instead of local workers.",
        show_default=False)] = None,
    out: Annotated[Path, typer.Option(help="Results directory.")] = Path("results/match"),
    resume: Annotated[bool, typer.Option(
        help="Continue the match already in --out: its games are kept, not played again.")] = False,
    move_ms: Annotated[int, option(spec.MOVE)] = spec.MOVE.default,
    bank_ms: Annotated[int, option(spec.BANK)] = spec.BANK.default,
    clock: Annotated[Clock | None, option(
        spec.CLOCK, help=f"{spec.CLOCK.help} Default: {spec.CLOCK.default.value}; a resumed "
                         f"match keeps its own.", show_default=False)] = None,
    wall_ms: Annotated[int | None, option(spec.WALL)] = spec.WALL.default,
    start_ms: Annotated[int, option(spec.START)] = spec.START.default,
    memory_mb: Annotated[int, option(spec.MEMORY)] = spec.MEMORY.default,
    quit_grace_ms: Annotated[int, option(spec.QUIT_GRACE)] = spec.QUIT_GRACE.default,
    policy: Annotated[FaultPolicy, option(spec.POLICY)] = spec.POLICY.default,
    sandbox: Annotated[SandboxMode, option(spec.SANDBOX)] = spec.SANDBOX.default,
    interpreter: Annotated[list[str] | None, option(spec.INTERPRETERS)] = None,
    force: Annotated[bool, typer.Option(
        help="Write into --out even if it is a directory the arena did not make (it never "
             "deletes files it did not write).")] = False,
) -> None:
    """Play CANDIDATE against BASELINE in pairs of games on identical cards and rate the difference.

    Each unit is two games on the same deals with the same field bots in the same seats, once
    with CANDIDATE and once with BASELINE in the tested seat, which rotates over the seats. Prints
    games, Elo +- 95% interval, LOS and (with --sprt) the log-likelihood ratio as it goes; results
    go to games.jsonl in --out, readable by `arena table`.

    Example: arena match "python3 bots/python/greedy_bot.py" "python3 bots/python/random_bot.py"
    --field bots/c/random_bot --sprt elo0=0,elo1=30 --games 600
    """
    from arena.botfiles.installations import check_interpreters
    from arena.bots.sandbox import choose_sandbox
    from arena.plans.match_plan import new_match
    from arena.ratings.sprt import parse_sprt
    from arena.referee.command_game import parse_option_pairs
    from arena.runs.match_play import MatchProgress, play_match, summary
    from arena.values.sandbox_settings import Sandbox

    allowed = Sandbox(interpreters=check_interpreters(interpreter or [], "--interpreter"))
    box, note = choose_sandbox(sandbox, "--sandbox", allowed)
    if note is not None:
        typer.echo(f"arena: {note}", err=True)
    match = new_match(candidate, baseline, field, game=game, players=players,
                      options=parse_option_pairs(option or []), games=games,
                      sprt=None if sprt is None else parse_sprt(sprt), seed=seed,
                      play=spec.PlaySettings(
                          TimeControl(start_ms, move_ms, bank_ms, clock or spec.CLOCK.default,
                                      wall_ms),
                          Limits(memory_mb=memory_mb, quit_grace_ms=quit_grace_ms), policy),
                      sandbox=box, deals=None if deals is None else str(deals))
    if cluster is not None:
        if jobs is not None:
            raise ConfigError("--jobs and --cluster contradict each other: --jobs is for local runs")
        cluster = check_cluster_address(cluster)
    progress = MatchProgress()
    try:
        report = play_match(match, out, jobs=jobs or len(available_cpus()), resume=resume,
                            on_unit=progress.update, cluster=cluster, force=force,
                            keep_clock=clock is None)
    finally:
        progress.finish()
    typer.echo(summary(report))
