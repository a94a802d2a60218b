"""What the replays (`arena report`'s viewer, `arena show`) show of the bots' stderr: what each bot
wrote while deciding each of its moves, read from the logs beside the results by their decision
index (``arena.stderrindex``), escaped for a person (``arena.printable``)."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from arena.configfile import read_yaml
from arena.errors import ConfigError
from arena.printable import printable
from arena.records.reader import PLAY_LOG_ID, decision_words
from arena.stderrindex import DROPPED, DecisionLogs, dropped_games


class StderrShown:
    """What the replays show of the bots' stderr: each decision's, from the logs' indexes, or a
    note saying why there is none (a cluster's logs stay on its workers); nothing when no bot
    wrote any."""

    def __init__(self, logs: DecisionLogs, note: str | None,
                 dropped: frozenset[str] = frozenset()) -> None:
        self.logs = logs
        self.note = note
        self.dropped = dropped
        """The games whose per-game logs were dropped for their bots' budgets (a league's)."""

    @classmethod
    def beside(cls, paths: Sequence[str | os.PathLike[str]], extra: Sequence[Path]) -> StderrShown:
        """The logs in ``logs/`` beside each results file (a league's own) and in ``extra``."""
        directories = [*(_results_directory(Path(p)) / "logs" for p in paths), *extra]
        logs = DecisionLogs([log for d in directories for log in DecisionLogs.logs_in(d)])
        note = None
        if not logs and any(_on_cluster(Path(p)) for p in paths):
            note = ("Played on a cluster: the bots' stderr logs stay on its workers "
                    "(docs/cluster.md), so no decision's stderr is shown here.")
        dropped: set[str] = set()
        for directory in directories:
            try:
                dropped.update(*(dropped_games(p.parent) for p in directory.glob(f"*/{DROPPED}")))
            except OSError:
                continue
        return cls(logs, note, frozenset(dropped))

    def of(self, game_id: str, seats: set[int] | None = None,
           record: Mapping[str, Any] | None = None) -> dict[str, Any] | None:
        """The stderr data of game ``game_id`` for its replay (None: nothing to say), of
        ``seats`` only (None: every seat); its note says where a log was cut at its cap, or
        dropped for its bot's budget, rather than show nothing. An ``arena play`` game, read
        with the id ``PLAY_LOG_ID``, was marked with no id. With the game's ``record``, a note
        names a decision within its deal (``deal 3, decision 2``), as the replays number them;
        the data's ``decisions`` keep the game-wide numbers of the records."""
        dropped = None
        if game_id in self.dropped:
            dropped = ("This game's stderr is no longer kept: the league keeps each bot's latest "
                       "games' stderr within a budget, and dropped this game's for newer ones.")
        if not self.logs:
            note = dropped or self.note
            return None if note is None else {"decisions": [], "note": note}
        said = self.logs.texts(game_id)
        cuts = self.logs.cuts.get(game_id, [])
        if not said and game_id == PLAY_LOG_ID:
            said, cuts = self.logs.texts(None), self.logs.cuts.get(None, [])
        notes = [f"Seat {seat}'s stderr was cut at "
                 f"{f'decision {decision}' if record is None else decision_words(record, decision)}"
                 f": its bot wrote more than "
                 f"a game's log keeps, and the rest of this game's was discarded."
                 for seat, decision in sorted(set(cuts)) if seats is None or seat in seats]
        if dropped is not None:
            notes.append(dropped)
        return {"decisions": [[decision, seat, printable(str(text), lines=True)]
                              for decision, seat, text in said if seats is None or seat in seats],
                "note": " ".join(notes) or None}


def _results_directory(path: Path) -> Path:
    return path if path.is_dir() else path.parent


def _on_cluster(path: Path) -> bool:
    """Whether the results' tournament file names a cluster to play on."""
    described = _results_directory(path) / "tournament.yaml"
    try:
        raw = read_yaml(described, "tournament file") if described.is_file() else None
    except ConfigError:
        return False
    return isinstance(raw, dict) and bool(raw.get("cluster"))
