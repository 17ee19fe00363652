"""Readings and writings that misfired on ordinary English, each a row: the rule called directly, and what it
must give now."""

import pytest
from test_garbled_names import fixes

from attention_lab.inference.names import renamed


def names_written(source: str, output: str) -> str:
    return renamed(output, fixes(source, output))


@pytest.mark.parametrize("rule, args, expected", [
    # names.py: French that writes every letter of the name and more is the word made French, not a garble
    pytest.param(names_written, ("my wife is Nigerian .", "ma femme est nigériane ."), "ma femme est nigériane .",
                 id="nationality-in-french"),
    pytest.param(names_written, ("where is Diego ?", "où est Dégo ?"), "où est Diego ?", id="garbled-name-fixed"),
])
def test_the_misfire_is_read_or_written_as_expected(rule, args, expected):
    assert rule(*args) == expected
