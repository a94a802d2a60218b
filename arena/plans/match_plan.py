"""Paired duplicate matches: is CANDIDATE better than BASELINE against a field, on identical cards?

A match is a sequence of units. Unit ``k`` is two games on the same deals (one deal seed), with the
same field bots in the same seats and so the same per-seat bot seeds: one with CANDIDATE in the
tested seat, one with BASELINE there. The tested seat rotates over the seats with ``k``
(``k % players``); in Partnership Blackout the tested program holds both seats of team ``k % 2``
against a field team. With a deals file (``--deals``), unit ``k`` is dealt the file's line ``k``
(from the first again after the last) instead. Whatever luck the cards and the field's seeded
choices bring, both programs get the same, so the difference between the two games is mostly skill.

A unit's score (``arena.ratings.sprt.unit_score``) compares the two games: in each, the tested
entrant's score against the field is the share of field entrants it finished above (ties half,
forfeits placed last as in any result), and the unit scores ``(1 + candidate - baseline) / 2``:
1/2 when both did equally, 1 when the candidate beat every field bot and the baseline none. The
statistics over the units (Elo, interval, LOS, SPRT) are ``arena.ratings.sprt``'s.

Results are appended to ``games.jsonl`` as games end, like a tournament's; ``match.json`` keeps what
the match is (bots, game, seed, test) so that ``resume`` continues only the same match. Units are
counted in order: a decision is taken on the first ``n`` complete units, so a match stops at the
same unit however many jobs play it, and a resumed match reaches the same decision.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import engine
from arena.errors import ConfigError
from arena.names import UNSAFE, command_label, free_name
from arena.plans.deals import DealSuite, load_suite
from arena.settings import SprtBounds
from arena.spec import PlaySettings, game_settings
from arena.values.ids import MATCH_GAMES, MATCH_ROUND, match_game_id
from arena.values.sandbox_settings import Sandbox
from arena.values.work import BotCommand, GameSpec, RunSettings
from engine.seeding import derive_seed

if TYPE_CHECKING:
    from arena.botfiles.resolve import ResolvedBot

CANDIDATE = "candidate"
BASELINE = "baseline"


@dataclass(frozen=True)
class Match:
    """A validated match: the programs, the game, how long and which test."""

    game: str
    players: int
    options: dict[str, Any]
    candidate: BotCommand
    baseline: BotCommand
    field: tuple[BotCommand, ...]
    games: int = 1000
    sprt: SprtBounds | None = None
    seed: int = 1
    play: PlaySettings = PlaySettings()
    """How its games are played (``arena.spec``): the time control, the limits and the fault
    policy; its programs carry their own sandbox."""

    @property
    def teams(self) -> tuple[tuple[int, ...], ...] | None:
        """The game's teams (the tested program then holds every seat of one), or None."""
        return engine.game(self.game).info.teams

    @property
    def units(self) -> int:
        """The most units the match plays (two games each)."""
        return self.games // 2

    field_names: tuple[str, ...] = ()
    """The field bots' names in the results, in the order given (``field_labels``); empty: the
    names matches had before they were named after their bots, ``field1``, ``field2``..."""
    labels: tuple[str, str] = ("", "")
    """What the candidate and the baseline are called (``program_label``); empty: their
    commands. Not part of the match's identity: a new version's manifest may say more."""
    deals: DealSuite | None = None
    """The deals file whose lines the units play in order (``arena.plans.deals``); None: each
    unit's deals drawn from its seed. Part of the identity by content (its SHA-256)."""

    def __post_init__(self) -> None:
        if not self.field_names:
            object.__setattr__(self, "field_names", legacy_field_names(len(self.field)))

    def settings(self, log_dir: str | None = None) -> RunSettings:
        """The workers' settings: every program by name."""
        bots = {CANDIDATE: self.candidate, BASELINE: self.baseline,
                **dict(zip(self.field_names, self.field, strict=True))}
        return self.play.run_settings(bots, log_dir=log_dir)

    def program_keys(self) -> dict[str, str]:
        """What errors call each program, by its name in the results: ``CANDIDATE``,
        ``BASELINE``, ``--field[1]``..."""
        return {CANDIDATE: "CANDIDATE", BASELINE: "BASELINE",
                **{name: f"--field[{index + 1}]" for index, name in enumerate(self.field_names)}}

    def identity(self) -> dict[str, Any]:
        """What makes two runs the same match (``match.json``); ``games`` may grow on resume."""
        return {"game": self.game, "players": self.players, "options": self.options,
                "candidate": _program(self.candidate), "baseline": _program(self.baseline),
                "field": [_program(bot) for bot in self.field], "seed": self.seed,
                "sprt": None if self.sprt is None else vars(self.sprt),
                "time": {**vars(self.play.time), "clock": self.play.time.clock.value},
                "policy": self.play.policy.value,
                # a match.json from before deals files reads None: its units drew their deals
                "deals": None if self.deals is None else self.deals.sha256}

    def description(self) -> dict[str, Any]:
        """``match.json``: the identity, and the field's names in the results (not part of the
        identity: a resumed match keeps the names its first games were recorded under)."""
        return {**self.identity(), "field_names": list(self.field_names),
                "labels": list(self.shown_labels)}

    @property
    def shown_labels(self) -> tuple[str, str]:
        """The candidate's and the baseline's names for people: ``labels``, else their commands."""
        return (self.labels[0] or shlex.join(self.candidate.argv),
                self.labels[1] or shlex.join(self.baseline.argv))


