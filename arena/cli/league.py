"""``arena league``: a league that accepts bot submissions and keeps a live ranking (SQLite)."""

from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer

from arena import spec
from arena.cli.league_config import config_command
from arena.cli.options import format_option
from arena.cli.options import option as setting_option
from arena.errors import ConfigError, RunInterrupted
from arena.formats import AuditFormat, PlainOrJson, TableFormat
from arena.printable import printable
from arena.settings import (
    DELTA,
    GAME_COUNT,
    JOBS,
    LOCK_WAIT,
    MINUTES,
    RESAMPLES,
    SEED,
    SUSPEND_AFTER,
    Clock,
    FaultPolicy,
    Limits,
    NamesShown,
    RatingModel,
    SandboxMode,
    TimeControl,
    check_cluster_address,
)

app = typer.Typer(help="A league: submitted bots, games scheduled where the ranking is least "
                       "certain, a table that is always current (docs/league.md).",
                  no_args_is_help=True, rich_markup_mode=None)

SERVE_EXTRA = ("fastapi", "starlette", "uvicorn", "multipart", "python_multipart")
"""The modules of the serve extra (pyproject's optional dependencies), and theirs."""

League = Annotated[Path, typer.Argument(help="The league's directory.", show_default=False)]


@app.command("init")
def init_command(
    league: League,
    game: Annotated[str, setting_option(spec.GAME)] = spec.GAME.default,
    players: Annotated[int, setting_option(spec.PLAYERS)] = spec.PLAYERS.default,
    option: Annotated[list[str] | None, setting_option(spec.OPTIONS, "-o")] = None,
    sandbox: Annotated[SandboxMode, setting_option(
        spec.SANDBOX,
        help=f"{spec.SANDBOX.help} The league's builds and submission checks run in it too.")] = \
        spec.SANDBOX.default,
    seed: Annotated[int, setting_option(spec.SEED_SETTING)] = spec.SEED_SETTING.default,
    cluster: Annotated[str | None, typer.Option(
        help="Play the league's games on the Dask cluster whose scheduler is at this address "
             "(docs/cluster.md); `league run --cluster` overrides it.", show_default=False)] = None,
    move_ms: Annotated[int, setting_option(spec.MOVE)] = spec.MOVE.default,
    bank_ms: Annotated[int, setting_option(spec.BANK)] = spec.BANK.default,
    start_ms: Annotated[int, setting_option(spec.START)] = spec.START.default,
    clock: Annotated[Clock, setting_option(spec.CLOCK)] = spec.CLOCK.default,
    wall_ms: Annotated[int | None, setting_option(spec.WALL)] = spec.WALL.default,
    memory_mb: Annotated[int, setting_option(spec.MEMORY)] = spec.MEMORY.default,
    cpu_seconds: Annotated[int | None, setting_option(spec.CPU_LIMIT)] = spec.CPU_LIMIT.default,
    file_mb: Annotated[int, setting_option(spec.FILE_SIZE)] = spec.FILE_SIZE.default,
    quit_grace_ms: Annotated[int, setting_option(spec.QUIT_GRACE)] = spec.QUIT_GRACE.default,
    policy: Annotated[FaultPolicy, setting_option(spec.POLICY)] = spec.POLICY.default,
    rating: Annotated[RatingModel, setting_option(spec.RATING)] = spec.RATING.default,
    delta: Annotated[float, typer.Option(
        help="Elo margin under which two neighbours count as a tie: once their difference is "
             "surely inside +-delta, the matchmaker stops spending games on them.",
        min=DELTA.low)] = DELTA.default,
    interpreter: Annotated[list[str] | None, setting_option(spec.INTERPRETERS)] = None,
    build_seconds: Annotated[int, setting_option(spec.BUILD_WALL)] = spec.BUILD_WALL.default,
    build_cpu_seconds: Annotated[int, setting_option(spec.BUILD_CPU)] = spec.BUILD_CPU.default,
    names: Annotated[NamesShown, setting_option(spec.NAMES)] = spec.NAMES.default,
    suspend_after: Annotated[int, typer.Option(
        help="Suspend an entrant that failed to start, timed out or crashed in this many games "
             "in a row (0: never): the matchmaker stops seating it until a new version, or "
             "`league reinstate`.", min=SUSPEND_AFTER.low, max=SUSPEND_AFTER.high)] = \
        SUSPEND_AFTER.default,
) -> None:
    """Create a league in a new directory: its settings, a bots/ directory and league.db."""
    from arena.league.config import LeagueSettings
    from arena.league.store import Store
    from arena.referee.command_game import parse_option_pairs

    play = spec.PlaySettings(
        TimeControl(start_ms, move_ms, bank_ms, clock, wall_ms),
        Limits(memory_mb=memory_mb, cpu_seconds=cpu_seconds, file_mb=file_mb,
               quit_grace_ms=quit_grace_ms),
        policy, sandbox, tuple(interpreter or ()), names)
    settings = LeagueSettings.checked(game, players, parse_option_pairs(option or []), play, seed,
                                      cluster, rating, delta,
                                      {spec.BUILD_WALL.key: build_seconds,
                                       spec.BUILD_CPU.key: build_cpu_seconds},
                                      suspend_after)
    try:
        Store.create(league, settings.stored()).close()
    except OSError as error:
        raise ConfigError(f"{error.filename or league}: cannot create the league: "
                          f"{error.strerror or error}") from None
    typer.echo(f"league created in {league}: {settings.game}, {settings.players} players; "
               f"add bots with: arena league submit {league} BOT_DIR")


