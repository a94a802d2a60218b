"""A league's settings, given at ``league init`` and kept in its database; those that may change
during its life (``CHANGEABLE``: the time control, the limits, the installations its sandbox
shows, the build limits) change with ``league config`` (``LeagueSettings.changed``), checked as
``league init`` checks them; the game, its players and options never do (``FIXED``)."""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import engine
from arena.botfiles.installations import check_interpreters
from arena.bots.sandbox import choose_sandbox
from arena.errors import ConfigError
from arena.settings import (
    DEFAULT_BUILD_LIMITS,
    DEFAULT_NAMES,
    DEFAULT_RATING,
    DELTA,
    SUSPEND_AFTER,
    BuildLimits,
    Clock,
    FaultPolicy,
    Limits,
    NamesShown,
    RatingModel,
    SandboxMode,
    TimeControl,
    check_cluster_address,
    check_rating,
    sandbox_mode,
)
from arena.spec import (
    BUILD_SETTINGS,
    GAME,
    INTERPRETERS,
    LIMIT_SETTINGS,
    OPTIONS,
    PLAYERS,
    TIME_SETTINGS,
    PlaySettings,
    Setting,
    build_limits,
    game_settings,
    limits,
    time_control,
)
from arena.values.sandbox_settings import Sandbox

if TYPE_CHECKING:
    from arena.league.store import Store

_SAID: set[str] = set()

CHANGEABLE: tuple[Setting, ...] = (*TIME_SETTINGS, *LIMIT_SETTINGS, INTERPRETERS, *BUILD_SETTINGS)
"""What ``league config`` may change during a league's life: how its future games are timed and
limited, the installations its sandbox shows, what a submission's build may use."""
FIXED: tuple[Setting, ...] = (GAME, PLAYERS, OPTIONS)
"""What never changes: the games already played under it would no longer be comparable with
those to come (``FIXED_WHY``)."""
FIXED_WHY = ("fixed for the league's life: the games already played under it would no longer be "
             "comparable with those to come (make a new league with arena league init)")


