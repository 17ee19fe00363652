"""Normalize: a sentence's words written as the corpus writes them, each by one lexicon or reading of its own
(measured in docs/trust.md): contractions with their apostrophe (`dont` as `don't`, text/contractions.py),
American spellings (`colour` as `color`, text/spelling.py), shorthand in words (`&` as `and`,
text/shorthand.py), amounts with the currency's name (`$20` as `20 dollars`, text/currency.py), units named
(`5 km` as `5 kilometers`, text/units.py) and times with a colon (`at 10.30` as `at 10:30`,
text/number_forms.py). The translation keeps the French the model writes for them: nothing to give back."""

from __future__ import annotations

from attention_lab.text.contractions import with_apostrophes
from attention_lab.text.currency import with_currency_names
from attention_lab.text.number_forms import read_times
from attention_lab.text.record import Context, Draft, Sentence
from attention_lab.text.shorthand import spelt_out
from attention_lab.text.spelling import american
from attention_lab.text.units import with_unit_names


def as_the_corpus_writes(sentence: str, recased: bool = False) -> str:
    """`sentence` with its contractions, spellings, shorthand, amounts, units and times as the corpus writes
    them; `recased`: typed in capitals or Title Case and sentence-cased (text/contractions.py)."""
    return read_times(with_unit_names(with_currency_names(spelt_out(american(with_apostrophes(sentence, recased))))))


class Normalize:
    name = "normalize"

    def read(self, sentence: Sentence, context: Context) -> Sentence:
        recased = sentence.record["truecase"] in ("upper", "title")
        return sentence.read(self, as_the_corpus_writes(sentence.text, recased))

    def write(self, draft: Draft, sentence: Sentence, context: Context) -> Draft:
        return draft
