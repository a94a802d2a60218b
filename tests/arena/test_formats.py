"""The output formats: each set parsed from ``--format`` with a one-line error, and each output's
writers, one per format of its set and no other."""

from __future__ import annotations

import pytest

from arena.cli.analyse import WRITERS as ANALYSE_WRITERS
from arena.cli.league import INVITE_WRITERS
from arena.errors import ConfigError
from arena.formats import OutputFormat, PlainOrJson, TableFormat, TextOrJson
from arena.league.status import STATUS_WRITERS
from arena.plans.preview import WRITERS as PREVIEW_WRITERS
from arena.ratings.table import WRITERS as TABLE_WRITERS


@pytest.mark.parametrize(("formats", "writers"), [
    (TableFormat, TABLE_WRITERS), (PlainOrJson, STATUS_WRITERS), (PlainOrJson, PREVIEW_WRITERS),
    (PlainOrJson, INVITE_WRITERS), (TextOrJson, ANALYSE_WRITERS)])
def test_every_output_has_one_writer_for_each_of_its_formats(formats: type[OutputFormat],
                                                              writers: dict) -> None:
    assert list(writers) == list(formats)


def test_a_format_parses_from_its_name_and_an_unknown_one_is_one_line() -> None:
    assert TableFormat.parse("csv") is TableFormat.CSV
    assert TextOrJson.parse("json") is TextOrJson.JSON
    with pytest.raises(ConfigError, match=r"^--format: 'xml' is not one of plain, github, csv, "
                                          r"json, html$"):
        TableFormat.parse("xml")
    with pytest.raises(ConfigError, match=r"^--format: 'plain' is not one of text, json$"):
        TextOrJson.parse("plain")


def test_the_choices_in_words() -> None:
    assert TableFormat.listed() == "plain, github, csv, json or html"
    assert PlainOrJson.listed() == "plain or json"