@dataclass(frozen=True)
class LeagueSettings:
    """The game (with its players and options), how its games are played, the deal seed, where
    they are played and how they are rated."""

    game: str
    players: int
    options: dict[str, Any]
    play: PlaySettings = field(default_factory=PlaySettings)
    """The time control, the limits, the fault policy, the sandbox and the installations it shows
    besides the arena's own interpreters (``league init --interpreter``; leagues made before it:
    none)."""
    seed: int = 1
    cluster: str | None = None
    """A Dask scheduler's address where ``league run`` plays its games; None: local workers."""
    rating: RatingModel = DEFAULT_RATING
    """What the league's table rates (``arena.ratings.model``); a league keeps the model it was made
    with, and leagues made before the setting existed keep ``deals``, the default it came with."""
    delta: float = DELTA.default
    """The matchmaker's tie margin (Elo): neighbours whose difference is surely within +-delta
    are a tie and get no more games than settled pairs (``arena.league.matchmaker``)."""
    build: BuildLimits = DEFAULT_BUILD_LIMITS
    """What a submission's build may use (``league init --build-seconds``...; leagues made before
    it: the defaults)."""
    suspend_after: int = SUSPEND_AFTER.default
    """An entrant that failed to start, timed out or crashed in this many games in a row is
    suspended: the matchmaker seats it no more (0: never; ``Games.record``)."""

    @property
    def teams(self) -> tuple[tuple[int, ...], ...] | None:
        """The game's teams (each entrant then plays a team's seats with copies of itself), or None."""
        return engine.game(self.game).info.teams

    @property
    def table_size(self) -> int:
        """Entrants per duplicate set: the players, or the teams."""
        teams = self.teams
        return self.players if teams is None else len(teams)

    @classmethod
    def checked(cls, game: str, players: int | None, options: Mapping[str, object],
                play: PlaySettings = PlaySettings(),  # noqa: B008 (frozen)
                seed: int = 1, cluster: str | None = None,
                rating: str = DEFAULT_RATING.value, delta: float = DELTA.default,
                build: Mapping[str, int] | None = None,
                suspend_after: int = SUSPEND_AFTER.default) -> LeagueSettings:
        """Settings from ``league init``'s options; ConfigError naming the bad option (its
        sandbox and installations checked here: ``--sandbox``, ``--interpreter``). ``build``:
        the build settings by key (``arena.spec.BUILD_SETTINGS``), the defaults for those left
        out."""
        count, resolved = game_settings(game, players, options)
        sandbox = sandbox_mode(play.sandbox, "--sandbox")
        if sandbox is SandboxMode.BWRAP:  # where it cannot run: one line now, not at submit
            choose_sandbox(SandboxMode.BWRAP, "--sandbox")
        if cluster is not None:
            cluster = check_cluster_address(cluster)
        if not (math.isfinite(delta) and delta >= 0):
            raise ConfigError(f"--delta: must be a number of Elo points, 0 or more, got {delta}")
        if suspend_after < 0:
            raise ConfigError(f"--suspend-after: must be a number of games, 0 (never) or more, "
                              f"got {suspend_after}")
        play = replace(play, sandbox=sandbox,
                       interpreters=check_interpreters(play.interpreters, "--interpreter"))
        return cls(game, count, resolved, play, seed, cluster=cluster,
                   rating=check_rating(rating), delta=float(delta),
                   build=build_limits(build or {}), suspend_after=suspend_after)

    def value(self, setting: Setting) -> Any:
        """The value of a setting ``league config`` may change (one of ``CHANGEABLE``)."""
        if setting in TIME_SETTINGS:
            return getattr(self.play.time, setting.field)
        if setting in LIMIT_SETTINGS:
            return getattr(self.play.limits, setting.field)
        if setting in BUILD_SETTINGS:
            return getattr(self.build, setting.field)
        assert setting is INTERPRETERS, setting.key
        return self.play.interpreters

    def changed(self, values: Mapping[str, Any]) -> LeagueSettings:
        """These settings with ``values`` (by key; ``CHANGEABLE``'s only) in place of their own,
        checked by ``checked`` as ``league init``'s are; ConfigError naming the option at fault."""
        unknown = sorted(set(values) - {s.key for s in CHANGEABLE})
        assert not unknown, unknown
        play = replace(self.play, time=time_control(values, self.play.time),
                       limits=limits(values, self.play.limits),
                       interpreters=tuple(values.get(INTERPRETERS.key, self.play.interpreters)))
        build = {s.key: values.get(s.key, self.value(s)) for s in BUILD_SETTINGS}
        return LeagueSettings.checked(self.game, self.players, self.options, play, self.seed,
                                      self.cluster, self.rating.value, self.delta, build,
                                      self.suspend_after)

    def differences(self, other: LeagueSettings) -> list[tuple[str, Any, Any]]:
        """What changes from these settings to ``other``: each changeable setting's key, its
        value here and there (JSON values: an enum's word, a list of directories)."""
        return [(s.key, plain_value(self.value(s)), plain_value(other.value(s))) for s in CHANGEABLE
                if self.value(s) != other.value(s)]

    def bot_sandbox(self, bot_dir: Path) -> Sandbox | None:
        """The sandbox of a bot whose directory is ``bot_dir`` (None: ``none``, or ``auto`` where
        bwrap cannot run, which says so on stderr); ConfigError for ``bwrap`` where it cannot."""
        box, note = choose_sandbox(self.play.sandbox, "league sandbox",
                                   Sandbox(interpreters=self.play.interpreters))
        if note is not None and note not in _SAID:  # once per process, not once per bot
            _SAID.add(note)
            print(f"arena: {note}", file=sys.stderr)
        return None if box is None else replace(box, bot_dir=str(bot_dir))

    def stored(self) -> dict[str, Any]:
        """The settings as the database keeps them (JSON values by key)."""
        play = self.play
        return {"game": self.game, "players": self.players, "options": self.options,
                "sandbox": play.sandbox.value, "seed": self.seed,
                "time_control": {**asdict(play.time), "clock": play.time.clock.value},
                "limits": asdict(play.limits),
                "policy": play.policy.value, "cluster": self.cluster, "rating": self.rating.value,
                "delta": self.delta, "interpreters": list(play.interpreters),
                "build": {s.field: getattr(self.build, s.field) for s in BUILD_SETTINGS},
                "suspend_after": self.suspend_after, "names": play.names.value}

    @classmethod
    def of(cls, store: Store) -> LeagueSettings:
        """The settings of an open league (``from_stored``)."""
        return cls.from_stored(store.database.settings())

    @classmethod
    def from_stored(cls, raw: dict[str, Any]) -> LeagueSettings:
        """The settings a league's database holds (``stored``, as written then); a league created
        before clocks existed keeps the wall clock its games were timed by. (Rules of the stored
        settings; those of the stored games' lines are ``arena.records.upgrade``'s.)"""
        time = {"clock": Clock.WALL.value, **raw["time_control"]}
        time_control = TimeControl(**{**time, "clock": Clock(time["clock"])})
        play = PlaySettings(time_control, Limits(**raw["limits"]), FaultPolicy(raw["policy"]),
                            SandboxMode(raw["sandbox"]), tuple(raw.get("interpreters", ())),
                            NamesShown(raw.get("names", DEFAULT_NAMES.value)))
        return cls(game=raw["game"], players=raw["players"], options=raw["options"], play=play,
                   seed=raw["seed"], cluster=raw.get("cluster"),
                   rating=check_rating(raw.get("rating", RatingModel.DEALS.value), "league rating"),
                   delta=float(raw.get("delta", DELTA.default)),
                   build=replace(DEFAULT_BUILD_LIMITS, **raw.get("build", {})),
                   suspend_after=int(raw.get("suspend_after", SUSPEND_AFTER.default)))


def plain_value(value: Any) -> Any:
    """A setting's value as JSON holds it (an enum's word, a list for a tuple)."""
    if isinstance(value, tuple):
        return list(value)
    return getattr(value, "value", value)
