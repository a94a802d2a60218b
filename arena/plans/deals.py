"""Deal suites: a file of preset deals that a tournament (``deals: FILE``) or a match
(``--deals FILE``) plays in order, instead of the deals its seed would draw (cutechess's openings).

The file (docs/tournaments.md, "Deal suites") is UTF-8 text with one game's chance steps per line,
as JSON in the engine's preset form (``engine.chance.Preset``, what a game record's ``preset``
holds): ``{"dealer": 0, "deals": [{"hands": ["2C 7D AS", ...], "trump_card": "TD"}, ...]}``, one
hand per seat, and the turned card where the rules turn one. A line may give fewer deals than a
game lasts: the later ones are drawn from the game's seed, as without a file. Blank lines and lines
that start with ``#`` are comments. ``arena deals`` writes one from a seed (``suite_text``).

Line ``k`` (counting only the lines that hold deals, from 0) is the deals of the ``k``-th duplicate
set, wrapping round when the sets outnumber the lines: a tournament's sets in schedule order
(round by round, table by table), a match's units in order. Every game of a set (each seat
rotation) gets the same deals, as every game of a set shares its seed without a file.

A run records the file's SHA-256 (``deals_sha256``): a resumed run refuses a file whose content
changed, since its games already played were dealt from the old one.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import engine
from engine.chance import Preset
from engine.errors import PresetError

COMMENT = "#"


@dataclass(frozen=True)
class DealSuite:
    """A deals file, checked against one game: its path (as given), its SHA-256 and its presets.

    Two suites are the same when their content is (``sha256``): the path may move."""

    path: str = field(compare=False)
    sha256: str
    presets: tuple[Preset, ...] = field(compare=False, repr=False)

    def preset_for(self, index: int) -> Preset:
        """The deals of duplicate set (or match unit) ``index`` (0 for the first): the file's
        lines in order, from the first again after the last."""
        return self.presets[index % len(self.presets)]

    def __len__(self) -> int:
        return len(self.presets)


def file_sha256(path: Path) -> str:
    """The SHA-256 of a file's bytes, in hex."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def load_suite(path: str | Path, game: str, players: int, options: Mapping[str, object],
               where: str, sha256: str | None = None) -> DealSuite:
    """The deals file at ``path``, every line checked against ``game`` with ``players`` seats and
    ``options``; ConfigError ``WHERE: FILE: line N: PROBLEM`` on the first bad line (``where``
    names the key or option that gave the file: ``t.yaml: deals``, ``--deals``).

    ``sha256``: the content the caller expects (a run's saved copy pins it); another is refused."""
    from arena.errors import ConfigError

    shown = str(path)
    file = Path(path)
    try:
        content = file.read_bytes()
    except FileNotFoundError:
        raise ConfigError(f"{where}: no such file '{shown}'"
                          f"{_resolved_from(shown)}") from None
    except OSError as error:
        raise ConfigError(f"{where}: {shown}: cannot read: {error.strerror}") from None
    digest = hashlib.sha256(content).hexdigest()
    if sha256 is not None and digest != sha256:
        raise ConfigError(
            f"{where}: {shown} changed since the run started (its SHA-256 was {sha256[:12]}..., "
            f"now {digest[:12]}...): the games played were dealt from the old file; put it back, "
            f"or use --restart or another --out")
    try:
        text = content.decode()
    except UnicodeDecodeError as error:
        bad_line = content[:error.start].count(b"\n") + 1
        raise ConfigError(f"{where}: {shown}: line {bad_line}: not UTF-8 text") from None
    rules = engine.game(game)
    presets = []
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith(COMMENT):
            continue
        try:
            presets.append(_checked(rules, players, options, stripped))
        except (ValueError, PresetError) as error:
            raise ConfigError(f"{where}: {shown}: line {number}: {error}") from None
    if not presets:
        raise ConfigError(f"{where}: {shown}: holds no deals (one game's deals per line, as JSON: "
                          f"see docs/tournaments.md, Deal suites)")
    return DealSuite(shown, digest, tuple(presets))


def _checked(rules: engine.Game, players: int, options: Mapping[str, object], line: str) -> Preset:
    """One line's preset; ValueError or PresetError saying what is wrong with it."""
    try:
        raw = json.loads(line)
    except json.JSONDecodeError as error:
        raise ValueError(f"not JSON: {error.msg} (column {error.colno})") from None
    if not isinstance(raw, dict):
        raise ValueError(f"expected a JSON object {{\"dealer\": ..., \"deals\": [...]}}, got "
                         f"{type(raw).__name__}")
    try:
        preset = Preset.parse(raw)
        rules.new_game(players, 0, options, preset=preset)  # the rules check every deal given
    except PresetError as error:
        raise PresetError(str(error).removeprefix("preset: ").removeprefix("preset ")) from None
    if not preset.deals:
        raise ValueError("no deals (\"deals\": [] or missing)")
    return preset


def _resolved_from(path: str) -> str:
    """Where a relative path was looked for, the way every file of a run says it."""
    from arena.configfile import resolved_from

    return resolved_from(path, Path.cwd())


def suite_text(game: str, players: int, options: Mapping[str, object], count: int, seed: int,
               game_deals: int | None = None) -> str:
    """A deals file of ``count`` games dealt from ``seed`` (each game's from a seed derived from
    it), every game's deals or its first ``game_deals``; a comment line first says how it was
    made."""
    from engine.seeding import derive_seed

    rules = engine.game(game)
    lines = [f"{COMMENT} arena deals {game} --players {players} --count {count} --seed {seed}"
             + (f" --game-deals {game_deals}" if game_deals is not None else "")
             + "".join(f" -o {name}={_option(value)}" for name, value in sorted(options.items()))
             + ": one game's deals per line (docs/tournaments.md, Deal suites)"]
    for index in range(count):
        preset = rules.drawn_preset(players, derive_seed(seed, "deal-suite", index), options,
                                    game_deals)
        lines.append(json.dumps(_compact(preset), separators=(",", ":")))
    return "\n".join(lines) + "\n"


def _compact(preset: Preset) -> dict[str, Any]:
    """A preset's JSON with each hand as one string of card names (``"2C 7D AS"``)."""
    return {"dealer": preset.dealer,
            "deals": [{"hands": [" ".join(map(str, hand)) for hand in deal.hands],
                       "trump_card": None if deal.trump_card is None else str(deal.trump_card)}
                      for deal in preset.deals]}


def _option(value: object) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def pinned_copy(content: bytes, suite: DealSuite | None) -> bytes:
    """A tournament file's text for the run's saved copy, with ``deals_sha256`` added as the last
    key when it has a deals file and does not pin it already: a resumed run then refuses a deals
    file whose content changed (``load_suite``). A file the line cannot be added to (a flow-style
    mapping) is written out again as YAML with the key."""
    import yaml

    from arena.configfile import with_key_added

    text = content.decode(errors="replace")
    raw = yaml.safe_load(text)
    if suite is None or not isinstance(raw, dict) or raw.get("deals_sha256") is not None:
        return content
    return with_key_added(content, "deals_sha256", suite.sha256,
                          "the content of the deals file these games are dealt from")