app.command("config")(config_command)


@app.command("submit")
def submit_command(
    league: League,
    bot: Annotated[Path, typer.Argument(
        help="A bot directory with a bot.yaml, a NAME.bot.yaml manifest, or a .zip / .tar.gz "
             "archive holding one.", show_default=False)],
    wait: Annotated[float, typer.Option(
        help="Seconds to wait while another submission is storing its bot, then give up.",
        min=LOCK_WAIT.low)] = LOCK_WAIT.default,
    name: Annotated[str | None, typer.Option(
        help="Enter it under this name instead of its manifest's: a variant that plays beside "
             "the current version (its own versions from v1), or a new version of that entrant.",
        show_default=False)] = None,
    owner: Annotated[str | None, typer.Option(
        help="Who entered it (a name): the matchmaker and the final keep one owner's entrants "
             "apart, the tables show it. A participant's name means that participant. A name's "
             "owner never changes; without it, a new name is the organiser's own.",
        show_default=False)] = None,
) -> None:
    """Copy a bot into the league, build and check it: accepted NAME vVERSION, or rejected.

    Exit status 0 when accepted, 1 when rejected (with the reason and the check's report), 2 when
    another submission kept the league busy for --wait seconds, 130 when interrupted (Ctrl-C,
    SIGTERM): the league is then as it was. A new version of a name replaces the old one in the
    pool; the old one's games stay in the history (`league rollback` brings it back).
    """
    from arena.league.submit import submit

    def waiting(pid: int | None) -> None:
        holder = f"pid {pid}" if pid is not None else "another process"
        typer.echo(f"arena: waiting for {holder} (another league submit storing its bot)",
                   err=True)

    submission = submit(league, bot, wait=wait, on_wait=waiting, name=name, named_owner=owner)
    if submission.accepted:
        # The owner, where the entrant has one (the organiser's own are each their own)
        owner = "" if submission.owner is None else \
            f", owner {printable(submission.owner)}" + \
            (" (a participant of the league)" if submission.owner_is_participant else "")
        typer.echo(f"accepted {printable(submission.name or '')} "
                   f"v{printable(submission.version or '')}{owner}")
        return
    # The reason and the check's lines quote the bot (what it sent, its stderr, its build's output)
    typer.echo(f"rejected: {printable(submission.reason, lines=True)}")
    for line in submission.report:
        typer.echo(f"  {printable(line)}")
    raise typer.Exit(1)


