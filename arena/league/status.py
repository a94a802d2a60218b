"""``league status`` and ``league table`` as text: entrants, versions, submissions, games, faults.

Nearly everything ``league status`` shows was written by a submission (names, versions, language,
author, fault details, rejection reasons quoting what a bot sent): each value is made
``printable`` where it enters a line or a cell, so every row of the table stays one line.
"""

from __future__ import annotations

import os
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path

import orjson
from tabulate import tabulate

from arena.errors import ConfigError, ResultsError
from arena.formats import AuditFormat, PlainOrJson, TableFormat
from arena.league.config import LeagueSettings
from arena.league.database import DATABASE, SUBMISSIONS_LOG
from arena.league.deadline import shown
from arena.league.entrants import Bot
from arena.league.finals import Final
from arena.league.leftovers import SUBMIT_LOCK, remove_leftovers
from arena.league.lock import LeagueBusy, league_lock
from arena.league.matchmaker import SETTLED_LOS, Entrant, PairState, pair_states
from arena.league.owners import shown_owners
from arena.league.setting_changes import (
    SettingChange,
    change_json,
    changes_lines,
    recorded_changes,
)
from arena.league.standings import (
    LeagueRatings,
    audit_inputs,
    export_lines,
    league_ratings,
    table_entrant,
)
from arena.league.store import Store
from arena.names import ORGANISER_OWNER
from arena.printable import printable, printable_json
from arena.ratings.audit_text import audit_results
from arena.ratings.table import render_table
from arena.records.reader import EXPORT_DIR, RESULTS_FILE
from arena.records.visible import ANYONE, ORGANISER, visible_detail
from arena.settings import RESAMPLES

GAMES_PLAYED = "games played"
"""What ``league status`` counts of each version: every stored game it played."""
GAMES_RATED = "games rated"
"""What ``league table`` counts of each version: the games its table rates, among the active
versions only (a game that seated a replaced or retired version is not rated there)."""

STATES = ("active", "replaced", "retired")
"""The versions ``league status`` shows: all but the rejected (never stored)."""
RECENT_SUBMISSIONS = 10
RECENT_FAULTS = 3


def league_table(directory: Path, *, fmt: TableFormat = TableFormat.PLAIN,
                 resamples: int = RESAMPLES.default, seed: int = 0,
                 crosstable: bool = False) -> str:
    """The ratings table of the active entrants, named ``NAME@VERSION`` (the model and formats of
    ``arena table``), with a note on the stored games it leaves out (replaced or retired
    versions sat in them). Their owners (``arena.league.owners``): a column when some entrant
    is not the organiser's own, always in JSON."""
    store = Store.open(directory)
    try:
        rated = league_ratings(store, resamples=resamples, seed=seed,
                               model=LeagueSettings.of(store).rating)
        owners = shown_owners(store.owner_names(),
                              [(bot.key, bot.name) for bot in store.entrants.bots()],
                              always=fmt is TableFormat.JSON)
    finally:
        store.close()
    if rated is None:
        raise ResultsError(f"{directory}: no games among the active entrants yet "
                           f"(arena league run plays some)")
    note = rated.left_out.note(directory)
    return render_table(rated.rated, fmt, crosstable=crosstable, notes=() if note is None else (note,),
                        games_column=GAMES_RATED, owners=owners)


def league_audit(directory: Path, *, fmt: AuditFormat = AuditFormat.PLAIN,
                 resamples: int = 200, seed: int = 0) -> str:
    """``league audit``: the collusion audit (``arena.ratings.audit``) of every stored game."""
    store = Store.open(directory)
    try:
        results = audit_inputs(store)
    finally:
        store.close()
    if not results:
        raise ResultsError(f"{directory}: no games yet (arena league run plays some)")
    return audit_results(results, fmt=fmt, resamples=resamples, seed=seed)


def shown_state(bot: Bot) -> str:
    """A version's state as ``league status`` shows it: ``suspended`` for an active version the
    matchmaker no longer seats, else its stored state (active, replaced, retired)."""
    return "suspended" if bot.state == "active" and bot.suspended is not None else bot.state


