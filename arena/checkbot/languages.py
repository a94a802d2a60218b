"""Which languages work here, sandboxed: each language of ``arena.botfiles.languages`` whose
programs are on PATH has its tiny bot built and started in a bubblewrap sandbox, as a league
would, and asked for ``hello`` and one ``act`` (``arena languages``).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from time import perf_counter

from arena.botfiles.languages import LANGUAGES, Language, language_named
from arena.botfiles.manifest import load_manifest
from arena.bots.build import build_bot
from arena.bots.process import BotProcess
from arena.bots.sandbox import bwrap_problem
from arena.errors import ArenaError, ConfigError
from arena.values.faults import BotFaultError
from arena.values.sandbox_settings import Sandbox

START_SECONDS = 30.0
"""How long a tiny bot may take to answer hello (a JVM on a loaded machine: generous)."""
ACT = {"type": "act", "kind": "play", "legal": ["2C", "3C"], "view": {}, "time_ms": 30_000}
"""The one act a tiny bot is asked: its answer must be ``2C``."""


@dataclass(frozen=True)
class LanguageCheck:
    """What ``arena languages`` found of one language: its programs (None: not all on PATH),
    where they are, and whether its tiny bot worked in the sandbox (None: not tried, ``said``
    says why) with what happened in ``said``."""

    language: Language
    programs: tuple[str, ...] | None
    paths: tuple[str, ...]
    works: bool | None
    said: str


def chosen_languages(keys: Sequence[str]) -> tuple[Language, ...]:
    """The languages named by ``keys`` (all when empty); ConfigError naming an unknown one."""
    if not keys:
        return LANGUAGES
    chosen = []
    for key in keys:
        language = language_named(key)
        if language is None:
            known = ", ".join(each.key for each in LANGUAGES)
            raise ConfigError(f"--language: no language {key!r}; the languages: {known}")
        chosen.append(language)
    return tuple(dict.fromkeys(chosen))


def check_languages(languages: Sequence[Language], sandbox: Sandbox | None = None
                    ) -> Iterator[LanguageCheck]:
    """Each of ``languages`` as found here, its tiny bot tried in ``sandbox`` (default: the
    default sandbox) when bubblewrap works, one at a time."""
    problem = bwrap_problem()
    box = sandbox or Sandbox()
    for language in languages:
        programs = language.found()
        if programs is None:
            yield LanguageCheck(language, None, (), None, f"install: {language.install}")
            continue
        paths = tuple(shutil.which(name) or name for name in programs)
        if problem is not None:
            yield LanguageCheck(language, programs, paths, None, f"not tried: {problem}")
            continue
        works, said = try_tiny_bot(language, programs, box)
        yield LanguageCheck(language, programs, paths, works, said)


def write_tiny_bot(language: Language, programs: tuple[str, ...], directory: Path) -> None:
    """The tiny bot of ``language`` with ``programs`` and its ``bot.yaml`` in ``directory``,
    readable by every uid (a root arena's sandbox runs it as one of its own)."""
    directory.mkdir(parents=True, exist_ok=True)
    directory.chmod(0o755)
    for name, text in (*language.files, ("bot.yaml", language.manifest(programs))):
        (directory / name).write_text(text)
        (directory / name).chmod(0o644)


def try_tiny_bot(language: Language, programs: tuple[str, ...], sandbox: Sandbox
                 ) -> tuple[bool, str]:
    """Build and start ``language``'s tiny bot in ``sandbox``, ask it hello and one act:
    whether it answered right, and what happened (timings, or the failure with its output)."""
    directory = Path(tempfile.mkdtemp(prefix=f"arena-{language.key}-"))
    try:
        write_tiny_bot(language, programs, directory)
        manifest = load_manifest(directory)
        box = replace(sandbox, bot_dir=str(directory))
        started = perf_counter()
        try:
            build_bot(manifest, sandbox=box)
        except ConfigError as error:
            return False, f"build failed: {error}"
        built = perf_counter() - started
        bot = BotProcess(f"tiny-{language.key}", manifest.run, cwd=directory, sandbox=box,
                         start_timeout=START_SECONDS)
        try:
            started = perf_counter()
            bot.start()
            hello = perf_counter() - started
            reply = bot.request(ACT, START_SECONDS)
        except (ArenaError, BotFaultError) as error:
            tail = getattr(error, "stderr_tail", "") or getattr(
                getattr(error, "fault", None), "stderr_tail", "")
            return False, f"{error}" + (f"; its stderr: {tail.strip()}" if tail else "")
        finally:
            bot.close()
        if reply.message.get("action") != "2C":
            return False, f"answered an act with {reply.message!r}, not the first legal action"
        build = "" if manifest.build is None else f"built in {_duration(built)}, "
        return True, f"works: {build}answered hello in {_duration(hello)}"
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def _duration(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms" if seconds < 1 else f"{seconds:.1f} s"


def language_lines(check: LanguageCheck) -> list[str]:
    """One language's lines: its name, short name and programs (``C# (Mono) [csharp]: mcs
    /usr/bin/mcs, ...``), then what happened, a failure's further lines indented."""
    where = "not found" if check.programs is None else ", ".join(
        path if os.path.basename(path) == name else f"{name} ({path})"
        for name, path in zip(check.programs, check.paths, strict=True))
    first, *rest = check.said.splitlines() or [""]
    return [f"{check.language.name} [{check.language.key}]: {where}", f"  {first}",
            *(f"    {line}" for line in rest)]