def legacy_field_names(count: int) -> tuple[str, ...]:
    """``field1``, ``field2``...: the field's names in matches recorded before they were named
    after their bots (their ``match.json`` has no ``field_names``)."""
    return tuple(f"field{i + 1}" for i in range(count))


def field_labels(field: Sequence[ResolvedBot]) -> tuple[str, ...]:
    """The field bots' names: a bot directory's manifest name, else its program's file name
    (``bots/c/random_bot`` is ``random_bot``); one program given twice, or two programs of one
    name (as names compare: ``arena.names``), are numbered (``random_bot``, ``random_bot-2``);
    never ``candidate`` or ``baseline``."""
    names: list[str] = []
    for bot in field:
        names.append(free_name(bot.name or _program_name(bot.argv), [CANDIDATE, BASELINE, *names]))
    return tuple(names)


def _program_name(argv: Sequence[str]) -> str:
    """A name usable in file names from a command: its script's or program's stem."""
    stem = Path(command_label(argv)).name
    return UNSAFE.sub("_", stem).lstrip("_.-")[:64] or "field"


def _program(command: BotCommand) -> dict[str, object]:
    """What makes a program the same one: its command and the directory it runs in."""
    return {"argv": list(command.argv), "workdir": command.workdir}


def _resolved(text: str, key: str) -> ResolvedBot:
    """``arena.botfiles.resolve.resolve_bot``, imported when a match is planned: its manifests and
    yaml are not needed by `arena table`, which imports this module through the match runner's
    ``paired_estimate``."""
    from arena.botfiles.resolve import resolve_bot

    return resolve_bot(text, key)


def bot_command(text: str, key: str, sandbox: Sandbox | None = None) -> BotCommand:
    """A bot given on the command line: a command, a bot directory or a manifest file, resolved
    (``arena.botfiles.resolve``); ConfigError naming ``key`` when it cannot run, or when ``sandbox``
    refuses its program or its build's."""
    bot = _resolved(text, key)
    bot.check_sandboxed(sandbox, key, f"{key} build")
    return bot.command(sandbox)


def program_label(text: str, key: str) -> str:
    """What a match calls a program given on the command line: a bot directory's manifest name
    and version (``greedy-rust v2``), else the command as given; both versions of one bot
    directory are told apart by their manifests, where their commands read the same."""
    bot = _resolved(text, key)
    if bot.manifest is None:
        return text
    version = bot.manifest.version
    return bot.manifest.name if version is None else f"{bot.manifest.name} v{version}"