@dataclass(frozen=True)
class LeagueStatus:
    """What ``league status`` shows of a league, read from its store at once."""

    directory: Path
    settings: LeagueSettings
    bots: list[Bot]
    """Every version but the rejected, the active first, then by name, newest first."""
    games: dict[int, int]
    faults: dict[int, int]
    recent: dict[int, list[tuple[str, str, str]]]
    """Each version's latest faults: ``(game id, kind, detail)``."""
    total: int
    open_sets: int
    sets: dict[int, int]
    rated: LeagueRatings | None
    """The table's fit, for its neighbours (None: no games yet, not ratable yet, or not shown)."""
    unrated: str | None
    """Why the games stored cannot be rated yet (one game of a duplicate set, say), or None."""
    removed: list[str]
    """What interrupted submissions left, removed now."""
    closes: float | None = None
    """When submissions close or closed (``arena.league.deadline``); None: never."""
    final: Final | None = None
    """The league's final (``arena.league.finals``), or None before one started."""
    owners: dict[str, str] | None = None
    """Each entrant's owner by its name (``shown_owners``: ``organiser`` for the organiser's
    own); None: all are the organiser's own."""
    uploaders: dict[tuple[str, str], str] | None = None
    """Who uploaded each version, by ``(name, version)``: the participants' (the others are
    the organiser's ``league submit``)."""
    changes: list[SettingChange] = field(default_factory=list)
    """Every change of the league's settings (``league config``), oldest first."""


@dataclass(frozen=True)
class StatusWriter:
    """How one format writes ``league status``."""

    write: Callable[[LeagueStatus], str]
    rated: bool
    """Whether it shows the table's neighbours: the ratings are fitted only then."""


def league_status(directory: Path, fmt: PlainOrJson = PlainOrJson.PLAIN) -> str:
    """Settings, entrants with their versions, games and recent faults, suspensions, and recent
    submissions; ``fmt`` json: the league's counts and its entrants' versions as data."""
    writer = STATUS_WRITERS[fmt]
    store = Store.open(directory)
    try:
        removed = _tidy(store)
        settings = LeagueSettings.of(store)
        rated, unrated = None, None
        if writer.rated:
            try:
                rated = league_ratings(store, model=settings.rating)
            except ResultsError as error:  # e.g. one game of a set: the status is shown all the same
                unrated = str(error)
        status = LeagueStatus(
            directory=directory, settings=settings,
            bots=store.entrants.bots(STATES),
            games=store.games.counts(), faults=store.games.fault_counts(),
            recent=store.games.recent_faults(RECENT_FAULTS), total=store.games.total(),
            open_sets=len(store.games.open_sets()),
            rated=rated, unrated=unrated, sets=store.games.set_counts(), removed=removed,
            closes=store.deadline.closes(), final=store.finals.current(),
            owners=shown_owners(store.owner_names(), [
                (bot.name, bot.name) for bot in store.entrants.bots(STATES)]),
            uploaders=store.accounts.uploaders(), changes=recorded_changes(store))
    finally:
        store.close()
    status.bots.sort(key=lambda b: (b.state != "active", b.name, -b.submitted))
    return writer.write(status)


def _status_json(status: LeagueStatus) -> str:
    """The league's counts and its entrants' versions as data."""
    settings, games, faults = status.settings, status.games, status.faults
    return printable_json(orjson.dumps({
        "league": str(status.directory), "game": settings.game, "players": settings.players,
        "sandbox": settings.play.sandbox.value, "games": status.total,
        "open_sets": status.open_sets, "suspend_after": settings.suspend_after,
        "build": {"seconds": settings.build.seconds, "cpu_seconds": settings.build.cpu_seconds},
        "settings_changed": [change_json(change) for change in status.changes],
        "closes": None if status.closes is None else shown(status.closes),
        "closed": status.closes is not None and time.time() >= status.closes,
        "final": None if status.final is None else {
            "seed": status.final.seed, "games_asked": status.final.games,
            "games_stored": status.final.played, "started": shown(status.final.started)},
        "entrants": [{"name": bot.name, "version": bot.version, "state": shown_state(bot),
                      "suspended": None if bot.suspended is None else
                      {"reason": bot.suspended, "since": bot.suspended_at},
                      "language": bot.language, "author": bot.author,
                      "owner": (status.owners or {}).get(bot.name, ORGANISER_OWNER),
                      "submitted_by": (status.uploaders or {}).get((bot.name, bot.version),
                                                                    ORGANISER_OWNER),
                      GAMES_PLAYED.replace(" ", "_"): games.get(bot.id, 0),
                      "faults": faults.get(bot.id, 0),
                      "submitted": bot.submitted} for bot in status.bots]},
        option=orjson.OPT_INDENT_2).decode()) + "\n"