@app.command("run")
def run_command(
    league: League,
    games: Annotated[int | None, typer.Option(help="Play this many games, then stop.",
                                              min=GAME_COUNT.low, max=GAME_COUNT.high,
                                              show_default=False)] = None,
    minutes: Annotated[float | None, typer.Option(
        help="Play for this long: when the time is up, the games in progress are stopped (their "
             "sets are finished by the next run).",
        min=float(MINUTES.low), max=float(MINUTES.high),
        show_default=False)] = None,
    jobs: Annotated[int | None, typer.Option(
        help="Games played in parallel (default: the number of CPUs).", min=JOBS.low,
        max=JOBS.high,
        show_default=False)] = None,
    cluster: Annotated[str | None, typer.Option(
        help="Play on the Dask cluster whose scheduler is at this address (default: the league's "
             "cluster setting, else local workers).", show_default=False)] = None,
) -> None:
    """Play duplicate sets chosen by the matchmaker; each game is stored as it ends.

    Newcomers play first, then the neighbours in the table whose order is least certain; nobody
    starves. An entrant that fails to start, times out or crashes in the league's --suspend-after
    games in a row is suspended (said at the end; `league reinstate` lifts it). Ctrl-C (or a
    kill) loses at most the games in progress: run again to continue. Settings changed by
    `league config` meanwhile apply from the next batch of games.
    """
    from arena.league.playing import LeagueRunReport, expected_games, run_league
    from arena.runs.progress import Progress
    from arena.values.work import Finished

    progress = Progress(games or 0)

    def show(game: Finished, report: LeagueRunReport) -> None:
        progress.until(None if games is not None else report.deadline)
        progress.show_leader(report.leader)
        progress.update(game.faults, report.played, expected_games(report, games))

    try:
        report = run_league(league, games=games, minutes=minutes, jobs=jobs,
                            cluster=None if cluster is None else check_cluster_address(cluster),
                            on_game=show)
    except KeyboardInterrupt:  # between batches (in play the session says the same)
        raise RunInterrupted(f"interrupted: every finished game is saved in {league}; "
                             f"arena league run {league} continues") from None
    finally:
        progress.finish()
    typer.echo(f"{report.played} games played in {report.seconds:.1f} s ({report.faults} faults); "
               f"{report.total} games in the league")
    for bot in report.suspended:
        typer.echo(f"suspended {printable(bot.key)}: {printable(bot.suspended or '')} (a new "
                   f"version, or arena league reinstate {league} {printable(bot.name)}, lifts it)")


@app.command("table")
def table_command(
    league: League,
    fmt: Annotated[TableFormat, format_option(TableFormat, "Output format: {}.")] = \
        TableFormat.PLAIN,
    crosstable: Annotated[bool, typer.Option(
        "--crosstable", help="Add the head-to-head matrix (pairwise score %).")] = False,
    resamples: Annotated[int, typer.Option(
        help="Bootstrap resamples for the intervals and LOS (0: none).", min=RESAMPLES.low,
        max=RESAMPLES.high)] = RESAMPLES.default,
    seed: Annotated[int, typer.Option(help="Seed of the bootstrap's resampling.", min=SEED.low,
                                      max=SEED.high)] = 0,
    final: Annotated[bool, typer.Option(
        "--final", help="The final's table (`league final`): its games alone, the versions that "
                        "played, its seed.")] = False,
) -> None:
    """The ratings of the active entrants, from their games together (as arena table rates)."""
    from arena.league.final_table import final_table
    from arena.league.status import league_table

    table = final_table if final else league_table
    typer.echo(table(league, fmt=fmt, resamples=resamples, seed=seed, crosstable=crosstable),
               nl=False)


@app.command("close")
def close_command(
    league: League,
    at: Annotated[str | None, typer.Option(
        help="When submissions close, ISO 8601 (2027-01-31T18:00, local time without a zone; "
             "2027-01-31T18:00+00:00); default: now. Given again, it replaces the time before.",
        show_default=False)] = None,
) -> None:
    """Close the league for submissions, now or at --at TIME.

    Later `league submit`s and served uploads are refused (an upload received before the close
    is still built and accepted); `league final` then ranks the field."""
    import time

    from arena.league.deadline import parse_time, shown
    from arena.league.store import Store

    when = time.time() if at is None else parse_time(at)
    store = Store.open(league)
    try:
        before = store.deadline.closes()
        store.deadline.close(when)
    finally:
        store.close()
    said = "closed for submissions" if when <= time.time() else "closes for submissions at"
    was = "" if before is None else f" (was {shown(before)})"
    typer.echo(f"{league}: {said} {shown(when)}{was}")


