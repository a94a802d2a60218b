"""A tournament's builds, run before its games: each distinct build command once
(``arena.bots.build``, the one build), in its bot's sandbox, then each program checked to exist."""

from __future__ import annotations

from arena.bots.build import run_build
from arena.bots.manifest import MANIFEST_DIRECTORY
from arena.bots.sandbox import Sandbox
from arena.configfile import Where, check_program
from arena.plans.tournament import Tournament


def build_bots(tournament: Tournament, sandboxes: dict[str, Sandbox | None] | None = None) -> None:
    """Run each distinct build command once (``arena.bots.build``); ConfigError with the output's
    tail if one fails. A bot with a sandbox in ``sandboxes`` (by name) builds in it."""
    built: set[tuple[tuple[str, ...], str]] = set()
    keys = [f"bots[{i}]" for i in range(len(tournament.bots))]
    keys += [f"challengers[{i}]" for i in range(len(tournament.challengers))]
    for key, bot in zip(keys, tournament.programs, strict=True):
        if bot.build is None:
            continue
        if (bot.build, bot.workdir) not in built:
            run_build(bot.build, bot.workdir, bot.resolved.bot_dir, f"{tournament.path}: {key}.build",
                      (sandboxes or {}).get(bot.name))
            built.add((bot.build, bot.workdir))
        check_program(Where(tournament.path), bot.argv, bot.workdir, f"{key}.cmd",
                      base_is="its workdir" if bot.resolved.manifest is None else MANIFEST_DIRECTORY,
                      hint=": does `build:` create it?")
