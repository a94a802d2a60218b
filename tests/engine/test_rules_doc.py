"""docs/rules.md names every option of every game with its default and its values, as the engine has them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import engine

RULES = Path(__file__).resolve().parents[2] / "docs" / "rules.md"


def section(text: str, title: str) -> str:
    """The part of the page under ``## title``, up to the next heading of that level."""
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", text, re.MULTILINE | re.DOTALL)
    assert match, f"docs/rules.md has no section '## {title}'"
    return match.group(1)


def option_rows(text: str) -> dict[str, list[str]]:
    """The cells of every table row whose first cell is an option name in backquotes."""
    rows = {}
    for line in text.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 4 and re.fullmatch(r"`\w+`", cells[0]):
            rows[cells[0].strip("`")] = cells
    return rows


def words(cell: str) -> set[str]:
    return set(re.findall(r"-?\w+", cell))


@pytest.mark.parametrize("name", sorted(engine.GAMES))
def test_every_option_is_in_the_rules_page_with_its_default_and_values(name: str) -> None:
    info = engine.game(name).info
    rows = option_rows(section(RULES.read_text(), info.title))
    for players in info.player_counts:
        schema = info.options(players)
        assert sorted(rows) == sorted(o.name for o in schema), f"{name}: options in docs/rules.md"
        for option in schema:
            _, values, default, meaning = rows[option.name]
            shown = str(option.default).lower()
            assert shown in words(default), f"{name} {players} players: {option.name} default {shown}"
            assert meaning
            for choice in option.choices:
                assert f"`{choice}`" in values, f"{name}: {option.name} value {choice}"
            if option.type == "int":
                # every integer option is bounded (a total must fit 64 bits): the page says how
                assert option.low is not None and option.high is not None, option.name
                assert all(str(b) in words(values) for b in (option.low, option.high)), \
                    f"{name} {players} players: {option.name} range {option.allowed}"