def _status_text(status: LeagueStatus) -> str:
    """The status as lines for a person."""
    directory, settings, bots = status.directory, status.settings, status.bots
    games, faults, rated = status.games, status.faults, status.rated
    lines = [f"league {directory}: {settings.game}, {settings.players} players, "
             f"sandbox {settings.play.sandbox.value}, builds up to {settings.build.seconds} s "
             f"({settings.build.cpu_seconds} s of CPU a process); {status.total} "
             f"game{'' if status.total == 1 else 's'} stored, "
             f"{status.open_sets} set{'' if status.open_sets == 1 else 's'} open",
             _deadline_line(status), *_final_lines(status), ""]
    owners = status.owners
    rows = [[*map(printable, (bot.name, bot.version, shown_state(bot), bot.language or "",
                              bot.author or "", *([] if owners is None else [owners[bot.name]]))),
             games.get(bot.id, 0), faults.get(bot.id, 0), _when(bot.submitted)]
            for bot in bots]
    lines.append(tabulate(rows, ["entrant", "version", "state", "language", "author",
                                 *([] if owners is None else ["owner"]), GAMES_PLAYED,
                                 "faults", "submitted"]) if rows else "no entrants yet")
    suspended = [bot for bot in bots if shown_state(bot) == "suspended"]
    if suspended:
        lines += ["", f"suspended (the matchmaker seats them no more; a new version, or arena "
                      f"league reinstate {directory} NAME, lifts it):",
                  *(f"  {printable(bot.key)} since {_when(bot.suspended_at or 0)}: "
                    f"{printable(bot.suspended or '')}" for bot in suspended)]
    pair_lines = _pair_lines(rated, {bot.key: status.sets.get(bot.id, 0) for bot in bots},
                             settings.delta)
    if pair_lines:
        lines += ["", f"neighbours in the table ({settings.rating.value} ratings, as `league table` "
                      f"shows them; settled: LOS >= {100 * SETTLED_LOS:g}%, tie: difference surely "
                      f"within +-{settings.delta:g} Elo; the matchmaker plays open pairs):",
                  *pair_lines]
    if status.unrated is not None:
        lines += ["", f"not rated yet: {printable(status.unrated)}"]
    note = None if rated is None else rated.left_out.note(directory)
    if note is not None:
        lines += ["", printable(note)]
    fault_lines = [f"  {printable(bot.key)}: {printable(kind)} in {printable(game)}: "
                   f"{printable(visible_detail(detail)[:100])}"
                   for bot in bots for game, kind, detail in status.recent.get(bot.id, [])]
    if fault_lines:
        lines += ["", "recent faults:", *fault_lines]
    if status.changes:
        lines += ["", *changes_lines(status.changes)]
    if status.removed:
        lines += ["", "removed what interrupted submissions left (the league never held it):",
                  *(f"  {printable(path)}" for path in status.removed)]
    lines += ["", "recent submissions:"]
    lines += [f"  {line}" for line in _submissions(directory)] or ["  none"]
    return "\n".join(lines) + "\n"


def _deadline_line(status: LeagueStatus) -> str:
    """When submissions close, or that they have (``league close``)."""
    closes = status.closes
    if closes is None:
        return "submissions: open (no close set: arena league close sets one)"
    if time.time() >= closes:
        return f"submissions: closed since {shown(closes)}"
    return f"submissions: open until {shown(closes)}"


def _final_lines(status: LeagueStatus) -> list[str]:
    """The final's progress (``league final``), when one has started."""
    final = status.final
    if final is None:
        return []
    return [f"final: {final.played} games stored ({final.games} asked, deal seed {final.seed}, "
            f"started {shown(final.started)}): arena league table {status.directory} --final"]


STATUS_WRITERS: dict[PlainOrJson, StatusWriter] = {
    PlainOrJson.PLAIN: StatusWriter(_status_text, rated=True),
    PlainOrJson.JSON: StatusWriter(_status_json, rated=False),
}
"""One writer for each format of ``league status``."""


def _pair_lines(rated: LeagueRatings | None, sets: dict[str, int], delta: float) -> list[str]:
    """Each two rated neighbours of one group in the table, with what the matchmaker makes of
    them: from the table's own fit, so its LOS is the table's."""
    if rated is None:
        return []
    rows = zip(rated.rated.ratings.standings, rated.rated.group_of, strict=True)
    lines = []
    for (upper, upper_group), (lower, lower_group) in pairwise(rows):
        if upper_group != lower_group or upper.rating is None or lower.rating is None:
            continue
        pair = [table_entrant(row, sets.get(row.name, 0)) for row in (upper, lower)]
        lines += [_pair_line(*found) for found in pair_states(pair, delta)]
    return lines


def _pair_line(upper: Entrant, lower: Entrant, state: PairState) -> str:
    los = "" if upper.los_next is None else f"LOS {100 * upper.los_next:.1f}%"
    gap = "" if upper.gap_next is None else \
        f"difference {upper.gap_next[0]:+.1f}..{upper.gap_next[1]:+.1f} Elo"
    sign = {PairState.SETTLED: ">", PairState.TIE: "=", PairState.OPEN: "?"}[state]
    detail = ", ".join(part for part in (los, gap) if part)
    return (f"  {printable(upper.key)} {sign} {printable(lower.key)}: {state.value}"
            + (f" ({detail})" if detail else ""))


