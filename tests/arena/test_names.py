"""When two names are one: the key every comparison of bot and entrant names goes through."""

from __future__ import annotations

import pytest

from arena.names import NAME, name_key, same_name


@pytest.mark.parametrize("spelling", ["OKONE", "okone", "okone.", "OkOne. .", "okone  ",
                                      "\uff2f\uff2b\uff2f\uff2e\uff25",  # fullwidth OKONE (NFKC)
                                      "o\u212aone"])  # KELVIN SIGN: K after NFKC
def test_spellings_of_one_name_have_one_key(spelling: str) -> None:
    assert name_key(spelling) == name_key("okone") == "okone"


@pytest.mark.parametrize(("one", "other"), [("okone", "okone2"), ("ok-one", "ok_one"),
                                            ("ok.one", "okone"), (".okone", "okone")])
def test_different_names_keep_different_keys(one: str, other: str) -> None:
    assert name_key(one) != name_key(other)


@pytest.mark.parametrize("name", ["Stra\u00dfe", "\u1e9b\u0323", "\u01c4", "I\u0307", "\ufb01x."])
def test_the_key_of_a_key_is_itself(name: str) -> None:
    assert name_key(name_key(name)) == name_key(name)


def test_same_name_finds_the_other_spelling_and_nothing_else() -> None:
    assert same_name("OKONE", ["greedy", "okone", "OkOne"]) == "okone"
    assert same_name("okone", ["greedy", "okone2"]) is None


def test_a_valid_name_is_never_only_dots() -> None:
    """A name starts with a letter or digit, so no valid name has an empty key."""
    assert not NAME.fullmatch("...") and name_key("a...") == "a"
