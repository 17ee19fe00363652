"""Readings and writings that misfired on ordinary English, each a row: the rule called directly, and what it
must give now."""

import pytest
from test_garbled_names import fixes
from test_repeats import join, once

from attention_lab.data.tokenizer import Codec
from attention_lab.text.lexicon import read_words
from attention_lab.text.end_mark import with_end_mark
from attention_lab.text.names import renamed
from attention_lab.text.steps import read_lines
from attention_lab.text.repeats import written_once
from attention_lab.text.steps import written_line


class Ascii(Codec):
    """A vocabulary learnt from ASCII text: a piece per letter, every ASCII character read, no other."""

    def pieces(self, text):
        return list(text.replace(" ", ""))

    def reads(self, char):
        return char.isascii()


def names_written(source: str, output: str) -> str:
    return renamed(output, fixes(source, output))


def read(line: str) -> list[str]:
    return [sentence.text for sentence in read_lines([line], Ascii())]


def digits_once(output: list[str], source: str) -> str:
    return join([output[t] for t in written_once(output, source, join)])


@pytest.mark.parametrize("rule, args, expected", [
    # names.py: the name with a French ending is the word made French, not a garble
    pytest.param(names_written, ("my wife is Nigerian .", "ma femme est nigériane ."), "ma femme est nigériane .",
                 id="nationality-in-french"),
    pytest.param(names_written, ("where is Diego ?", "où est Dégo ?"), "où est Diego ?", id="garbled-name-fixed"),
    pytest.param(names_written, ("where is Romero ?", "où est Romeroro ?"), "où est Romero ?", id="stutter-fixed"),
    pytest.param(names_written, ("where is Tom's ?", "où est Toms ?"), "où est Tom ?", id="possessive-fixed"),
    # end_mark.py
    pytest.param(with_end_mark, ("Should you have any questions, please contact us",),
                 "Should you have any questions, please contact us.", id="inverted-condition"),
    pytest.param(with_end_mark, ("May the force be with you",), "May the force be with you.", id="may-wishes"),
    pytest.param(with_end_mark, ("I'm here (finally)",), "I'm here (finally).", id="bracket-inside"),
    pytest.param(with_end_mark, ('"Where is it"',), '"Where is it?"', id="quote-keeps-its-mark"),
    # A clause after a quote is written as the model wrote it (the verb-first rule did not pay: docs/trust.md)
    pytest.param(lambda text: written_line([text]), ("J'ai dit « oui », il a accepté.",),
                 "J'ai dit « oui », il a accepté.", id="quote-inside-a-clause"),
    # repeats.py
    pytest.param(once, ("J'ai regardé La La Land.", "I watched La La Land."), "J'ai regardé La La Land.",
                 id="source-repeats"),
    pytest.param(digits_once, (["▁Le", "▁numéro", "▁est", "▁", "1", "2", "▁", "1", "2", "."],
                               "The number is 12."), "Le numéro est 12 12.", id="numbers-never-collapsed"),
    # lexicon.py
    pytest.param(read_words, ("As is his wont, he left early.",), "As is his wont, he left early.",
                 id="wont-the-noun"),
    pytest.param(read_words, ("I wont go",), "I won't go", id="wont-the-negation"),
    # data/cleaning.py: the dotted capital I
    pytest.param(read, ("İSTANBUL IS BIG.",), ["Istanbul is big."], id="dotted-capital-i-in-capitals"),
    pytest.param(read, ("İstanbul is big.",), ["Istanbul is big."], id="dotted-capital-i"),
])
def test_the_misfire_is_read_or_written_as_expected(rule, args, expected):
    assert rule(*args) == expected
