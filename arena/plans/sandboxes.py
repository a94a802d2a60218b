"""Which sandbox each bot of a tournament runs in, decided once before any game or build."""

from __future__ import annotations

from dataclasses import dataclass, replace

from arena.bots.sandbox import Sandbox, choose_sandbox
from arena.plans.tournament import Tournament


@dataclass(frozen=True)
class TournamentSandboxes:
    """Each bot's sandbox by name (None: unconfined) and the warnings to print first."""

    by_bot: dict[str, Sandbox | None]
    notes: tuple[str, ...]

    def describe(self) -> str:
        """Whether the bots ran sandboxed, for a run's closing lines: ``sandbox: bwrap, every
        bot``, ``sandbox: none ...`` or which bots ran in which."""
        boxed = [name for name, box in self.by_bot.items() if box is not None]
        bare = [name for name, box in self.by_bot.items() if box is None]
        if not bare:
            return "sandbox: bwrap, every bot (docs/sandbox.md)"
        if not boxed:
            return "sandbox: none; the bots ran as your user, unconfined"
        return f"sandbox: bwrap for {', '.join(boxed)}; none for {', '.join(bare)}"


def tournament_sandboxes(tournament: Tournament) -> TournamentSandboxes:
    """Resolve every bot's ``sandbox`` setting (its own, else the tournament's).

    ConfigError naming the file and key when ``bwrap`` is asked for where it cannot run; a note
    (once per problem) when ``auto`` falls back to no sandbox.
    """
    by_bot: dict[str, Sandbox | None] = {}
    notes: list[str] = []
    keys = [f"bots[{i}]" for i in range(len(tournament.bots))]
    keys += [f"challengers[{i}]" for i in range(len(tournament.challengers))]
    for entry, bot in zip(keys, tournament.programs, strict=True):
        key = "sandbox" if bot.sandbox is None else f"{entry}.sandbox"
        sandbox, note = choose_sandbox(tournament.sandbox_of(bot), f"{tournament.path}: {key}")
        if sandbox is not None:  # what the sandbox shows: the bot's directory, resolved once
            sandbox = replace(sandbox, bot_dir=bot.resolved.bot_dir)
        by_bot[bot.name] = sandbox
        if note is not None:
            notes.append(f"{tournament.path}: {note}")
    return TournamentSandboxes(by_bot, tuple(dict.fromkeys(notes)))