@app.command("final")
def final_command(
    league: League,
    games: Annotated[int | None, typer.Option(
        help="The final's games, at least: whole duplicate sets in which every entrant plays "
             "every seat equally often.", min=GAME_COUNT.low, max=GAME_COUNT.high,
        show_default=False)] = None,
    seed: Annotated[int | None, typer.Option(
        help="The final's deal seed (default: a random one, printed and stored).", min=SEED.low,
        max=SEED.high, show_default=False)] = None,
    resume: Annotated[bool, typer.Option(
        "--resume", help="Continue the final after Ctrl-C: the games missing from its plan.")] = \
        False,
    jobs: Annotated[int | None, typer.Option(
        help="Games played in parallel (default: the number of CPUs).", min=JOBS.low,
        max=JOBS.high, show_default=False)] = None,
    cluster: Annotated[str | None, typer.Option(
        help="Play on the Dask cluster whose scheduler is at this address (default: the league's "
             "cluster setting, else local workers).", show_default=False)] = None,
) -> None:
    """Play a closed league's final: its active versions on fresh duplicate deals.

    Its games are stored apart from the ladder's (`league table --final` rates them); the same
    seed gives the same deals and tables. Ctrl-C keeps every finished game: --resume continues.
    """
    from arena.league.final import FinalReport, play_final
    from arena.runs.progress import Progress
    from arena.values.work import Finished

    progress = Progress(0)

    def begin(report: FinalReport) -> None:
        typer.echo(f"final of {league}: {report.scheduled} games, deal seed {report.seed}"
                   f"{f' ({report.stored} stored already)' if report.stored else ''}", err=True)
        progress.total, progress.done, progress.already = (report.scheduled, report.stored,
                                                           report.stored)

    def show(game: Finished, report: FinalReport) -> None:
        progress.update(game.faults, report.stored, report.scheduled)

    try:
        report = play_final(league, games=games, seed=seed, resume=resume, jobs=jobs,
                            cluster=None if cluster is None else check_cluster_address(cluster),
                            on_start=begin, on_game=show)
    except KeyboardInterrupt:  # outside play (in play the session says the same)
        raise RunInterrupted(f"interrupted: every finished game of the final is saved in {league}; "
                             f"arena league final {league} --resume continues") from None
    finally:
        progress.finish()
    typer.echo(f"{report.played} games of the final played in {report.seconds:.1f} s "
               f"({report.faults} faults); {report.stored} of {report.scheduled} stored "
               f"(deal seed {report.seed}); arena league table {league} --final")


@app.command("audit")
def audit_command(
    league: League,
    fmt: Annotated[AuditFormat, format_option(AuditFormat, "Output format: {}.")] = \
        AuditFormat.PLAIN,
    resamples: Annotated[int, typer.Option(
        help="Bootstrap resamples of whole duplicate sets, for the intervals and p-values.",
        min=50, max=100_000)] = 200,
    seed: Annotated[int, typer.Option(help="Seed of the bootstrap's resampling.", min=SEED.low,
                                      max=SEED.high)] = 0,
) -> None:
    """The collusion audit: who scores more beside whose bot, in every stored game.

    As arena audit does on a results directory (docs/audit.md): flagged pairs first, with the
    evidence."""
    from arena.league.status import league_audit

    typer.echo(league_audit(league, fmt=fmt, resamples=resamples, seed=seed), nl=False)


@app.command("status")
def status_command(
    league: League,
    fmt: Annotated[PlainOrJson, format_option(
        PlainOrJson, "Output format: {} (json: the entrants' versions and states, suspensions "
                     "with their reasons).")] = PlainOrJson.PLAIN,
) -> None:
    """Entrants and versions, games, faults, suspensions, submissions (with their reasons)."""
    from arena.league.status import league_status

    typer.echo(league_status(league, fmt), nl=False)


