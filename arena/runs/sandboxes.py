"""Which sandbox each bot of a tournament runs in, decided once before any game or build."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from arena.bots.sandbox import choose_sandbox
from arena.plans.tournament import Tournament
from arena.values.sandbox_settings import Sandbox


@dataclass(frozen=True)
class TournamentSandboxes:
    """Each bot's sandbox by name (None: unconfined) and the warnings to print first."""

    by_bot: dict[str, Sandbox | None]
    notes: tuple[str, ...]

    def describe(self) -> str:
        """Whether the bots ran sandboxed, for a run's closing lines (``sandbox_line``)."""
        return sandbox_line(self.by_bot)


def sandbox_line(by_bot: Mapping[str, Sandbox | None]) -> str:
    """Whether the bots (by name: their sandbox, None for none) ran sandboxed, for the closing
    lines of ``run``, ``match`` and ``play`` alike: ``sandbox: bwrap, every bot``, ``sandbox:
    none ...`` or which bots ran in which."""
    boxed = [name for name, box in by_bot.items() if box is not None]
    bare = [name for name, box in by_bot.items() if box is None]
    if not bare:
        return "sandbox: bwrap, every bot (docs/sandbox.md)"
    if not boxed:
        return "sandbox: none; the bots ran as your user, unconfined"
    return f"sandbox: bwrap for {', '.join(boxed)}; none for {', '.join(bare)}"


def tournament_sandboxes(tournament: Tournament) -> TournamentSandboxes:
    """Resolve every bot's ``sandbox`` setting (its own, else the tournament's), each showing the
    file's ``sandbox_interpreters`` besides the arena's own.

    ConfigError naming the file and key when ``bwrap`` is asked for where it cannot run, or when
    a sandbox refuses a bot's program or its build's; a note (once per problem) when ``auto``
    falls back to no sandbox.
    """
    by_bot: dict[str, Sandbox | None] = {}
    notes: list[str] = []
    keys = [f"bots[{i}]" for i in range(len(tournament.bots))]
    keys += [f"challengers[{i}]" for i in range(len(tournament.challengers))]
    allowed = Sandbox(interpreters=tournament.play.interpreters)
    for entry, bot in zip(keys, tournament.programs, strict=True):
        key = "sandbox" if bot.sandbox is None else f"{entry}.sandbox"
        sandbox, note = choose_sandbox(tournament.sandbox_of(bot), f"{tournament.path}: {key}",
                                       allowed)
        if sandbox is not None:  # what the sandbox shows: the bot's directory, resolved once
            sandbox = replace(sandbox, bot_dir=bot.resolved.bot_dir)
            where = f"{tournament.path}: {entry}"
            dir_entry = bot.resolved.manifest is not None
            bot.resolved.check_sandboxed(sandbox, f"{where}.{'dir' if dir_entry else 'cmd'}",
                                         f"{where}.{'dir' if dir_entry else 'build'}")
        by_bot[bot.name] = sandbox
        if note is not None:
            notes.append(f"{tournament.path}: {note}")
    return TournamentSandboxes(by_bot, tuple(dict.fromkeys(notes)))