def new_match(candidate: str, baseline: str, field: Sequence[str], *, game: str = engine.DEFAULT_GAME,
              players: int | None = None, options: Mapping[str, object] | None = None,
              games: int = 1000, sprt: SprtBounds | None = None, seed: int = 1,
              play: PlaySettings = PlaySettings(),  # noqa: B008 (frozen)
              sandbox: Sandbox | None = None, deals: str | None = None) -> Match:
    """A validated match from command-line values; ConfigError naming the option at fault.

    ``deals``: a deals file (``arena.plans.deals``) whose lines the units play in order."""
    seats, resolved = game_settings(game, players, options or {})
    partnership = engine.game(game).info.has_teams
    others = 1 if partnership else seats - 1
    allowed = {1, 2} if partnership else {1, others}
    if len(field) not in allowed:
        what = ("1 or 2 (the field team's two seats)" if partnership
                else f"1 (for every other seat) or {others} (one per other seat)")
        raise ConfigError(f"--field: given {len(field)} times; {game} with {seats} players "
                          f"takes {what}")
    if games < 2:
        raise ConfigError(f"--games: {games}: a match needs at least 2 games (one unit)")
    if seed < 0:
        raise ConfigError(f"--seed: must be 0 or more, got {seed}")
    suite = None if deals is None else load_suite(deals, game, seats, resolved, "--deals")
    tested = bot_command(candidate, "CANDIDATE", sandbox), bot_command(baseline, "BASELINE", sandbox)
    fields = [_resolved(bot, f"--field[{i + 1}]") for i, bot in enumerate(field)]
    for index, bot in enumerate(fields):
        bot.check_sandboxed(sandbox, f"--field[{index + 1}]", f"--field[{index + 1}] build")
    return Match(
        game=game, players=seats, options=resolved, candidate=tested[0], baseline=tested[1],
        field=tuple(bot.command(sandbox) for bot in fields), field_names=field_labels(fields),
        labels=(program_label(candidate, "CANDIDATE"), program_label(baseline, "BASELINE")),
        games=games, sprt=sprt, seed=seed, play=play, deals=suite)


# Units -----------------------------------------------------------------------------------------

def tested_entrant(match: Match, unit: int) -> int:
    """The tested program's entrant in unit ``unit``'s results: its seat, or its team."""
    teams = match.teams
    return unit % len(teams) if teams is not None else unit % match.players


def unit_seats(match: Match, unit: int, tested: str) -> tuple[str, ...]:
    """Bots by seat in one game of ``unit``, ``tested`` (a name) in the tested seat or team."""
    entrant = tested_entrant(match, unit)
    names = match.field_names
    teams = match.teams
    if teams is not None:  # the tested team's seats, the field in the others' seats in order
        seats = [""] * match.players
        for seat in teams[entrant]:
            seats[seat] = tested
        others = sorted(seat for index, team in enumerate(teams) if index != entrant for seat in team)
        for position, seat in enumerate(others):
            seats[seat] = names[min(position, len(names) - 1)]
        return tuple(seats)
    field = iter(names * (match.players - 1) if len(names) == 1 else names)
    return tuple(tested if seat == entrant else next(field) for seat in range(match.players))


def unit_games(match: Match, unit: int) -> tuple[GameSpec, GameSpec]:
    """The two games of a unit, candidate first: the same deal seed, seats and field."""
    seed = derive_seed(match.seed, "match", unit)
    preset = None if match.deals is None else match.deals.preset_for(unit)
    return tuple(  # type: ignore[return-value]  # two
        GameSpec(id=match_game_id(unit, tag), game=match.game, options=match.options,
                 seats=unit_seats(match, unit, name), seed=seed, round=MATCH_ROUND, table=unit,
                 rotation=rotation, preset=preset)
        for rotation, (tag, name) in enumerate(zip(MATCH_GAMES, (CANDIDATE, BASELINE), strict=True)))