@app.command("retire")
def retire_command(
    league: League,
    name: Annotated[str, typer.Argument(help="The entrant to take out of the pool.",
                                        show_default=False)],
) -> None:
    """Take an entrant out of the pool; its games stay in the history (and the export)."""
    from arena.league.store import Store

    store = Store.open(league)
    try:
        bot = store.entrants.retire(name)
    finally:
        store.close()
    typer.echo(f"retired {printable(bot.name)} v{printable(bot.version)}")


@app.command("reinstate")
def reinstate_command(
    league: League,
    name: Annotated[str, typer.Argument(help="The suspended entrant.", show_default=False)],
) -> None:
    """Lift the suspension of an entrant's active version: the matchmaker seats it again.

    An entrant is suspended after failing to start, timing out or crashing in several games in a
    row (`league init --suspend-after`); `league status` says why. Its games stay; a new version
    of it is never suspended to begin with.
    """
    from arena.league.store import Store

    store = Store.open(league)
    try:
        bot = store.entrants.reinstate(name)
    finally:
        store.close()
    typer.echo(f"reinstated {printable(bot.name)} v{printable(bot.version)}: the matchmaker "
               f"seats it again")


@app.command("rollback")
def rollback_command(
    league: League,
    name: Annotated[str, typer.Argument(help="The entrant.", show_default=False)],
    version: Annotated[str, typer.Argument(
        help="The earlier version to make active again (as league status lists them: 2 or v2).",
        show_default=False)],
) -> None:
    """Make an earlier version of an entrant its active one again (or a retired one's back).

    The version that was active is replaced, as a new submission would replace it; every game
    stays in the history, and the table rates the active versions' games together.
    """
    from arena.league.store import Store

    store = Store.open(league)
    try:
        made, replaced = store.entrants.activate(name, version)
    finally:
        store.close()
    was = "" if replaced is None else f" (v{printable(replaced.version)} replaced)"
    typer.echo(f"active: {printable(made.name)} v{printable(made.version)}{was}")


@app.command("export")
def export_command(
    league: League,
    out: Annotated[Path | None, typer.Option(
        help="The file to write (default: LEAGUE/export/games.jsonl). Never a path inside the "
             "league but its export/ folder.", show_default=False)] = None,
    force: Annotated[bool, typer.Option(
        "--force", help="Replace --out when it exists (a file the league did not write).")] = False,
    with_stderr: Annotated[bool, typer.Option(
        "--with-stderr", help="Keep each fault's stderr_tail (what the bots wrote to stderr, "
                              "their owners' alone): for your own copy, not one to publish.")] = False,
) -> None:
    """Write every game, old versions' too, as a tournament's games.jsonl (for arena table).

    The export is what anyone may see of the games: the bots' stderr is left out of every fault
    unless --with-stderr.
    """
    from arena.league.status import export_games
    from arena.records.reader import EXPORT_DIR, RESULTS_FILE

    path = out if out is not None else league / EXPORT_DIR / RESULTS_FILE
    try:
        count = export_games(league, path, force=force, with_stderr=with_stderr)
    except OSError as error:  # a full disk is often seen only at close, where no file is named
        raise ConfigError(f"--out: {path}: cannot write the export: "
                          f"{error.strerror or error}") from None
    typer.echo(f"{count} games written to {path}")


@app.command("invite", short_help="Make NAME a participant of the served league and print their "
                                  "token once.")
def invite_command(
    league: League,
    name: Annotated[str, typer.Argument(help="The participant's name.", show_default=False)],
    fmt: Annotated[PlainOrJson, format_option(PlainOrJson, "Output format: {}.")] = \
        PlainOrJson.PLAIN,
) -> None:
    """Make NAME a participant of the league served by `league serve`, and print their token once.

    Only the token's hash is kept: a lost token is replaced by `league revoke` and a new invite.
    """
    from arena.league.store import Store

    store = Store.open(league)
    try:
        participant, token = store.accounts.invite(name)
    finally:
        store.close()
    typer.echo(INVITE_WRITERS[fmt](participant.name, token))


