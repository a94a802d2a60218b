"""One session of play: what ``arena run``, ``arena match`` and ``league run`` share.

A session claims where the results go (a results directory, or a league's run lock), checks that
a resumed run is the same run (the planner's ``check``), builds the bots (each distinct build
once, in its bot's sandbox, then each program checked to exist), starts each bot once before the
first game (the preflight), plays the games on one executor (local workers or a Dask cluster,
``arena.executors.choose``) and hands each finished game to the planner's ``record`` the moment
it arrives, in this process: the one writer of the run's results. The three commands are planners
over it: a tournament's schedule, a match's units, the league's matchmaker. What is theirs alone
stays theirs: which games, what a game's result changes (a match's test, the league's tables),
and the closing text.

Ctrl-C stops the games in progress, keeps every game already recorded and raises RunInterrupted
with the planner's advice on how to continue. Whatever ends a session, its executor's workers
and their bots are stopped, the results file is flushed and fsync'ed, and its claim is let go.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

from arena.bots.build import run_build
from arena.configfile import FROM_ARENA, FileChecker, check_program
from arena.errors import ConfigError, RunInterrupted
from arena.executors.choose import Executor, executor_for
from arena.runs.results import ResultsWriter, results_dir
from arena.values.work import Finished, GameSpec, RunSettings


@dataclass(frozen=True)
class BotPlace:
    """What errors call one bot of a session: its build (``tournaments/x.yaml: bots[2].build``,
    ``CANDIDATE build``) and its program (``tournaments/x.yaml: bots[2].cmd``, ``CANDIDATE``),
    and where the words of its command are resolved from (its workdir, its manifest's directory)."""

    build: str
    program: str
    base_is: str = FROM_ARENA


@dataclass
class LoopCount:
    """What one batch of play did: games played and their faults, seconds."""

    played: int = 0
    faults: int = 0
    seconds: float = 0.0


class _Program(FileChecker):
    """``check_program``'s ``FileChecker`` for a bot's program: errors headed by its ``BotPlace``."""

    def __init__(self, place: BotPlace) -> None:
        super().__init__(Path())
        self.program = place.program

    def error(self, key: str, problem: str) -> ConfigError:
        return ConfigError(f"{self.program}: {problem}")


def _handed_too_much(bot_dir: str, kept: Mapping[str, Path | None]) -> str | None:
    """Why a sandboxed build may not be given ``bot_dir``, or None. It owns its bot's directory
    while it runs (as the build's own uid, the one place it may write), so that directory must
    not hold what the run keeps for itself (``kept``: what it is called, its path): a command
    that names no file of its own (``java -cp bots/java Main``) has the arena's directory as its
    bot directory. Unconfined, a build runs with the organiser's rights anyway: nothing is
    handed over."""
    mine = Path(bot_dir).resolve()
    for what, path in kept.items():
        if path is not None and mine in (Path(path).resolve(), *Path(path).resolve().parents):
            return (f"its bot directory {str(mine)!r} holds {what}, which a sandboxed build may not own "
                    "(the command names no file of the bot's own): give the bot a directory of "
                    "its own, as `dir:` with a bot.yaml or as `workdir:`")
    return None


class Session(contextlib.AbstractContextManager["Session"]):
    """A claim, an executor and a results file, held until the ``with`` block ends.

    ``advice()`` is what Ctrl-C tells the user (``continue with: arena run FILE --resume``),
    built when it is needed (it may count the games saved).
    """

    def __init__(self, jobs: int, cluster: str | None = None, *,
                 on_workers: Callable[[int], None] | None = None,
                 advice: Callable[[], str] = lambda: "run the same command again to continue") -> None:
        self.jobs = jobs
        self.cluster = cluster
        self.on_workers = on_workers
        self.advice = advice
        self._stack = contextlib.ExitStack()
        self._executor: Executor | None = None
        self._writer: ResultsWriter | None = None
        self.games: Path | None = None
        """The claimed results file (``claim_results``)."""
        self._source: Path | None = None

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> bool | None:
        return self._stack.__exit__(kind, error, trace)

    # Claims -----------------------------------------------------------------------------------

    def claim_results(self, out_dir: Path, *, description: str, content: bytes,
                      resume: bool = False, restart: bool = False, force: bool = False,
                      check: Callable[[Path], None] | None = None,
                      source: Path | None = None) -> Path:
        """Claim ``out_dir`` for the session (``arena.runs.results.results_dir``: one writer, a
        resumed run checked by ``check(saved_description)``); the path of its games.jsonl, to
        which ``append`` writes."""
        self._source = source
        self.games = self._stack.enter_context(results_dir(
            out_dir, description=description, content=content, resume=resume, restart=restart,
            force=force, check=check, source=source))
        return self.games

    def claim(self, held: contextlib.AbstractContextManager[object]) -> None:
        """Hold ``held`` (a league's run lock) for the session."""
        self._stack.enter_context(held)

    def append(self, line: bytes) -> None:
        """Write one finished game's line to the claimed results file (flushed at once)."""
        if self._writer is None:
            assert self.games is not None, "claim_results first"
            self._writer = ResultsWriter(self.games)
            self._stack.callback(self._writer.close)
        self._writer.append(line)

    # Before the games -------------------------------------------------------------------------

    def build(self, settings: RunSettings, places: Mapping[str, BotPlace]) -> None:
        """Run each distinct build of the bots in ``places`` (by name) once, in its bot's
        sandbox, then check each such bot's program exists; ConfigError naming the bot's place
        with the build's output tail when a build fails, and ``: does `build:` create it?``
        when its program is still missing; ConfigError before any build runs when a sandboxed
        bot's directory holds the run's own files (``_handed_too_much``)."""
        built: set[tuple[tuple[str, ...], str | None]] = set()
        kept = {"the directory the arena runs in": Path.cwd(), "the run's results": self.games,
                "the tournament file": self._source}
        for name, place in places.items():
            command = settings.bots[name]
            if command.build is None or command.sandbox is None:
                continue
            workdir = command.workdir or str(Path.cwd())
            if (problem := _handed_too_much(command.bot_dir or workdir, kept)) is not None:
                raise ConfigError(f"{place.build}: {problem}")
        for name, place in places.items():
            command = settings.bots[name]
            if command.build is None:
                continue
            workdir = command.workdir or str(Path.cwd())
            if (command.build, command.workdir) not in built:
                run_build(command.build, workdir, command.bot_dir or workdir, place.build,
                          command.sandbox)
                built.add((command.build, command.workdir))
            check_program(_Program(place), command.argv, workdir, "", base_is=place.base_is,
                          hint=": does `build:` create it?")

    def preflight(self, settings: RunSettings) -> None:
        """Start and stop each bot once, so that a bot that cannot even say hello stops the run
        before any game (BotStartError, one line), instead of faulting in every game."""
        from arena.executors.batch import preflight

        preflight(settings)

    # Play -------------------------------------------------------------------------------------

    @property
    def executor(self) -> Executor:
        """The session's executor, made at first use and kept to the end: local workers keep
        their bots alive from batch to batch."""
        if self._executor is None:
            self._executor = executor_for(self.jobs, self.cluster, self.on_workers)
            self._stack.callback(self._executor.close)
        return self._executor

    def play(self, tasks: Sequence[GameSpec], settings: RunSettings,
             record: Callable[[Finished], bool]) -> LoopCount:
        """Play ``tasks``; ``record(game)`` stores each finished game as it arrives and returns
        True to stop early (a match decided, a league's time up): the games in progress are
        then stopped and not recorded. Ctrl-C: RunInterrupted with ``advice()``."""
        count = LoopCount()
        start = time.monotonic()
        try:
            arrivals = self.executor.play(tasks, settings)
            try:
                for game in arrivals:
                    count.played += 1
                    count.faults += game.faults
                    if record(game):
                        break
            finally:
                arrivals.close()  # stops the games in progress, also after an early stop
        except KeyboardInterrupt:
            raise RunInterrupted(f"interrupted: {self.advice()}") from None
        finally:
            count.seconds = time.monotonic() - start
        return count


__all__ = ["BotPlace", "LoopCount", "Session"]