def _tidy(store: Store) -> list[str]:
    """Remove interrupted submissions' leftovers, unless a submission is storing its bot now (it
    will do it itself)."""
    try:
        with league_lock(store.directory / SUBMIT_LOCK, what="a league submit storing its bot",
                         advice="status tidies up later"):
            return remove_leftovers(store)
    except (LeagueBusy, OSError):  # busy, or a league this user may only read
        return []


def _submissions(directory: Path) -> list[str]:
    path = directory / SUBMISSIONS_LOG
    if not path.exists():
        return []
    entries = []
    for raw in path.read_bytes().splitlines()[-RECENT_SUBMISSIONS:]:
        try:
            entries.append(orjson.loads(raw))
        except orjson.JSONDecodeError:
            continue  # a line cut by a crash: the log is informative only
    lines = []
    for entry in reversed(entries):
        what = (f"accepted {entry['name']} v{entry['version']}" if entry.get("accepted")
                else f"rejected: {entry.get('reason', '')}")
        # Who submitted it and the entrant's owner: logged from schema 7 on (issue 39)
        owned = f", owner {entry['owner']}" if entry.get("accepted") and entry.get("owner") else ""
        by = f" (by {entry['by']})" if entry.get("by") else ""
        said = f"{entry.get('source', '')}: {what}{owned}{by}"
        lines.append(f"{_when(entry.get('at', 0))}  {printable(said)}")
    return lines


def export_games(directory: Path, out: Path, *, force: bool = False,
                 with_stderr: bool = False) -> int:
    """Write every stored game to ``out`` as ``arena run``'s games.jsonl lines; the count.

    An export is made to be handed on (published results, another machine's ``arena table``), so
    it holds what anyone may see (``arena.records.visible``): every fault's ``stderr_tail`` is
    empty, unless ``with_stderr`` (the organiser's own copy, every bot's stderr kept).

    ConfigError for a path inside the league other than its ``export/`` folder (its database, its
    bots: never, even with ``force``), and for an existing file elsewhere unless ``force``. The
    lines go to a temporary file beside ``out``, renamed over it when complete: an interrupted
    export leaves the old file or the new one, never half of one.
    """
    store = Store.open(directory)
    try:
        _check_export_path(store.directory, out, force)
        out.parent.mkdir(parents=True, exist_ok=True)
        temporary = out.parent / f".{out.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
        count = 0
        try:
            with open(os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666), "wb") as handle:
                for line in export_lines(store, ORGANISER if with_stderr else ANYONE):
                    handle.write(line + b"\n")
                    count += 1
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(temporary, out)
        except BaseException:
            temporary.unlink(missing_ok=True)
            raise
    finally:
        store.close()
    return count


def league_games(directory: Path) -> bytes | None:
    """Every game of the league in ``directory`` as ``export --with-stderr`` writes them (one line
    each, each ending in a newline), or None when ``directory`` holds no league: what ``arena
    report`` reads of a league given itself rather than its export (the command hands it to the
    report: ``arena.report.game_records.LeagueGames``). The organiser's view, every bot's stderr kept:
    the report of a league's own directory also shows each decision's stderr from its logs; a
    report to publish is made from an export."""
    if not (directory / DATABASE).is_file():
        return None
    store = Store.open(directory)
    try:
        return b"".join(line + b"\n" for line in export_lines(store, ORGANISER))
    finally:
        store.close()


def _check_export_path(league: Path, out: Path, force: bool) -> None:
    """Refuse to write where the export would destroy what it did not write."""
    target = out.resolve()  # through links: league.db reached by another name is still league.db
    home = league.resolve()
    if target.is_relative_to(home) and not target.is_relative_to(home / EXPORT_DIR):
        raise ConfigError(f"--out {out}: inside the league {league} (its database, bots and logs), "
                          f"which an export never writes: choose a path outside it, or under "
                          f"{league / EXPORT_DIR}/")
    if target.is_dir():
        raise ConfigError(f"--out {out}: is a directory: give the file to write, e.g. "
                          f"{out / RESULTS_FILE}")
    if target.exists() and not target.is_file():  # renaming over it would replace a device node
        raise ConfigError(f"--out {out}: exists and is not a regular file (a device, a pipe...): "
                          f"an export only ever replaces a file")
    if target.exists() and not force and not target.is_relative_to(home / EXPORT_DIR):
        raise ConfigError(f"--out {out}: already exists and the league did not write it: give "
                          f"--force to replace it, or another path")


def _when(timestamp: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(timestamp))