def _invite_text(participant: str, token: str) -> str:
    return (f"participant {participant}: token {token}\n"
            "give it to them privately; it is shown only now (the league keeps its hash)")


def _invite_json(participant: str, token: str) -> str:
    import orjson

    return orjson.dumps({"participant": participant, "token": token}).decode()


INVITE_WRITERS: dict[PlainOrJson, Callable[[str, str], str]] = {
    PlainOrJson.PLAIN: _invite_text,
    PlainOrJson.JSON: _invite_json,
}
"""One writer for each format of ``league invite``: the participant and its token."""


@app.command("revoke")
def revoke_command(
    league: League,
    name: Annotated[str, typer.Argument(help="The participant.", show_default=False)],
) -> None:
    """Take a participant's token and sessions away at once; their bots stay in the league."""
    from arena.league.store import Store

    store = Store.open(league)
    try:
        participant = store.accounts.revoke(name)
    finally:
        store.close()
    typer.echo(f"revoked {participant.name}: their token and sessions no longer work")


@app.command("serve", short_help="Serve the league over HTTP (pages, uploads, a JSON API) and "
                                 "keep playing it.")
def serve_command(
    league: League,
    host: Annotated[str, typer.Option(help="The address to listen on (a public one needs a "
                                           "sandboxed league).")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="The port to listen on (0: any free one).", min=0,
                                      max=65535)] = 8000,
    jobs: Annotated[int | None, typer.Option(
        help="Games played in parallel (default: the number of CPUs).", min=JOBS.low,
        max=JOBS.high, show_default=False)] = None,
    cluster: Annotated[str | None, typer.Option(
        help="Play on the Dask cluster whose scheduler is at this address, as league run.",
        show_default=False)] = None,
    no_play: Annotated[bool, typer.Option(
        "--no-play", help="Serve only: a league run elsewhere plays the games.")] = False,
    build_jobs: Annotated[int, typer.Option(
        help="Uploaded bots built and checked at once.", min=1, max=64)] = 1,
    max_upload_mb: Annotated[int, typer.Option(
        help="The largest upload accepted, in MB (larger: 413).", min=1, max=1024)] = 16,
    max_stored_mb: Annotated[int, typer.Option(
        help="What each participant's stored bot versions and uploads waiting may take on disk, "
             "in MB (an upload past it: 413; 0: no quota).", min=0,
        max=1_048_576)] = 256,
    unsafe_no_sandbox: Annotated[bool, typer.Option(
        "--unsafe-no-sandbox", help="Serve a league without a sandbox on a public address: "
        "every participant's bot then runs as your user.")] = False,
    forwarded_allow_ips: Annotated[str | None, typer.Option(
        help="The reverse proxy's addresses (comma-separated; 127.0.0.1 for one on this "
             "machine): X-Forwarded-For and -Proto are believed from them alone.",
        show_default="none")] = None,
) -> None:
    """Serve the league over HTTP (table, entrants, games, replays, uploads; a JSON API) and keep
    playing it (docs/serve.md). The first line printed is the address; Ctrl-C stops it."""
    import os

    # One BLAS thread: the server fits its table in a thread of low priority, and BLAS's own
    # threads (started as numpy loads) would not share it, taking CPU from the games.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    try:
        from arena.serve.connections import trusted_proxies
        from arena.serve.server import ServeOptions, serve
    except ModuleNotFoundError as error:
        if error.name not in SERVE_EXTRA:
            raise
        raise ConfigError(f"league serve needs the serve extra ({error.name} is missing): "
                          f"pip install 'blackout-arena[serve]'") from None
    serve(ServeOptions(league=league, host=host, port=port, jobs=jobs,
                       cluster=None if cluster is None else check_cluster_address(cluster),
                       play=not no_play, build_jobs=build_jobs,
                       max_upload_bytes=max_upload_mb * 1024 * 1024,
                       max_stored_bytes=max_stored_mb * 1024 * 1024 or None,
                       unsafe_no_sandbox=unsafe_no_sandbox,
                       forwarded_allow_ips=None if forwarded_allow_ips is None
                       else trusted_proxies(forwarded_allow_ips)))
